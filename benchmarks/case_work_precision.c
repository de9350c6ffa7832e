/* Work-precision (DESIGN §8; Hairer-Wanner's diagrams): for each sweep point (an integrator at one dt;
 * sweep dt, or give each label its own -dt), `repeats` runs to t_end, timed, the first with the error
 * against the reference — the scene's analytic solution or the GSL reference of the same model
 * (computed once per model of the case) — at the samples + 1 times k t_end / samples over the free
 * DOFs: error_final (at t_end) and error_max (max over those times), both |x - x_ref|_M (m). The runs
 * are deterministic, so the repeats only measure time: wall time of the stepping, median, min, max.
 * Per series (the label without its dt part) and target error A in `accuracy`: the cost at that
 * accuracy, wall time and dt interpolated log-linearly between the two dt points whose final errors
 * bracket A (a row labelled with the series: s_at_<A> (timing), dt_at_<A>); no interpolation across a
 * pair whose errors change faster than dt^8 (a blow-up next to a good run).
 * <case>.csv: label,series,dt,steps,error_final,error_max,status (reproducible);
 * <case>_error.csv: label,series,dt,time,error (the error over time);
 * <case>_wp_timing.csv: label,series,dt,error_final,error_max,wall_s,wall_min_s,wall_max_s. */
#include <math.h>
#include "benchmarks/cases.h"
#include "framework/model/model.h"
#include "benchmarks/metrics.h"
#include "benchmarks/reference_ode.h"

typedef struct {
  BenchContext *bc;
  const BenchCase *c;
  BenchRefCache cache;
  const char *key, *label, *series;
  FILE *errcsv;
  PetscReal T, dt;
  PetscInt stride; /* steps between error samples */
  const PetscReal *xs, *vs; /* the reference at the sample times (ode) */
  PetscReal *xe, *ve, *diff;
  PetscInt n;
  PetscReal err_final, err_max;
  PetscBool measure; /* this repeat takes the errors */
} WP;

static PetscErrorCode WPMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                PetscReal wall_ms, void *ctx)
{
  WP *w = (WP *)ctx;
  SimModel m;
  const PetscScalar *x;
  const PetscReal *xr;
  PetscReal e;
  PetscInt k;

  PetscFunctionBeginUser;
  if (!w->measure) PetscFunctionReturn(0);
  PetscCall(BenchRunGetModel(run, &m));
  PetscCheck(m, PETSC_COMM_SELF, PETSC_ERR_SUP, "A work-precision case compares model states; a grid scene has none");
  if (step == 0) {
    w->n = 3 * m->nv;
    PetscCall(PetscFree3(w->xe, w->ve, w->diff));
    PetscCall(PetscMalloc3(w->n, &w->xe, w->n, &w->ve, w->n, &w->diff));
    if (!strcmp(w->c->reference, "ode"))
      PetscCall(BenchRefCacheGet(w->cache, w->key, m, w->T, w->c->samples, w->c->ode_rtol, w->c->ode_atol, &w->xs, &w->vs));
  }
  if (step % w->stride) PetscFunctionReturn(0);
  k = step / w->stride;
  if (!strcmp(w->c->reference, "ode")) xr = w->xs + k * w->n;
  else {
    SimScene scene;
    PetscBool has;
    PetscCall(SimRunGetScene(run, &scene));
    PetscCall(SimSceneExact(scene, t, w->xe, w->ve, &has));
    PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_SUP, "Scene '%s' has no analytic solution: use reference: ode", scene->name);
    xr = w->xe;
  }
  PetscCall(VecGetArrayRead(m->x, &x));
  for (PetscInt i = 0; i < w->n; i++) w->diff[i] = x[i] - xr[i];
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(SimModelZeroPinned(m, w->diff));
  PetscCall(SimModelMassNorm(m, w->diff, &e));
  w->err_max = PetscMax(w->err_max, e);
  w->err_final = e;
  PetscCall(PetscFPrintf(w->bc->comm, w->errcsv, "%s,%s,%.9e,%.9e,%.9e\n", w->label, w->series, (double)w->dt, (double)t, (double)e));
  PetscFunctionReturn(0);
}

static int CompareReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : x > y;
}

