/* Materials: creation by registered name with validated E, nu, density (Lame conversion), and the
 * dispatchers that check arguments and results around each material's batched ops. */
#include "framework/material.h"
#include "framework/text.h"

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
static PetscErrorCode StoreParameter(SimMaterial, const char *, PetscInt, const PetscReal *);

/* The declared parameters as options -<prefix><material>_<param> (checked against their ranges),
 * then the material's own setfromoptions, in one options block titled by the material. Parameters
 * that share a count must be given with the same number of values. */
static PetscErrorCode SetFromOptions_Material(SimMaterial m)
{
  char title[128];
  PetscInt counted[SIM_MATERIAL_PARAM_MAX * 4], nset = 0; /* (index, number of values) of the counted parameters given */

  PetscFunctionBeginUser;
  if (!m->nparams && !m->ops.setfromoptions) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(title, sizeof(title), "Material '%s' parameters", m->name));
  PetscOptionsBegin(PETSC_COMM_SELF, m->prefix, title, "");
  for (PetscInt k = 0; k < m->nparams; k++) {
    const SimMaterialParam *p = &m->params[k];
    PetscReal *val = (PetscReal *)((char *)m->data + p->offset), given[SIM_MATERIAL_PARAM_MAX];
    PetscInt cur = p->count ? *(PetscInt *)((char *)m->data + p->count_offset) : p->n, nget = p->n;
    PetscBool set;
    char opt[160], help[320];

    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_%s", m->name, p->name));
    PetscCall(PetscSNPrintf(help, sizeof(help), "%s, in [%g, %g]", p->help, (double)p->lo, (double)p->hi));
    for (PetscInt i = 0; i < cur; i++) given[i] = val[i];
    if (p->n == 1) {
      PetscCall(PetscOptionsReal(opt, help, "", given[0], &given[0], &set));
      nget = 1;
    } else
      PetscCall(PetscOptionsRealArray(opt, help, "", given, &nget, &set));
    if (!set) continue;
    PetscCall(StoreParameter(m, p->name, nget, given));
    if (!p->count) continue;
    for (PetscInt j = 0; j < nset; j++) {
      const SimMaterialParam *q = &m->params[counted[2 * j]];
      PetscCheck(q->count_offset != p->count_offset || counted[2 * j + 1] == nget, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                 "Material '%s': -%s%s_%s has %" PetscInt_FMT " values and -%s%s_%s %" PetscInt_FMT ": give them as many",
                 m->name, m->prefix, m->name, q->name, counted[2 * j + 1], m->prefix, m->name, p->name, nget);
    }
    PetscCheck(nset < SIM_MATERIAL_PARAM_MAX * 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "Material '%s': too many counted parameters",
               m->name);
    counted[2 * nset] = k, counted[2 * nset + 1] = nget, nset++;
  }
  if (m->ops.setfromoptions) PetscCall(m->ops.setfromoptions(m, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* The declared parameters' table is well formed and the material has data to hold them. */
static PetscErrorCode CheckParamTable(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCheck(!m->nparams || (m->params && m->data), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Material '%s' declares %" PetscInt_FMT " parameters but no table or no data to hold them", m->name, m->nparams);
  for (PetscInt k = 0; k < m->nparams; k++) {
    const SimMaterialParam *p = &m->params[k];
    const PetscBool finite = (PetscBool)(!PetscIsInfOrNanReal(p->lo) && !PetscIsInfOrNanReal(p->hi) && p->lo <= p->hi);

    PetscCheck(p->name && p->help && p->n >= 1 && p->n <= SIM_MATERIAL_PARAM_MAX && finite, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Material '%s': parameter %" PetscInt_FMT
               " (%s) is badly declared: it needs a name, help, 1 <= n <= %d and a finite "
               "range lo <= hi",
               m->name, k, p->name ? p->name : "(no name)", SIM_MATERIAL_PARAM_MAX);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MaterialCreate(SimRegistry reg, const char *name, const char *prefix, const char *opt, PetscReal E,
                                     PetscReal nu, PetscReal rho, PetscBool limits_set, PetscReal smin, PetscReal smax,
                                     SimMaterial *mat)
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
  PetscCheck(
      0 <= smin && smin <= 1 && 1 <= smax && PetscIsNormalReal(smax), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
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
  if (opt) PetscCall(PetscStrncpy(m->prefix, prefix ? prefix : "", sizeof(m->prefix)));
  m->from_options = (PetscBool)(opt != NULL);
  ierr = ((SimMaterialCreateFn)entry->create)(m);
  if (!ierr) ierr = CheckParamTable(m);
  if (!ierr && opt) ierr = SetFromOptions_Material(m); /* runs setup after each parameter it sets */
  if (!ierr && m->ops.setup) ierr = m->ops.setup(m);
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

PetscErrorCode SimMaterialCreateWithDefaults(SimRegistry reg, const char *name, const char *prefix, PetscReal youngs,
                                             PetscReal poisson, PetscReal density, SimMaterial *mat)
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
  PetscCall(PetscOptionsReal("-strain_min", "lower strain limit on the singular values of F (arap), in [0, 1]", "", smin, &smin,
                             &set_min));
  PetscCall(
      PetscOptionsReal("-strain_max", "upper strain limit on the singular values of F (arap), >= 1", "", smax, &smax, &set_max));
  PetscOptionsEnd();
  PetscCall(MaterialCreate(reg, name, prefix, opt, E, nu, rho, (PetscBool)(set_min || set_max), smin, smax, mat));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialCreateWithParams(SimRegistry reg, const char *name, PetscReal youngs, PetscReal poisson,
                                           PetscReal density, SimMaterial *mat)
{
  PetscFunctionBeginUser;
  PetscCall(MaterialCreate(reg, name, NULL, NULL, youngs, poisson, density, PETSC_FALSE, 1, 1, mat));
  PetscFunctionReturn(0);
}

static PetscErrorCode FindParam(SimMaterial mat, const char *param, const SimMaterialParam **p)
{
  char names[512] = "";

  PetscFunctionBeginUser;
  PetscCheck(mat && param, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Material parameter: NULL material or name");
  for (PetscInt k = 0; k < mat->nparams; k++) {
    PetscBool same;
    PetscCall(PetscStrcmp(mat->params[k].name, param, &same));
    if (same) {
      *p = &mat->params[k];
      PetscFunctionReturn(0);
    }
    PetscCall(SimStrAppend(names, k ? ", " : "", sizeof(names)));
    PetscCall(SimStrAppend(names, mat->params[k].name, sizeof(names)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Material '%s' has no parameter '%s' (its parameters: %s)", mat->name,
          param, mat->nparams ? names : "none");
}

PetscErrorCode SimMaterialOptionName(SimMaterial mat, const char *param, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  if (mat->from_options)
    PetscCall(PetscSNPrintf(buf, len, "-%s%s_%s", mat->prefix, mat->name, param));
  else
    PetscCall(PetscSNPrintf(buf, len, "parameter %s", param));
  PetscFunctionReturn(0);
}

/* Checks and stores one declared parameter, without the setup. */
static PetscErrorCode StoreParameter(SimMaterial mat, const char *param, PetscInt n, const PetscReal *values)
{
  const SimMaterialParam *p;
  PetscReal *val;
  char what[160];

  PetscFunctionBeginUser;
  PetscCall(FindParam(mat, param, &p));
  PetscCall(SimMaterialOptionName(mat, param, what, sizeof(what)));
  PetscCheck(p->count ? (n >= 1 && n <= p->n) : n == p->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Material '%s': %s takes %s%" PetscInt_FMT " value%s, got %" PetscInt_FMT, mat->name, what, p->count ? "1 to " : "",
             p->n, p->n > 1 ? "s" : "", n);
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(values[i] >= p->lo && values[i] <= p->hi, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Material '%s': %s %g is out of range: must be in [%g, %g] (%s)", mat->name, what, (double)values[i],
               (double)p->lo, (double)p->hi, p->help);
  val = (PetscReal *)((char *)mat->data + p->offset);
  for (PetscInt i = 0; i < n; i++) val[i] = values[i];
  if (p->count) *(PetscInt *)((char *)mat->data + p->count_offset) = n;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialSetParameter(SimMaterial mat, const char *param, PetscInt n, const PetscReal *values)
{
  PetscFunctionBeginUser;
  PetscCall(StoreParameter(mat, param, n, values));
  if (mat->ops.setup) PetscCall(mat->ops.setup(mat));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialGetParameter(SimMaterial mat, const char *param, PetscInt *n, PetscReal *values)
{
  const SimMaterialParam *p;
  const PetscReal *val;

  PetscFunctionBeginUser;
  PetscCall(FindParam(mat, param, &p));
  val = (const PetscReal *)((const char *)mat->data + p->offset);
  *n = p->count ? *(const PetscInt *)((const char *)mat->data + p->count_offset) : p->n;
  for (PetscInt i = 0; i < *n; i++) values[i] = val[i];
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

PetscErrorCode SimMaterialEigensystem(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *eig)
{
  PetscFunctionBeginUser;
  PetscCall(CheckArgs(mat, n, F, eig, "SimMaterialEigensystem"));
  PetscCheck(mat->ops.eigensystem, PETSC_COMM_SELF, PETSC_ERR_SUP, "Material '%s' has no analytic eigensystem", mat->name);
  PetscCheck(n == 0 || dec, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "SimMaterialEigensystem (material '%s'): NULL decomposition array", mat->name);
  PetscCall(mat->ops.eigensystem(mat, n, F, dec, have_dec, eig));
  PetscCall(CheckFinite(mat, n, SIM_MATERIAL_NEIG, eig, "dP/dF"));
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
