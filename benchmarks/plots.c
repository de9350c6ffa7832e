/* gnuplot scripts for each metric's figures, and running them (see plots.h). Column numbers refer
 * to the CSV layouts written by the case drivers (cases.h) and the harness's <case>_timing.csv. */
#include <stdio.h>
#include "framework/text.h"
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

/* One figure: the settings, then the plot drawn as PNG, and again (replot) as SVG and PDF. Screen
 * style: 960 x 600 px, key outside; paper style (-bench_style paper or the suite's figure_style:
 * paper): one journal column, 3.5 x 2.45 in, 8 pt text, key below the plot, PNG at 300 dpi. Ranges
 * hug the data (autoscale fix, small offsets). */
static PetscErrorCode Figure(Script *s, const char *suffix, const char *caption, const char *setup, const char *plot)
{
  static const char common[] = "reset\nset datafile separator ','\nset grid lc rgb '#d0d0d0'\nset autoscale fix\n"
                               "set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04\nset pointsize %g\n";
  const PetscBool paper = s->bc->paper;
  char stem[96];
  MPI_Comm comm = s->bc->comm;

  PetscFunctionBeginUser;
  PetscCheck(s->nfig < BENCH_MAX_FILES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "At most %d figures per case", BENCH_MAX_FILES);
  PetscCall(PetscSNPrintf(stem, sizeof(stem), "%s_%s", s->res->c->name, suffix));
  PetscCall(PetscFPrintf(comm, s->gp, "\n# %s\n", caption));
  PetscCall(PetscFPrintf(comm, s->gp, common, paper ? 0.6 : 1.0));
  PetscCall(PetscFPrintf(comm, s->gp, "%s\n%s\n", paper ? "set key below maxrows 3 samplen 2.5" : "set key outside right top samplen 3", setup));
  if (paper)
    PetscCall(PetscFPrintf(comm, s->gp, "set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3\nset output '%s.png'\n", stem));
  else
    PetscCall(PetscFPrintf(comm, s->gp, "set terminal pngcairo size 960,600 noenhanced font 'Sans,11'\nset output '%s.png'\n", stem));
  PetscCall(PetscFPrintf(comm, s->gp, "plot %s\n", plot));
  PetscCall(PetscFPrintf(comm, s->gp, "set terminal svg size %s noenhanced font 'Sans,%d' background rgb 'white'\nset output '%s.svg'\nreplot\n",
                         paper ? "252,176" : "960,600", paper ? 8 : 11, stem));
  PetscCall(PetscFPrintf(comm, s->gp, "set terminal pdfcairo size %s noenhanced font 'Sans,%d'\nset output '%s.pdf'\nreplot\nunset output\n",
                         paper ? "3.5in,2.45in" : "6.4in,4in", paper ? 8 : 10, stem));
  PetscCall(PetscStrcpy(s->stem[s->nfig], stem));
  PetscCall(PetscStrncpy(s->caption[s->nfig++], caption, sizeof(s->caption[0])));
  PetscFunctionReturn(0);
}

/* Per-label styles that stay apart in greyscale: the Okabe-Ito colours (distinct in luminance and for
 * colour-blind readers) with black, a point type and a dash pattern each, so that two labels differ in
 * at least two of colour, marker and dash. */
