/* The table of SPH kernels by name and their normalizations (kernel.h). */
#include "solvers/sph/kernel.h"

static const struct {
  const char *name;
  SimKernelType type;
  PetscReal sigma[2]; /* 2D, 3D */
} kernels[] = {
  {"cubic", SIM_KERNEL_CUBIC, {40.0 / (7.0 * PETSC_PI), 8.0 / PETSC_PI}},
  {"wendland", SIM_KERNEL_WENDLAND, {7.0 / PETSC_PI, 21.0 / (2.0 * PETSC_PI)}},
  {"poly6", SIM_KERNEL_POLY6, {4.0 / PETSC_PI, 315.0 / (64.0 * PETSC_PI)}},
  {"spiky", SIM_KERNEL_SPIKY, {10.0 / PETSC_PI, 15.0 / PETSC_PI}},
};

const char *SimKernelNames(void)
{
  return "cubic, wendland, poly6, spiky";
}

PetscErrorCode SimKernelSetUp(const char *name, const char *option, PetscInt dim, PetscReal h, SimKernel *k)
{
  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SPH kernels are 2D or 3D (got %" PetscInt_FMT ")", dim);
  PetscCheck(h > 0 && PetscIsNormalReal(h), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: the kernel support must be > 0 (got %g)", option, (double)h);
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
    if (strcmp(kernels[i].name, name)) continue;
    k->type = kernels[i].type;
    k->dim = dim;
    k->h = h;
    k->inv_h = 1 / h;
    k->norm = kernels[i].sigma[dim - 2] / PetscPowRealInt(h, dim);
    k->gnorm = k->norm / h;
    PetscFunctionReturn(0);
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s: unknown kernel '%s' (valid: %s)", option, name, SimKernelNames());
}
