/* gnuplot scripts for each metric's figures, and running them (see plots.h). Column numbers refer
 * to the CSV layouts written by the case drivers (cases.h) and the harness's <case>_timing.csv. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "benchmarks/plots.h"
#include "benchmarks/cases.h"

#define BENCH_PLOT_CMD 32768

typedef struct {
  BenchContext *bc;
  BenchCaseResult *res;
  FILE *gp;
  PetscInt nfig;
  char stem[BENCH_MAX_FILES][96], caption[BENCH_MAX_FILES][160];
} Script;

PetscErrorCode BenchPlotsAvailable(PetscBool *available)
{
  PetscFunctionBeginUser;
  *available = (PetscBool)(system("gnuplot --version > /dev/null 2>&1") == 0);
  PetscFunctionReturn(0);
}

/* One figure: the settings, then the plot drawn as PNG and again (replot) as SVG. */
static PetscErrorCode Figure(Script *s, const char *suffix, const char *caption, const char *setup, const char *plot)
{
  static const char common[] = "reset\nset datafile separator ','\nset grid\nset key outside right top\n";
  char stem[96];
  MPI_Comm comm = s->bc->comm;

  PetscFunctionBeginUser;
  PetscCheck(s->nfig < BENCH_MAX_FILES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "At most %d figures per case", BENCH_MAX_FILES);
  PetscCall(PetscSNPrintf(stem, sizeof(stem), "%s_%s", s->res->c->name, suffix));
  PetscCall(PetscFPrintf(comm, s->gp, "\n# %s\n%s%s\n", caption, common, setup));
  PetscCall(
      PetscFPrintf(comm, s->gp, "set terminal pngcairo size 960,600 noenhanced font 'Sans,11'\nset output '%s.png'\n", stem));
  PetscCall(PetscFPrintf(comm, s->gp, "plot %s\n", plot));
  PetscCall(PetscFPrintf(comm, s->gp,
                         "set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'\nset output "
                         "'%s.svg'\nreplot\nunset output\n",
                         stem));
  PetscCall(PetscStrcpy(s->stem[s->nfig], stem));
  PetscCall(PetscStrncpy(s->caption[s->nfig++], caption, sizeof(s->caption[0])));
  PetscFunctionReturn(0);
}

/* Twelve distinguishable colours (matplotlib's tab10 and two more); beyond twelve labels the dash
 * pattern changes too. */
static const char *const palette[12] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"};

/* Appends one data set per row label: `file` using x:y with the rows of that label only
 * (`filter`, if not NULL, is an extra condition on the row, e.g. "$2 == 10"); with `require`, only
 * the labels whose row has that key > 0. */
static PetscErrorCode PerLabel(Script *s, const char *file, int xcol, int ycol, const char *filter, const char *require,
                               const char *style, char *cmd, size_t len)
{
  char item[1024];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->res->nrows; i++) {
    const char *L = s->res->rows[i].label;
    const BenchValue *v = require ? BenchResultFind(s->res, L, require) : NULL;
    if (require && !(v && v->value > 0)) continue;
    PetscCall(PetscSNPrintf(item, sizeof(item),
                            "%s'%s' using (strcol(1) eq \"%s\"%s%s ? $%d : 1/0):%d with %s lc rgb '%s' dashtype %d title \"%s\"",
                            cmd[0] ? ", \\\n  " : "", file, L, filter ? " && " : "", filter ? filter : "", xcol, ycol, style,
                            palette[i % 12], (int)(1 + i / 12), L));
    PetscCall(PetscStrlcat(cmd, item, len));
  }
  PetscFunctionReturn(0);
}