static const char *const palette[8] = {"#000000", "#E69F00", "#0072B2", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#999900"};
static const int marker[8] = {7, 5, 9, 11, 13, 4, 6, 8}; /* filled circle, square, triangles, diamond, then open ones */
static const int dash[5] = {1, 2, 4, 5, 3};

/* The style of label i: colour, dash pattern and marker. */
static void Style(PetscInt i, char *buf, size_t len)
{
  snprintf(buf, len, "lc rgb '%s' dashtype %d pt %d", palette[i % 8], dash[i % 5], marker[(i + i / 8) % 8]);
}

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
    char st[96];
    Style(i, st, sizeof(st));
    PetscCall(PetscSNPrintf(item, sizeof(item), "%s'%s' using (strcol(1) eq \"%s\"%s%s ? $%d : 1/0):%d with %s %s title \"%s\"",
                            cmd[0] ? ", \\\n  " : "", file, L, filter ? " && " : "", filter ? filter : "", xcol, ycol, style, st, L));
    PetscCall(SimStrAppend(cmd, item, len));
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

/* Reference slopes p through (x0, y0) on log-log axes, each labelled at its right end ("slope p"):
 * appended to cmd, labels to setup. x1: the right end of the data. */
static PetscErrorCode Slopes(PetscInt n, const int p[], PetscReal x0, PetscReal y0, PetscReal x1, char *setup, size_t slen, char *cmd,
                             size_t len)
{
  char item[320];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscSNPrintf(item, sizeof(item), ", \\\n  %.6e*(x/%.6e)**%d with lines dashtype 3 lw 1 lc rgb 'gray50' notitle", (double)y0,
                            (double)x0, p[k]));
    PetscCall(SimStrAppend(cmd, item, len));
    PetscCall(PetscSNPrintf(item, sizeof(item), "set label 'slope %d' at %.6e,%.6e left offset 0.5,0 textcolor rgb 'gray30'\n", p[k], (double)x1,
                            (double)(y0 * PetscPowReal(x1 / x0, p[k]))));
    PetscCall(SimStrAppend(setup, item, slen));
  }
  PetscFunctionReturn(0);
}

/* The smallest and largest finite positive value of a row key, and the geometric mean. */
static PetscBool RowRange(const BenchCaseResult *res, const char *key, PetscReal *lo, PetscReal *hi, PetscReal *gmean)
{
  PetscReal sum = 0;
  PetscInt n = 0;

  *lo = PETSC_MAX_REAL, *hi = 0;
  for (PetscInt i = 0; i < res->nrows; i++) {
    const BenchValue *v = BenchResultFind(res, res->rows[i].label, key);
    if (!v || !(v->value > 0) || PetscIsInfOrNanReal(v->value)) continue;
    *lo = PetscMin(*lo, v->value), *hi = PetscMax(*hi, v->value), sum += PetscLogReal(v->value), n++;
  }
  if (gmean) *gmean = n ? PetscExpReal(sum / n) : 0;
  return (PetscBool)(n > 0);
}

/* Error vs dt on log-log axes, with labelled reference slopes 1, 2, 4 through the geometric mean of
 * the coarsest errors at the coarsest dt. */
static PetscErrorCode ConvergenceFigures(Script *s, char *cmd, size_t len)
{
  const char *var[2] = {"x", "v"}, *what[2] = {"positions", "velocities"};
  const int p[3] = {1, 2, 4};
  char file[128], key[32], setup[2048], caption[160];
  PetscReal dlo, dhi, e0, elo, ehi;
  BenchPointTime pt;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(BenchCasePointTime(s->res->c, 0, &pt));
  if (!RowRange(s->res, "dt", &dlo, &dhi, NULL)) PetscFunctionReturn(0);
  for (int k = 0; k < 2; k++) {
    PetscReal dfine = dlo / PetscPowReal(2, s->res->c->refinements);
    PetscCall(PetscSNPrintf(key, sizeof(key), "error_%s", var[k]));
    if (!RowRange(s->res, key, &elo, &ehi, &e0)) continue;
    PetscCall(PetscSNPrintf(setup, sizeof(setup),
                            "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                            "set ylabel 'error of the %s at t_end (m%s, mass norm)'\n",
                            what[k], k ? "/s" : ""));
    cmd[0] = 0;
    PetscCall(PerLabel(s, file, 2, 4 + k, NULL, NULL, "linespoints lw 2", cmd, len));
    PetscCall(Slopes(3, p, dhi, e0, dfine, setup, sizeof(setup), cmd, len));
    PetscCall(PetscSNPrintf(caption, sizeof(caption), "Error of the %s at t_end vs dt (log-log), with reference slopes 1, 2, 4", what[k]));
    PetscCall(Figure(s, k ? "error_v" : "error_x", caption, setup, cmd));
  }
  PetscFunctionReturn(0);
}

