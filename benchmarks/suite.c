/* Reading a suite file: YAML -> a private PETSc options database -> checked cases (see suite.h).
 * PETSc's YAML reader flattens nested maps into prefixed options (`case: {dt: 0.01}` is
 * `-case_dt 0.01`) and sequences into comma-separated values, so a case's keys are the options
 * under the prefix "<case>_". */
#include <math.h>
#include "framework/text.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchmarks/suite.h"
#include "framework/config.h"

/* The metrics as data: name and the keys a case of that metric reads besides the common ones. */
static const struct {
  const char *name;
  const char *keys;
} metrics[BENCH_NMETRICS] = {
    [BENCH_CONVERGENCE] = {"convergence", "dt, t_end, refinements, reference, ode_rtol, ode_atol"},
    [BENCH_ENERGY] = {"energy", "dt, t_end or steps, samples"},
    [BENCH_STABILITY] = {"stability", "t_end, dt_min, dt_max, dt_start, growth, threshold, bisect_rtol, max_its"},
    [BENCH_SOLVER] = {"solver", "dt, t_end or steps, plot_step, gap_target"},
    [BENCH_PERFORMANCE] = {"performance", "dt, t_end or steps, stream_mb"},
    [BENCH_SPATIAL] = {"spatial", "dt, t_end or steps, figure, size, refine_dt"},
    [BENCH_OSCILLATION] = {"oscillation", "dt, t_end or steps, signal, reference, ode_rtol, ode_atol, samples"},
    [BENCH_WORK_PRECISION] = {"work_precision", "dt, t_end, reference, ode_rtol, ode_atol, samples, repeats, accuracy"},
    [BENCH_POISSON] = {"poisson", "repeats, stream_mb"},
    [BENCH_STREAM] = {"stream", "mb, repeats"},
    [BENCH_SCALING] = {"scaling", "inner, ranks, mode, stream, mpirun"},
};
static const char common_keys[] = "metric, title, options, sweep_<option>";
static const char top_keys[] = "suite, title, options, cases, table, table_<column>, figure_style";

const char *BenchMetricName(BenchMetric m)
{
  return (m >= 0 && m < BENCH_NMETRICS) ? metrics[m].name : "?";
}

typedef struct {
  const char *path;
  PetscOptions db;
  PetscInt nkeys;
  char **keys; /* every option of the file, without the dash */
  BenchSuite *suite;
} Loader;

/* Reads `key` of case `c` (NULL: a top-level key) as a string; buf is unchanged when the key is
 * absent (it holds the default); too long a value is an error. */
static PetscErrorCode GetString(Loader *L, const char *c, const char *key, char *buf, size_t len, PetscBool *set)
{
  char prefix[80], name[80];
  size_t n;
  PetscBool has;

  PetscFunctionBeginUser;
  if (c) PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", c));
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", key));
  PetscCall(PetscOptionsHasName(L->db, c ? prefix : NULL, name, &has));
  if (set) *set = has;
  if (!has) PetscFunctionReturn(0);
  buf[0] = 0;
  PetscCall(PetscOptionsGetString(L->db, c ? prefix : NULL, name, buf, len, NULL));
  PetscCall(PetscStrlen(buf, &n));
  PetscCheck(n + 1 < len, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: %s%s%skey '%s' is too long (at most %d characters)", L->path,
             c ? "case '" : "", c ? c : "", c ? "': " : "", key, (int)len - 2);
  PetscFunctionReturn(0);
}

