/* Hookean springs E = k/2 (l - L)^2 and Rayleigh damping along the spring (seed 004). */
#include "energies/springs.h"
#include "framework/linalg/vec3.h"

typedef struct {
  PetscInt n;
  PetscInt *pair;
  PetscReal *rest, *k; /* rest is unused by the damping term */
} Springs;

/* ---- shared by both terms ---- */

static PetscErrorCode Pattern_Springs(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  *nb = 4 * s->n;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt q = 0; q < s->n; q++) {
    PetscInt i = s->pair[2 * q], j = s->pair[2 * q + 1];
    brow[4 * q + 0] = i, bcol[4 * q + 0] = i;
    brow[4 * q + 1] = j, bcol[4 * q + 1] = j;
    brow[4 * q + 2] = i, bcol[4 * q + 2] = j;
    brow[4 * q + 3] = j, bcol[4 * q + 3] = i;
  }
  PetscFunctionReturn(0);
}

/* Writes the four blocks [B, B, -B, -B] of a two-vertex term in Pattern_Springs order. */
static inline void ScatterPairBlock(const PetscReal *B, PetscReal *vals)
{
  for (int e = 0; e < 9; e++) {
    vals[e] = vals[9 + e] = B[e];
    vals[18 + e] = vals[27 + e] = -B[e];
  }
}

/* Adds c times the four blocks [B, B, -B, -B] of spring q into the CSR values a (energy.h hessian_add):
 * the values ScatterPairBlock writes, added in the same order, so the sums are bit-identical to the
 * model's scatter of `hessian` (c (-B) = -(c B) exactly). */
static inline void AddPairBlock(const Springs *s, PetscInt q, const PetscReal *B, PetscReal c, const PetscInt *off,
                                const PetscInt *stride, PetscReal *a)
{
  const PetscInt i = s->pair[2 * q], j = s->pair[2 * q + 1];
  const PetscInt *o = off + 4 * q, L[4] = {stride[i], stride[j], stride[i], stride[j]};
  PetscReal cB[9];

  for (int e = 0; e < 9; e++) cB[e] = c * B[e];
  for (int b = 0; b < 2; b++) /* (i, i), (j, j): +cB */
    if (o[b] >= 0)
      for (int r = 0; r < 3; r++) {
        PetscReal *ar = a + o[b] + r * L[b];
        ar[0] += cB[3 * r], ar[1] += cB[3 * r + 1], ar[2] += cB[3 * r + 2];
      }
  for (int b = 2; b < 4; b++) /* (i, j), (j, i): -cB */
    if (o[b] >= 0)
      for (int r = 0; r < 3; r++) {
        PetscReal *ar = a + o[b] + r * L[b];
        ar[0] -= cB[3 * r], ar[1] -= cB[3 * r + 1], ar[2] -= cB[3 * r + 2];
      }
}

static PetscErrorCode Destroy_Springs(SimEnergy e)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree3(s->pair, s->rest, s->k));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

/* Unit direction and length of xi - xj; a zero-length spring gets d = 0 (no force direction). */
static inline PetscReal Direction(const PetscReal *x, PetscInt i, PetscInt j, PetscReal *d)
{
  PetscReal l;
  Vec3Sub(x + 3 * i, x + 3 * j, d);
  l = Vec3Norm(d);
  if (l > 0) d[0] /= l, d[1] /= l, d[2] /= l;
  return l;
}

/* ---- elastic springs ---- */

static PetscErrorCode Value_Springs(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Springs *s = (Springs *)e->data;
  PetscReal sum = 0, d[3];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    PetscReal l = Direction(x, s->pair[2 * q], s->pair[2 * q + 1], d) - s->rest[q];
    sum += 0.5 * s->k[q] * l * l;
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Springs(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Springs *s = (Springs *)e->data;
  PetscReal d[3];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    PetscInt i = s->pair[2 * q], j = s->pair[2 * q + 1];
    PetscReal f = s->k[q] * (Direction(x, i, j, d) - s->rest[q]); /* dE/dxi = k (l - L) d */
    for (int c = 0; c < 3; c++) {
      g[3 * i + c] += f * d[c];
      g[3 * j + c] -= f * d[c];
    }
  }
  PetscFunctionReturn(0);
}