/* One data set per series of `file` (its column 2; BenchCasePointSeries without `option`), read
 * through grep so that each series' rows are one line. */
static PetscErrorCode SeriesOf(Script *s, const char *file, const char *option, const char *usingspec, const char *style, char *cmd, size_t len)
{
  const BenchCase *c = s->res->c;
  char seen[64][BENCH_LABEL_LEN], series[BENCH_LABEL_LEN], item[1024];
  PetscInt nseen = 0;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < BenchCaseNumPoints(c) && nseen < 64; p++) {
    PetscInt k;
    char st[96];
    PetscCall(BenchCasePointSeries(c, p, option, series, sizeof(series)));
    for (k = 0; k < nseen; k++)
      if (!strcmp(seen[k], series)) break;
    if (k < nseen) continue;
    PetscCall(PetscStrcpy(seen[nseen++], series));
    Style(k, st, sizeof(st));
    PetscCall(PetscSNPrintf(item, sizeof(item), "%s'< grep -F \",%s,\" %s' using %s with %s %s title \"%s\"", cmd[0] ? ", \\\n  " : "", series,
                            file, usingspec, style, st, series));
    PetscCall(SimStrAppend(cmd, item, len));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode EnergyFigures(Script *s, char *cmd, size_t len)
{
  char file[128], setup[1024];

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "max_error")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 8, "$8 > 0", NULL, "linespoints lw 1.5 pi 15", cmd, len));
  PetscCall(Figure(s, "energy_error", "Relative energy error |E(t) - E(0)| / scale over time (log scale, clipped to 1e-10 .. 100)",
                   "set logscale y\nset format y '%.0e'\nset xlabel 'time (s)'\nset ylabel 'relative energy error'\nset yrange [1e-10 < * : * < 100]\n",
                   cmd));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 3, 7, NULL, NULL, "linespoints lw 1.5 pi 15", cmd, len));
  PetscCall(Figure(s, "energy", "Relative energy change (E(t) - E(0)) / scale over time (axis clipped to -1 .. 1)",
                   "set xlabel 'time (s)'\nset ylabel '(E(t) - E(0)) / scale'\nset yrange [-1 < * : * < 1]\n", cmd));
  if (AnyPositive(s->res, "external_work")) {
    cmd[0] = 0;
    PetscCall(PerLabel(s, file, 3, 9, "$9 > 0", NULL, "linespoints lw 1.5 pi 15", cmd, len));
    PetscCall(Figure(s, "balance", "Energy balance error |E_free(t) + W_damping(t) - W_pins(t) - E(0)| / scale over time (log scale)",
                     "set logscale y\nset format y '%.0e'\nset xlabel 'time (s)'\nset ylabel 'relative balance error'\n", cmd));
  }
  {
    PetscReal dlo, dhi, e0, elo, ehi;
    const int p[2] = {1, 2};
    char dtfile[128];
    struct stat st;
    PetscCall(PetscSNPrintf(dtfile, sizeof(dtfile), "%s/%s_dt.csv", s->bc->outdir, s->res->c->name));
    if (stat(dtfile, &st) || !RowRange(s->res, "dt", &dlo, &dhi, NULL) || !RowRange(s->res, "max_error", &elo, &ehi, &e0)) PetscFunctionReturn(0);
    PetscCall(PetscSNPrintf(dtfile, sizeof(dtfile), "%s_dt.csv", s->res->c->name));
    PetscCall(PetscSNPrintf(setup, sizeof(setup),
                            "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\nset ylabel 'max relative energy error'\n"));
    cmd[0] = 0;
    PetscCall(SeriesOf(s, dtfile, "dt", "3:($4 > 0 ? $4 : 1/0)", "linespoints lw 2", cmd, len));
    PetscCall(Slopes(2, p, dhi, e0, dlo, setup, sizeof(setup), cmd, len));
    PetscCall(Figure(s, "energy_dt", "Max relative energy error vs dt per integrator (log-log), with reference slopes 1 and 2", setup, cmd));
    if (AnyPositive(s->res, "max_balance_error")) {
      PetscCall(PetscSNPrintf(setup, sizeof(setup),
                              "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\nset ylabel 'max relative balance error'\n"));
      cmd[0] = 0;
      PetscCall(SeriesOf(s, dtfile, "dt", "3:($6 > 0 ? $6 : 1/0)", "linespoints lw 2", cmd, len));
      PetscCall(Figure(s, "balance_dt", "Max energy-balance error (damping and pin work counted) vs dt per integrator (log-log)", setup, cmd));
    }
  }
  PetscFunctionReturn(0);
}