/* Whether some row has key with a finite value > 0. */
static PetscBool AnyPositive(const BenchCaseResult *res, const char *key)
{
  for (PetscInt i = 0; i < res->nrows; i++) {
    const BenchValue *v = BenchResultFind(res, res->rows[i].label, key);
    if (v && v->value > 0 && !PetscIsInfOrNanReal(v->value)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* Error vs dt on log-log axes, with reference slopes 1, 2, 4 through the geometric mean of the
 * coarsest errors. */
static PetscErrorCode ConvergenceFigures(Script *s, char *cmd, size_t len)
{
  const char *var[2] = {"x", "v"}, *what[2] = {"positions", "velocities"};
  char file[128], key[32], setup[512], caption[160], ref[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  for (int k = 0; k < 2; k++) {
    PetscReal logsum = 0, dt0 = s->res->c->dt;
    PetscInt n = 0;

    PetscCall(PetscSNPrintf(key, sizeof(key), "error_%s", var[k]));
    if (!AnyPositive(s->res, key)) continue;
    for (PetscInt i = 0; i < s->res->nrows; i++) {
      const BenchValue *v = BenchResultFind(s->res, s->res->rows[i].label, key);
      if (v && v->value > 0 && !PetscIsInfOrNanReal(v->value)) logsum += PetscLogReal(v->value), n++;
    }
    PetscCall(PetscSNPrintf(setup, sizeof(setup),
                            "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                            "set ylabel 'error of the %s at t = %.6g s (mass-weighted norm)'\nE0 = %.6e\nD0 = %.6e\n",
                            what[k], (double)s->res->c->t_end, (double)PetscExpReal(logsum / n), (double)dt0));
    cmd[0] = 0;
    PetscCall(PerLabel(s, file, 2, 4 + k, NULL, NULL, "linespoints lw 2", cmd, len));
    for (int p = 1; p <= 4; p *= 2) {
      PetscCall(
          PetscSNPrintf(ref, sizeof(ref), ", \\\n  E0*(x/D0)**%d with lines dashtype 2 lc rgb 'gray40' title 'slope %d'", p, p));
      PetscCall(PetscStrlcat(cmd, ref, len));
    }
    PetscCall(PetscSNPrintf(caption, sizeof(caption), "Error of the %s at t_end vs dt (log-log), with reference slopes 1, 2, 4",
                            what[k]));
    PetscCall(Figure(s, k ? "error_v" : "error_x", caption, setup, cmd));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode EnergyFigures(Script *s, char *cmd, size_t len)
{
  char file[128];

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "max_error")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 8, NULL, NULL, "lines lw 1.5", cmd, len));
  PetscCall(Figure(s, "energy_error",
                   "Relative energy error |E(t) - E(0)| / |E(0)| over time (log scale, clipped to 1e-10 .. 100)",
                   "set logscale y\nset format y '%.0e'\nset xlabel 'time (s)'\nset ylabel '|E(t) - E(0)| / |E(0)|'\nset yrange "
                   "[1e-10 < * : * < 100]\n",
                   cmd));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 7, NULL, NULL, "lines lw 1.5", cmd, len));
  PetscCall(Figure(s, "energy", "Relative energy change (E(t) - E(0)) / |E(0)| over time (axis clipped to -1 .. 1)",
                   "set xlabel 'time (s)'\nset ylabel '(E(t) - E(0)) / |E(0)|'\nset yrange [-1 < * : * < 1]\n", cmd));
  PetscFunctionReturn(0);
}

static PetscErrorCode StabilityFigures(Script *s, char *cmd, size_t len)
{
  char file[128], setup[512], thr[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                          "set ylabel 'max relative energy error over t_end = %.6g s'\n",
                          (double)s->res->c->t_end));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 2, 5, "$5 > 0", NULL, "points pt 7 ps 1.2", cmd, len));
  if (!cmd[0]) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(thr, sizeof(thr), ", \\\n  %.6g with lines dashtype 2 lc rgb 'red' title 'threshold'",
                          (double)s->res->c->threshold));
  PetscCall(PetscStrlcat(cmd, thr, len));
  PetscCall(Figure(s, "probes", "Bisection probes: max energy error vs dt (runs that blew up are not shown)", setup, cmd));
  PetscFunctionReturn(0);
}

