/* The shallow-water fluxes: HLL / Rusanov through one face, the hydrostatic reconstruction
 * (Audusse, Bouchut, Bristeau, Klein & Perthame 2004) and a sweep along a line of cells (first
 * order, or MUSCL with the minmod limiter on depth, surface and velocities). Plain functions on
 * arrays, so the unit tests call them directly. */
#include "solvers/swe/swe_impl.h"

static inline PetscReal Minmod(PetscReal a, PetscReal b)
{
  if (a * b <= 0) return 0;
  return PetscAbsReal(a) < PetscAbsReal(b) ? a : b;
}

void SWERiemannFlux(SWEFluxKind kind, PetscReal g, PetscReal hL, PetscReal uL, PetscReal vL, PetscReal hR, PetscReal uR, PetscReal vR,
                    PetscReal F[3])
{
  PetscReal cL, cR, FL0, FL1, FR0, FR1, sL, sR;

  F[0] = F[1] = F[2] = 0;
  if (hL <= 0 && hR <= 0) return;
  if (hL <= 0) hL = 0, uL = vL = 0;
  if (hR <= 0) hR = 0, uR = vR = 0;
  cL = PetscSqrtReal(g * hL);
  cR = PetscSqrtReal(g * hR);
  FL0 = hL * uL, FL1 = hL * uL * uL + 0.5 * g * hL * hL;
  FR0 = hR * uR, FR1 = hR * uR * uR + 0.5 * g * hR * hR;
  if (kind == SWE_FLUX_RUSANOV) {
    const PetscReal s = PetscMax(PetscAbsReal(uL) + cL, PetscAbsReal(uR) + cR);
    F[0] = 0.5 * (FL0 + FR0) - 0.5 * s * (hR - hL);
    F[1] = 0.5 * (FL1 + FR1) - 0.5 * s * (hR * uR - hL * uL);
    F[2] = 0.5 * (FL0 * vL + FR0 * vR) - 0.5 * s * (hR * vR - hL * vL);
    return;
  }
  /* wave speed estimates (Toro, "Shock-capturing methods for free-surface shallow flows", 2001),
   * with the dry-front speeds u -+ 2c when one side is dry */
  if (hL == 0) sL = uR - 2 * cR, sR = uR + cR;
  else if (hR == 0) sL = uL - cL, sR = uL + 2 * cL;
  else sL = PetscMin(uL - cL, uR - cR), sR = PetscMax(uL + cL, uR + cR);
  if (sL >= 0) {
    F[0] = FL0, F[1] = FL1, F[2] = FL0 * vL;
  } else if (sR <= 0) {
    F[0] = FR0, F[1] = FR1, F[2] = FR0 * vR;
  } else {
    F[0] = (sR * FL0 - sL * FR0 + sL * sR * (hR - hL)) / (sR - sL);
    F[1] = (sR * FL1 - sL * FR1 + sL * sR * (hR * uR - hL * uL)) / (sR - sL);
    F[2] = F[0] * (F[0] >= 0 ? vL : vR); /* the tangential velocity is carried upwind */
  }
}

void SWEFaceFlux(SWEFluxKind kind, PetscReal g, const PetscReal L[4], const PetscReal R[4], PetscReal Fm[3], PetscReal Fp[3])
{
  const PetscReal bs = PetscMax(L[3], R[3]);
  const PetscReal hLs = PetscMax(0, L[0] + L[3] - bs), hRs = PetscMax(0, R[0] + R[3] - bs);
  PetscReal F[3];

  SWERiemannFlux(kind, g, hLs, L[1], L[2], hRs, R[1], R[2], F);
  for (int c = 0; c < 3; c++) Fm[c] = Fp[c] = F[c];
  Fm[1] += 0.5 * g * (L[0] * L[0] - hLs * hLs);
  Fp[1] += 0.5 * g * (R[0] * R[0] - hRs * hRs);
}

void SWESweep(const SWELine *line, PetscInt order, SWEFluxKind kind, PetscReal g, PetscReal dx, PetscReal dry, PetscBool wall_lo,
              PetscBool wall_hi, PetscReal *work, PetscReal dU[], PetscReal *rate)
{
  const PetscInt m = line->m, nc = m + 2, nf = m + 1;
  /* cells -1 .. m (index c + 1): west and east face values of h, b, un, ut */
  PetscReal *hW = work, *hE = hW + nc, *bW = hE + nc, *bE = bW + nc, *uW = bE + nc, *uE = uW + nc, *vW = uE + nc, *vE = vW + nc;
  /* faces 0 .. m: the fluxes the left (m) and right (p) cells see */
  PetscReal *Fm = vE + nc, *Fp = Fm + 3 * nf;
  const PetscReal *h = line->h + 2, *qn = line->qn + 2, *qt = line->qt + 2, *b = line->b + 2;
  PetscReal rmax = 0;

#define VEL(q, c) (h[c] > dry ? (q)[c] / h[c] : 0)
  for (PetscInt c = -1; c <= m; c++) {
    const PetscInt k = c + 1;
    const PetscReal u = VEL(qn, c), v = VEL(qt, c);
    if (order < 2) {
      hW[k] = hE[k] = h[c], bW[k] = bE[k] = b[c], uW[k] = uE[k] = u, vW[k] = vE[k] = v;
    } else {
      const PetscReal dh = Minmod(h[c] - h[c - 1], h[c + 1] - h[c]);
      const PetscReal de = Minmod(h[c] + b[c] - h[c - 1] - b[c - 1], h[c + 1] + b[c + 1] - h[c] - b[c]);
      const PetscReal du = Minmod(u - VEL(qn, c - 1), VEL(qn, c + 1) - u), dv = Minmod(v - VEL(qt, c - 1), VEL(qt, c + 1) - v);
      hW[k] = h[c] - 0.5 * dh, hE[k] = h[c] + 0.5 * dh;
      bW[k] = h[c] + b[c] - 0.5 * de - hW[k], bE[k] = h[c] + b[c] + 0.5 * de - hE[k];
      uW[k] = u - 0.5 * du, uE[k] = u + 0.5 * du;
      vW[k] = v - 0.5 * dv, vE[k] = v + 0.5 * dv;
    }
    if (c >= 0 && c < m) rmax = PetscMax(rmax, (PetscAbsReal(u) + PetscSqrtReal(g * h[c])) / dx);
  }
#undef VEL
  for (PetscInt f = 0; f <= m; f++) {
    const PetscReal L[4] = {hE[f], uE[f], vE[f], bE[f]}, R[4] = {hW[f + 1], uW[f + 1], vW[f + 1], bW[f + 1]};
    SWEFaceFlux(kind, g, L, R, Fm + 3 * f, Fp + 3 * f);
    if ((f == 0 && wall_lo) || (f == m && wall_hi)) /* nothing crosses a wall; its pressure stays */
      Fm[3 * f] = Fp[3 * f] = Fm[3 * f + 2] = Fp[3 * f + 2] = 0;
  }
  for (PetscInt c = 0; c < m; c++) {
    const PetscInt k = c + 1;
    dU[3 * c] -= (Fm[3 * (c + 1)] - Fp[3 * c]) / dx;
    /* the centred bottom source of the second-order scheme (zero at first order: bE = bW) */
    dU[3 * c + 1] -= (Fm[3 * (c + 1) + 1] - Fp[3 * c + 1]) / dx + g * 0.5 * (hW[k] + hE[k]) * (bE[k] - bW[k]) / dx;
    dU[3 * c + 2] -= (Fm[3 * (c + 1) + 2] - Fp[3 * c + 2]) / dx;
  }
  *rate = rmax;
}
