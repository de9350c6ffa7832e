/* report.md: the suite's provenance, summary table, and per case its results, timings, figures and
 * failures, in Markdown that renders on GitHub (see report.h). */
#include <math.h>
#include "benchmarks/report.h"

/* A value as a table cell: bounds as >= / <=, orders with two decimals, NaN as a dash. */
static void FormatValue(const BenchValue *v, char *buf, size_t len)
{
  const char *prefix = v->bound == '>' ? ">= " : v->bound == '<' ? "< " : "";

  if (PetscIsInfReal(v->value))
    snprintf(buf, len, "inf");
  else if (PetscIsNanReal(v->value))
    snprintf(buf, len, "-");
  else if (!strncmp(v->key, "order", 5))
    snprintf(buf, len, "%s%.2f", prefix, (double)v->value);
  else if (v->value == round(v->value) && PetscAbsReal(v->value) < 1e7)
    snprintf(buf, len, "%s%.0f", prefix, (double)v->value);
  else
    snprintf(buf, len, "%s%.3g", prefix, (double)v->value);
}

/* Markdown-safe text: '|' would end a table cell. */
static PetscErrorCode Cell(MPI_Comm comm, FILE *fp, const char *text)
{
  PetscFunctionBeginUser;
  for (const char *c = text; *c; c++) {
    if (*c == '|')
      PetscCall(PetscFPrintf(comm, fp, "\\|"));
    else if (*c == '\n')
      PetscCall(PetscFPrintf(comm, fp, " "));
    else
      PetscCall(PetscFPrintf(comm, fp, "%c", *c));
  }
  PetscFunctionReturn(0);
}

/* The union of keys over the rows (values, or timings), in first-seen order. */
static PetscInt Keys(const BenchCaseResult *r, PetscBool timing, char keys[][32], PetscInt max)
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < r->nrows; i++) {
    const BenchValue *v = timing ? r->rows[i].t : r->rows[i].v;
    PetscInt nv = timing ? r->rows[i].nt : r->rows[i].n;
    for (PetscInt k = 0; k < nv; k++) {
      PetscInt j;
      for (j = 0; j < n; j++)
        if (!strcmp(keys[j], v[k].key)) break;
      if (j == n && n < max) memcpy(keys[n++], v[k].key, sizeof(v[k].key));
    }
  }
  return n;
}