/* d2E/dxi2 = k [d d^T + (1 - L/l)(I - d d^T)]. Its eigenvalues are k (along d) and k (1 - L/l)
 * (twice, across d), so the exact PSD projection of the spring clamps 1 - L/l at zero when the
 * spring is compressed (l < L). */
static inline void SpringBlock(const Springs *s, const PetscReal *x, PetscInt q, PetscBool psd, PetscReal *B)
{
  PetscReal d[3], l = Direction(x, s->pair[2 * q], s->pair[2 * q + 1], d);
  PetscReal across = l > 0 ? 1.0 - s->rest[q] / l : 0.0;

  if (psd && across < 0) across = 0;
  Mat3OuterPlusIdentity(d, d, s->k[q] * (1.0 - across), s->k[q] * across, B);
}

static PetscErrorCode Hessian_Springs(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Springs *s = (Springs *)e->data;
  PetscReal B[9];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    SpringBlock(s, x, q, psd, B);
    ScatterPairBlock(B, vals + 36 * q);
  }
  PetscFunctionReturn(0);
}

/* Hessian_Springs added straight into the CSR values (energy.h hessian_add): no block array. */
static PetscErrorCode HessianAdd_Springs(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal c,
                                         const PetscInt *off, const PetscInt *stride, PetscReal *a)
{
  Springs *s = (Springs *)e->data;
  PetscReal B[9];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    SpringBlock(s, x, q, psd, B);
    AddPairBlock(s, q, B, c, off, stride, a);
  }
  PetscFunctionReturn(0);
}

/* ---- projective dynamics (Bouaziz et al. 2014, edge-length constraints) ----
 * One constraint per spring on the stencil (i, j): A = [1, -1] (one row), w = k, and the
 * projection of xi - xj onto the sphere of radius L is p = L (xi - xj)/|xi - xj|, so
 * w/2 |A x - p|^2 = k/2 (l - L)^2, the spring energy itself. */
static PetscErrorCode PDCount_Springs(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  *nc = s->n, *nvert = 2, *nrows = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Springs(SimEnergy e, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    vert[2 * q] = s->pair[2 * q], vert[2 * q + 1] = s->pair[2 * q + 1];
    A[2 * q] = 1, A[2 * q + 1] = -1;
    w[q] = s->k[q];
  }
  PetscFunctionReturn(0);
}

/* Local step: p = L d with d the unit direction of xi - xj (a zero-length spring keeps p = 0). */
static PetscErrorCode PDProject_Springs(SimEnergy e, const PetscReal *x, PetscReal *p)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    PetscReal d[3];
    Direction(x, s->pair[2 * q], s->pair[2 * q + 1], d);
    p[3 * q] = s->rest[q] * d[0], p[3 * q + 1] = s->rest[q] * d[1], p[3 * q + 2] = s->rest[q] * d[2];
  }
  PetscFunctionReturn(0);
}

/* The same for the listed springs only (pbd/xpbd: one colour of a Gauss-Seidel sweep). */
static PetscErrorCode PDProjectSome_Springs(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *p)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt c = idx[q];
    PetscReal d[3];
    Direction(x, s->pair[2 * c], s->pair[2 * c + 1], d);
    p[3 * q] = s->rest[c] * d[0], p[3 * q + 1] = s->rest[c] * d[1], p[3 * q + 2] = s->rest[c] * d[2];
  }
  PetscFunctionReturn(0);
}

/* ---- scalar constraints (the compliant solver, energy.h cons_*): C = |xi - xj| - L, w = k, so
 * w/2 C^2 is the spring energy; dC/dxi = d = -dC/dxj and d2C/dxi2 = (I - d d^T)/l (the blocks of
 * xj with the signs of Pattern_Springs). */
static PetscErrorCode ConsCount_Springs(SimEnergy e, PetscInt *nc, PetscInt *nvert)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  *nc = s->n, *nvert = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsStencil_Springs(SimEnergy e, PetscInt *vert, PetscReal *w)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(vert, s->pair, 2 * s->n));
  PetscCall(PetscArraycpy(w, s->k, s->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsEval_Springs(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *C, PetscReal *grad)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt c = idx[q];
    PetscReal d[3];
    C[q] = Direction(x, s->pair[2 * c], s->pair[2 * c + 1], d) - s->rest[c];
    for (int k = 0; k < 3; k++) grad[6 * q + k] = d[k], grad[6 * q + 3 + k] = -d[k];
  }
  PetscFunctionReturn(0);
}

