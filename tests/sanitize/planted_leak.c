/* A leak planted in a material, for the sanitizer build's test (sanitize.cmake): its setup allocates
 * a table that its destroy forgets to free; LeakSanitizer must report it (with the suppressions of
 * the libraries' start-up leaks on). With the argument "fixed" the destroy frees it: no report. */
#include <stddef.h>
#include <string.h>
#include "framework/material_model.h"
#include "materials/register.h"

typedef struct {
  PetscReal *table; /* what the setup allocates */
  PetscReal mu;
} Leaky;

static PetscBool fixed = PETSC_FALSE;

static PetscErrorCode Setup_Leaky(SimMaterial m)
{
  Leaky *p = (Leaky *)m->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(p->table));
  PetscCall(PetscMalloc1(64, &p->table));
  for (int k = 0; k < 64; k++) p->table[k] = k * m->par.mu;
  p->mu = m->par.mu;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Leaky(SimMaterial m)
{
  Leaky *p = (Leaky *)m->data;

  PetscFunctionBeginUser;
  if (fixed) PetscCall(PetscFree(p->table)); /* the planted bug: without "fixed", the table is lost */
  PetscFunctionReturn(0);
}

/* psi = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2 would do; the leak does not need maths: psi = mu (I_C - 3) */
static void Psi_Leaky(const void *ctx, const PetscReal inv[3], PetscReal *psi)
{
  *psi = ((const Leaky *)ctx)->mu * (inv[0] - 3);
}

static void Gradient_Leaky(const void *ctx, const PetscReal inv[3], PetscReal d[3])
{
  d[0] = ((const Leaky *)ctx)->mu, d[1] = d[2] = 0;
}

static void Hessian_Leaky(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  for (int k = 0; k < 9; k++) D[k] = 0;
}

static const SimMaterialModel leaky = {.invariants = {.psi = Psi_Leaky, .gradient = Gradient_Leaky, .hessian = Hessian_Leaky},
                                       .size = sizeof(Leaky),
                                       .setup = Setup_Leaky,
                                       .destroy = Destroy_Leaky};

static PetscErrorCode SimMaterialCreate_Leaky(SimMaterial m)
{
  return SimMaterialSetModel(m, &leaky);
}

int main(int argc, char **argv)
{
  SimRegistry reg;
  SimMaterial mat;
  const PetscReal F[9] = {1.1, 0, 0, 0, 1, 0, 0, 0, 0.9};
  PetscReal psi;

  fixed = (PetscBool)(argc > 1 && !strcmp(argv[1], "fixed"));
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SimRegistryCreate(&reg));
  PetscCall(SimRegisterMaterials(reg));
  PetscCall(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "leaky", "a material whose destroy forgets its table", (SimGenericFn)SimMaterialCreate_Leaky, 0));
  PetscCall(SimMaterialCreateWithParams(reg, "leaky", 1e5, 0.3, 1000, &mat));
  PetscCall(SimMaterialEnergy(mat, 1, F, &psi));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "psi = %g, destroy %s\n", (double)psi, fixed ? "fixed" : "with the planted leak"));
  PetscCall(SimMaterialDestroy(&mat));
  PetscCall(SimRegistryDestroy(&reg));
  PetscCall(PetscFinalize());
  return 0;
}
