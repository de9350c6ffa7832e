/* Stricter reading of numeric and boolean options, for every reader in the pbsim executable (pbsim's
 * scenes and solvers, and PETSc's own objects alike).
 *
 * PETSc 3.18's readers accept what a user did not mean: `-steps 4294967299` is read with strtol and
 * cast to a 32-bit PetscInt (3 steps), `-dt` with no value leaves the default as if it were not
 * given, `-gravity 0,nan,0` and `-dt inf` are read as numbers, `-gravity 0,-9.8,0,1` silently drops
 * the fourth value, and a malformed value is an error that does not name the option. These
 * definitions of PetscOptionsGet{Int,Real,IntArray,RealArray,Bool} are found before libpetsc's
 * (the executable's symbols come first, and PETSc calls them through the PLT, also from
 * PetscOptionsInt() & co. inside PetscOptionsBegin/End): each checks the value in the database and
 * raises an error naming the option (and the config line it came from), then calls PETSc's own
 * function, which finds the value valid and reads it as before. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <petscsys.h>
#include "cli/options_guard.h"

static struct {
  const SimConfig *cfg;
  int nkeys;
  const char *const *keys;
} origin;

void PbsimOptionsGuardSetOrigin(const SimConfig *cfg, int nkeys, const char *const *keys)
{
  origin.cfg = cfg;
  origin.nkeys = nkeys;
  origin.keys = keys;
}

/* "-<pre><name>" and, when the config set it, " (CONFIG:LINE)". */
static void Describe(const char *pre, const char *name, char *opt, size_t olen, char *where, size_t wlen)
{
  const SimConfigEntry *e;
  int given = 0;

  snprintf(opt, olen, "-%s%s", pre ? pre : "", name[0] == '-' ? name + 1 : name);
  where[0] = 0;
  for (int k = 0; k < origin.nkeys && !given; k++) given = !strcasecmp(origin.keys[k], opt);
  if (!given && (e = SimConfigFind(origin.cfg, opt))) snprintf(where, wlen, " (%s:%d)", origin.cfg->path, e->line);
}

/* PETSc's words for default values: PETSC_DEFAULT, DECIDE ... (and "mouse" for integers). */
static PetscBool IsSpecialWord(const char *s, PetscBool integer)
{
  return (PetscBool)(!strcasecmp(s, "PETSC_DEFAULT") || !strcasecmp(s, "DEFAULT") || !strcasecmp(s, "PETSC_DECIDE") || !strcasecmp(s, "DECIDE") ||
                     (integer && !strcasecmp(s, "mouse")));
}

