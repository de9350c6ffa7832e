/* Named per-step figures: a model scene's figures op and a solver's reach the CSV log as extra
 * columns after the standard ones and a monitor through SimRunGetFigures. */
#include <stdio.h>
#include <string.h>
#include "testing.h"
#include "framework/sim.h"
#include "scenes/scenes.h"

/* The oscillator with two analytic observables: its exact position and the error of the run's. */
static PetscErrorCode Figures_OscillatorFig(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[],
                                            PetscReal values[])
{
  PetscReal x[6], v[6];
  PetscBool has;
  const PetscScalar *xs;
  SimModel model;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(SimSceneExact(scene, t, x, v, &has));
  PetscCall(VecGetArrayRead(model->x, &xs));
  names[0] = "x_exact", values[0] = x[3];
  names[1] = "x_error", values[1] = xs[3] - x[3];
  PetscCall(VecRestoreArrayRead(model->x, &xs));
  *n = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode SimSceneCreate_OscillatorFig(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(SimSceneCreate_Oscillator(scene));
  scene->ops.figures = Figures_OscillatorFig;
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt calls, n;
  char first[32];
  PetscReal last_error;
} Seen;

static PetscErrorCode FigureMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                    PetscReal wall_ms, void *ctx)
{
  Seen *s = (Seen *)ctx;
  const char *const *names;
  const PetscReal *values;

  PetscFunctionBeginUser;
  PetscCall(SimRunGetFigures(run, &s->n, &names, &values));
  if (s->n > 0) PetscCall(PetscStrncpy(s->first, names[0], sizeof(s->first)));
  if (s->n > 1) s->last_error = values[1];
  s->calls++;
  PetscFunctionReturn(0);
}

START_TEST(scene_figures_reach_csv_and_monitors)
{
  SimRegistry reg;
  SimRun run;
  Seen seen = {0};
  char header[1024] = "", row[1024] = "";
  FILE *f;
  const char *dir = "test_figures_out";

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryAddFor(reg, SIM_KIND_SCENE, "oscillator_fig", "oscillator with figures",
                                (SimGenericFn)SimSceneCreate_OscillatorFig, 0, "mesh"));
  CHECK_PETSC(TestSetOptions(
      "-scene oscillator_fig -solver verlet -dt 0.01 -steps 4 -snapshots 0 -output_every 0 -progress 0 -o test_figures_out"));
  CHECK_PETSC(SimRunCreate(PETSC_COMM_SELF, reg, &run));
  CHECK_PETSC(SimRunSetFromOptions(run));
  CHECK_PETSC(SimRunAddMonitor(run, FigureMonitor, &seen));
  CHECK_PETSC(SimRunExecute(run));
  ck_assert_int_eq(seen.calls, 5);
  ck_assert_int_eq(seen.n, 2);
  ck_assert_str_eq(seen.first, "x_exact");
  ck_assert_msg(seen.last_error != 0 && PetscAbsReal(seen.last_error) < 1e-3, "verlet's error after 4 steps: %g",
                (double)seen.last_error);
  CHECK_PETSC(SimRunDestroy(&run));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));

  f = fopen("test_figures_out/log.csv", "r");
  ck_assert_msg(f != NULL, "no %s/log.csv", dir);
  ck_assert(fgets(header, sizeof(header), f) != NULL);
  ck_assert(fgets(row, sizeof(row), f) != NULL);
  fclose(f);
  ck_assert_msg(strstr(header, ",wall_ms,x_exact,x_error\n") != NULL, "header: %s", header);
  {
    int commas_h = 0, commas_r = 0;
    for (const char *c = header; *c; c++) commas_h += *c == ',';
    for (const char *c = row; *c; c++) commas_r += *c == ',';
    ck_assert_int_eq(commas_h, commas_r);
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("figures");
  TCase *tc = tcase_create("figures");
  tcase_add_test(tc, scene_figures_reach_csv_and_monitors);
  suite_add_tcase(s, tc);
  return s;
}