static PetscErrorCode GetReal(Loader *L, const char *c, const char *key, PetscBool required, PetscReal *v, PetscBool *set)
{
  char buf[256], *end;
  PetscBool has;
  double d;

  PetscFunctionBeginUser;
  PetscCall(GetString(L, c, key, buf, sizeof(buf), &has));
  if (set) *set = has;
  PetscCheck(has || !required, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s' needs the key '%s'", L->path, c, key);
  if (!has) PetscFunctionReturn(0);
  errno = 0;
  d = strtod(buf, &end);
  while (*end == ' ') end++;
  PetscCheck(end != buf && !*end && !errno && (PetscIsNormalReal(d) || d == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': key '%s' must be a number (got '%s')", L->path, c, key, buf);
  *v = d;
  PetscFunctionReturn(0);
}

static PetscErrorCode GetInt(Loader *L, const char *c, const char *key, PetscInt *v, PetscBool *set)
{
  PetscReal r = *v;

  PetscFunctionBeginUser;
  PetscCall(GetReal(L, c, key, PETSC_FALSE, &r, set));
  PetscCheck(r == PetscFloorReal(r) && PetscAbsReal(r) < 1e9, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': key '%s' must be an integer (got %.6g)", L->path, c, key, (double)r);
  *v = (PetscInt)r;
  PetscFunctionReturn(0);
}

/* The case whose name, followed by '_', is the longest prefix of key; -1 if none. */
static PetscInt Owner(Loader *L, const char *key)
{
  PetscInt best = -1;
  size_t bestlen = 0;

  for (PetscInt i = 0; i < L->suite->ncases; i++) {
    const char *name = L->suite->cases[i].name;
    size_t n = strlen(name);
    if (n > bestlen && !strncmp(key, name, n) && key[n] == '_') best = i, bestlen = n;
  }
  return best;
}

/* Splits "label=value" (or a bare value, which is also its label) into fresh strings. */
static PetscErrorCode SplitSweepValue(Loader *L, const char *c, const char *item, char **label, char **value)
{
  const char *eq = strchr(item, '='), *space = strchr(item, ' ');
  char buf[BENCH_LABEL_LEN];

  PetscFunctionBeginUser;
  if (eq && (!space || eq < space)) {
    PetscCheck(eq > item && eq[1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s': sweep value '%s' must be LABEL=VALUE with both parts", L->path, c, item);
    PetscCheck((size_t)(eq - item) < sizeof(buf), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "%s: case '%s': sweep label in '%s' is too long", L->path, c, item);
    PetscCall(PetscStrncpy(buf, item, (size_t)(eq - item) + 1));
    PetscCall(PetscStrallocpy(buf, label));
    PetscCall(PetscStrallocpy(eq + 1, value));
  } else {
    PetscCheck(strlen(item) < sizeof(buf), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "%s: case '%s': sweep value '%s' is too long for a label: write LABEL=VALUE", L->path, c, item);
    PetscCall(PetscStrallocpy(item, label));
    PetscCall(PetscStrallocpy(item, value));
  }
  PetscCheck(!strpbrk(*label, "\"\\,|"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': sweep label '%s' may not contain \" \\ , or |", L->path, c, *label);
  PetscFunctionReturn(0);
}

/* A number that is a time key (dt, t_end: > 0; steps: a positive integer). */
static PetscErrorCode ParseTimeKey(Loader *L, const char *c, const char *label, const char *key, const char *text, PetscReal *v)
{
  char *end;
  double d;

  PetscFunctionBeginUser;
  errno = 0;
  d = strtod(text, &end);
  PetscCheck(end != text && !*end && !errno && d > 0 && PetscIsNormalReal(d) && (strcmp(key, "steps") || d == floor(d)),
             PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': sweep value '%s': %s must be a positive %s (got '%s')", L->path, c,
             label, key, strcmp(key, "steps") ? "number" : "integer", text);
  *v = d;
  PetscFunctionReturn(0);
}

/* The time keys of a sweep value: the whole value for a sweep of dt, t_end or steps; otherwise any
 * `-dt X`, `-t_end X`, `-steps N` inside it, which are taken out of what the run gets (the harness
 * sets the run's -dt and -steps itself, last, so they would be overridden). */
static PetscErrorCode SplitTimeKeys(Loader *L, const char *c, BenchSweep *s, PetscInt v)
{
  static const char *keys[3] = {"dt", "t_end", "steps"};
  char copy[4096], run[4096] = "", *save = NULL;
  PetscReal x;

  PetscFunctionBeginUser;
  s->dt[v] = s->t_end[v] = 0;
  s->steps[v] = 0;
  for (int k = 0; k < 3; k++)
    if (!strcmp(s->option, keys[k])) {
      PetscCall(ParseTimeKey(L, c, s->label[v], keys[k], s->value[v], &x));
      if (k == 0) s->dt[v] = x;
      else if (k == 1) s->t_end[v] = x;
      else s->steps[v] = (PetscInt)x;
      s->run[v] = NULL;
      PetscFunctionReturn(0);
    }
  PetscCall(PetscStrncpy(copy, s->value[v], sizeof(copy)));
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    int k;
    for (k = 0; k < 3; k++)
      if (tok[0] == '-' && !strcmp(tok + 1, keys[k])) break;
    if (k < 3) {
      char *val = strtok_r(NULL, " ", &save);
      PetscCheck(val, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': sweep value '%s': -%s needs a value", L->path, c,
                 s->label[v], keys[k]);
      PetscCall(ParseTimeKey(L, c, s->label[v], keys[k], val, &x));
      if (k == 0) s->dt[v] = x;
      else if (k == 1) s->t_end[v] = x;
      else s->steps[v] = (PetscInt)x;
      continue;
    }
    PetscCall(SimStrAppendItem(run, " ", tok, sizeof(run)));
  }
  PetscCheck(run[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': sweep value '%s' of sweep_%s has no value for -%s", L->path,
             c, s->label[v], s->option, s->option);
  PetscCheck(!(s->t_end[v] > 0 && s->steps[v] > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': sweep value '%s' gives both -t_end and -steps", L->path, c, s->label[v]);
  PetscCall(PetscStrallocpy(run, &s->run[v]));
  PetscFunctionReturn(0);
}

/* Every `<case>_sweep_<option>` key of case ci becomes a sweep. */
static PetscErrorCode ReadSweeps(Loader *L, PetscInt ci)
{
  BenchCase *c = &L->suite->cases[ci];
  char prefix[80], list[4096];
  size_t plen;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_sweep_", c->name));
  plen = strlen(prefix);
  for (PetscInt k = 0; k < L->nkeys; k++) {
    BenchSweep *s;
    char key[80], *save = NULL;

    if (strncmp(L->keys[k], prefix, plen) || Owner(L, L->keys[k]) != ci) continue;
    PetscCheck(c->nsweeps < BENCH_MAX_SWEEPS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: case '%s' has more than %d sweeps",
               L->path, c->name, BENCH_MAX_SWEEPS);
    s = &c->sweep[c->nsweeps++];
    PetscCall(PetscStrncpy(s->option, L->keys[k] + plen, sizeof(s->option)));
    PetscCheck(s->option[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s': a sweep key is sweep_<option>, e.g. sweep_solver", L->path, c->name);
    PetscCall(PetscSNPrintf(key, sizeof(key), "sweep_%s", s->option));
    PetscCall(GetString(L, c->name, key, list, sizeof(list), NULL));
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
      while (*item == ' ') item++;
      for (char *e = item + strlen(item); e > item && e[-1] == ' ';) *--e = 0;
      if (!*item) continue;
      PetscCheck(s->n < BENCH_MAX_SWEEP_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                 "%s: case '%s': key '%s' has more than %d values", L->path, c->name, key, BENCH_MAX_SWEEP_VALUES);
      PetscCall(SplitSweepValue(L, c->name, item, &s->label[s->n], &s->value[s->n]));
      PetscCall(SplitTimeKeys(L, c->name, s, s->n));
      s->n++;
    }
    PetscCheck(s->n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': key '%s' lists no values", L->path, c->name, key);
  }
  PetscFunctionReturn(0);
}

/* dt, t_end / steps: each metric's time keys. */
static PetscErrorCode ReadTimeKeys(Loader *L, BenchCase *c)
{
  PetscBool has_t, has_steps;
  const char *n = c->name;

  PetscFunctionBeginUser;
  if (c->metric != BENCH_STABILITY) {
    PetscBool has_dt;
    PetscCall(GetReal(L, n, "dt", PETSC_FALSE, &c->dt, &has_dt));
    PetscCheck(!has_dt || c->dt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: case '%s': dt must be > 0 (got %.6g)", L->path, n,
               (double)c->dt);
  }
  PetscCall(GetReal(L, n, "t_end", PETSC_FALSE, &c->t_end, &has_t));
  has_steps = PETSC_FALSE;
  if (c->metric != BENCH_CONVERGENCE && c->metric != BENCH_STABILITY) PetscCall(GetInt(L, n, "steps", &c->steps, &has_steps));
  PetscCheck(!(has_t && has_steps), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': give 't_end' or 'steps', not both",
             L->path, n);
  PetscCheck(!has_t || c->t_end > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: case '%s': t_end must be > 0 (got %.6g)",
             L->path, n, (double)c->t_end);
  PetscCheck(!has_steps || c->steps > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "%s: case '%s': steps must be > 0 (got %" PetscInt_FMT ")", L->path, n, c->steps);
  PetscFunctionReturn(0);
}

/* Every sweep point has the time keys its metric needs (the case's keys or its sweeps'). */
static PetscErrorCode CheckPointTimes(Loader *L, BenchCase *c)
{
  const char *n = c->name;
  const PetscBool stab = (PetscBool)(c->metric == BENCH_STABILITY), conv = (PetscBool)(c->metric == BENCH_CONVERGENCE);

  PetscFunctionBeginUser;
  if (c->metric >= BENCH_POISSON) PetscFunctionReturn(0);
  for (PetscInt s = 0; s < c->nsweeps; s++)
    for (PetscInt v = 0; v < c->sweep[s].n; v++) {
      PetscCheck(!stab || !(c->sweep[s].dt[v] > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: case '%s' (metric stability) searches dt itself: sweep value '%s' may not set dt", L->path, n, c->sweep[s].label[v]);
      PetscCheck(!(stab || conv) || !c->sweep[s].steps[v], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: case '%s' (metric %s) needs t_end, not steps (sweep value '%s')", L->path, n, BenchMetricName(c->metric),
                 c->sweep[s].label[v]);
    }
  for (PetscInt i = 0; i < BenchCaseNumPoints(c); i++) {
    BenchPointTime pt;
    char label[BENCH_LABEL_LEN], opts[8];
    PetscCall(BenchCasePointTime(c, i, &pt));
    PetscCall(BenchCasePoint(c, i, label, sizeof(label), opts, 0));
    PetscCheck(stab || pt.dt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s' needs the key 'dt' (or sweep_dt, or -dt in every value of a sweep): point '%s' has none", L->path, n, label);
    PetscCheck(pt.t_end > 0 || pt.steps > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s' (metric %s) needs the key 't_end'%s%s%s",
               L->path, n, BenchMetricName(c->metric), stab || conv ? "" : " or 'steps'", c->nsweeps ? ": point " : "", c->nsweeps ? label : "");
    if (c->metric == BENCH_WORK_PRECISION) {
      /* the error is taken at every (steps / samples)-th step */
      PetscInt steps = BenchPointSteps(&pt, pt.dt);
      PetscCheck(steps % c->samples == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: case '%s': point '%s' runs %" PetscInt_FMT " steps, not a multiple of samples (%" PetscInt_FMT
                 "): the errors over time are taken at t_end / samples apart, which must be whole steps",
                 L->path, n, label, steps, c->samples);
    }
    if (conv) {
      /* every refinement must land exactly on t_end */
      PetscReal steps = pt.t_end / pt.dt;
      PetscCheck(PetscAbsReal(steps - round(steps)) < 1e-6 * steps, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: case '%s': t_end (%.6g) must be a whole multiple of dt (%.6g)%s%s", L->path, n, (double)pt.t_end, (double)pt.dt,
                 c->nsweeps ? " at point " : "", c->nsweeps ? label : "");
    }
  }
  PetscFunctionReturn(0);
}

/* -dt, -steps and -t_end are the harness's keys: in `options` they would be overridden silently. */
static PetscErrorCode CheckNoTimeOptions(Loader *L, const char *c, const char *options)
{
  static const char *keys[3] = {"-dt", "-t_end", "-steps"};
  char copy[4096], *save = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, options, sizeof(copy)));
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
    for (int k = 0; k < 3; k++)
      PetscCheck(strcmp(tok, keys[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: %s%s%s`options` may not set %s: give the key %s (or sweep_%s, or %s in a sweep value), which the harness applies to each run",
                 L->path, c ? "case '" : "", c ? c : "", c ? "': " : "", keys[k], keys[k] + 1, keys[k] + 1, keys[k]);
  PetscFunctionReturn(0);
}

/* scaling: ranks, inner, mode, stream, mpirun (the inner and stream cases are checked once every
 * case is read, CheckScaling). */
static PetscErrorCode ReadScalingKeys(Loader *L, BenchCase *c)
{
  const char *n = c->name;
  char list[1024] = "1,2,4", *save = NULL;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(GetString(L, n, "ranks", list, sizeof(list), NULL));
  for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    char *end;
    long r = strtol(tok, &end, 10);
    PetscCheck(!*end && r >= 1 && r <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s': ranks must be positive integers (got '%s')", L->path, n, tok);
    PetscCheck(c->nranks < BENCH_MAX_RANKS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: case '%s': at most %d rank counts", L->path, n,
               BENCH_MAX_RANKS);
    PetscCheck(!c->nranks || r > c->ranks[c->nranks - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s': ranks must increase (got %ld after %d)", L->path, n, r, (int)c->ranks[c->nranks - 1]);
    c->ranks[c->nranks++] = (PetscInt)r;
  }
  PetscCheck(c->nranks >= 2 && c->ranks[0] == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': ranks must start at 1 and list at least two counts, e.g. [1, 2, 4]", L->path, n);
  PetscCall(PetscStrcpy(c->mode, "strong"));
  PetscCall(GetString(L, n, "mode", c->mode, sizeof(c->mode), NULL));
  PetscCheck(!strcmp(c->mode, "strong") || !strcmp(c->mode, "weak"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': mode must be strong or weak (got '%s')", L->path, n, c->mode);
  list[0] = 0;
  PetscCall(GetString(L, n, "inner", list, sizeof(list), &set));
  PetscCheck(set && list[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s' needs the key 'inner': the case measured at each rank count (weak: one case per count)", L->path, n);
  save = NULL;
  for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    PetscCheck(c->ninner < BENCH_MAX_RANKS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: case '%s': too many inner cases", L->path, n);
    PetscCall(PetscStrncpy(c->inner[c->ninner++], tok, sizeof(c->inner[0])));
  }
  PetscCheck(!strcmp(c->mode, "weak") ? c->ninner == c->nranks : c->ninner == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: case '%s': mode %s needs %s inner case%s (got %d)", L->path, n, c->mode,
             !strcmp(c->mode, "weak") ? "one" : "exactly one", !strcmp(c->mode, "weak") ? " per rank count" : "", (int)c->ninner);
  PetscCall(GetString(L, n, "stream", c->stream_case, sizeof(c->stream_case), NULL));
  PetscCall(PetscStrcpy(c->mpirun, "mpirun"));
  PetscCall(GetString(L, n, "mpirun", c->mpirun, sizeof(c->mpirun), NULL));
  PetscFunctionReturn(0);
}

/* Every scaling case's inner and stream cases exist, with the right metrics. */
static PetscErrorCode CheckScaling(Loader *L)
{
  BenchSuite *s = L->suite;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->ncases; i++) {
    const BenchCase *c = &s->cases[i];
    if (c->metric != BENCH_SCALING) continue;
    for (PetscInt k = 0; k <= c->ninner; k++) {
      const char *name = k < c->ninner ? c->inner[k] : c->stream_case;
      PetscInt j;
      if (!name[0]) continue;
      for (j = 0; j < s->ncases; j++)
        if (!strcmp(s->cases[j].name, name)) break;
      PetscCheck(j < s->ncases, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': %s case '%s' is not in `cases`", L->path,
                 c->name, k < c->ninner ? "inner" : "stream", name);
      PetscCheck(k < c->ninner ? s->cases[j].metric != BENCH_SCALING : s->cases[j].metric == BENCH_STREAM, PETSC_COMM_SELF,
                 PETSC_ERR_ARG_WRONG, "%s: case '%s': %s case '%s' has metric %s", L->path, c->name, k < c->ninner ? "inner" : "stream",
                 name, BenchMetricName(s->cases[j].metric));
    }
  }
  PetscFunctionReturn(0);
}

/* The keys of one metric, with defaults and ranges. */
static PetscErrorCode ReadMetricKeys(Loader *L, BenchCase *c)
{
  const char *n = c->name;
  PetscBool set;

  PetscFunctionBeginUser;
  switch (c->metric) {
  case BENCH_CONVERGENCE:
    c->refinements = 3;
    c->ode_rtol = 1e-12;
    c->ode_atol = 1e-14;
    PetscCall(PetscStrcpy(c->reference, "analytic"));
    PetscCall(GetInt(L, n, "refinements", &c->refinements, NULL));
    PetscCheck(c->refinements >= 1 && c->refinements <= 16, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': refinements must be in [1, 16] (got %" PetscInt_FMT ")", L->path, n, c->refinements);
    PetscCall(GetString(L, n, "reference", c->reference, sizeof(c->reference), &set));
    PetscCheck(!strcmp(c->reference, "analytic") || !strcmp(c->reference, "ode") || !strcmp(c->reference, "finest"),
               PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': reference must be analytic, ode or finest (got '%s')",
               L->path, n, c->reference);
    PetscCall(GetReal(L, n, "ode_rtol", PETSC_FALSE, &c->ode_rtol, NULL));
    PetscCall(GetReal(L, n, "ode_atol", PETSC_FALSE, &c->ode_atol, NULL));
    PetscCheck(c->ode_rtol > 0 && c->ode_atol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': ode_rtol and ode_atol must be > 0", L->path, n);
    break;
  case BENCH_ENERGY:
    c->samples = 200;
    PetscCall(GetInt(L, n, "samples", &c->samples, NULL));
    PetscCheck(c->samples >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': samples must be >= 2 (got %" PetscInt_FMT ")", L->path, n, c->samples);
    break;
  case BENCH_STABILITY:
    c->threshold = 1;
    c->bisect_rtol = 0.02;
    PetscCall(GetReal(L, n, "dt_min", PETSC_TRUE, &c->dt_min, NULL));
    PetscCall(GetReal(L, n, "dt_max", PETSC_TRUE, &c->dt_max, NULL));
    PetscCheck(c->dt_min > 0 && c->dt_max > c->dt_min, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': need 0 < dt_min < dt_max (got %.6g, %.6g)", L->path, n, (double)c->dt_min, (double)c->dt_max);
    PetscCall(GetReal(L, n, "threshold", PETSC_FALSE, &c->threshold, NULL));
    PetscCall(GetReal(L, n, "bisect_rtol", PETSC_FALSE, &c->bisect_rtol, NULL));
    PetscCheck(c->threshold > 0 && c->bisect_rtol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': threshold and bisect_rtol must be > 0", L->path, n);
    c->dt_start = PetscSqrtReal(c->dt_min * c->dt_max);
    c->growth = 2;
    PetscCall(GetReal(L, n, "dt_start", PETSC_FALSE, &c->dt_start, NULL));
    PetscCall(GetReal(L, n, "growth", PETSC_FALSE, &c->growth, NULL));
    PetscCall(GetInt(L, n, "max_its", &c->max_its, NULL));
    PetscCheck(c->dt_start >= c->dt_min && c->dt_start <= c->dt_max && c->growth > 1 && c->max_its >= 0, PETSC_COMM_SELF,
               PETSC_ERR_ARG_OUTOFRANGE, "%s: case '%s': need dt_min <= dt_start <= dt_max, growth > 1, max_its >= 0 (got %.6g, %.6g, %" PetscInt_FMT ")",
               L->path, n, (double)c->dt_start, (double)c->growth, c->max_its);
    break;
  case BENCH_SOLVER:
    PetscCall(GetInt(L, n, "plot_step", &c->plot_step, NULL));
    PetscCheck(c->plot_step >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': plot_step must be >= 0 (0: the last step)", L->path, n);
    c->gap_target = 1e-3;
    PetscCall(GetReal(L, n, "gap_target", PETSC_FALSE, &c->gap_target, NULL));
    PetscCheck(c->gap_target > 0 && c->gap_target < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': gap_target must be in (0, 1) (got %g)", L->path, n, (double)c->gap_target);
    break;
  case BENCH_SPATIAL: {
    PetscBool has_figure, has_size;
    PetscCall(GetString(L, n, "figure", c->figure, sizeof(c->figure), &has_figure));
    PetscCall(GetString(L, n, "size", c->size, sizeof(c->size), &has_size));
    PetscCheck(has_figure && has_size && c->figure[0] && c->size[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s' (metric spatial) needs the keys 'figure' (the run figure that is the error) and 'size' (the one that is h)",
               L->path, n);
    {
      char prefix[80];
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", n));
      PetscCall(PetscOptionsGetBool(L->db, prefix, "-refine_dt", &c->refine_dt, NULL));
    }
  } break;
  case BENCH_OSCILLATION:
  case BENCH_WORK_PRECISION: {
    const PetscBool osc = (PetscBool)(c->metric == BENCH_OSCILLATION);
    char signal[16] = "com_x", list[1024] = "", *save = NULL;
    c->ode_rtol = 1e-12;
    c->ode_atol = 1e-14;
    c->samples = osc ? 2000 : 10;
    c->repeats = 3;
    PetscCall(PetscStrcpy(c->reference, osc ? "analytic" : "ode"));
    PetscCall(GetString(L, n, "reference", c->reference, sizeof(c->reference), NULL));
    PetscCheck(!strcmp(c->reference, "analytic") || !strcmp(c->reference, "ode"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "%s: case '%s': reference must be analytic or ode (got '%s')", L->path, n, c->reference);
    PetscCall(GetReal(L, n, "ode_rtol", PETSC_FALSE, &c->ode_rtol, NULL));
    PetscCall(GetReal(L, n, "ode_atol", PETSC_FALSE, &c->ode_atol, NULL));
    PetscCheck(c->ode_rtol > 0 && c->ode_atol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': ode_rtol and ode_atol must be > 0", L->path, n);
    PetscCall(GetInt(L, n, "samples", &c->samples, NULL));
    PetscCheck(c->samples >= (osc ? 16 : 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': samples must be >= %d (got %" PetscInt_FMT ")", L->path, n, osc ? 16 : 1, c->samples);
    if (osc) {
      PetscCall(GetString(L, n, "signal", signal, sizeof(signal), NULL));
      PetscCheck(!strcmp(signal, "com_x") || !strcmp(signal, "com_y") || !strcmp(signal, "com_z"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: case '%s': signal must be com_x, com_y or com_z (a component of the free vertices' mass-weighted mean; got '%s')",
                 L->path, n, signal);
      c->signal_axis = signal[4] - 'x';
      break;
    }
    PetscCall(GetInt(L, n, "repeats", &c->repeats, NULL));
    PetscCheck(c->repeats >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: case '%s': repeats must be >= 1", L->path, n);
    PetscCall(GetString(L, n, "accuracy", list, sizeof(list), NULL));
    for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
      char *end;
      PetscReal a = strtod(tok, &end);
      PetscCheck(!*end && a > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': accuracy values must be positive numbers (got '%s')",
                 L->path, n, tok);
      PetscCheck(c->naccuracy < 8, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: case '%s': at most 8 accuracy values", L->path, n);
      c->accuracy[c->naccuracy++] = a;
    }
  } break;
  case BENCH_PERFORMANCE:
    PetscCall(GetReal(L, n, "stream_mb", PETSC_FALSE, &c->stream_mb, NULL));
    PetscCheck(c->stream_mb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: case '%s': stream_mb must be >= 0", L->path, n);
    break;
  case BENCH_POISSON:
    c->repeats = 5;
    PetscCall(GetInt(L, n, "repeats", &c->repeats, NULL));
    PetscCall(GetReal(L, n, "stream_mb", PETSC_FALSE, &c->stream_mb, NULL));
    PetscCheck(c->repeats >= 1 && c->stream_mb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': repeats must be >= 1 and stream_mb >= 0", L->path, n);
    PetscFunctionReturn(0); /* no time keys */
  case BENCH_STREAM:
    c->repeats = 10;
    c->stream_mb = 128;
    PetscCall(GetInt(L, n, "repeats", &c->repeats, NULL));
    PetscCall(GetReal(L, n, "mb", PETSC_FALSE, &c->stream_mb, NULL));
    PetscCheck(c->repeats >= 1 && c->stream_mb > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: case '%s': repeats must be >= 1 and mb > 0", L->path, n);
    PetscFunctionReturn(0);
  case BENCH_SCALING:
    PetscCall(ReadScalingKeys(L, c));
    PetscFunctionReturn(0);
  default:
    break;
  }
  PetscCall(ReadTimeKeys(L, c));
  PetscFunctionReturn(0);
}

/* "convergence, energy, ...": the metrics table's names, for messages. */
static PetscErrorCode MetricNames(char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt m = 0; m < BENCH_NMETRICS; m++) {
    PetscCall(SimStrAppend(buf, m ? ", " : "", len));
    PetscCall(SimStrAppend(buf, metrics[m].name, len));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadCase(Loader *L, PetscInt ci, const char *suite_options)
{
  BenchCase *c = &L->suite->cases[ci];
  char buf[4096], names[256];
  PetscBool set;
  PetscInt m;

  PetscFunctionBeginUser;
  PetscCall(GetString(L, c->name, "metric", buf, sizeof(buf), &set));
  PetscCall(MetricNames(names, sizeof(names)));
  PetscCheck(set && buf[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s' needs the key 'metric' (%s)", L->path, c->name, names);
  for (m = 0; m < BENCH_NMETRICS; m++)
    if (!strcmp(buf, metrics[m].name)) break;
  PetscCheck(m < BENCH_NMETRICS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s': unknown metric '%s'; valid metrics: %s", L->path,
             c->name, buf, names);
  c->metric = (BenchMetric)m;
  PetscCall(GetString(L, c->name, "title", c->title, sizeof(c->title), NULL));
  buf[0] = 0;
  PetscCall(GetString(L, c->name, "options", buf, sizeof(buf), NULL));
  PetscCall(PetscStrallocpy(buf, &c->own_options));
  PetscCall(PetscMalloc1(strlen(suite_options) + strlen(buf) + 2, &c->options));
  PetscCall(PetscSNPrintf(c->options, strlen(suite_options) + strlen(buf) + 2, "%s %s", suite_options, buf));
  PetscCall(CheckNoTimeOptions(L, c->name, buf));
  PetscCall(ReadSweeps(L, ci));
  PetscCall(ReadMetricKeys(L, c));
  PetscCall(CheckPointTimes(L, c));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadTable(Loader *L)
{
  BenchSuite *s = L->suite;
  char list[1024] = "", *save = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetString(L, NULL, "table", list, sizeof(list), NULL));
  for (char *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
    BenchColumn *col;
    char key[96], refs[1024] = "", *save2 = NULL;
    PetscBool set;

    PetscCheck(s->ncolumns < BENCH_MAX_COLUMNS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the table has more than %d columns",
               L->path, BENCH_MAX_COLUMNS);
    col = &s->column[s->ncolumns++];
    PetscCall(PetscStrncpy(col->name, name, sizeof(col->name)));
    PetscCall(PetscSNPrintf(key, sizeof(key), "table_%s", name));
    PetscCall(GetString(L, NULL, key, refs, sizeof(refs), &set));
    PetscCheck(
        set && refs[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
        "%s: table column '%s' needs a value: the list of CASE.KEY it shows (write the table as a list of `- %s: case.key`)",
        L->path, name, name);
    for (char *ref = strtok_r(refs, ", ", &save2); ref; ref = strtok_r(NULL, ", ", &save2)) {
      char *dot = strchr(ref, '.');
      PetscInt ci;

      PetscCheck(col->nrefs < BENCH_MAX_COLUMN_REFS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                 "%s: table column '%s' has more than %d references", L->path, name, BENCH_MAX_COLUMN_REFS);
      PetscCheck(dot && dot > ref && dot[1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: table column '%s': '%s' is not CASE.KEY",
                 L->path, name, ref);
      *dot = 0;
      for (ci = 0; ci < s->ncases; ci++)
        if (!strcmp(s->cases[ci].name, ref)) break;
      PetscCheck(ci < s->ncases, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "%s: table column '%s' refers to case '%s', which is not in `cases`", L->path, name, ref);
      PetscCall(PetscStrncpy(col->ref_case[col->nrefs], ref, sizeof(col->ref_case[0])));
      PetscCall(PetscStrncpy(col->ref_key[col->nrefs], dot + 1, sizeof(col->ref_key[0])));
      col->nrefs++;
    }
  }
  PetscFunctionReturn(0);
}

/* Any key left unread is a typo or misplaced: name it, its case, and the valid keys. */
static PetscErrorCode CheckUnread(Loader *L)
{
  PetscInt n;
  char **names, **values, msg[1024] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(L->db, &n, &names, &values));
  if (n > 0) {
    PetscInt ci = Owner(L, names[0]);
    if (ci >= 0) {
      const BenchCase *c = &L->suite->cases[ci];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: case '%s' (metric %s) has an unknown key '%s'; valid keys: %s, %s", L->path,
                              c->name, BenchMetricName(c->metric), names[0] + strlen(c->name) + 1, common_keys,
                              metrics[c->metric].keys));
    } else {
      PetscCall(PetscSNPrintf(msg, sizeof(msg),
                              "%s: unknown top-level key '%s'; valid: %s; a case's keys go under a case listed in `cases`",
                              L->path, names[0], top_keys));
    }
  }
  PetscCall(PetscOptionsLeftRestore(L->db, &n, &names, &values));
  PetscCheck(!msg[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s", msg);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadSuite(Loader *L)
{
  BenchSuite *s = L->suite;
  char list[4096] = "", options[4096] = "", *save = NULL;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(GetString(L, NULL, "suite", s->name, sizeof(s->name), &set));
  if (!set || !s->name[0]) {
    /* default: the file's base name without extension */
    const char *base = strrchr(L->path, '/') ? strrchr(L->path, '/') + 1 : L->path;
    PetscCall(PetscStrncpy(s->name, base, sizeof(s->name)));
    if (strchr(s->name, '.')) *strchr(s->name, '.') = 0;
  }
  PetscCall(GetString(L, NULL, "title", s->title, sizeof(s->title), NULL));
  PetscCall(PetscStrcpy(s->figure_style, "screen"));
  PetscCall(GetString(L, NULL, "figure_style", s->figure_style, sizeof(s->figure_style), NULL));
  PetscCheck(!strcmp(s->figure_style, "screen") || !strcmp(s->figure_style, "paper"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: figure_style must be screen or paper (got '%s')", L->path, s->figure_style);
  PetscCall(GetString(L, NULL, "options", options, sizeof(options), NULL));
  PetscCall(CheckNoTimeOptions(L, NULL, options));
  PetscCall(PetscStrallocpy(options, &s->options));
  PetscCall(GetString(L, NULL, "cases", list, sizeof(list), &set));
  PetscCheck(set && list[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the suite needs a `cases` key listing its cases in order",
             L->path);
  {
    /* count the names first (on a copy: strtok writes into its string) */
    char copy[sizeof(list)], *save1 = NULL;
    PetscInt n = 0;
    PetscCall(PetscStrcpy(copy, list));
    for (char *name = strtok_r(copy, ", ", &save1); name; name = strtok_r(NULL, ", ", &save1)) n++;
    PetscCall(PetscCalloc1(n, &s->cases));
  }
  for (char *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
    PetscCheck(strlen(name) < sizeof(s->cases[0].name), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: case name '%s' is too long",
               L->path, name);
    for (PetscInt i = 0; i < s->ncases; i++)
      PetscCheck(strcmp(s->cases[i].name, name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: case '%s' is listed twice in `cases`",
                 L->path, name);
    PetscCall(PetscStrcpy(s->cases[s->ncases++].name, name));
  }
  for (PetscInt i = 0; i < s->ncases; i++) PetscCall(ReadCase(L, i, options));
  PetscCall(ReadTable(L));
  PetscCall(CheckUnread(L));
  PetscCall(CheckScaling(L));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchSuiteLoad(MPI_Comm comm, const char *path, BenchSuite **suite)
{
  Loader L = {0};
  FILE *f;
  char **values;
  SimConfig cfg;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  f = fopen(path, "r");
  PetscCheck(f, comm, PETSC_ERR_FILE_OPEN, "Cannot open suite file '%s': %s", path, strerror(errno));
  fclose(f);
  /* malformed YAML, a key given twice ...: an error naming the file and line (framework/config.h) */
  PetscCall(SimConfigRead(comm, path, &cfg));
  PetscCall(PetscNew(suite));
  PetscCall(PetscStrncpy((*suite)->path, path, sizeof((*suite)->path)));
  L.path = path;
  L.suite = *suite;
  PetscCall(PetscOptionsCreate(&L.db));
  PetscCall(SimConfigInsert(&cfg, L.db, 0, NULL));
  PetscCall(SimConfigFree(&cfg));
  /* before anything is read every key is "left": that is the list of keys */
  PetscCall(PetscOptionsLeftGet(L.db, &L.nkeys, &L.keys, &values));
  ierr = ReadSuite(&L);
  PetscCall(PetscOptionsLeftRestore(L.db, &L.nkeys, &L.keys, &values));
  PetscCall(PetscOptionsDestroy(&L.db));
  if (ierr) {
    /* a suite refused half-way is freed (valgrind.test_harness: its cases' strings leaked) */
    PetscCall(BenchSuiteDestroy(suite));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchSuiteDestroy(BenchSuite **suite)
{
  PetscFunctionBeginUser;
  if (!suite || !*suite) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < (*suite)->ncases; i++) {
    BenchCase *c = &(*suite)->cases[i];
    PetscCall(PetscFree(c->options));
    PetscCall(PetscFree(c->own_options));
    for (PetscInt s = 0; s < c->nsweeps; s++)
      for (PetscInt v = 0; v < c->sweep[s].n; v++) {
        PetscCall(PetscFree(c->sweep[s].label[v]));
        PetscCall(PetscFree(c->sweep[s].value[v]));
        PetscCall(PetscFree(c->sweep[s].run[v]));
      }
  }
  PetscCall(PetscFree((*suite)->cases));
  PetscCall(PetscFree((*suite)->options));
  PetscCall(PetscFree(*suite));
  PetscFunctionReturn(0);
}

PetscInt BenchCaseNumPoints(const BenchCase *c)
{
  PetscInt n = 1;
  for (PetscInt s = 0; s < c->nsweeps; s++) n *= c->sweep[s].n;
  return n;
}

PetscErrorCode BenchCasePoint(const BenchCase *c, PetscInt i, char *label, size_t llen, char *options, size_t olen)
{
  PetscInt stride = BenchCaseNumPoints(c);

  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < stride, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Sweep point %" PetscInt_FMT " of case '%s' is out of range", i, c->name);
  PetscCall(PetscStrncpy(label, c->nsweeps ? "" : c->name, llen));
  if (olen) PetscCall(PetscStrncpy(options, c->options, olen));
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    /* mixed radix, first sweep slowest */
    PetscInt k;
    size_t n;
    stride /= c->sweep[s].n;
    k = (i / stride) % c->sweep[s].n;
    if (s) PetscCall(SimStrAppend(label, "/", llen));
    PetscCall(SimStrAppend(label, c->sweep[s].label[k], llen));
    if (!olen || !c->sweep[s].run[k]) continue; /* a sweep of dt, t_end or steps: BenchCasePointTime */
    PetscCall(PetscStrlen(options, &n));
    PetscCall(PetscSNPrintf(options + n, olen - n, " -%s %s", c->sweep[s].option, c->sweep[s].run[k]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCasePointTime(const BenchCase *c, PetscInt i, BenchPointTime *pt)
{
  PetscInt stride = BenchCaseNumPoints(c);

  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < stride, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Sweep point %" PetscInt_FMT " of case '%s' is out of range", i, c->name);
  pt->dt = c->metric == BENCH_STABILITY ? 0 : c->dt;
  pt->t_end = c->t_end;
  pt->steps = c->steps;
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscInt k;
    stride /= c->sweep[s].n;
    k = (i / stride) % c->sweep[s].n;
    if (c->sweep[s].dt[k] > 0) pt->dt = c->sweep[s].dt[k];
    if (c->sweep[s].t_end[k] > 0) pt->t_end = c->sweep[s].t_end[k], pt->steps = 0;
    if (c->sweep[s].steps[k] > 0) pt->steps = c->sweep[s].steps[k], pt->t_end = 0;
  }
  PetscFunctionReturn(0);
}

PetscInt BenchPointSteps(const BenchPointTime *pt, PetscReal dt)
{
  if (pt->steps > 0) return pt->steps;
  return PetscMax(1, (PetscInt)round(pt->t_end / dt));
}

PetscInt BenchCaseFindSweep(const BenchCase *c, const char *option)
{
  for (PetscInt s = 0; s < c->nsweeps; s++)
    if (!strcmp(c->sweep[s].option, option)) return s;
  return -1;
}

PetscErrorCode BenchCasePointSeries(const BenchCase *c, PetscInt i, const char *option, char *series, size_t len)
{
  PetscInt stride = BenchCaseNumPoints(c);

  PetscFunctionBeginUser;
  series[0] = 0;
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscInt k;
    stride /= c->sweep[s].n;
    k = (i / stride) % c->sweep[s].n;
    if (!strcmp(c->sweep[s].option, option)) continue;
    PetscCall(SimStrAppendItem(series, "/", c->sweep[s].label[k], len));
  }
  if (!series[0]) PetscCall(PetscStrncpy(series, c->name, len));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCasePointModelKey(const BenchCase *c, PetscInt i, char *key, size_t len)
{
  PetscInt stride = BenchCaseNumPoints(c);

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(key, c->options, len));
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscInt k;
    size_t n;
    stride /= c->sweep[s].n;
    k = (i / stride) % c->sweep[s].n;
    if (!strcmp(c->sweep[s].option, "solver") || !c->sweep[s].run[k]) continue;
    PetscCall(PetscStrlen(key, &n));
    PetscCall(PetscSNPrintf(key + n, len - n, " -%s %s", c->sweep[s].option, c->sweep[s].run[k]));
  }
  PetscFunctionReturn(0);
}
