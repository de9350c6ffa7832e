/* Second-order time stepping for stablefluids (-sf_time sl_bdf2): the semi-Lagrangian BDF2
 * scheme (Xiu and Karniadakis 2001, "A semi-Lagrangian high-order method for Navier-Stokes
 * equations"). Along the characteristic that arrives at x at t_{n+1},
 *   a0 u^{n+1}(x) - a1 u^n(X^n) + a2 u^{n-1}(X^{n-1}) = dt (f - grad p / rho + nu lap u)^{n+1}(x),
 * with the variable-step BDF2 weights (w = dt / dt_prev)
 *   a0 = (1 + 2w)/(1 + w),  a1 = 1 + w,  a2 = w^2/(1 + w)      (w = 1: 3/2, 2, 1/2).
 * So the step is: u* = (a1 A(u^n) - a2 A(u^{n-1})) / a0, then the usual forces, implicit
 * viscosity and projection with the effective step dt / a0 (the right-hand side is implicit, so
 * the splitting of the pressure from the advection costs nothing at second order — the first-order
 * split (Chorin) loses exactly that). The feet of the characteristics are second order:
 *   X^n     : back over dt by the velocity extrapolated to t_{n+1/2}, (1 + w/2) u^n - (w/2) u^{n-1},
 *             with the scheme's RK2 backtrace (midpoint rule in time and in space);
 *   X^{n-1} : back over dt + dt_prev by u^n (the midpoint of [t_{n-1}, t_{n+1}] when w = 1).
 * Each advection uses the -sf_advection scheme (BFECC for second order in space at a fixed Courant
 * number). The smoke scalars, pure transport, go once over dt by the extrapolated midpoint
 * velocity. The first step, with no u^{n-1}, is the first-order split step. */
#include "solvers/stablefluids/sf_impl.h"

static const char *const time_schemes[] = {"chorin", "sl_bdf2"};

PetscErrorCode SFTimeSchemeFind(const char *name, PetscBool *bdf2)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2; i++)
    if (!strcmp(name, time_schemes[i])) {
      *bdf2 = (PetscBool)(i == 1);
      PetscFunctionReturn(0);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -sf_time '%s'. Valid: chorin (first order, default), sl_bdf2 (second order)",
          name);
}

const char *SFTimeSchemeName(const SF *sf)
{
  return time_schemes[sf->bdf2 ? 1 : 0];
}

PetscErrorCode SFBDF2SetUp(SF *sf)
{
  PetscFunctionBegin;
  PetscCall(VecDuplicate(sf->u, &sf->uprev));
  PetscCall(VecDuplicate(sf->u, &sf->vmid));
  PetscCall(VecDuplicate(sf->ul, &sf->vmidl));
  sf->dt_prev = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode SFBDF2Destroy(SF *sf)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&sf->uprev));
  PetscCall(VecDestroy(&sf->vmid));
  PetscCall(VecDestroy(&sf->vmidl));
  PetscFunctionReturn(0);
}

/* The largest backtrace of a BDF2 step, in cells: the CFL number it needs (un = max |u^n|, which
 * the caller's CFL check has already computed). */
PetscErrorCode SFBDF2CFL(SF *sf, PetscReal dt, PetscReal un, PetscReal *cfl)
{
  PetscReal up;

  PetscFunctionBegin;
  *cfl = 0;
  if (!sf->bdf2 || sf->dt_prev <= 0) PetscFunctionReturn(0);
  PetscCall(SFMaxVelocity(sf, sf->uprev, &up));
  {
    const PetscReal w = dt / sf->dt_prev;
    *cfl = PetscMax(un * (dt + sf->dt_prev), ((1 + 0.5 * w) * un + 0.5 * w * up) * dt) / sf->h;
  }
  PetscFunctionReturn(0);
}

/* The advection of a BDF2 step: on return sf->u holds u* (boundary faces not yet applied), the
 * scalars are advected, uprev holds the old u^n, and *dt_eff = dt / a0 is the step the forces,
 * viscosity and projection take. ul: u^n's ghosted values (SFExchange: sf->u itself on one rank). */
PetscErrorCode SFBDF2Advect(SF *sf, Vec ul, PetscReal dt, PetscReal *dt_eff)
{
  const PetscReal w = dt / sf->dt_prev, a0 = (1 + 2 * w) / (1 + w), a1 = 1 + w, a2 = w * w / (1 + w);

  PetscFunctionBegin;
  /* the midpoint velocity (1 + w/2) u^n - (w/2) u^{n-1} and its ghosts */
  PetscCall(VecAXPBYPCZ(sf->vmid, 1 + 0.5 * w, -0.5 * w, 0.0, sf->u, sf->uprev));
  PetscCall(DMGlobalToLocal(sf->dav, sf->vmid, INSERT_VALUES, sf->vmidl));
  SFTraffic(sf, 3 * sf->ent_u);
  SFTrafficExchange(sf, sf->dav);
  /* u^{n-1}(X^{n-1}) into vmid (no longer needed as a global vector) */
  PetscCall(SFAdvectFaces(sf, ul, dt + sf->dt_prev, sf->uprev, NULL, sf->vmid));
  /* u^n(X^n) into unew */
  PetscCall(SFAdvectFaces(sf, sf->vmidl, dt, sf->u, ul, sf->unew));
  if (sf->smoke) {
    Vec sl;
    PetscCall(SFExchange(sf, sf->dac, sf->s, sf->sl, &sl));
    PetscCall(SFAdvectCells(sf, sf->vmidl, dt, sf->s, sl, sf->snew));
    SFSwapVecs(&sf->s, &sf->snew);
  }
  PetscCall(VecCopy(sf->u, sf->uprev));
  PetscCall(VecAXPBYPCZ(sf->u, a1 / a0, -a2 / a0, 0.0, sf->unew, sf->vmid));
  SFTraffic(sf, 2 * sf->ent_u + 3 * sf->ent_u);
  *dt_eff = dt / a0;
  PetscFunctionReturn(0);
}