/* The series' cost at accuracy A: log-linear interpolation between the points whose final errors
 * bracket A (err[i] >= A >= err[j], consecutive in dt order); NaN when no pair brackets it. */
static void CostAt(PetscInt n, const PetscReal dt[], const PetscReal err[], const PetscReal wall[], PetscReal A, PetscReal *w, PetscReal *d)
{
  *w = *d = NAN;
  for (PetscInt i = 0; i + 1 < n; i++) {
    PetscReal e0 = err[i], e1 = err[i + 1], f;
    if (!(e0 > 0 && e1 > 0 && wall[i] > 0 && wall[i + 1] > 0) || e0 == e1) continue;
    /* a pair whose errors differ by more than order 8 over its dt ratio is not in the asymptotic
     * range (a blown-up run next to a good one): no interpolation across it */
    if (PetscAbsReal(PetscLogReal(e0 / e1)) > 8 * PetscAbsReal(PetscLogReal(dt[i] / dt[i + 1]))) continue;
    if (!((e0 >= A && A >= e1) || (e1 >= A && A >= e0))) continue;
    f = PetscLogReal(A / e0) / PetscLogReal(e1 / e0);
    *w = PetscExpReal(PetscLogReal(wall[i]) + f * PetscLogReal(wall[i + 1] / wall[i]));
    *d = PetscExpReal(PetscLogReal(dt[i]) + f * PetscLogReal(dt[i + 1] / dt[i]));
    return;
  }
}