/* One integer, all of s (as PETSc's strtol check), within PetscInt's range. */
static PetscErrorCode CheckInteger(const char *opt, const char *where, const char *s, PetscInt64 *v)
{
  char *end;
  long long x;

  PetscFunctionBegin;
  errno = 0;
  x = strtoll(s, &end, 10);
  PetscCheck(s[0] && end != s && !*end, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s: '%s' is not an integer%s", opt, s, where);
  PetscCheck(errno != ERANGE && x >= PETSC_MIN_INT && x <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Option %s: %s is out of range (an integer option holds %d .. %d)%s", opt, s, (int)PETSC_MIN_INT, (int)PETSC_MAX_INT, where);
  if (v) *v = x;
  PetscFunctionReturn(0);
}

/* One finite number, all of s (as PETSc's strtod check). */
static PetscErrorCode CheckReal(const char *opt, const char *where, const char *s)
{
  char *end;
  double x;

  PetscFunctionBegin;
  if (IsSpecialWord(s, PETSC_FALSE)) PetscFunctionReturn(0);
  errno = 0;
  x = strtod(s, &end);
  PetscCheck(s[0] && end != s && !*end, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s: '%s' is not a number%s", opt, s, where);
  PetscCheck(!isnan(x), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: '%s' is not a finite number%s", opt, s, where);
  PetscCheck(!isinf(x), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: '%s' is not a finite number%s", opt, s, where);
  PetscFunctionReturn(0);
}

/* The comma-separated items of value, each checked; an item "a-b" of an integer list is PETSc's
 * range a, a+1, ..., b-1. More values than the reader's array holds is an error, not a truncation. */
static PetscErrorCode CheckList(const char *opt, const char *where, const char *value, PetscBool integer, PetscInt nmax)
{
  char *copy, *tok, *next;
  PetscInt64 n = 0;
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  PetscCall(PetscStrallocpy(value, &copy));
  for (tok = copy; tok && !ierr; tok = next) {
    char *dash;
    if ((next = strchr(tok, ','))) *next++ = 0;
    if (!tok[0]) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_ARG_WRONG, PETSC_ERROR_INITIAL,
                        "Option %s: '%s' has an empty item%s", opt, value, where);
      break;
    }
    dash = integer && strlen(tok) > 1 ? strchr(tok + (tok[0] == '-' ? 2 : 1), '-') : NULL;
    if (integer && dash) {
      PetscInt64 a, b;
      *dash = 0;
      ierr = CheckInteger(opt, where, tok, &a);
      if (!ierr) ierr = CheckInteger(opt, where, dash + 1, &b);
      if (!ierr) n += b > a ? b - a : 1;
    } else if (integer) {
      if (!IsSpecialWord(tok, PETSC_TRUE)) ierr = CheckInteger(opt, where, tok, NULL);
      n++;
    } else {
      ierr = CheckReal(opt, where, tok);
      n++;
    }
  }
  PetscCall(PetscFree(copy));
  PetscCall(ierr);
  PetscCheck(n <= nmax, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Option %s takes at most %" PetscInt_FMT " value%s (got %lld: '%s')%s", opt, nmax,
             nmax == 1 ? "" : "s", (long long)n, value, where);
  PetscFunctionReturn(0);
}

/* The value of the option, and how to name it; *found is false when it is not set. */
static PetscErrorCode Find(PetscOptions options, const char pre[], const char name[], const char **value, PetscBool *found, char *opt, size_t olen,
                           char *where, size_t wlen)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsFindPair(options, pre, name, value, found));
  Describe(pre, name, opt, olen, where, wlen);
  PetscFunctionReturn(0);
}

#define NEXT(fn, type) \
  static type next_##fn; \
  if (!next_##fn) *(void **)(&next_##fn) = dlsym(RTLD_NEXT, #fn); \
  PetscCheck(next_##fn, PETSC_COMM_SELF, PETSC_ERR_LIB, "pbsim: cannot find PETSc's " #fn)

typedef PetscErrorCode (*GetIntFn)(PetscOptions, const char[], const char[], PetscInt *, PetscBool *);
typedef PetscErrorCode (*GetRealFn)(PetscOptions, const char[], const char[], PetscReal *, PetscBool *);
typedef PetscErrorCode (*GetBoolFn)(PetscOptions, const char[], const char[], PetscBool *, PetscBool *);
typedef PetscErrorCode (*GetIntArrayFn)(PetscOptions, const char[], const char[], PetscInt[], PetscInt *, PetscBool *);
typedef PetscErrorCode (*GetRealArrayFn)(PetscOptions, const char[], const char[], PetscReal[], PetscInt *, PetscBool *);

PetscErrorCode PetscOptionsGetInt(PetscOptions options, const char pre[], const char name[], PetscInt *ivalue, PetscBool *set)
{
  const char *value;
  PetscBool found;
  char opt[300], where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  NEXT(PetscOptionsGetInt, GetIntFn);
  PetscCall(Find(options, pre, name, &value, &found, opt, sizeof(opt), where, sizeof(where)));
  if (found) {
    PetscCheck(value, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s has no value (an integer is expected)%s", opt, where);
    if (!IsSpecialWord(value, PETSC_TRUE)) PetscCall(CheckInteger(opt, where, value, NULL));
  }
  PetscCall(next_PetscOptionsGetInt(options, pre, name, ivalue, set));
  PetscFunctionReturn(0);
}

PetscErrorCode PetscOptionsGetReal(PetscOptions options, const char pre[], const char name[], PetscReal *dvalue, PetscBool *set)
{
  const char *value;
  PetscBool found;
  char opt[300], where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  NEXT(PetscOptionsGetReal, GetRealFn);
  PetscCall(Find(options, pre, name, &value, &found, opt, sizeof(opt), where, sizeof(where)));
  if (found) {
    PetscCheck(value, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s has no value (a number is expected)%s", opt, where);
    PetscCall(CheckReal(opt, where, value));
  }
  PetscCall(next_PetscOptionsGetReal(options, pre, name, dvalue, set));
  PetscFunctionReturn(0);
}

PetscErrorCode PetscOptionsGetBool(PetscOptions options, const char pre[], const char name[], PetscBool *ivalue, PetscBool *set)
{
  static const char *const words[] = {"true", "yes", "1", "on", "false", "no", "0", "off"};
  const char *value;
  PetscBool found, known = PETSC_FALSE;
  char opt[300], where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  NEXT(PetscOptionsGetBool, GetBoolFn);
  PetscCall(Find(options, pre, name, &value, &found, opt, sizeof(opt), where, sizeof(where)));
  if (found && value && value[0]) {
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && !known; i++) known = (PetscBool)!strcasecmp(value, words[i]);
    PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s: '%s' is not a boolean (true or false)%s", opt, value, where);
  }
  PetscCall(next_PetscOptionsGetBool(options, pre, name, ivalue, set));
  PetscFunctionReturn(0);
}

PetscErrorCode PetscOptionsGetIntArray(PetscOptions options, const char pre[], const char name[], PetscInt ivalue[], PetscInt *nmax, PetscBool *set)
{
  const char *value;
  PetscBool found;
  char opt[300], where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  NEXT(PetscOptionsGetIntArray, GetIntArrayFn);
  PetscCall(Find(options, pre, name, &value, &found, opt, sizeof(opt), where, sizeof(where)));
  if (found) {
    PetscCheck(value, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s has no value (a list of integers is expected)%s", opt, where);
    PetscCall(CheckList(opt, where, value, PETSC_TRUE, *nmax));
  }
  PetscCall(next_PetscOptionsGetIntArray(options, pre, name, ivalue, nmax, set));
  PetscFunctionReturn(0);
}

PetscErrorCode PetscOptionsGetRealArray(PetscOptions options, const char pre[], const char name[], PetscReal dvalue[], PetscInt *nmax, PetscBool *set)
{
  const char *value;
  PetscBool found;
  char opt[300], where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  NEXT(PetscOptionsGetRealArray, GetRealArrayFn);
  PetscCall(Find(options, pre, name, &value, &found, opt, sizeof(opt), where, sizeof(where)));
  if (found) {
    PetscCheck(value, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Option %s has no value (a list of numbers is expected)%s", opt, where);
    PetscCall(CheckList(opt, where, value, PETSC_FALSE, *nmax));
  }
  PetscCall(next_PetscOptionsGetRealArray(options, pre, name, dvalue, nmax, set));
  PetscFunctionReturn(0);
}
