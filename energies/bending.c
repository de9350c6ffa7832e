/* Quadratic isometric bending (Bergou et al. 2006): one hinge per interior edge with constant
 * cotangent weights; value, gradient, Hessian and the PD form (a constraint K_e x_e = 0). */
#include "energies/bending.h"
#include "framework/linalg/vec3.h"
#include "framework/mesh/mesh.h"

typedef struct {
  PetscInt nhinge;
  PetscInt *vert;  /* 4 per hinge: the edge (x0, x1), then the opposite vertices x2, x3 */
  PetscReal *K;    /* 4 per hinge */
  PetscReal *w;    /* 3 kb / (A1 + A2) per hinge */
} Bending;

/* K_e x_e, the hinge's curvature vector. */
static inline void HingeVector(const Bending *b, PetscInt h, const PetscReal *x, PetscReal r[3])
{
  const PetscInt *v = b->vert + 4 * h;
  const PetscReal *K = b->K + 4 * h;
  for (int k = 0; k < 3; k++) r[k] = K[0] * x[3 * v[0] + k] + K[1] * x[3 * v[1] + k] + K[2] * x[3 * v[2] + k] + K[3] * x[3 * v[3] + k];
}

static PetscErrorCode Value_Bending(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Bending *b = (Bending *)e->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt h = 0; h < b->nhinge; h++) {
    PetscReal r[3];
    HingeVector(b, h, x, r);
    sum += 0.5 * b->w[h] * Vec3Dot(r, r);
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Bending(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt h = 0; h < b->nhinge; h++) {
    PetscReal r[3];
    HingeVector(b, h, x, r);
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) g[3 * b->vert[4 * h + a] + k] += b->w[h] * b->K[4 * h + a] * r[k];
  }
  PetscFunctionReturn(0);
}

/* Block (a, c) = w K_a K_c I: constant and PSD (psd changes nothing). */
static PetscErrorCode Hessian_Bending(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt h = 0; h < b->nhinge; h++)
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 4; c++)
        for (int r = 0; r < 9; r++) vals[144 * h + 9 * (4 * a + c) + r] = r % 4 == 0 ? b->w[h] * b->K[4 * h + a] * b->K[4 * h + c] : 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Bending(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  *nb = 16 * b->nhinge;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt h = 0; h < b->nhinge; h++)
    for (int a = 0; a < 4; a++)
      for (int c = 0; c < 4; c++) brow[16 * h + 4 * a + c] = b->vert[4 * h + a], bcol[16 * h + 4 * a + c] = b->vert[4 * h + c];
  PetscFunctionReturn(0);
}

/* Projective dynamics: A = K_e (one row on the hinge's 4 vertices), p = 0 (the flat state), w as
 * above: w/2 |K_e x_e - 0|^2 is the energy (Bouaziz et al. 2014 bending, linearized around a flat
 * rest state). The projection does not depend on x. */
static PetscErrorCode PDCount_Bending(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  *nc = b->nhinge, *nvert = 4, *nrows = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Bending(SimEnergy e, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(vert, b->vert, 4 * b->nhinge));
  PetscCall(PetscArraycpy(A, b->K, 4 * b->nhinge));
  PetscCall(PetscArraycpy(w, b->w, b->nhinge));
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_Bending(SimEnergy e, const PetscReal *x, PetscReal *p)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(p, 3 * b->nhinge));
  PetscFunctionReturn(0);
}

/* Scalar constraints (the compliant solver, energy.h cons_*): the three coordinates of each hinge's
 * curvature vector, C_{3h+k} = (K_e x_e)_k with w = w_h, so sum w/2 C^2 is the energy. Linear: no
 * cons_hessian. */
