/* Shape matching (Müller et al. 2005) as projective constraints (shape_matching.h). */
#include "energies/shape_matching.h"
#include "framework/linalg/svd3.h"

#define SHAPE_MAX 27 /* vertices per cluster */

const char *const SimShapeModes[] = {"rigid", "linear", "quadratic"};

typedef struct {
  PetscInt mode, nc, n, dim; /* dim: 3 (rigid, linear) or 9 (quadratic) */
  PetscInt *vert;            /* n per cluster */
  PetscReal *mu, *sq;        /* n per cluster: m_i / sum m and its square root */
  PetscReal *q;              /* n dim per cluster: the rest offsets (quadratic: centred 9-vectors) */
  PetscReal *Aqq;            /* dim dim per cluster: (sum mu q q^T)^-1 */
  PetscReal beta, k;
} Shape;

/* In-place inverse of the SPD d x d matrix M by Cholesky; PETSC_FALSE when a pivot falls below
 * tol times the largest diagonal entry (M singular to working accuracy). */
static PetscBool InvertSPD(PetscInt d, PetscReal *M, PetscReal tol)
{
  PetscReal L[81] = {0}, Li[81] = {0}, dmax = 0;

  for (PetscInt i = 0; i < d; i++) dmax = PetscMax(dmax, M[i * d + i]);
  if (!(dmax > 0)) return PETSC_FALSE;
  for (PetscInt j = 0; j < d; j++) {
    PetscReal s = M[j * d + j];
    for (PetscInt k = 0; k < j; k++) s -= L[j * d + k] * L[j * d + k];
    if (!(s > tol * dmax)) return PETSC_FALSE;
    L[j * d + j] = PetscSqrtReal(s);
    for (PetscInt i = j + 1; i < d; i++) {
      PetscReal t = M[i * d + j];
      for (PetscInt k = 0; k < j; k++) t -= L[i * d + k] * L[j * d + k];
      L[i * d + j] = t / L[j * d + j];
    }
  }
  for (PetscInt j = 0; j < d; j++) { /* L^-1, column j */
    Li[j * d + j] = 1 / L[j * d + j];
    for (PetscInt i = j + 1; i < d; i++) {
      PetscReal t = 0;
      for (PetscInt k = j; k < i; k++) t -= L[i * d + k] * Li[k * d + j];
      Li[i * d + j] = t / L[i * d + i];
    }
  }
  for (PetscInt i = 0; i < d; i++) /* M^-1 = L^-T L^-1 */
    for (PetscInt j = 0; j < d; j++) {
      PetscReal t = 0;
      for (PetscInt k = PetscMax(i, j); k < d; k++) t += Li[k * d + i] * Li[k * d + j];
      M[i * d + j] = t;
    }
  return PETSC_TRUE;
}

/* Cluster c at x: its centre cm[3] and goal offsets g[3 n] = T q_i (Müller et al. 2005, eqs. 7, 12-13
 * and Sec. 4.2). */
static PetscErrorCode Goals(const Shape *s, PetscInt c, const PetscReal *x, PetscReal cm[3], PetscReal *g)
{
  const PetscInt n = s->n, D = s->dim, *v = s->vert + n * c;
  const PetscReal *mu = s->mu + n * c, *q = s->q + n * D * c, *Aqq = s->Aqq + D * D * c;
  PetscReal Apq[27] = {0}, F[9], R[9], S[9], T[27] = {0};

  PetscFunctionBeginUser;
  cm[0] = cm[1] = cm[2] = 0;
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) cm[k] += mu[i] * x[3 * v[i] + k];
  for (PetscInt i = 0; i < n; i++)
    for (int r = 0; r < 3; r++) {
      const PetscReal p = mu[i] * (x[3 * v[i] + r] - cm[r]);
      for (PetscInt j = 0; j < D; j++) Apq[r * D + j] += p * q[i * D + j];
    }
  for (int r = 0; r < 3; r++)
    for (int j = 0; j < 3; j++) F[3 * r + j] = Apq[r * D + j];
  PetscCall(SimPolar3(F, R, S));
  if (s->mode == SIM_SHAPE_RIGID) {
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 3; j++) T[r * D + j] = R[3 * r + j];
  } else {
    PetscReal A[27] = {0}, scale = 1;
    for (int r = 0; r < 3; r++)
      for (PetscInt j = 0; j < D; j++)
        for (PetscInt l = 0; l < D; l++) A[r * D + j] += Apq[r * D + l] * Aqq[l * D + j];
    if (s->mode == SIM_SHAPE_LINEAR) { /* volume preserving (Sec. 4.1); the rotation where A inverts */
      const PetscReal det =
          A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
      if (det > 0)
        scale = 1 / PetscCbrtReal(det);
      else
        scale = 0;
    }
    for (int r = 0; r < 3; r++)
      for (PetscInt j = 0; j < D; j++)
        T[r * D + j] =
            (scale > 0 ? s->beta * scale : 0) * A[r * D + j] + (j < 3 ? (scale > 0 ? 1 - s->beta : 1) * R[3 * r + j] : 0);
  }
  for (PetscInt i = 0; i < n; i++)
    for (int r = 0; r < 3; r++) {
      PetscReal t = 0;
      for (PetscInt j = 0; j < D; j++) t += T[r * D + j] * q[i * D + j];
      g[3 * i + r] = t;
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode Value_Shape(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  const Shape *s = (const Shape *)e->data;
  PetscReal sum = 0, cm[3], g[3 * SHAPE_MAX];

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < s->nc; c++) {
    PetscCall(Goals(s, c, x, cm, g));
    for (PetscInt i = 0; i < s->n; i++)
      for (int k = 0; k < 3; k++) {
        const PetscReal r = x[3 * s->vert[s->n * c + i] + k] - cm[k] - g[3 * i + k];
        sum += 0.5 * s->k * s->mu[s->n * c + i] * r * r;
      }
  }
  *E = sum;
  PetscFunctionReturn(0);
}

