/* Size checks for option-driven sizes, and byte counts for messages. */
#include <unistd.h>
#include "framework/sizes.h"

const char *SimFormatBytes(PetscReal bytes, char *buf, size_t len)
{
  static const char *const unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;

  while (bytes >= 1000 && u < 6) bytes /= 1000, u++;
  snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", (double)bytes, unit[u]);
  return buf;
}

PetscErrorCode SimCheckSize(MPI_Comm comm, const char *options, const char *what, PetscReal count, PetscInt per)
{
  const PetscReal entries = count * per, bytes = 4 * entries * sizeof(PetscScalar);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  char need[32], have[32];

  PetscFunctionBeginUser;
  PetscCheck(entries <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "%s: %.4g %s (of %" PetscInt_FMT " values each) are more than pbsim's 32-bit indices can number (at most %.4g)", options,
             (double)count, what, per, (double)PETSC_MAX_INT / per);
  PetscCheck(pages <= 0 || page <= 0 || bytes <= (PetscReal)pages * page, comm, PETSC_ERR_MEM,
             "%s: %.4g %s need more than %s of memory, and this machine has %s", options, (double)count, what,
             SimFormatBytes(bytes, need, sizeof(need)), SimFormatBytes((PetscReal)pages * page, have, sizeof(have)));
  PetscFunctionReturn(0);
}