static PetscErrorCode ConsCount_Bending(SimEnergy e, PetscInt *nc, PetscInt *nvert)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  *nc = 3 * b->nhinge, *nvert = 4;
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsStencil_Bending(SimEnergy e, PetscInt *vert, PetscReal *w)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3 * b->nhinge; c++) {
    for (int a = 0; a < 4; a++) vert[4 * c + a] = b->vert[4 * (c / 3) + a];
    w[c] = b->w[c / 3];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsEval_Bending(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *C, PetscReal *grad)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt h = idx[q] / 3, k = idx[q] % 3;
    PetscReal r[3];
    HingeVector(b, h, x, r);
    C[q] = r[k];
    for (int a = 0; a < 4; a++)
      for (int l = 0; l < 3; l++) grad[12 * q + 3 * a + l] = l == k ? b->K[4 * h + a] : 0;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Bending(SimEnergy e)
{
  Bending *b = (Bending *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree3(b->vert, b->K, b->w));
  PetscCall(PetscFree(b));
  PetscFunctionReturn(0);
}

/* cot of the angle between u and w */
static inline PetscReal Cot(const PetscReal *u, const PetscReal *w)
{
  PetscReal n[3];
  Vec3Cross(u, w, n);
  return Vec3Dot(u, w) / Vec3Norm(n);
}

PetscErrorCode SimBendingCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntri, const PetscInt *tri, PetscReal kb,
                                SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Bending, .gradient = Gradient_Bending, .hessian = Hessian_Bending,
                                   .pattern = Pattern_Bending, .destroy = Destroy_Bending, .pd_count = PDCount_Bending,
                                   .pd_stencil = PDStencil_Bending, .pd_project = PDProject_Bending, .cons_count = ConsCount_Bending,
                                   .cons_stencil = ConsStencil_Bending, .cons_eval = ConsEval_Bending};
  Bending *b;
  PetscInt n = 0, nhinge, *hinges;

  PetscFunctionBeginUser;
  PetscCheck(kb > 0 && PetscIsNormalReal(kb), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Bending term '%s': stiffness %g must be finite and > 0 (N m)", name, (double)kb);
  for (PetscInt k = 0; k < 3 * ntri; k++)
    PetscCheck(tri[k] >= 0 && tri[k] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Triangle %" PetscInt_FMT " of '%s' refers to vertex %" PetscInt_FMT " (valid 0 .. %" PetscInt_FMT ")", k / 3, name,
               tri[k], nv - 1);
  PetscCall(SimMeshHinges(ntri, tri, &nhinge, &hinges));
  PetscCall(PetscNew(&b));
  PetscCall(PetscMalloc3(4 * nhinge + 4, &b->vert, 4 * nhinge + 4, &b->K, nhinge + 1, &b->w));
  for (PetscInt q = 0; q < nhinge; q++) {
    const PetscReal *x0, *x1, *x2, *x3;
    PetscReal e0[3], e1[3], e2[3], e3[3], e4[3], m0[3], n1[3], n2[3], A1, A2, c01, c02, c03, c04, *K, r[3], scale;
    PetscInt *v = b->vert + 4 * n;
    K = b->K + 4 * n;
    for (int k = 0; k < 4; k++) v[k] = hinges[4 * q + k];
    x0 = rest + 3 * v[0], x1 = rest + 3 * v[1], x2 = rest + 3 * v[2], x3 = rest + 3 * v[3];
    /* Bergou et al. 2006: e0 = x1 - x0, e1 = x2 - x0, e2 = x3 - x0, e3 = x2 - x1, e4 = x3 - x1;
     * K = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04), c_jk the cot of the angle between e_j and
     * e_k at the hinge's ends (the angle at x1 between -e0 and e3, e4) */
    Vec3Sub(x1, x0, e0), Vec3Sub(x2, x0, e1), Vec3Sub(x3, x0, e2), Vec3Sub(x2, x1, e3), Vec3Sub(x3, x1, e4);
    m0[0] = -e0[0], m0[1] = -e0[1], m0[2] = -e0[2];
    c01 = Cot(e0, e1), c02 = Cot(e0, e2), c03 = Cot(m0, e3), c04 = Cot(m0, e4);
    K[0] = c03 + c04, K[1] = c01 + c02, K[2] = -c01 - c03, K[3] = -c02 - c04;
    Vec3Cross(e0, e1, n1), Vec3Cross(e0, e2, n2);
    A1 = 0.5 * Vec3Norm(n1), A2 = 0.5 * Vec3Norm(n2);
    b->w[n] = 3 * kb / (A1 + A2);
    /* the rest curvature must vanish (flat rest state) */
    for (int k = 0; k < 3; k++) r[k] = K[0] * x0[k] + K[1] * x1[k] + K[2] * x2[k] + K[3] * x3[k];
    scale = (PetscAbsReal(K[0]) + PetscAbsReal(K[1]) + PetscAbsReal(K[2]) + PetscAbsReal(K[3])) * Vec3Norm(e0);
    if (Vec3Norm(r) > 1e-8 * scale) {
      const PetscInt i = v[0], j = v[1];
      PetscCall(PetscFree(hinges));
      PetscCall(PetscFree3(b->vert, b->K, b->w));
      PetscCall(PetscFree(b));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
              "Bending term '%s': the hinge on edge (%" PetscInt_FMT ", %" PetscInt_FMT ") is not flat at rest (|K x| = %g); the "
              "quadratic bending model needs a flat rest state",
              name, i, j, (double)Vec3Norm(r));
    }
    n++;
  }
  PetscCall(PetscFree(hinges));
  b->nhinge = n;
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, b, term));
  PetscFunctionReturn(0);
}