static PetscErrorCode Table(MPI_Comm comm, FILE *fp, const BenchCaseResult *r, PetscBool timing)
{
  char keys[2 * BENCH_MAX_ROW_VALUES][32], cell[64];
  PetscInt nk = Keys(r, timing, keys, 2 * BENCH_MAX_ROW_VALUES);
  PetscBool notes = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!nk || !r->nrows) PetscFunctionReturn(0);
  for (PetscInt i = 0; !timing && i < r->nrows; i++) notes = (PetscBool)(notes || r->rows[i].note[0]);
  PetscCall(PetscFPrintf(comm, fp, "\n| label |"));
  for (PetscInt k = 0; k < nk; k++) PetscCall(PetscFPrintf(comm, fp, " %s |", keys[k]));
  PetscCall(PetscFPrintf(comm, fp, "%s\n|---|", notes ? " note |" : ""));
  for (PetscInt k = 0; k < nk; k++) PetscCall(PetscFPrintf(comm, fp, "---:|"));
  PetscCall(PetscFPrintf(comm, fp, "%s\n", notes ? "---|" : ""));
  for (PetscInt i = 0; i < r->nrows; i++) {
    PetscCall(PetscFPrintf(comm, fp, "| %s |", r->rows[i].label));
    for (PetscInt k = 0; k < nk; k++) {
      const BenchValue *v = BenchResultFind(r, r->rows[i].label, keys[k]);
      if (v)
        FormatValue(v, cell, sizeof(cell));
      else
        snprintf(cell, sizeof(cell), " ");
      PetscCall(PetscFPrintf(comm, fp, " %s |", cell));
    }
    if (notes) {
      PetscCall(PetscFPrintf(comm, fp, " "));
      PetscCall(Cell(comm, fp, r->rows[i].note));
      PetscCall(PetscFPrintf(comm, fp, " |"));
    }
    PetscCall(PetscFPrintf(comm, fp, "\n"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Parameters(MPI_Comm comm, FILE *fp, const BenchCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(comm, fp, "\nMetric **%s**", BenchMetricName(c->metric)));
  if (c->metric < BENCH_POISSON && c->metric != BENCH_STABILITY) {
    if (c->dt > 0) PetscCall(PetscFPrintf(comm, fp, "; dt = %.6g s", (double)c->dt));
    if (BenchCaseFindSweep(c, "dt") >= 0 || !(c->dt > 0)) PetscCall(PetscFPrintf(comm, fp, "; dt per point (the table's dt)"));
  }
  if (c->metric == BENCH_OSCILLATION)
    PetscCall(PetscFPrintf(comm, fp, "; signal: %s of the free vertices' mass-weighted mean; fit of the dominant damped oscillation against the %s reference's",
                           c->signal_axis == 0 ? "x" : c->signal_axis == 1 ? "y" : "z", c->reference));
  if (c->metric == BENCH_WORK_PRECISION)
    PetscCall(PetscFPrintf(comm, fp, "; errors against the %s reference at %" PetscInt_FMT " times over t_end; %" PetscInt_FMT " timed runs per point (median, min..max)",
                           c->reference, c->samples, c->repeats));
  if ((c->metric == BENCH_OSCILLATION || c->metric == BENCH_WORK_PRECISION) && !strcmp(c->reference, "ode"))
    PetscCall(PetscFPrintf(comm, fp, " (GSL rk8pd, rtol %.6g, atol %.6g, computed once per model)", (double)c->ode_rtol, (double)c->ode_atol));
  if (c->metric == BENCH_POISSON)
    PetscCall(PetscFPrintf(comm, fp,
                           "; per point: one projection with setup, then %" PetscInt_FMT " timed projections (best and median)%s",
                           c->repeats, c->stream_mb > 0 ? "; bandwidth bound from a STREAM triad on this machine" : ""));
  if (c->metric == BENCH_STREAM)
    PetscCall(PetscFPrintf(comm, fp, "; triad on %.6g MB arrays per rank, best of %" PetscInt_FMT, (double)c->stream_mb, c->repeats));
  if (c->metric == BENCH_SCALING) {
    PetscCall(PetscFPrintf(comm, fp, "; %s scaling of", c->mode));
    for (PetscInt i = 0; i < c->ninner; i++) PetscCall(PetscFPrintf(comm, fp, "%s `%s`", i ? "," : "", c->inner[i]));
    PetscCall(PetscFPrintf(comm, fp, " under `%s -np N --oversubscribe`, N =", c->mpirun));
    for (PetscInt i = 0; i < c->nranks; i++) PetscCall(PetscFPrintf(comm, fp, "%s %d", i ? "," : "", (int)c->ranks[i]));
    if (c->stream_case[0]) PetscCall(PetscFPrintf(comm, fp, "; STREAM: case `%s` at each N", c->stream_case));
  }
  if (c->t_end > 0) PetscCall(PetscFPrintf(comm, fp, "; t_end = %.6g s", (double)c->t_end));
  if (c->steps > 0) PetscCall(PetscFPrintf(comm, fp, "; %" PetscInt_FMT " steps", c->steps));
  if (c->metric == BENCH_CONVERGENCE)
    PetscCall(PetscFPrintf(comm, fp, "; runs at dt / 2^k, k = 0..%" PetscInt_FMT "; reference: %s%s", c->refinements,
                           c->reference, !strcmp(c->reference, "finest") ? " (a run at the finest dt / 4)" : ""));
  if (c->metric == BENCH_CONVERGENCE && !strcmp(c->reference, "ode"))
    PetscCall(PetscFPrintf(comm, fp, " (GSL rk8pd, rtol %.6g, atol %.6g)", (double)c->ode_rtol, (double)c->ode_atol));
  if (c->metric == BENCH_STABILITY)
    PetscCall(PetscFPrintf(
        comm, fp, "; bracketing from dt = %.6g s (x %.3g steps) in [%.6g, %.6g] s, then bisection to a relative %.6g; stable: finite, max |E(t) - E(0)| / scale <= %.6g, Newton converged%s",
        (double)c->dt_start, (double)c->growth, (double)c->dt_min, (double)c->dt_max, (double)c->bisect_rtol, (double)c->threshold,
        c->max_its ? ", at most max_its iterations per step" : ""));
  PetscCall(PetscFPrintf(comm, fp, ".\nOptions: `%s`", c->options));
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscCall(PetscFPrintf(comm, fp, "; sweep `-%s`:", c->sweep[s].option));
    for (PetscInt v = 0; v < c->sweep[s].n; v++) PetscCall(PetscFPrintf(comm, fp, "%s `%s`", v ? "," : "", c->sweep[s].value[v]));
  }
  PetscCall(PetscFPrintf(comm, fp, ".\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Failures(MPI_Comm comm, FILE *fp, const BenchCaseResult *r)
{
  PetscInt n = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < r->nruns; i++) {
    const BenchRunRecord *u = &r->runs[i];
    if (strcmp(u->status, "error")) continue;
    if (!n++) PetscCall(PetscFPrintf(comm, fp, "\nFailed runs:\n\n"));
    PetscCall(PetscFPrintf(comm, fp, "- `%s`, dt = %.6g: ", u->label, (double)u->dt));
    PetscCall(Cell(comm, fp, u->message));
    PetscCall(PetscFPrintf(comm, fp, "\n"));
  }
  if (r->never_used[0]) PetscCall(PetscFPrintf(comm, fp, "\nOptions no run read (misspelled?): `%s`\n", r->never_used));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaseSection(MPI_Comm comm, FILE *fp, const BenchCaseResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(comm, fp, "\n## %s%s%s\n", r->c->name, r->c->title[0] ? ": " : "", r->c->title));
  PetscCall(Parameters(comm, fp, r->c));
  PetscCall(Table(comm, fp, r, PETSC_FALSE));
  if (r->c->metric >= BENCH_POISSON) {
    PetscCall(PetscFPrintf(comm, fp, "\nTimings (%s):\n",
                           r->c->metric == BENCH_POISSON   ? "ms; setup = creation + KSPSetUp; bound = modelled bytes / STREAM bandwidth"
                           : r->c->metric == BENCH_STREAM ? "GB/s"
                                                           : "ms per projection of the inner case; speedups against the first rank count"));
    PetscCall(Table(comm, fp, r, PETSC_TRUE));
  } else if (r->c->metric != BENCH_STABILITY) {
    PetscCall(PetscFPrintf(
        comm, fp,
        "\nTimings (ms per step by PETSc log event; throughput in vertex-steps/s; peak memory of the process so far in MB):\n"));
    PetscCall(Table(comm, fp, r, PETSC_TRUE));
  }
  for (PetscInt i = 0; i < r->nplots; i++)
    PetscCall(PetscFPrintf(comm, fp, "\n![%s](%s.png)\n\n*%s* ([SVG](%s.svg))\n", r->caption[i], r->plot[i], r->caption[i],
                           r->plot[i]));
  PetscCall(PetscFPrintf(comm, fp, "\nData: "));
  for (PetscInt i = 0; i < r->nfiles; i++) PetscCall(PetscFPrintf(comm, fp, "%s[%s](%s)", i ? ", " : "", r->file[i], r->file[i]));
  PetscCall(PetscFPrintf(comm, fp, ", [%s_timing.csv](%s_timing.csv).\n", r->c->name, r->c->name));
  PetscCall(Failures(comm, fp, r));
  PetscFunctionReturn(0);
}

/* The value of a summary column for a label: the first reference whose case has it. */
static const BenchValue *ColumnValue(const BenchColumn *col, const char *label, PetscInt n, const BenchCaseResult res[])
{
  for (PetscInt k = 0; k < col->nrefs; k++)
    for (PetscInt i = 0; i < n; i++) {
      const BenchValue *v;
      if (strcmp(res[i].c->name, col->ref_case[k])) continue;
      if ((v = BenchResultFind(&res[i], label, col->ref_key[k]))) return v;
    }
  return NULL;
}

static PetscErrorCode SummaryTable(MPI_Comm comm, FILE *fp, const BenchSuite *suite, PetscInt n, const BenchCaseResult res[])
{
  char(*labels)[BENCH_LABEL_LEN], cell[64];
  PetscInt nl = 0, max = 0;

  PetscFunctionBeginUser;
  if (!suite->ncolumns) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n; i++) max += res[i].nrows;
  PetscCall(PetscMalloc1(max + 1, &labels));
  /* rows: the labels of the referenced case with the most rows, in its order, then any other label of
   * a referenced case in order of appearance */
  {
    const BenchCaseResult *most = NULL;
    for (PetscInt c = 0; c < suite->ncolumns; c++)
      for (PetscInt k = 0; k < suite->column[c].nrefs; k++)
        for (PetscInt i = 0; i < n; i++)
          if (!strcmp(res[i].c->name, suite->column[c].ref_case[k]) && (!most || res[i].nrows > most->nrows)) most = &res[i];
    for (PetscInt r = 0; most && r < most->nrows; r++) PetscCall(PetscStrcpy(labels[nl++], most->rows[r].label));
  }
  for (PetscInt c = 0; c < suite->ncolumns; c++)
    for (PetscInt k = 0; k < suite->column[c].nrefs; k++)
      for (PetscInt i = 0; i < n; i++) {
        if (strcmp(res[i].c->name, suite->column[c].ref_case[k])) continue;
        for (PetscInt r = 0; r < res[i].nrows; r++) {
          PetscInt j;
          for (j = 0; j < nl; j++)
            if (!strcmp(labels[j], res[i].rows[r].label)) break;
          if (j == nl) PetscCall(PetscStrcpy(labels[nl++], res[i].rows[r].label));
        }
      }
  PetscCall(PetscFPrintf(comm, fp, "\n## Summary\n\n| |"));
  for (PetscInt c = 0; c < suite->ncolumns; c++) PetscCall(PetscFPrintf(comm, fp, " %s |", suite->column[c].name));
  PetscCall(PetscFPrintf(comm, fp, "\n|---|"));
  for (PetscInt c = 0; c < suite->ncolumns; c++) PetscCall(PetscFPrintf(comm, fp, "---:|"));
  PetscCall(PetscFPrintf(comm, fp, "\n"));
  for (PetscInt r = 0; r < nl; r++) {
    PetscBool any = PETSC_FALSE;
    for (PetscInt c = 0; c < suite->ncolumns; c++) any = (PetscBool)(any || ColumnValue(&suite->column[c], labels[r], n, res));
    if (!any) continue; /* a label of a referenced case that no column shows (e.g. a dt sweep's points) */
    PetscCall(PetscFPrintf(comm, fp, "| %s |", labels[r]));
    for (PetscInt c = 0; c < suite->ncolumns; c++) {
      const BenchValue *v = ColumnValue(&suite->column[c], labels[r], n, res);
      if (v)
        FormatValue(v, cell, sizeof(cell));
      else
        snprintf(cell, sizeof(cell), " ");
      PetscCall(PetscFPrintf(comm, fp, " %s |", cell));
    }
    PetscCall(PetscFPrintf(comm, fp, "\n"));
  }
  PetscCall(PetscFPrintf(comm, fp, "\nColumns:\n\n"));
  for (PetscInt c = 0; c < suite->ncolumns; c++) {
    PetscCall(PetscFPrintf(comm, fp, "- **%s**:", suite->column[c].name));
    for (PetscInt k = 0; k < suite->column[c].nrefs; k++)
      PetscCall(PetscFPrintf(comm, fp, "%s `%s` of case `%s`", k ? " or" : "", suite->column[c].ref_key[k],
                             suite->column[c].ref_case[k]));
    PetscCall(PetscFPrintf(comm, fp, "\n"));
  }
  PetscCall(PetscFree(labels));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchReportWrite(MPI_Comm comm, const char *path, const BenchSuite *suite, const BenchProvenance *prov, PetscInt n,
                                const BenchCaseResult res[])
{
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(comm, path, "w", &fp));
  PetscCall(PetscFPrintf(comm, fp, "# %s\n\n", suite->title[0] ? suite->title : suite->name));
  PetscCall(PetscFPrintf(
      comm, fp,
      "Suite `%s` (`%s`), commit `%s`, pbsim %s, PETSc %s; %s; %d MPI rank(s); %s, %" PetscInt_FMT " cores; "
      "the whole suite took %.1f s of wall time.\n\nRegenerate: `%s`. Every number is in `summary.json` with the full options of "
      "every run; definitions: `docs/benchmarks.md`.\n",
      suite->name, suite->path, prov->commit, prov->version, prov->petsc, prov->date, (int)prov->ranks, prov->cpu, prov->cores,
      (double)prov->wall_seconds, prov->command));
  PetscCall(PetscFPrintf(comm, fp,
                         "\nBuild: %s, %s, flags `%s`; BLAS `%s` (%s); PETSc: %s. The suite file as run: [%s](%s).\n",
                         prov->build_type, prov->compiler, prov->cflags, prov->blas, prov->blas_threads, prov->petsc_summary,
                         prov->suite_copy, prov->suite_copy));
  PetscCall(SummaryTable(comm, fp, suite, n, res));
  for (PetscInt i = 0; i < n; i++) PetscCall(CaseSection(comm, fp, &res[i]));
  PetscCall(PetscFClose(comm, fp));
  PetscFunctionReturn(0);
}