/* Probes: max energy error vs dt; probes that blew up (or failed) drawn at the top as crosses; the
 * stable dt of each label marked by a vertical line in its style. */
static PetscErrorCode StabilityFigures(Script *s, char *cmd, size_t len)
{
  char file[128], setup[4096], item[512];
  PetscReal top = 10 * s->res->c->threshold;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                          "set ylabel 'max relative energy error'\nset yrange [* : %.6e]\n",
                          (double)(3 * top)));
  cmd[0] = 0;
  PetscCall(PerLabel(s, file, 2, 5, "$5 > 0 && $5 < 1e300", NULL, "points", cmd, len));
  if (!cmd[0]) PetscFunctionReturn(0);
  /* the probes without a finite error (blow-up, failure) at the top */
  PetscCall(PetscSNPrintf(item, sizeof(item), ", \\\n  '%s' every ::1 using 2:(($5 > 0 && $5 < 1e300) ? 1/0 : %.6e) with points pt 2 ps 1.5 lc rgb 'red' title 'blew up / failed'",
                          file, (double)top));
  PetscCall(SimStrAppend(cmd, item, len));
  PetscCall(PetscSNPrintf(item, sizeof(item), ", \\\n  %.6g with lines dashtype 2 lc rgb 'red' title 'threshold'", (double)s->res->c->threshold));
  PetscCall(SimStrAppend(cmd, item, len));
  for (PetscInt i = 0; i < s->res->nrows; i++) {
    const BenchValue *v = BenchResultFind(s->res, s->res->rows[i].label, "stable_dt");
    char st[96];
    if (!v || !(v->value > 0)) continue;
    Style(i, st, sizeof(st));
    *strstr(st, " pt") = 0; /* colour and dash only */
    PetscCall(PetscSNPrintf(item, sizeof(item), "set arrow from %.6e, graph 0 to %.6e, graph 1 nohead %s lw 1.5\n", (double)v->value,
                            (double)v->value, st));
    PetscCall(SimStrAppend(setup, item, sizeof(setup)));
  }
  PetscCall(Figure(s, "probes", "Stability search: max energy error of each probe vs dt; crosses at the top: probes that blew up or failed; vertical lines: the stable dt found per label",
                   setup, cmd));
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
  PetscReal top = 0;
  char setup[512];

  for (PetscInt i = 0; i < s->res->nruns; i++) any = (PetscBool)(any || s->res->runs[i].steps_done > 0);
  if (!any) PetscFunctionReturn(0);
  /* the stacked total of each bar (gnuplot autoscales on the single columns: the stack was clipped) */
  for (PetscInt i = 0; i < s->res->nruns; i++) {
    const BenchTiming *t = &s->res->runs[i].timing;
    PetscReal sum = t->other_ms;
    for (PetscInt e = 1; e <= 5; e++) sum += t->event_ms[e];
    if (!PetscIsInfOrNanReal(sum)) top = PetscMax(top, sum);
  }
  cmd[0] = 0;
  for (int k = 0; k < 6; k++) {
    static const int pattern[6] = {3, 4, 5, 1, 6, 2}; /* solid, hatches, cross-hatches: apart in greyscale */
    PetscCall(PetscSNPrintf(item, sizeof(item), "%s'%s_timing.csv' every ::1 using %d%s title '%s' fs pattern %d lc rgb '%s'", k ? ", \\\n  " : "",
                            s->res->c->name, col[k], k ? "" : ":xtic(1)", name[k], pattern[k], palette[(k + 1) % 8]));
    PetscCall(SimStrAppend(cmd, item, len));
  }
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set style data histograms\nset style histogram rowstacked\nset style fill pattern border -1\nset boxwidth 0.7\n"
                          "set xtics rotate by -35\nset ylabel 'ms per step'\nset yrange [0:%.6e]\nset xrange [-0.6:%.1f]\nset offsets 0,0,0,0\n",
                          (double)(1.1 * top > 0 ? 1.1 * top : 1), (double)(s->res->nruns - 0.4)));
  PetscCall(Figure(s, "time", "Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep), stacked", setup, cmd));
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
  PetscCall(PetscSNPrintf(cmd, len, "'%s.csv' every ::1 using 2:4 with linespoints lw 2 pt 7 lc rgb '%s'", s->res->c->name, palette[2]));
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
                            "%s'< grep -F \",%s,\" %s' using %d:%d with %s lc rgb '%s' dashtype %d pt %d title \"%s%s\"",
                            cmd[0] ? ", \\\n  " : "", series, file, xcol, ycol, style, palette[k % 8], dash ? dash : (int)(1 + k % 5),
                            marker[k % 8], series, suffix));
    PetscCall(SimStrAppend(cmd, item, len));
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
                          c->name, palette[2], c->name, palette[4]));
  PetscCall(PetscSNPrintf(setup, sizeof(setup),
                          "set xlabel 'MPI ranks'\nset ylabel '%s speedup'\nset xrange [1:%d]\nset yrange [0:*]\nset xtics 1\n",
                          !strcmp(c->mode, "weak") ? "scaled (weak)" : "strong", (int)c->ranks[c->nranks - 1]));
  PetscCall(Figure(s, "speedup", "Speedup vs MPI ranks, with the STREAM bandwidth speedup and ideal scaling", setup, cmd));
  PetscFunctionReturn(0);
}

