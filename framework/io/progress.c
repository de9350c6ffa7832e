/* The progress line on stderr, redrawn in place with '\r' while a run advances. */
#include <stdio.h>
#include <unistd.h>
#include <petsctime.h>
#include "framework/io/progress.h"

/* Redrawing more often than this only costs time: nobody reads faster. */
#define SIM_PROGRESS_INTERVAL 0.1 /* s */

/* h:mm:ss or m:ss, rounded to whole seconds. */
static void FormatDuration(double seconds, char *buf, size_t len)
{
  long s = seconds > 0 ? (long)(seconds + 0.5) : 0;

  if (s >= 3600)
    snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

/* One line: step count, simulated time, mean wall time per step and the remaining time at that
 * rate. "\033[K" clears what a longer previous line left behind (we only draw on a terminal). */
static PetscErrorCode Draw(const SimProgress *p, PetscInt step, PetscReal time,
                           PetscLogDouble now)
{
  const double elapsed = now - p->start;
  const double per_step = step > 0 ? elapsed / step : 0;
  char total[32] = "", eta[32] = "";

  PetscFunctionBeginUser;
  if (p->nsteps > 0) snprintf(total, sizeof(total), "/%" PetscInt_FMT, p->nsteps);
  if (p->nsteps > 0 && step > 0) {
    char dur[24];

    FormatDuration(per_step * (double)(p->nsteps - step), dur, sizeof(dur));
    snprintf(eta, sizeof(eta), "  ETA %s", dur);
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                         "\r step %" PetscInt_FMT "%s  t = %.3f s  %.1f ms/step%s\033[K", step,
                         total, (double)time, 1e3 * per_step, eta));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProgressStart(SimProgress *p, PetscInt nsteps, PetscBool want)
{
  PetscFunctionBeginUser;
  /* A progress line in a redirected log is noise: draw only on a terminal. */
  p->enabled = want && isatty(fileno(stderr)) ? PETSC_TRUE : PETSC_FALSE;
  p->nsteps = nsteps;
  PetscCall(PetscTime(&p->start));
  p->last = p->start;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProgressUpdate(SimProgress *p, PetscInt step, PetscReal time)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  if (!p->enabled) PetscFunctionReturn(0);
  PetscCall(PetscTime(&now));
  if (now - p->last < SIM_PROGRESS_INTERVAL) PetscFunctionReturn(0);
  p->last = now;
  PetscCall(Draw(p, step, time, now));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProgressFinish(SimProgress *p, PetscInt step, PetscReal time)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  if (!p->enabled) PetscFunctionReturn(0);
  PetscCall(PetscTime(&now));
  PetscCall(Draw(p, step, time, now));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "\n"));
  PetscFunctionReturn(0);
}
