/* A benchmark suite: a YAML file read into its own PETSc options database, checked key by key, and
 * turned into cases and sweep points (DESIGN §8; the schema is documented in docs/benchmarks.md). */
#pragma once
#include <petscsys.h>

#define BENCH_MAX_SWEEPS 4
#define BENCH_MAX_SWEEP_VALUES 32
#define BENCH_MAX_COLUMNS 16
#define BENCH_MAX_COLUMN_REFS 8
#define BENCH_LABEL_LEN 128

/* What a case measures; each has a driver in cases.h. */
typedef enum {
  BENCH_CONVERGENCE,
  BENCH_ENERGY,
  BENCH_STABILITY,
  BENCH_SOLVER,
  BENCH_PERFORMANCE,
  BENCH_SPATIAL, /* error against mesh size from named run figures */
  BENCH_OSCILLATION,    /* phase error and numerical damping of the dominant oscillation */
  BENCH_WORK_PRECISION, /* error (final, max over time) against wall time over a dt sweep */
  BENCH_POISSON, /* the pressure solve alone (no SimRun): iterations, times, residual */
  BENCH_STREAM,  /* STREAM triad memory bandwidth */
  BENCH_SCALING, /* other cases of the suite under mpirun -np N */
  BENCH_NMETRICS
} BenchMetric;
#define BENCH_MAX_RANKS 8
const char *BenchMetricName(BenchMetric m);

/* One swept option: `sweep_<option>: v1,v2,...`. A value may be `label=value -more options`: the
 * label names the run in tables and plots, and everything after `=` follows `-<option>`. */
typedef struct {
  char option[64]; /* without the dash, e.g. "solver", "cloth_n" */
  PetscInt n;
  char *label[BENCH_MAX_SWEEP_VALUES];
  char *value[BENCH_MAX_SWEEP_VALUES]; /* as written in the suite */
  /* What a run gets from value v: `-<option> run[v]`, where run[v] is the value without its -dt,
   * -t_end, -steps (NULL for a sweep of dt, t_end or steps, which are the harness's own keys), and
   * those time keys: dt[v], t_end[v] > 0 and steps[v] > 0 when the value sets them. */
  char *run[BENCH_MAX_SWEEP_VALUES];
  PetscReal dt[BENCH_MAX_SWEEP_VALUES], t_end[BENCH_MAX_SWEEP_VALUES];
  PetscInt steps[BENCH_MAX_SWEEP_VALUES];
} BenchSweep;

/* The time keys of one sweep point: the case's dt, t_end, steps, overridden in sweep order by a sweep
 * of dt, t_end or steps and by -dt, -t_end, -steps inside a sweep value (a per-label step). Exactly
 * one of t_end > 0 and steps > 0 (stability: t_end only; dt is 0 there, the search chooses it). */
typedef struct {
  PetscReal dt, t_end;
  PetscInt steps;
} BenchPointTime;

