/* The per-step CSV log: a header from the energy report's term names, one flushed row per step. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "framework/io/csvlog.h"

struct _p_SimCSVLog {
  FILE *fp;
  char path[PETSC_MAX_PATH_LEN];
  PetscInt nterms; /* columns are fixed by the header: every row must report the same terms */
  PetscInt nfig;   /* and the same number of figures */
};

/* Term names become column names: a comma, quote or line break would shift every later column. */
static PetscErrorCode CheckColumnName(const char *name, const char *path)
{
  PetscFunctionBeginUser;
  PetscCheck(name && name[0] && !strpbrk(name, ",\"\r\n"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "Cannot use the term or figure name '%s' as a column of '%s': it must be non-empty, "
             "without commas, quotes or line breaks",
             name ? name : "(null)", path);
  PetscFunctionReturn(0);
}

/* The stream records write failures: one check after the flush catches them all (a full disk). */
static PetscErrorCode FlushAndCheck(SimCSVLog log)
{
  PetscFunctionBeginUser;
  fflush(log->fp);
  PetscCheck(!ferror(log->fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write to '%s': %s",
             log->path, strerror(errno));
  PetscFunctionReturn(0);
}

PetscErrorCode SimCSVLogCreate(const char *path, const SimEnergyReport *rep, SimCSVLog *log)
{
  PetscFunctionBeginUser;
  PetscCall(SimCSVLogCreateWithFigures(path, rep, 0, NULL, log));
  PetscFunctionReturn(0);
}

PetscErrorCode SimCSVLogCreateWithFigures(const char *path, const SimEnergyReport *rep, PetscInt nfig, const char *const names[],
                                          SimCSVLog *log)
{
  SimCSVLog l;
  FILE *fp;

  PetscFunctionBeginUser;
  *log = NULL;
  PetscCheck(path && strlen(path) < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "SimCSVLogCreate needs a path shorter than %d characters", PETSC_MAX_PATH_LEN);
  PetscCheck(rep->nterms >= 0 && rep->nterms <= SIM_MAX_TERMS, PETSC_COMM_SELF,
             PETSC_ERR_ARG_OUTOFRANGE,
             "Energy report for '%s' has %" PetscInt_FMT " terms, expected 0..%d", path,
             rep->nterms, SIM_MAX_TERMS);
  for (PetscInt k = 0; k < rep->nterms; k++)
    PetscCall(CheckColumnName(rep->term_name[k], path));
  PetscCheck(nfig >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative figure count for '%s'", path);
  for (PetscInt k = 0; k < nfig; k++) PetscCall(CheckColumnName(names[k], path));
  fp = fopen(path, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' for writing: %s", path,
             strerror(errno));

  PetscCall(PetscNew(&l));
  l->fp = fp;
  l->nterms = rep->nterms;
  l->nfig = nfig;
  PetscCall(PetscStrncpy(l->path, path, sizeof(l->path)));
  fprintf(fp, "step,time,dt,kinetic");
  for (PetscInt k = 0; k < rep->nterms; k++)
    fprintf(fp, ",%s", rep->term_name[k]);
  fprintf(fp, ",potential,total,dissipation_rate,px,py,pz,"
              "nonlinear_its,linear_its,linesearch_cuts,residual,substeps,rejected,wall_ms");
  for (PetscInt k = 0; k < nfig; k++) fprintf(fp, ",%s", names[k]);
  fprintf(fp, "\n");
  *log = l;
  PetscCall(FlushAndCheck(l));
  PetscFunctionReturn(0);
}

/* stats may be NULL (the row of the initial state, before any step): the solver columns are 0. */
PetscErrorCode SimCSVLogRow(SimCSVLog log, PetscInt step, PetscReal time, PetscReal dt,
                            const SimEnergyReport *rep, const SimStepStats *stats,
                            PetscReal wall_ms)
{
  PetscFunctionBeginUser;
  PetscCall(SimCSVLogRowWithFigures(log, step, time, dt, rep, stats, wall_ms, 0, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode SimCSVLogRowWithFigures(SimCSVLog log, PetscInt step, PetscReal time, PetscReal dt, const SimEnergyReport *rep,
                                       const SimStepStats *stats, PetscReal wall_ms, PetscInt nfig, const PetscReal values[])
{
  const SimStepStats none = {0};
  FILE *fp = log->fp;

  PetscFunctionBeginUser;
  PetscCheck(rep->nterms == log->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "Energy report has %" PetscInt_FMT " terms but the header of '%s' has %" PetscInt_FMT,
             rep->nterms, log->path, log->nterms);
  PetscCheck(nfig == log->nfig, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "Row has %" PetscInt_FMT " figures but the header of '%s' has %" PetscInt_FMT, nfig, log->path, log->nfig);
  if (!stats) stats = &none;
  /* %.17g round-trips a double exactly: benchmark readers compute drifts from these columns. */
  fprintf(fp, "%" PetscInt_FMT ",%.17g,%.17g,%.17g", step, (double)time, (double)dt,
          (double)rep->kinetic);
  for (PetscInt k = 0; k < rep->nterms; k++)
    fprintf(fp, ",%.17g", (double)rep->term[k]);
  fprintf(fp, ",%.17g,%.17g,%.17g", (double)rep->potential, (double)rep->total,
          (double)rep->dissipation_rate);
  fprintf(fp, ",%.17g,%.17g,%.17g", (double)rep->momentum[0], (double)rep->momentum[1],
          (double)rep->momentum[2]);
  fprintf(fp, ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.17g,%" PetscInt_FMT ",%" PetscInt_FMT ",%.6g",
          stats->nonlinear_its, stats->linear_its, stats->linesearch_cuts, (double)stats->residual,
          stats->substeps, stats->rejected, (double)wall_ms);
  for (PetscInt k = 0; k < nfig; k++) fprintf(fp, ",%.17g", (double)values[k]);
  fprintf(fp, "\n");
  PetscCall(FlushAndCheck(log));
  PetscFunctionReturn(0);
}

PetscErrorCode SimCSVLogDestroy(SimCSVLog *log)
{
  char path[PETSC_MAX_PATH_LEN];
  int failed, err;

  PetscFunctionBeginUser;
  if (!log || !*log) PetscFunctionReturn(0);
  PetscCall(PetscStrncpy(path, (*log)->path, sizeof(path)));
  failed = fclose((*log)->fp);
  err = errno;
  PetscCall(PetscFree(*log));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close '%s': %s", path,
             strerror(err));
  PetscFunctionReturn(0);
}