/* k A^T (A x - p) (the projective form's gradient: the goals are the closest point for rigid and
 * the unnormalized linear fit, and the lagged goal otherwise) */
static PetscErrorCode Gradient_Shape(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *grad)
{
  const Shape *s = (const Shape *)e->data;
  PetscReal cm[3], g[3 * SHAPE_MAX];

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < s->nc; c++) {
    const PetscInt *vc = s->vert + s->n * c;
    const PetscReal *mu = s->mu + s->n * c;
    PetscReal r[3 * SHAPE_MAX], mr[3] = {0, 0, 0};
    PetscCall(Goals(s, c, x, cm, g));
    for (PetscInt i = 0; i < s->n; i++)
      for (int k = 0; k < 3; k++) r[3 * i + k] = x[3 * vc[i] + k] - cm[k] - g[3 * i + k], mr[k] += mu[i] * r[3 * i + k];
    for (PetscInt j = 0; j < s->n; j++)
      for (int k = 0; k < 3; k++) grad[3 * vc[j] + k] += s->k * mu[j] * (r[3 * j + k] - mr[k]);
  }
  PetscFunctionReturn(0);
}

/* No Hessian: a solver that assembles one asks for the pattern first and is refused by name. */
static PetscErrorCode Pattern_Shape(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  PetscFunctionBeginUser;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Shape matching term '%s' has no Hessian: run it with -solver pbd or xpbd", e->name);
}