static PetscErrorCode SolverFigures(Script *s, char *cmd, size_t len)
{
  char file[128], filter[64], setup[256];
  BenchPointTime pt;
  PetscInt step;

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "history_points")) PetscFunctionReturn(0);
  PetscCall(BenchCasePointTime(s->res->c, 0, &pt));
  step = s->res->c->plot_step ? s->res->c->plot_step : BenchPointSteps(&pt, pt.dt);
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(PetscSNPrintf(filter, sizeof(filter), "$2 == %" PetscInt_FMT, step));
  PetscCall(PetscSNPrintf(
      setup, sizeof(setup),
      "set logscale y\nset format y '%%.0e'\nset xlabel 'Newton iteration'\nset ylabel 'residual (step %" PetscInt_FMT ")'\n",
      step));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 4, filter, "history_points", "linespoints lw 2", cmd, len));
  PetscCall(Figure(s, "residual", "Nonlinear residual per iteration in one step (log scale)", setup, cmd));
  /* the relative gap of the objective (incremental potential) vs iteration and vs time, same step */
  PetscCall(PetscSNPrintf(filter, sizeof(filter), "$2 == %" PetscInt_FMT " && $7 > 0", step));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set logscale y\nset format y '%%.0e'\nset xlabel 'iteration'\nset ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| "
                          "(step %" PetscInt_FMT ")'\n",
                          step));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 7, filter, "history_points", "linespoints lw 2", cmd, len));
  PetscCall(Figure(s, "gap", "Relative gap of the objective per iteration in one step (log scale)", setup, cmd));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set logscale y\nset format y '%%.0e'\nset xlabel 'wall time in the step (ms)'\nset ylabel '(Phi_k - Phi*) / "
                          "|Phi_0 - Phi*| (step %" PetscInt_FMT ")'\n",
                          step));
  cmd[0] = 0;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s_gap_timing.csv", s->res->c->name));
  PetscCall(PetscSNPrintf(filter, sizeof(filter), "$2 == %" PetscInt_FMT " && $4 > 0", step));
  PetscCall(PerLabel(s, file, 5, 4, filter, "history_points", "linespoints lw 2", cmd, len));
  PetscCall(Figure(s, "gap_time", "Relative gap of the objective vs wall time in one step (log scale)", setup, cmd));
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s_steps.csv", s->res->c->name));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 2, 3, NULL, "nonlinear_its_per_step", "steps lw 1.5", cmd, len));
  PetscCall(Figure(s, "iterations", "Nonlinear iterations per step",
                   "set xlabel 'step'\nset ylabel 'nonlinear iterations'\nset yrange [0:*]\n", cmd));
  PetscFunctionReturn(0);
}

/* Stacked bars of ms per step by event, from <case>_timing.csv: columns 7-11 are force, assemble,
 * factor, solve, line search, 13 the rest of the step. */
static PetscErrorCode TimeFigure(Script *s, char *cmd, size_t len)
{
  static const int col[6] = {7, 8, 9, 10, 11, 13};
  static const char *name[6] = {"force", "assemble", "factor", "solve", "line search", "other"};
  PetscBool any = PETSC_FALSE;
  char item[256];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->res->nruns; i++) any = (PetscBool)(any || s->res->runs[i].steps_done > 0);
  if (!any) PetscFunctionReturn(0);
  cmd[0] = 0;
  for (int k = 0; k < 6; k++) {
    PetscCall(PetscSNPrintf(item, sizeof(item), "%s'%s_timing.csv' every ::1 using %d%s title '%s'", k ? ", \\\n  " : "",
                            s->res->c->name, col[k], k ? "" : ":xtic(1)", name[k]));
    PetscCall(PetscStrlcat(cmd, item, len));
  }
  PetscCall(
      Figure(s, "time", "Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep)",
             "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
             "set xtics rotate by -35\nset ylabel 'ms per step'\nset yrange [0:*]\n",
             cmd));
  PetscFunctionReturn(0);
}

/* Error against mesh size, log-log, one curve: <case>.csv columns 2 (h) and 4 (error). */
static PetscErrorCode SpatialFigures(Script *s, char *cmd, size_t len)
{
  char setup[256];

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "error")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set logscale xy\nset format y '%%.0e'\nset xlabel 'mesh size h (%s)'\nset ylabel '%s'\nunset key\n",
                          s->res->c->size, s->res->c->figure));
  PetscCall(PetscSNPrintf(cmd, len, "'%s.csv' every ::1 using 2:4 with linespoints lw 2 pt 7 lc rgb '%s'", s->res->c->name, palette[0]));
  PetscCall(Figure(s, "spatial", "Error against mesh size (log-log); the slope is the observed order", setup, cmd));
  PetscFunctionReturn(0);
}

/* One data set per series (BenchPoissonSeries): `file` using x:y on the rows of that series (column 2). */
/* The series' rows are interleaved with the others' (the grid sweep varies slowest): a filter in the
 * plot expression would break the line at every other series' row, so each series is read through
 * `grep -F ",<series>,"` (its CSV column 2). require: only series with a row whose key is > 0. */
