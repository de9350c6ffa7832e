/* Materials: creation by registered name with validated E, nu, density (Lame conversion), and the
 * dispatchers that check arguments and results around each material's batched ops. */
#include "framework/material.h"

/* Checks E > 0, -1 < nu < 0.5, density > 0; `opt` is the option prefix text ("-bunny_") or NULL
 * for explicit parameters, so that the message names what the user actually set. */
static PetscErrorCode ValidateParams(const char *name, const char *opt, PetscReal E, PetscReal nu, PetscReal rho)
{
  const char *p = opt ? opt : "";
  const char *how = opt ? "" : " (SimMaterialCreateWithParams)";

  PetscFunctionBeginUser;
  PetscCheck(E > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': %syoungs %g is out of range: Young's modulus must be > 0 (Pa)%s", name, p, (double)E, how);
  PetscCheck(nu > -1 && nu < 0.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': %spoisson %g is out of range: must be in (-1, 0.5); %s%s", name, p, (double)nu,
             nu >= 0.5 ? "nu = 0.5 is incompressible and makes lambda infinite" : "nu = -1 makes mu infinite", how);
  PetscCheck(rho > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': %sdensity %g is out of range: must be > 0 (kg/m^3)%s", name, p, (double)rho, how);
  PetscFunctionReturn(0);
}

/* The common constructor: validates, converts to Lame, and calls the registered constructor. */
static PetscErrorCode MaterialCreate(SimRegistry reg, const char *name, const char *opt, PetscReal E, PetscReal nu, PetscReal rho,
                                     PetscBool limits_set, PetscReal smin, PetscReal smax, SimMaterial *mat)
{
  const SimRegEntry *entry;
  SimMaterial m;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCheck(mat, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Material '%s': NULL output pointer", name);
  *mat = NULL;
  PetscCall(SimRegistryFind(reg, SIM_KIND_MATERIAL, name, &entry));
  PetscCheck(entry->create, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Material '%s' is registered without a constructor", name);
  PetscCall(ValidateParams(name, opt, E, nu, rho));
  PetscCheck(0 <= smin && smin <= 1 && 1 <= smax && PetscIsNormalReal(smax), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': strain limits [%sstrain_min, %sstrain_max] = [%g, %g] are out of range: need 0 <= strain_min <= 1 <= "
             "strain_max (the rest shape must be inside)",
             name, opt ? opt : "", opt ? opt : "", (double)smin, (double)smax);
  PetscCall(PetscNew(&m));
  PetscCall(PetscStrncpy(m->name, name, sizeof(m->name)));
  m->par.youngs = E;
  m->par.poisson = nu;
  m->par.density = rho;
  m->par.mu = E / (2 * (1 + nu));                     /* shear modulus */
  m->par.lambda = E * nu / ((1 + nu) * (1 - 2 * nu)); /* first Lame parameter */
  m->par.strain_min = smin;
  m->par.strain_max = smax;
  ierr = ((SimMaterialCreateFn)entry->create)(m);
  if (ierr) { /* free what the constructor set up before failing, then pass the error on */
    PetscCall(SimMaterialDestroy(&m));
    PetscCall(ierr);
  }
  if (!m->ops.energy || !m->ops.pk1 || !m->ops.hessian) {
    PetscCall(SimMaterialDestroy(&m));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Material '%s' must set the energy, pk1 and hessian ops in its constructor", name);
  }
  if (limits_set && !m->strain_limits) {
    PetscCall(SimMaterialDestroy(&m));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP,
            "Material '%s' has no strain limits: %sstrain_min/%sstrain_max apply to the 'arap' material only", name,
            opt ? opt : "", opt ? opt : "");
  }
  *mat = m;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialCreate(SimRegistry reg, const char *name, const char *prefix, SimMaterial *mat)
{
  return SimMaterialCreateWithDefaults(reg, name, prefix, 1e5, 0.3, 1000, mat);
}

PetscErrorCode SimMaterialCreateWithDefaults(SimRegistry reg, const char *name, const char *prefix, PetscReal youngs, PetscReal poisson,
                                             PetscReal density, SimMaterial *mat)
{
  PetscReal E = youngs, nu = poisson, rho = density, smin = 1, smax = 1;
  PetscBool set_min, set_max;
  char opt[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s", prefix ? prefix : ""));
  PetscOptionsBegin(PETSC_COMM_SELF, prefix, "Material options", "");
  PetscCall(PetscOptionsReal("-youngs", "Young's modulus E (Pa), > 0", "", E, &E, NULL));
  PetscCall(PetscOptionsReal("-poisson", "Poisson ratio nu, in (-1, 0.5)", "", nu, &nu, NULL));
  PetscCall(PetscOptionsReal("-density", "density (kg/m^3), > 0", "", rho, &rho, NULL));
  PetscCall(PetscOptionsReal("-strain_min", "lower strain limit on the singular values of F (arap), in [0, 1]", "", smin, &smin, &set_min));
  PetscCall(PetscOptionsReal("-strain_max", "upper strain limit on the singular values of F (arap), >= 1", "", smax, &smax, &set_max));
  PetscOptionsEnd();
  PetscCall(MaterialCreate(reg, name, opt, E, nu, rho, (PetscBool)(set_min || set_max), smin, smax, mat));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialCreateWithParams(SimRegistry reg, const char *name, PetscReal youngs, PetscReal poisson,
                                           PetscReal density, SimMaterial *mat)
{
  PetscFunctionBeginUser;
  PetscCall(MaterialCreate(reg, name, NULL, youngs, poisson, density, PETSC_FALSE, 1, 1, mat));
  PetscFunctionReturn(0);
}

/* The argument checks every op shares. */
static PetscErrorCode CheckArgs(SimMaterial mat, PetscInt n, const PetscReal *F, const void *out, const char *op)
{
  PetscFunctionBeginUser;
  PetscCheck(mat, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "%s: NULL material", op);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (material '%s'): n = %" PetscInt_FMT " < 0", op, mat->name,
             n);
  PetscCheck(n == 0 || (F && out), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "%s (material '%s'): NULL %s array for n = %" PetscInt_FMT, op, mat->name, F ? "output" : "F", n);
  PetscFunctionReturn(0);
}

/* Whether a[0..m) may hold a NaN or an infinity: nine partial sums in independent lanes (a loop the
 * compiler vectorizes), non-finite if any entry is; a false alarm (finite values whose sum
 * overflows) only sends the caller to its exact per-entry search. */
static PetscBool MaybeNonFinite(PetscInt m, const PetscReal *a)
{
  PetscReal s[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, t = 0;
  PetscInt k = 0;

  for (; k + 9 <= m; k += 9)
    for (int j = 0; j < 9; j++) s[j] += a[k + j];
  for (; k < m; k++) s[0] += a[k];
  for (int j = 0; j < 9; j++) t += s[j] * 0.0; /* 0 unless some s[j] is NaN or infinite */
  return (PetscBool)(t != 0.0 || t != t);
}

static PetscErrorCode CheckEnergy(SimMaterial mat, PetscInt n, const PetscReal *psi)
{
  PetscFunctionBeginUser;
  if (!MaybeNonFinite(n, psi)) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < n; e++)
    PetscCheck(!PetscIsNanReal(psi[e]), PETSC_COMM_SELF, PETSC_ERR_FP,
               "Material '%s' returned a NaN energy for F[%" PetscInt_FMT "]", mat->name, e);
  PetscFunctionReturn(0);
}

/* stride values per F (9 for P, 81 for dP/dF); what names the quantity in the message */
static PetscErrorCode CheckFinite(SimMaterial mat, PetscInt n, PetscInt stride, const PetscReal *a, const char *what)
{
  PetscFunctionBeginUser;
  if (!MaybeNonFinite(stride * n, a)) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < stride * n; k++)
    PetscCheck(!PetscIsInfOrNanReal(a[k]), PETSC_COMM_SELF, PETSC_ERR_FP, "Material '%s' returned a non-finite %s for F[%" PetscInt_FMT "]",
               mat->name, what, k / stride);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialEnergy(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *psi)
{
  PetscFunctionBeginUser;
  PetscCall(CheckArgs(mat, n, F, psi, "SimMaterialEnergy"));
  PetscCall(mat->ops.energy(mat, n, F, psi));
  PetscCall(CheckEnergy(mat, n, psi));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialPK1(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *P)
{
  PetscFunctionBeginUser;
  PetscCall(CheckArgs(mat, n, F, P, "SimMaterialPK1"));
  PetscCall(mat->ops.pk1(mat, n, F, P));
  PetscCall(CheckFinite(mat, n, 9, P, "stress P"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialHessian(SimMaterial mat, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF)
{
  PetscFunctionBeginUser;
  PetscCall(CheckArgs(mat, n, F, dPdF, "SimMaterialHessian"));
  PetscCall(mat->ops.hessian(mat, n, F, psd, dPdF));
  PetscCall(CheckFinite(mat, n, 81, dPdF, "dP/dF"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialEvaluate(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *psi,
                                   PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd)
{
  PetscFunctionBeginUser;
  PetscCall(CheckArgs(mat, n, F, F, "SimMaterialEvaluate"));
  if (!mat->ops.evaluate) { /* no shared decomposition: one op per output */
    if (psi) PetscCall(SimMaterialEnergy(mat, n, F, psi));
    if (P) PetscCall(SimMaterialPK1(mat, n, F, P));
    if (dPdF) PetscCall(SimMaterialHessian(mat, n, F, PETSC_FALSE, dPdF));
    if (dPdF_psd) PetscCall(SimMaterialHessian(mat, n, F, PETSC_TRUE, dPdF_psd));
    PetscFunctionReturn(0);
  }
  PetscCheck(n == 0 || mat->ndec == 0 || dec, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "SimMaterialEvaluate (material '%s'): NULL decomposition array (%" PetscInt_FMT " values per F)", mat->name, mat->ndec);
  PetscCall(mat->ops.evaluate(mat, n, F, dec, have_dec, psi, P, dPdF, dPdF_psd));
  if (psi) PetscCall(CheckEnergy(mat, n, psi));
  if (P) PetscCall(CheckFinite(mat, n, 9, P, "stress P"));
  if (dPdF) PetscCall(CheckFinite(mat, n, 81, dPdF, "dP/dF"));
  if (dPdF_psd) PetscCall(CheckFinite(mat, n, 81, dPdF_psd, "dP/dF"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialDestroy(SimMaterial *mat)
{
  PetscFunctionBeginUser;
  if (!mat || !*mat) PetscFunctionReturn(0);
  if ((*mat)->ops.destroy) PetscCall((*mat)->ops.destroy(*mat));
  PetscCall(PetscFree(*mat));
  PetscFunctionReturn(0);
}