PetscErrorCode BenchCaseRun_WorkPrecision(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  const PetscInt np = BenchCaseNumPoints(c);
  WP w = {.bc = bc, .c = c};
  FILE *csv, *tcsv;
  char key[4096], (*series)[BENCH_LABEL_LEN];
  PetscReal *dt, *ef, *wall, *times;

  PetscFunctionBeginUser;
  PetscCall(BenchRefCacheCreate(&w.cache));
  PetscCall(PetscMalloc5(np, &series, np, &dt, np, &ef, np, &wall, c->repeats, &times));
  PetscCall(BenchCSVOpen(bc, res, "", "label,series,dt,steps,error_final,error_max,status", &csv));
  PetscCall(BenchCSVOpen(bc, res, "_error", "label,series,dt,time,error", &w.errcsv));
  PetscCall(BenchCSVOpen(bc, res, "_wp_timing", "label,series,dt,error_final,error_max,wall_s,wall_min_s,wall_max_s", &tcsv));
  for (PetscInt p = 0; p < np; p++) {
    BenchPointTime pt;
    BenchRow *row;
    BenchRunRecord *rec;
    PetscInt steps, ok = 0;
    PetscBool good = PETSC_TRUE;
    char label[BENCH_LABEL_LEN], popts[4096], opts[4200];

    PetscCall(BenchCasePointTime(c, p, &pt));
    PetscCall(BenchCasePointModelKey(c, p, key, sizeof(key)));
    PetscCall(BenchCasePointSeries(c, p, "dt", series[p], sizeof(series[p])));
    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    steps = BenchPointSteps(&pt, pt.dt);
    w.label = label;
    w.key = key, w.series = series[p], w.dt = pt.dt, w.T = steps * pt.dt, w.stride = steps / c->samples;
    w.err_final = w.err_max = NAN;
    for (PetscInt r = 0; r < c->repeats && good; r++) {
      w.measure = (PetscBool)(r == 0);
      if (r == 0) w.err_max = 0;
      if (r == 0) PetscCall(BenchRunPoint(bc, c, res, p, WPMonitor, &w, &row, &rec));
      else { /* a timing repeat: the same run without the error monitor */
        PetscCall(BenchRunOptions(popts, pt.dt, steps, opts, sizeof(opts)));
        PetscCall(BenchResultAddRun(res, label, pt.dt, steps, &rec));
        PetscCall(BenchRunIsolated(bc, opts, NULL, NULL, rec));
      }
      good = (PetscBool)!strcmp(rec->status, "ok");
      if (good) times[ok++] = 1e-3 * rec->timing.ms_per_step * rec->steps_done;
    }
    if (!good) w.err_final = w.err_max = NAN;
    dt[p] = pt.dt, ef[p] = w.err_final;
    wall[p] = NAN;
    PetscCall(BenchRowSet(row, "dt", pt.dt, 0));
    PetscCall(BenchRowSet(row, "steps", steps, 0));
    PetscCall(BenchRowSet(row, "error_final", w.err_final, 0));
    PetscCall(BenchRowSet(row, "error_max", w.err_max, 0));
    PetscCall(BenchRowNoteRun(row, rec));
    if (good && ok) {
      qsort(times, (size_t)ok, sizeof(PetscReal), CompareReal);
      wall[p] = ok % 2 ? times[ok / 2] : 0.5 * (times[ok / 2 - 1] + times[ok / 2]);
      PetscCall(BenchRowSetTiming(row, "wall_s", wall[p]));
      PetscCall(BenchRowSetTiming(row, "wall_min_s", times[0]));
      PetscCall(BenchRowSetTiming(row, "wall_max_s", times[ok - 1]));
    }
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%s,%.9e,%" PetscInt_FMT ",%.9e,%.9e,%s\n", row->label, series[p], (double)pt.dt, steps,
                           (double)w.err_final, (double)w.err_max, rec->status));
    PetscCall(PetscFPrintf(bc->comm, tcsv, "%s,%s,%.9e,%.9e,%.9e,%.6e,%.6e,%.6e\n", row->label, series[p], (double)pt.dt,
                           (double)w.err_final, (double)w.err_max, (double)wall[p], (double)(ok ? times[0] : NAN),
                           (double)(ok ? times[ok - 1] : NAN)));
  }
  /* cost at equal accuracy: one row per series */
  for (PetscInt p = 0; p < np && c->naccuracy; p++) {
    PetscInt m = 0, q;
    PetscReal *sd, *se, *sw;
    BenchRow *row;
    for (q = 0; q < p; q++)
      if (!strcmp(series[q], series[p])) break;
    if (q < p) continue; /* done */
    PetscCall(PetscMalloc3(np, &sd, np, &se, np, &sw));
    for (q = p; q < np; q++)
      if (!strcmp(series[q], series[p])) sd[m] = dt[q], se[m] = ef[q], sw[m] = wall[q], m++;
    /* in decreasing dt */
    for (PetscInt i = 1; i < m; i++)
      for (PetscInt j = i; j > 0 && sd[j] > sd[j - 1]; j--) {
        PetscReal t;
        t = sd[j], sd[j] = sd[j - 1], sd[j - 1] = t;
        t = se[j], se[j] = se[j - 1], se[j - 1] = t;
        t = sw[j], sw[j] = sw[j - 1], sw[j - 1] = t;
      }
    PetscCall(BenchResultAddRow(res, series[p], &row));
    for (PetscInt a = 0; a < c->naccuracy; a++) {
      char k1[32], k2[32];
      PetscReal cw, cd, cd_err;
      CostAt(m, sd, se, sw, c->accuracy[a], &cw, &cd);
      CostAt(m, sd, se, sd, c->accuracy[a], &cd_err, &cd); /* dt from the errors alone: reproducible */
      PetscCall(PetscSNPrintf(k1, sizeof(k1), "s_at_%.0e", (double)c->accuracy[a]));
      PetscCall(PetscSNPrintf(k2, sizeof(k2), "dt_at_%.0e", (double)c->accuracy[a]));
      PetscCall(BenchRowSet(row, k2, cd, 0));
      PetscCall(BenchRowSetTiming(row, k1, cw));
    }
    PetscCall(BenchRowNote(row, "cost at equal accuracy: wall time and dt at each target final error, interpolated log-log between the bracketing dt points (- : not bracketed)"));
    PetscCall(PetscFree3(sd, se, sw));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFClose(bc->comm, tcsv));
  PetscCall(PetscFClose(bc->comm, w.errcsv));
  if (!strcmp(c->reference, "ode"))
    PetscCall(PetscPrintf(bc->comm, "bench:   ODE reference computed %" PetscInt_FMT " time(s) for %" PetscInt_FMT " sweep point(s)\n",
                          BenchRefCacheComputed(w.cache), np));
  PetscCall(PetscFree3(w.xe, w.ve, w.diff));
  PetscCall(PetscFree5(series, dt, ef, wall, times));
  PetscCall(BenchRefCacheDestroy(&w.cache));
  PetscFunctionReturn(0);
}