/* A zero-length spring has no direction: its second derivative is taken as 0. */
static PetscErrorCode ConsHessian_Springs(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *H)
{
  Springs *s = (Springs *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt c = idx[q];
    PetscReal d[3], *Hq = H + 36 * q;
    const PetscReal l = Direction(x, s->pair[2 * c], s->pair[2 * c + 1], d), il = l > 0 ? 1 / l : 0;
    for (int r = 0; r < 3; r++)
      for (int t = 0; t < 3; t++) {
        const PetscReal B = il * ((r == t) - d[r] * d[t]);
        Hq[6 * r + t] = Hq[6 * (r + 3) + t + 3] = B;
        Hq[6 * r + t + 3] = Hq[6 * (r + 3) + t] = -B;
      }
  }
  PetscFunctionReturn(0);
}

/* ---- damping along the spring: D = kd/2 ((vi - vj) . d)^2 ---- */

static PetscErrorCode Value_Damping(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Springs *s = (Springs *)e->data;
  PetscReal sum = 0, d[3], dv[3];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    PetscInt i = s->pair[2 * q], j = s->pair[2 * q + 1];
    PetscReal r;
    Direction(x, i, j, d);
    Vec3Sub(v + 3 * i, v + 3 * j, dv);
    r = Vec3Dot(dv, d);
    sum += 0.5 * s->k[q] * r * r;
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Damping(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Springs *s = (Springs *)e->data;
  PetscReal d[3], dv[3];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    PetscInt i = s->pair[2 * q], j = s->pair[2 * q + 1];
    PetscReal f;
    Direction(x, i, j, d);
    Vec3Sub(v + 3 * i, v + 3 * j, dv);
    f = s->k[q] * Vec3Dot(dv, d); /* dD/dvi = kd ((vi - vj) . d) d */
    for (int c = 0; c < 3; c++) {
      g[3 * i + c] += f * d[c];
      g[3 * j + c] -= f * d[c];
    }
  }
  PetscFunctionReturn(0);
}

/* kd d d^T: PSD already */
static inline void DampingBlock(const Springs *s, const PetscReal *x, PetscInt q, PetscReal *B)
{
  PetscReal d[3];

  Direction(x, s->pair[2 * q], s->pair[2 * q + 1], d);
  Mat3OuterPlusIdentity(d, d, s->k[q], 0.0, B);
}

static PetscErrorCode Hessian_Damping(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Springs *s = (Springs *)e->data;
  PetscReal B[9];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    DampingBlock(s, x, q, B);
    ScatterPairBlock(B, vals + 36 * q);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode HessianAdd_Damping(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal c,
                                         const PetscInt *off, const PetscInt *stride, PetscReal *a)
{
  Springs *s = (Springs *)e->data;
  PetscReal B[9];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < s->n; q++) {
    DampingBlock(s, x, q, B);
    AddPairBlock(s, q, B, c, off, stride, a);
  }
  PetscFunctionReturn(0);
}

/* ---- construction ---- */