/* Phase error and damping vs dt per series (<case>_fit.csv), and the signals over time. */
static PetscErrorCode OscillationFigures(Script *s, char *cmd, size_t len)
{
  char file[128], setup[1024], item[512];
  PetscReal dlo, dhi, e0, elo, ehi;
  const int p[2] = {1, 2};

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s_fit.csv", s->res->c->name));
  if (RowRange(s->res, "dt", &dlo, &dhi, NULL) && dhi > dlo) {
    PetscBool any = PETSC_FALSE;
    PetscReal g = 0;
    PetscInt n = 0;
    for (PetscInt i = 0; i < s->res->nrows; i++) {
      const BenchValue *v = BenchResultFind(s->res, s->res->rows[i].label, "phase_error_per_period");
      if (v && v->value != 0 && !PetscIsInfOrNanReal(v->value)) any = PETSC_TRUE, g += PetscLogReal(PetscAbsReal(v->value)), n++;
    }
    if (any) {
      e0 = PetscExpReal(g / n);
      PetscCall(PetscSNPrintf(setup, sizeof(setup),
                              "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                              "set ylabel '|phase error| per period (rad)'\n"));
      cmd[0] = 0;
      PetscCall(SeriesOf(s, file, "dt", "3:($6 != 0 ? abs($6) : 1/0)", "linespoints lw 2", cmd, len));
      PetscCall(Slopes(2, p, dhi, e0, dlo, setup, sizeof(setup), cmd, len));
      PetscCall(Figure(s, "phase", "Phase error per period of the dominant oscillation vs dt (log-log), against the reference's fitted frequency", setup,
                       cmd));
    }
    if (RowRange(s->res, "amplitude_ratio_per_period", &elo, &ehi, NULL)) {
      PetscCall(PetscSNPrintf(setup, sizeof(setup),
                              "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\nset xlabel 'dt (s)'\n"
                              "set ylabel '|1 - amplitude ratio per period|'\n"));
      cmd[0] = 0;
      PetscCall(SeriesOf(s, file, "dt", "3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0)", "linespoints lw 2", cmd, len));
      PetscCall(Figure(s, "damping", "Numerical damping: |1 - amplitude ratio per reference period| vs dt (log-log; energy-conserving methods sit at the round-off floor or off the plot)",
                       setup, cmd));
    }
  }
  cmd[0] = 0;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s.csv", s->res->c->name));
  PetscCall(PerLabel(s, file, 3, 4, NULL, NULL, "lines lw 1.2", cmd, len));
  PetscCall(PetscSNPrintf(item, sizeof(item), ", \\\n  '%s_reference.csv' every ::1 using 1:2 with lines lw 2.5 lc rgb 'gray60' dashtype 1 title 'reference'",
                          s->res->c->name));
  PetscCall(SimStrAppend(cmd, item, len));
  PetscCall(Figure(s, "signal", "The oscillating signal over time (the free vertices' mass-weighted mean position) and the reference",
                   "set xlabel 'time (s)'\nset ylabel 'signal (m)'\n", cmd));
  PetscFunctionReturn(0);
}

/* Work-precision diagrams: final and max-over-time error vs median wall time per series, the
 * horizontal bars spanning min..max of the repeats; the error over time. */
static PetscErrorCode WorkPrecisionFigures(Script *s, char *cmd, size_t len)
{
  char file[128];
  static const char setup[] = "set logscale xy\nset format x '%.0e'\nset format y '%.0e'\nset xlabel 'wall time of the run (s; median of the repeats, bars min..max)'\n";
  char full[512];

  PetscFunctionBeginUser;
  if (!AnyPositive(s->res, "error_final")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s_wp_timing.csv", s->res->c->name));
  for (int k = 0; k < 2; k++) {
    char spec[128];
    cmd[0] = 0;
    PetscCall(PetscSNPrintf(spec, sizeof(spec), "6:($%d > 0 ? $%d : 1/0):7:8", 4 + k, 4 + k));
    PetscCall(SeriesOf(s, file, "dt", spec, "xerrorlines lw 2", cmd, len));
    PetscCall(PetscSNPrintf(full, sizeof(full), "%sset ylabel '%s error (m, mass norm)'\n", setup, k ? "max-over-time" : "final"));
    PetscCall(Figure(s, k ? "work_precision_max" : "work_precision",
                     k ? "Work-precision: max error over time vs wall time (log-log), one line per integrator over its dt sweep"
                       : "Work-precision: error at t_end vs wall time (log-log), one line per integrator over its dt sweep",
                     full, cmd));
  }
  cmd[0] = 0;
  PetscCall(PetscSNPrintf(file, sizeof(file), "%s_error.csv", s->res->c->name));
  PetscCall(PerLabel(s, file, 4, 5, "$5 > 0", NULL, "linespoints lw 1.2", cmd, len));
  PetscCall(Figure(s, "error_time", "Error over time (log scale), every label",
                   "set logscale y\nset format y '%.0e'\nset xlabel 'time (s)'\nset ylabel 'error (m, mass norm)'\n", cmd));
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
  case BENCH_OSCILLATION:
    PetscCall(OscillationFigures(s, cmd, BENCH_PLOT_CMD));
    break;
  case BENCH_WORK_PRECISION:
    PetscCall(WorkPrecisionFigures(s, cmd, BENCH_PLOT_CMD));
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
      for (int k = 0; k < 3; k++) {
        PetscCall(PetscSNPrintf(log, sizeof(log), "%s/%s.%s", bc->outdir, s.stem[i], k == 2 ? "pdf" : k ? "svg" : "png"));
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