static PetscErrorCode PerSeries(Script *s, const char *file, int xcol, int ycol, const char *style, int dash, const char *suffix,
                                const char *require, char *cmd, size_t len)
{
  const BenchCase *c = s->res->c;
  char seen[BENCH_MAX_SWEEP_VALUES * 4][BENCH_LABEL_LEN], series[BENCH_LABEL_LEN], item[1024];
  PetscInt nseen = 0;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    PetscInt k;
    PetscCall(BenchPoissonSeries(c, p, series, sizeof(series)));
    for (k = 0; k < nseen; k++)
      if (!strcmp(seen[k], series)) break;
    if (k < nseen || nseen == (PetscInt)(sizeof(seen) / sizeof(seen[0]))) continue;
    if (require) {
      PetscBool any = PETSC_FALSE;
      for (PetscInt q = p; q < BenchCaseNumPoints(c); q++) {
        char sq[BENCH_LABEL_LEN], label[BENCH_LABEL_LEN], opts[4096];
        const BenchValue *v;
        PetscCall(BenchPoissonSeries(c, q, sq, sizeof(sq)));
        if (strcmp(sq, series)) continue;
        PetscCall(BenchCasePoint(c, q, label, sizeof(label), opts, sizeof(opts)));
        v = BenchResultFind(s->res, label, require);
        any = (PetscBool)(any || (v && v->value > 0));
      }
      if (!any) continue;
    }
    PetscCall(PetscStrcpy(seen[nseen++], series));
    k = nseen - 1;
    PetscCall(PetscSNPrintf(item, sizeof(item),
                            "%s'< grep -F \",%s,\" %s' using %d:%d with %s lc rgb '%s' dashtype %d title \"%s%s\"",
                            cmd[0] ? ", \\\n  " : "", series, file, xcol, ycol, style, palette[k % 12], dash ? dash : (int)(1 + k / 12), series, suffix));
    PetscCall(PetscStrlcat(cmd, item, len));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PoissonFigures(Script *s, char *cmd, size_t len)
{
  char file[128], times[128];

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "iterations")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(PetscSNPrintf(times, sizeof(times), "%s_solve_timing.csv", s->res->c->name));
  cmd[0] = 0;
  PetscCall(PerSeries(s, file, 4, 6, "linespoints lw 2", 0, "", NULL, cmd, len));
  PetscCall(Figure(s, "iterations", "CG iterations to a 1e-8 relative residual vs cells per axis",
                   "set logscale x 2\nset xlabel 'cells per axis'\nset ylabel 'iterations'\nset yrange [0:*]\n", cmd));
  cmd[0] = 0;
  PetscCall(PerSeries(s, times, 3, 6, "linespoints lw 2", 0, "", NULL, cmd, len));
  PetscCall(Figure(s, "time", "Time per projection (best of the repeats) vs unknowns (log-log)",
                   "set logscale xy\nset format x '%.0e'\nset xlabel 'unknowns (cells)'\nset ylabel 'ms per projection'\n", cmd));
  if (AnyPositive(s->res, "bound_ms_per_iteration")) {
    cmd[0] = 0;
    PetscCall(PerSeries(s, times, 3, 8, "linespoints lw 2", 1, "", NULL, cmd, len));
    PetscCall(PerSeries(s, times, 3, 9, "lines lw 1.5", 2, " (bandwidth bound)", "bound_ms_per_iteration", cmd, len));
    PetscCall(Figure(s, "per_iteration",
                     "Time per CG iteration vs the memory-bandwidth bound (modelled bytes per iteration / STREAM triad bandwidth)",
                     "set logscale xy\nset format x '%.0e'\nset xlabel 'unknowns (cells)'\nset ylabel 'ms per iteration'\n", cmd));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ScalingFigures(Script *s, char *cmd, size_t len)
{
  char setup[256];
  const BenchCase *c = s->res->c;

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "speedup")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(cmd, len,
                          "'%s_speedup_timing.csv' every ::1 using 2:4 with linespoints lw 2 lc rgb '%s' title 'measured', \\\n"
                          "  '%s_speedup_timing.csv' every ::1 using 2:($7 > 0 ? $7 : 1/0) with linespoints lw 2 dashtype 2 lc rgb '%s' title "
                          "'STREAM triad speedup (bandwidth bound)', \\\n  x with lines dashtype 3 lc rgb 'gray40' title 'ideal'",
                          c->name, palette[0], c->name, palette[3]));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set xlabel 'MPI ranks'\nset ylabel '%s speedup'\nset xrange [1:%d]\nset yrange [0:*]\nset xtics 1\n",
                          !strcmp(c->mode, "weak") ? "scaled (weak)" : "strong", (int)c->ranks[c->nranks - 1]));
  PetscCall(Figure(s, "speedup", "Speedup vs MPI ranks, with the STREAM bandwidth speedup and ideal scaling", setup, cmd));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteScript(Script *s)
{
  char *cmd;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(BENCH_PLOT_CMD, &cmd));
  switch (s->res->c->metric) {
  case BENCH_CONVERGENCE:
    PetscCall(ConvergenceFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_ENERGY:
    PetscCall(EnergyFigures(s, cmd, BENCH_PLOT_CMD));
    PetscCall(TimeFigure(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_STABILITY:
    PetscCall(StabilityFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_SOLVER:
    PetscCall(SolverFigures(s, cmd, BENCH_PLOT_CMD));
    PetscCall(TimeFigure(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_SPATIAL:
    PetscCall(SpatialFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_POISSON:
    PetscCall(PoissonFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_SCALING:
    PetscCall(ScalingFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_STREAM:
    break;
  default:
    PetscCall(TimeFigure(s, cmd, BENCH_PLOT_CMD));
    break;
  }
  PetscCall(PetscFree(cmd));
  PetscFunctionReturn(0);
}

/* Prints gnuplot's messages after a failure. */
static void ShowLog(const char *path)
{
  char line[512];
  FILE *f = fopen(path, "r");

  if (!f) return;
  while (fgets(line, sizeof(line), f)) fprintf(stderr, "  gnuplot: %s", line);
  fclose(f);
}

PetscErrorCode BenchPlotsMake(BenchContext *bc, BenchCaseResult *res)
{
  Script s = {.bc = bc, .res = res};
  char path[PETSC_MAX_PATH_LEN], log[PETSC_MAX_PATH_LEN], command[3 * PETSC_MAX_PATH_LEN];
  PetscMPIInt rank;
  int status = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.gp", bc->outdir, res->c->name));
  PetscCall(PetscFOpen(bc->comm, path, "w", &s.gp));
  PetscCall(PetscFPrintf(bc->comm, s.gp,
                         "# Figures of case '%s' (metric %s), written by pbsim bench. Run in this directory: gnuplot %s.gp\n",
                         res->c->name, BenchMetricName(res->c->metric), res->c->name));
  PetscCall(WriteScript(&s));
  PetscCall(PetscFClose(bc->comm, s.gp));
  PetscCallMPI(MPI_Comm_rank(bc->comm, &rank));
  if (s.nfig && !rank) {
    /* no stale figure from an earlier run may pass for a new one */
    for (PetscInt i = 0; i < s.nfig; i++)
      for (int k = 0; k < 2; k++) {
        PetscCall(PetscSNPrintf(log, sizeof(log), "%s/%s.%s", bc->outdir, s.stem[i], k ? "svg" : "png"));
        (void)remove(log);
      }
    PetscCall(PetscSNPrintf(log, sizeof(log), "%s/gnuplot.log", bc->scratch));
    /* the redirection is the outer shell's: a relative log path stays valid after the cd */
    PetscCall(PetscSNPrintf(command, sizeof(command), "(cd '%s' && gnuplot '%s.gp') > '%s' 2>&1", bc->outdir, res->c->name, log));
    status = system(command);
    if (status) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr,
                             "bench: warning: gnuplot failed on %s (some figures of case '%s' may be missing):\n", path,
                             res->c->name));
      ShowLog(log);
    }
  }
  for (PetscInt i = 0; i < s.nfig; i++) {
    struct stat st;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.png", bc->outdir, s.stem[i]));
    if (!stat(path, &st) && st.st_size > 0) PetscCall(BenchResultAddPlot(res, s.stem[i], s.caption[i]));
  }
  PetscFunctionReturn(0);
}
