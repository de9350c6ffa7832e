/* Materials described as data (material_model.h): the batched ops every described material shares. */
#include "framework/material_model.h"
#include "framework/linalg/svd3.h"
#include "framework/linalg/psd.h"

/* psi, P, the exact dP/dF and its PSD projection (NULL outputs skipped) of every F: the SVD (kept in
 * dec, SIM_ISOTROPIC_NDEC values per F: U, s, V; reused when have_dec), the energy in singular values
 * (directly or from invariants), the eigensystem, then the fibre term. */
static PetscErrorCode Evaluate_Model(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *psi,
                                     PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd)
{
  const SimMaterialModel *mod = (const SimMaterialModel *)m->model;
  const SimIsotropicEnergy *se = mod->sigma.psi ? &mod->sigma : NULL;
  const SimInvariantEnergy *ie = se ? NULL : &mod->invariants;
  const void *ctx = mod->size ? m->data : (const void *)&m->par;
  const PetscReal *a = mod->fibre.psi ? (const PetscReal *)((const char *)m->data + mod->fibre.direction) : NULL;
  const PetscBool hess = (PetscBool)(dPdF || dPdF_psd);

  PetscFunctionBeginUser;
  if (dec && !have_dec) { /* every SVD first, four at a time where the CPU has AVX (bit for bit SimSvd3's) */
    PetscCall(SimSvd3Batch(n, F, SIM_ISOTROPIC_NDEC, dec, dec + 9, dec + 12));
    have_dec = PETSC_TRUE;
  }
  for (PetscInt el = 0; el < n; el++) {
    const PetscReal *Fe = F + 9 * el;
    PetscReal local[SIM_ISOTROPIC_NDEC], *d = dec ? dec + SIM_ISOTROPIC_NDEC * el : local, *U = d, *s = d + 9, *V = d + 12;
    PetscReal g[3], H[9], flip[3], twist[3], inv[3], fd[3] = {0, 0, 0}, *pe = psi ? psi + el : NULL;
    PetscBool defined;

    if (!have_dec || !dec) PetscCall(SimSvd3(Fe, U, s, V));
    if (se) defined = se->defined ? se->defined(ctx, s) : PETSC_TRUE;
    else {
      SimInvariantsOfSigma(s, inv);
      defined = ie->defined ? ie->defined(ctx, inv) : PETSC_TRUE;
    }
    if (!defined) {
      PetscCheck(!P && !hess, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Energy '%s' is undefined at deformation gradient %" PetscInt_FMT " (singular values %g %g %g, J = det F = %g): "
                 "it is not inversion-safe, its stress and Hessian exist only where it is defined (J > 0)",
                 m->name, el, (double)s[0], (double)s[1], (double)s[2], (double)(s[0] * s[1] * s[2]));
      if (pe) *pe = (PetscReal)INFINITY; /* IEEE +inf: PETSC_INFINITY is a finite sentinel */
      continue;
    }
    if (a) mod->fibre.psi(ctx, SimFibreI4(Fe, a), fd);
    if (se) {
      if (pe) se->psi(ctx, s, pe);
      if (P || hess) se->gradient(ctx, s, g);
      if (hess) {
        se->hessian(ctx, s, H);
        if (se->quotients) se->quotients(ctx, s, flip, twist);
        else SimIsotropicQuotients(s, g, H, flip, twist);
      }
    } else SimInvariantsToSigma(ie, ctx, s, pe, P || hess ? g : NULL, hess ? H : NULL, flip, twist);
    if (pe) *pe += fd[0];
    if (P) { /* P = U diag(g) V^T (+ the fibre's) */
      PetscReal *Pe = P + 9 * el;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          Pe[3 * i + j] = U[3 * i] * g[0] * V[3 * j] + U[3 * i + 1] * g[1] * V[3 * j + 1] + U[3 * i + 2] * g[2] * V[3 * j + 2];
      if (a) SimFibreAddPK1(Fe, a, fd[1], Pe);
    }
    if (!hess) continue;
    if (!a) PetscCall(SimIsotropicHessians(U, V, H, flip, twist, dPdF ? dPdF + 81 * el : NULL, dPdF_psd ? dPdF_psd + 81 * el : NULL));
    else { /* the sum has no analytic eigensystem: the exact one, then a 9x9 eigendecomposition */
      PetscReal *He = dPdF ? dPdF + 81 * el : dPdF_psd + 81 * el;
      PetscCall(SimIsotropicHessians(U, V, H, flip, twist, He, NULL));
      SimFibreAddHessian(Fe, a, fd[1], fd[2], He);
      if (dPdF_psd) {
        if (dPdF) PetscCall(PetscArraycpy(dPdF_psd + 81 * el, He, 81));
        PetscCall(SimSymProjectPSD(9, dPdF_psd + 81 * el));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* The eigensystem op: H, flip, twist of every F (the SVD kept in dec as in Evaluate_Model), for
 * descriptions without a fibre term (SimMaterialSetModel leaves the op out for those). */
static PetscErrorCode Eigensystem_Model(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *eig)
{
  const SimMaterialModel *mod = (const SimMaterialModel *)m->model;
  const SimIsotropicEnergy *se = mod->sigma.psi ? &mod->sigma : NULL;
  const SimInvariantEnergy *ie = se ? NULL : &mod->invariants;
  const void *ctx = mod->size ? m->data : (const void *)&m->par;

  PetscFunctionBeginUser;
  if (!have_dec) PetscCall(SimSvd3Batch(n, F, SIM_ISOTROPIC_NDEC, dec, dec + 9, dec + 12));
  for (PetscInt el = 0; el < n; el++) {
    PetscReal *d = dec + SIM_ISOTROPIC_NDEC * el, *s = d + 9, *H = eig + SIM_MATERIAL_NEIG * el;
    PetscReal g[3], inv[3], *flip = H + 9, *twist = H + 12;
    PetscBool defined;

    if (se) defined = se->defined ? se->defined(ctx, s) : PETSC_TRUE;
    else {
      SimInvariantsOfSigma(s, inv);
      defined = ie->defined ? ie->defined(ctx, inv) : PETSC_TRUE;
    }
    PetscCheck(defined, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Energy '%s' is undefined at deformation gradient %" PetscInt_FMT " (singular values %g %g %g, J = det F = %g): "
               "it is not inversion-safe, its stress and Hessian exist only where it is defined (J > 0)",
               m->name, el, (double)s[0], (double)s[1], (double)s[2], (double)(s[0] * s[1] * s[2]));
    if (se) {
      se->gradient(ctx, s, g);
      se->hessian(ctx, s, H);
      if (se->quotients) se->quotients(ctx, s, flip, twist);
      else SimIsotropicQuotients(s, g, H, flip, twist);
    } else SimInvariantsToSigma(ie, ctx, s, NULL, g, H, flip, twist);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Energy_Model(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *psi)
{
  return Evaluate_Model(m, n, F, NULL, PETSC_FALSE, psi, NULL, NULL, NULL);
}

static PetscErrorCode PK1_Model(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *P)
{
  return Evaluate_Model(m, n, F, NULL, PETSC_FALSE, NULL, P, NULL, NULL);
}

static PetscErrorCode Hessian_Model(SimMaterial m, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF)
{
  return Evaluate_Model(m, n, F, NULL, PETSC_FALSE, NULL, NULL, psd ? NULL : dPdF, psd ? dPdF : NULL);
}

static PetscErrorCode Setup_Model(SimMaterial m)
{
  const SimMaterialModel *mod = (const SimMaterialModel *)m->model;

  PetscFunctionBeginUser;
  if (mod->setup) PetscCall(mod->setup(m));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Model(SimMaterial m)
{
  const SimMaterialModel *mod = (const SimMaterialModel *)m->model;

  PetscFunctionBeginUser;
  if (mod && mod->destroy) PetscCall(mod->destroy(m));
  PetscCall(PetscFree(m->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialSetModel(SimMaterial m, const SimMaterialModel *model)
{
  static const SimMaterialOps ops = {.energy = Energy_Model,
                                     .pk1 = PK1_Model,
                                     .hessian = Hessian_Model,
                                     .destroy = Destroy_Model,
                                     .setup = Setup_Model,
                                     .evaluate = Evaluate_Model};
  const SimIsotropicEnergy *se = &model->sigma;
  const SimInvariantEnergy *ie = &model->invariants;

  PetscFunctionBeginUser;
  PetscCheck(!se->psi != !ie->psi, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Material '%s': describe the energy either in singular values (sigma.psi) or in invariants (invariants.psi), not %s",
             m->name, se->psi ? "both" : "neither");
  PetscCheck(se->psi ? se->gradient && se->hessian : ie->gradient && ie->hessian, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Material '%s': the energy needs its gradient and hessian callbacks", m->name);
  PetscCheck(!model->fibre.psi || model->size >= model->fibre.direction + 3 * sizeof(PetscReal), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Material '%s': a fibre term needs its direction inside the data struct (size %zu)", m->name, model->size);
  PetscCheck(!model->nparams || model->size, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Material '%s': parameters need a data struct (size 0)", m->name);
  m->ops = ops;
  if (!model->fibre.psi) m->ops.eigensystem = Eigensystem_Model; /* the sum with a fibre term has no analytic one */
  m->ndec = SIM_ISOTROPIC_NDEC;
  m->model = model;
  m->inversion_safe = model->inversion_safe;
  m->strain_limits = model->strain_limits;
  m->params = model->params;
  m->nparams = model->nparams;
  if (model->size) PetscCall(PetscCalloc(model->size, &m->data));
  for (PetscInt k = 0; k < model->nparams; k++) { /* the defaults */
    const SimMaterialParam *p = &model->params[k];
    const PetscInt nd = p->count ? p->ndef : p->n;
    PetscReal *val = (PetscReal *)((char *)m->data + p->offset);

    PetscCheck(p->offset + p->n * sizeof(PetscReal) <= model->size && nd >= 1 && nd <= p->n, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Material '%s': parameter '%s' lies outside the data struct or has %" PetscInt_FMT " defaults", m->name, p->name,
               nd);
    for (PetscInt i = 0; i < nd; i++) val[i] = p->def[i];
    if (p->count) *(PetscInt *)((char *)m->data + p->count_offset) = nd;
  }
  PetscFunctionReturn(0);
}
