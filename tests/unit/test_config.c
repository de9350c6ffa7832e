/* Unit tests of YAML configs (framework/config.h): the flattening into options follows PETSc's YAML
 * reader, merge keys are overridable, the command line's options win over the config's, and every
 * malformed input is an error naming the line. (The CLI's handling of bad configs is in the
 * bad-input corpus, tests/cli/bad_input/config.) */
#include <string.h>
#include "testing.h"
#include "framework/config.h"

static PetscErrorCode Parse(const char *text, SimConfig *cfg)
{
  return SimConfigParse(PETSC_COMM_SELF, "t.yaml", text, strlen(text), cfg);
}

/* The entry for `name` has `value` (NULL: a flag) from `line`. */
static void AssertEntry(const SimConfig *cfg, const char *name, const char *value, int line)
{
  const SimConfigEntry *e = SimConfigFind(cfg, name);
  ck_assert_msg(e != NULL, "no option %s", name);
  if (value) ck_assert_str_eq(e->value, value);
  else ck_assert_ptr_null(e->value);
  ck_assert_int_eq(e->line, line);
}

/* Parsing must fail with a message containing `part`. */
static void AssertParseError(const char *text, const char *part)
{
  SimConfig cfg;
  PetscErrorCode ierr;
  char *msg = NULL;

  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Parse(text, &cfg);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr, "'%s' should not parse", text);
  CHECK_PETSC(PetscErrorMessage(ierr, NULL, &msg));
  ck_assert_msg(msg && strstr(msg, part), "message '%s' lacks '%s'", msg ? msg : "", part);
  ck_assert_int_eq(cfg.n, 0);
  ck_assert_ptr_null(cfg.entry);
}

START_TEST(test_flatten)
{
  SimConfig cfg;

  CHECK_PETSC(Parse("# a comment\n"
                    "scene: cloth\n"
                    "cloth:\n"
                    "  n: 8\n"
                    "  pin: [0, 7]\n"
                    "gravity: [0, -9.8, 0]\n"
                    "bodies:\n"
                    "  - bunny: {mesh: b.obj}\n"
                    "  - floor\n"
                    "log_view:\n"
                    "$$anchor: &a {k: 1}\n",
                    &cfg));
  ck_assert_int_eq(cfg.n, 7);
  AssertEntry(&cfg, "-scene", "cloth", 2);
  AssertEntry(&cfg, "-cloth_n", "8", 4);
  AssertEntry(&cfg, "-cloth_pin", "0,7", 5);
  AssertEntry(&cfg, "-gravity", "0,-9.8,0", 6);
  AssertEntry(&cfg, "-bodies", "bunny,floor", 7);
  AssertEntry(&cfg, "-bodies_bunny_mesh", "b.obj", 8);
  AssertEntry(&cfg, "-log_view", NULL, 10);
  ck_assert_ptr_null(SimConfigFind(&cfg, "-anchor_k"));
  CHECK_PETSC(SimConfigFree(&cfg));
}
END_TEST

/* An explicit key overrides the same key brought in by a merge key, before or after it. */
START_TEST(test_merge_override)
{
  SimConfig cfg;

  CHECK_PETSC(Parse("base: &b {dt: 0.1, steps: 3}\n"
                    "run:\n"
                    "  dt: 0.5\n"
                    "  <<: *b\n",
                    &cfg));
  AssertEntry(&cfg, "-run_dt", "0.5", 3);
  AssertEntry(&cfg, "-run_steps", "3", 1);
  AssertEntry(&cfg, "-base_dt", "0.1", 1);
  ck_assert_int_eq(cfg.n, 4);
  CHECK_PETSC(SimConfigFree(&cfg));
}
END_TEST

/* Options named on the command line are not overwritten by the config's. */
START_TEST(test_insert_precedence)
{
  SimConfig cfg;
  PetscOptions db;
  const char *skip[] = {"-DT"};
  char value[64];
  PetscBool set;

  CHECK_PETSC(Parse("dt: 0.1\nsteps: 7\n", &cfg));
  CHECK_PETSC(PetscOptionsCreate(&db));
  CHECK_PETSC(PetscOptionsSetValue(db, "-dt", "0.02"));
  CHECK_PETSC(SimConfigInsert(&cfg, db, 1, skip));
  CHECK_PETSC(PetscOptionsGetString(db, NULL, "-dt", value, sizeof(value), &set));
  ck_assert_str_eq(value, "0.02");
  CHECK_PETSC(PetscOptionsGetString(db, NULL, "-steps", value, sizeof(value), &set));
  ck_assert_str_eq(value, "7");
  CHECK_PETSC(PetscOptionsDestroy(&db));
  CHECK_PETSC(SimConfigFree(&cfg));
}
END_TEST

START_TEST(test_errors)
{
  AssertParseError("", "sets no option");
  AssertParseError("dt: 1\ndt: 2\n", "option -dt is set twice, on line 1 and on line 2");
  AssertParseError("a: &x {b: 1}\nc:\n  <<: *x\n  b: 2\n  b: 3\n", "option -c_b is set twice, on line 4 and on line 5");
  AssertParseError("dt:\n", "t.yaml:1: key 'dt' has no value");
  AssertParseError("- 1\n", "t.yaml:1: the top level must be a mapping");
  AssertParseError("a: [1\n", "t.yaml:2:1: malformed YAML");
  AssertParseError("a: 1\n\tb: 2\n", "malformed YAML");
  AssertParseError("a: |\n  1\n  2\n", "t.yaml:1: the value of key 'a' spans several lines");
  AssertParseError("a b: 1\n", "key 'a b' is not an option name");
  AssertParseError("a: &x [*x]\n", "is itself a list");
  AssertParseError("a: &x {b: *x}\n", "nested deeper than 16 levels");
  {
    const char text[] = "a: 1\nb: 2\0\n";
    SimConfig cfg;
    PetscErrorCode ierr;
    char *msg = NULL;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimConfigParse(PETSC_COMM_SELF, "t.yaml", text, sizeof(text) - 1, &cfg);
    CHECK_PETSC(PetscPopErrorHandler());
    CHECK_PETSC(PetscErrorMessage(ierr, NULL, &msg));
    ck_assert_msg(ierr && strstr(msg, "t.yaml:2: contains a NUL byte"), "NUL: '%s'", msg ? msg : "");
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("parse");

  tcase_add_test(tc, test_flatten);
  tcase_add_test(tc, test_merge_override);
  tcase_add_test(tc, test_insert_precedence);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}