static PetscErrorCode PDCount_Shape(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  const Shape *s = (const Shape *)e->data;

  PetscFunctionBeginUser;
  *nc = s->nc, *nvert = s->n, *nrows = s->n;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Shape(SimEnergy e, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  const Shape *s = (const Shape *)e->data;
  const PetscInt n = s->n;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(vert, s->vert, n * s->nc));
  for (PetscInt c = 0; c < s->nc; c++) {
    const PetscReal *mu = s->mu + n * c, *sq = s->sq + n * c;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) A[(c * n + i) * n + j] = sq[i] * ((i == j) - mu[j]);
    w[c] = s->k;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ProjectOne(const Shape *s, PetscInt c, const PetscReal *x, PetscReal *p)
{
  PetscReal cm[3];

  PetscFunctionBeginUser;
  PetscCall(Goals(s, c, x, cm, p));
  for (PetscInt i = 0; i < s->n; i++)
    for (int k = 0; k < 3; k++) p[3 * i + k] *= s->sq[s->n * c + i];
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_Shape(SimEnergy e, const PetscReal *x, PetscReal *p)
{
  const Shape *s = (const Shape *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < s->nc; c++) PetscCall(ProjectOne(s, c, x, p + 3 * s->n * c));
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProjectSome_Shape(SimEnergy e, const PetscReal *x, PetscInt m, const PetscInt *idx, PetscReal *p)
{
  const Shape *s = (const Shape *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < m; t++) PetscCall(ProjectOne(s, idx[t], x, p + 3 * s->n * t));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Shape(SimEnergy e)
{
  Shape *s = (Shape *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree5(s->vert, s->mu, s->sq, s->q, s->Aqq));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

PetscErrorCode SimShapeMatchingCreate(const char *name, PetscInt nv, const PetscReal *rest, const PetscReal *mass, PetscInt nc,
                                      PetscInt n, const PetscInt *cluster, PetscInt mode, PetscReal beta, PetscReal k,
                                      SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Shape,
                                   .gradient = Gradient_Shape,
                                   .pattern = Pattern_Shape,
                                   .destroy = Destroy_Shape,
                                   .pd_count = PDCount_Shape,
                                   .pd_stencil = PDStencil_Shape,
                                   .pd_project = PDProject_Shape,
                                   .pd_project_some = PDProjectSome_Shape};
  static const PetscInt need[3] = {3, 4, 10};
  const PetscInt D = mode == SIM_SHAPE_QUADRATIC ? 9 : 3;
  Shape *s;

  PetscFunctionBeginUser;
  PetscCheck(mode >= SIM_SHAPE_RIGID && mode <= SIM_SHAPE_QUADRATIC, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching term '%s': mode %" PetscInt_FMT " (valid: 0 rigid, 1 linear, 2 quadratic)", name, mode);
  PetscCheck(k > 0 && PetscIsNormalReal(k), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching term '%s': stiffness %g must be finite and > 0 (N/m)", name, (double)k);
  PetscCheck(beta >= 0 && beta <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching term '%s': beta %g must be in [0, 1]", name, (double)beta);
  PetscCheck(n >= need[mode] && n <= SHAPE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching term '%s': clusters of %" PetscInt_FMT " vertices; the %s mode needs at least %" PetscInt_FMT
             " (and at most %d)",
             name, n, SimShapeModes[mode], need[mode], SHAPE_MAX);
  PetscCheck(nc > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Shape matching term '%s': no clusters", name);
  PetscCall(PetscNew(&s));
  s->mode = mode, s->nc = nc, s->n = n, s->dim = D, s->beta = beta, s->k = k;
  PetscCall(PetscMalloc5(n * nc, &s->vert, n * nc, &s->mu, n * nc, &s->sq, n * D * nc, &s->q, D * D * nc, &s->Aqq));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt *v = cluster + n * c;
    PetscReal *mu = s->mu + n * c, *q = s->q + n * D * c, *Aqq = s->Aqq + D * D * c, M = 0, c0[3] = {0, 0, 0}, qm[9] = {0};
    PetscBool ok;
    for (PetscInt i = 0; i < n; i++) {
      PetscCheck(v[i] >= 0 && v[i] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Shape matching term '%s': cluster %" PetscInt_FMT " refers to vertex %" PetscInt_FMT
                 " (valid 0 .. %" PetscInt_FMT ")",
                 name, c, v[i], nv - 1);
      for (PetscInt j = 0; j < i; j++)
        PetscCheck(v[j] != v[i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                   "Shape matching term '%s': cluster %" PetscInt_FMT " lists vertex %" PetscInt_FMT " twice", name, c, v[i]);
      PetscCheck(mass[v[i]] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Shape matching term '%s': vertex %" PetscInt_FMT " has mass %g <= 0", name, v[i], (double)mass[v[i]]);
      s->vert[n * c + i] = v[i];
      M += mass[v[i]];
    }
    for (PetscInt i = 0; i < n; i++) {
      mu[i] = mass[v[i]] / M, s->sq[n * c + i] = PetscSqrtReal(mu[i]);
      for (int d = 0; d < 3; d++) c0[d] += mu[i] * rest[3 * v[i] + d];
    }
    for (PetscInt i = 0; i < n; i++) {
      PetscReal *qi = q + D * i;
      for (int d = 0; d < 3; d++) qi[d] = rest[3 * v[i] + d] - c0[d];
      if (D == 9) {
        qi[3] = qi[0] * qi[0], qi[4] = qi[1] * qi[1], qi[5] = qi[2] * qi[2], qi[6] = qi[0] * qi[1], qi[7] = qi[1] * qi[2],
        qi[8] = qi[2] * qi[0];
        for (int d = 3; d < 9; d++) qm[d] += mu[i] * qi[d];
      }
    }
    for (PetscInt i = 0; i < n; i++)
      for (int d = 3; d < D; d++) q[D * i + d] -= qm[d];
    for (PetscInt a = 0; a < D * D; a++) Aqq[a] = 0;
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt a = 0; a < D; a++)
        for (PetscInt b = 0; b < D; b++) Aqq[a * D + b] += mu[i] * q[D * i + a] * q[D * i + b];
    if (mode == SIM_SHAPE_RIGID) { /* no fit to invert: the rest shape must not be a line */
      PetscReal lam[3], Q[9];
      PetscCall(SimSymEig3(Aqq, lam, Q));
      ok = (PetscBool)(lam[0] > 0 && lam[1] > 1e-10 * lam[0]); /* descending */
    } else
      ok = InvertSPD(D, Aqq, D == 9 ? 1e-12 : 1e-10);
    if (!ok) {
      PetscCall(Destroy_Shape(&(struct _p_SimEnergy){.data = s}));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
              "Shape matching term '%s': cluster %" PetscInt_FMT " (vertices %" PetscInt_FMT ", %" PetscInt_FMT
              ", ...) does not determine a %s fit: "
              "its rest positions are %s. Use larger or other clusters",
              name, c, v[0], v[1], SimShapeModes[mode],
              mode == SIM_SHAPE_RIGID ? "on a line"
              : mode == SIM_SHAPE_LINEAR
                  ? "coplanar (linear needs 4 points that are not)"
                  : "on a common quadric (quadratic needs 10 points in general position, e.g. a 3 x 3 x 3 block)");
    }
  }
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, s, term));
  PetscFunctionReturn(0);
}

PetscErrorCode SimShapeClustersGrid(PetscInt nv, const PetscReal *xyz, PetscReal h, PetscInt n, PetscInt *nc, PetscInt **cluster)
{
  PetscReal lo[3], hi[3], *d2;
  PetscInt cnt[3], ncent, *out, m = 0, *covered, *idx;

  PetscFunctionBeginUser;
  PetscCheck(h > 0 && n >= 1 && n <= nv && n <= SHAPE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching clusters: spacing %g must be > 0 and the size %" PetscInt_FMT " in [1, min(%" PetscInt_FMT ", %d)]",
             (double)h, n, nv, SHAPE_MAX);
  for (int d = 0; d < 3; d++) lo[d] = PETSC_MAX_REAL, hi[d] = -PETSC_MAX_REAL;
  for (PetscInt i = 0; i < nv; i++)
    for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], xyz[3 * i + d]), hi[d] = PetscMax(hi[d], xyz[3 * i + d]);
  for (int d = 0; d < 3; d++) cnt[d] = PetscMax(1, (PetscInt)PetscCeilReal((hi[d] - lo[d]) / h - 1e-9));
  ncent = cnt[0] * cnt[1] * cnt[2];
  PetscCheck(ncent <= 1000000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Shape matching clusters: spacing %g gives %" PetscInt_FMT " centres (too many)", (double)h, ncent);
  PetscCall(PetscMalloc4(n * ncent, &out, nv, &covered, nv, &d2, nv, &idx));
  PetscCall(PetscArrayzero(covered, nv));
  for (PetscInt a = 0; a < cnt[0]; a++)
    for (PetscInt b = 0; b < cnt[1]; b++)
      for (PetscInt e = 0; e < cnt[2]; e++) {
        const PetscReal cen[3] = {lo[0] + h * (a + 0.5), lo[1] + h * (b + 0.5), lo[2] + h * (e + 0.5)};
        PetscInt *cl = out + n * m;
        PetscBool dup = PETSC_FALSE;
        for (PetscInt i = 0; i < nv; i++) {
          PetscReal s = 0;
          for (int d = 0; d < 3; d++) s += (xyz[3 * i + d] - cen[d]) * (xyz[3 * i + d] - cen[d]);
          d2[i] = s, idx[i] = i;
        }
        for (PetscInt t = 0; t < n; t++) { /* partial selection of the n nearest, ties by index */
          PetscInt best = t;
          for (PetscInt i = t + 1; i < nv; i++)
            if (d2[idx[i]] < d2[idx[best]] || (d2[idx[i]] == d2[idx[best]] && idx[i] < idx[best])) best = i;
          PetscInt sw = idx[t];
          idx[t] = idx[best], idx[best] = sw;
        }
        PetscCall(PetscSortInt(n, idx));
        for (PetscInt o = 0; o < m && !dup; o++) {
          PetscBool same = PETSC_TRUE;
          for (PetscInt t = 0; t < n && same; t++) same = (PetscBool)(out[n * o + t] == idx[t]);
          dup = same;
        }
        if (dup) continue;
        for (PetscInt t = 0; t < n; t++) cl[t] = idx[t], covered[idx[t]] = 1;
        m++;
      }
  for (PetscInt i = 0; i < nv; i++)
    if (!covered[i]) {
      PetscCall(PetscFree4(out, covered, d2, idx));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
              "Shape matching clusters: vertex %" PetscInt_FMT " is in no cluster of %" PetscInt_FMT
              " points around centres %g apart: lower the spacing or raise the size",
              i, n, (double)h);
    }
  PetscCall(PetscMalloc1(n * m, cluster));
  PetscCall(PetscArraycpy(*cluster, out, n * m));
  *nc = m;
  PetscCall(PetscFree4(out, covered, d2, idx));
  PetscFunctionReturn(0);
}