static PetscErrorCode SpringsAlloc(PetscInt n, const PetscInt *pair, const PetscReal *rest, const PetscReal *k, Springs **out)
{
  Springs *s;

  PetscFunctionBeginUser;
  /* validate before allocating, so an error leaks nothing */
  for (PetscInt q = 0; q < n; q++) {
    PetscCheck(pair[2 * q] != pair[2 * q + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Spring %" PetscInt_FMT " connects vertex %" PetscInt_FMT " to itself", q, pair[2 * q]);
    PetscCheck(k[q] >= 0 && PetscIsNormalReal(k[q] + 1.0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Spring %" PetscInt_FMT ": stiffness/damping %g must be finite and >= 0", q, (double)k[q]);
    PetscCheck(!rest || rest[q] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Spring %" PetscInt_FMT " (vertices %" PetscInt_FMT ", %" PetscInt_FMT ") has rest length %g: its vertices coincide",
               q, pair[2 * q], pair[2 * q + 1], (double)(rest ? rest[q] : 0));
  }
  PetscCall(PetscNew(&s));
  s->n = n;
  PetscCall(PetscMalloc3(2 * n, &s->pair, n, &s->rest, n, &s->k));
  PetscCall(PetscArraycpy(s->pair, pair, 2 * n));
  PetscCall(PetscArraycpy(s->k, k, n));
  if (rest) PetscCall(PetscArraycpy(s->rest, rest, n));
  else PetscCall(PetscArrayzero(s->rest, n));
  *out = s;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSpringsCreate(const char *name, PetscInt n, const PetscInt *pair, const PetscReal *rest, const PetscReal *k,
                                SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Springs, .gradient = Gradient_Springs, .hessian = Hessian_Springs,
                                   .hessian_add = HessianAdd_Springs, .pattern = Pattern_Springs, .destroy = Destroy_Springs,
                                   .pd_count = PDCount_Springs, .pd_stencil = PDStencil_Springs, .pd_project = PDProject_Springs,
                                   .pd_project_some = PDProjectSome_Springs, .cons_count = ConsCount_Springs,
                                   .cons_stencil = ConsStencil_Springs, .cons_eval = ConsEval_Springs, .cons_hessian = ConsHessian_Springs};
  Springs *s;

  PetscFunctionBeginUser;
  PetscCheck(rest, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Springs need rest lengths");
  PetscCall(SpringsAlloc(n, pair, rest, k, &s));
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, s, term));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSpringDampingCreate(const char *name, PetscInt n, const PetscInt *pair, const PetscReal *kd, SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Damping, .gradient = Gradient_Damping, .hessian = Hessian_Damping,
                                   .hessian_add = HessianAdd_Damping, .pattern = Pattern_Springs, .destroy = Destroy_Springs};
  Springs *s;

  PetscFunctionBeginUser;
  PetscCall(SpringsAlloc(n, pair, NULL, kd, &s));
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_DISSIPATION, &ops, s, term));
  PetscFunctionReturn(0);
}

/* ---- the list scenes fill ---- */

PetscErrorCode SimSpringListAdd(SimSpringList *list, PetscInt i, PetscInt j, PetscReal k, PetscReal kd)
{
  PetscFunctionBeginUser;
  PetscCheck(i != j && i >= 0 && j >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bad spring (%" PetscInt_FMT ", %" PetscInt_FMT ")", i, j);
  PetscCheck(k >= 0 && kd >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Spring stiffness (%g) and damping (%g) must be >= 0", (double)k, (double)kd);
  if (list->n == list->cap) {
    PetscInt cap = list->cap ? 2 * list->cap : 64;
    PetscCall(PetscRealloc(sizeof(PetscInt) * 2 * cap, &list->pair));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap, &list->k));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap, &list->kd));
    list->cap = cap;
  }
  list->pair[2 * list->n] = i;
  list->pair[2 * list->n + 1] = j;
  list->k[list->n] = k;
  list->kd[list->n] = kd;
  list->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSpringListAddToModel(SimSpringList *list, SimModel model, const char *name)
{
  const PetscScalar *x;
  PetscReal *rest, d[3];
  PetscBool damped = PETSC_FALSE;
  SimEnergy term;

  PetscFunctionBeginUser;
  if (!list->n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(list->n, &rest));
  PetscCall(VecGetArrayRead(model->x, &x));
  for (PetscInt q = 0; q < list->n; q++) {
    PetscCheck(list->pair[2 * q] < model->nv && list->pair[2 * q + 1] < model->nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Spring %" PetscInt_FMT " refers to a vertex beyond the model's %" PetscInt_FMT, q, model->nv);
    rest[q] = Direction(x, list->pair[2 * q], list->pair[2 * q + 1], d);
    if (list->kd[q] > 0) damped = PETSC_TRUE;
  }
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscCall(SimSpringsCreate(name, list->n, list->pair, rest, list->k, &term));
  PetscCall(SimModelAddTerm(model, term));
  if (damped) {
    char dname[64];
    PetscCall(PetscSNPrintf(dname, sizeof(dname), "%s_damping", name));
    PetscCall(SimSpringDampingCreate(dname, list->n, list->pair, list->kd, &term));
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscCall(PetscFree(rest));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSpringListFree(SimSpringList *list)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(list->pair));
  PetscCall(PetscFree(list->k));
  PetscCall(PetscFree(list->kd));
  PetscCall(PetscMemzero(list, sizeof(*list)));
  PetscFunctionReturn(0);
}