typedef struct {
  char name[64];
  char title[256];
  BenchMetric metric;
  char *options;     /* the suite's options, then the case's: what every run of the case starts from */
  char *own_options; /* the case's `options` alone */
  PetscInt nsweeps;
  BenchSweep sweep[BENCH_MAX_SWEEPS]; /* alphabetical by option (the options database's order) */
  PetscReal dt;                       /* s; convergence: the coarsest (refinements are dt / 2^k) */
  PetscReal t_end;                    /* s; 0 when `steps` is given instead */
  PetscInt steps;                     /* 0 when `t_end` is given */
  /* convergence */
  PetscInt refinements; /* runs at dt / 2^k, k = 0..refinements */
  char reference[16];   /* analytic | ode | finest */
  PetscReal ode_rtol, ode_atol;
  /* energy: CSV rows per run (evenly spaced steps, plus the last); oscillation: reference samples;
   * work_precision: times at which the error is taken (t_end / samples apart) */
  PetscInt samples;
  /* oscillation */
  PetscInt signal_axis; /* 0, 1, 2: the x, y, z of the free vertices' mass-weighted mean (signal: com_x ...) */
  /* work_precision */
  PetscInt naccuracy;
  PetscReal accuracy[8]; /* target errors of the cost-at-equal-accuracy table */
  /* stability */
  PetscReal dt_min, dt_max, threshold, bisect_rtol;
  PetscReal dt_start, growth; /* the bracketing's first probe (default sqrt(dt_min dt_max)) and factor */
  PetscInt max_its;           /* a step needing more nonlinear iterations is unstable (0: no limit) */
  /* solver */
  PetscInt plot_step; /* the step whose residual history is plotted; 0: the last */
  PetscReal gap_target; /* relative gap at which iterations and time to reach it are counted */
  /* spatial */
  char figure[64]; /* the named run figure that is the error (e.g. tip_error) */
  char size[64];   /* the named run figure that is the mesh size h */
  PetscBool refine_dt; /* point k runs at dt / 2^k (a constant Courant number when h halves) */
  /* poisson, stream, work_precision */
  PetscInt repeats; /* poisson: timed solves per point (best and median); stream: triad passes (best);
                     * work_precision: timed runs per point (median and spread) */
  PetscReal stream_mb; /* MB per STREAM array per rank (stream: `mb`; poisson, performance: `stream_mb`, 0 = no bandwidth bound) */
  /* scaling */
  PetscInt nranks, ranks[BENCH_MAX_RANKS]; /* mpirun -np values */
  PetscInt ninner;
  char inner[BENCH_MAX_RANKS][64]; /* the measured case(s): one (strong) or one per rank count (weak) */
  char mode[8];                    /* strong | weak */
  char stream_case[64];            /* a stream case run at each rank count ("" : none) */
  char mpirun[256];                /* the launcher (default mpirun) */
} BenchCase;

/* A column of the suite's summary table: the first referenced case.key that has the row's label. */
typedef struct {
  char name[64];
  PetscInt nrefs;
  char ref_case[BENCH_MAX_COLUMN_REFS][64];
  char ref_key[BENCH_MAX_COLUMN_REFS][64];
} BenchColumn;

typedef struct {
  char path[PETSC_MAX_PATH_LEN];
  char name[64];
  char title[256];
  char *options; /* the suite's `options` (also at the start of every case's) */
  char figure_style[16]; /* screen | paper */
  PetscInt ncases;
  BenchCase *cases;
  PetscInt ncolumns;
  BenchColumn column[BENCH_MAX_COLUMNS];
} BenchSuite;

/* Reads and checks a suite file. Every error names the file, the case and the key, and what is
 * valid; a key nothing reads (a typo) is an error too. */
PetscErrorCode BenchSuiteLoad(MPI_Comm comm, const char *path, BenchSuite **suite);
PetscErrorCode BenchSuiteDestroy(BenchSuite **suite); /* accepts NULL */

/* The sweep points of a case: the cartesian product of its sweeps, the first sweep varying slowest.
 * Point i gets a label (sweep labels joined by '/', or the case name without sweeps) and its options
 * (the case's options followed by `-<option> <value>` of each sweep). */
PetscInt BenchCaseNumPoints(const BenchCase *c);
PetscErrorCode BenchCasePoint(const BenchCase *c, PetscInt i, char *label, size_t llen, char *options, size_t olen);
/* The time keys of point i (see BenchPointTime). */
PetscErrorCode BenchCasePointTime(const BenchCase *c, PetscInt i, BenchPointTime *pt);
/* The number of steps of size dt: pt->steps if given, else t_end / dt (nearest integer, at least 1). */
PetscInt BenchPointSteps(const BenchPointTime *pt, PetscReal dt);
/* The label of point i without the part given by the sweep of `option` (e.g. "dt"): the series a
 * point belongs to when that sweep is the x axis of a figure; the case name when nothing is left. */
PetscErrorCode BenchCasePointSeries(const BenchCase *c, PetscInt i, const char *option, char *series, size_t len);
/* What names the model of point i for the reference cache (reference_ode.h): the case's options and
 * its sweeps' values except the solver sweep's, so that the integrators of a case share one reference
 * (a solver sweep value must therefore not change the model). */
PetscErrorCode BenchCasePointModelKey(const BenchCase *c, PetscInt i, char *key, size_t len);
/* Index of the sweep of `option` in c->sweep, or -1. */
PetscInt BenchCaseFindSweep(const BenchCase *c, const char *option);
