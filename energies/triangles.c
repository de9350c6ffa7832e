/* Triangle strain energy E = sum_t mu A_t |F - R|^2 (F = Ds Dm^-1, 3x2; R = F (F^T F)^(-1/2)):
 * value, gradient and Hessian for Newton, and its projective-dynamics form. */
#include <gsl/gsl_eigen.h>
#include "energies/triangles.h"
#include "framework/linalg/vec3.h"

typedef struct {
  PetscInt ntri;
  PetscInt *tri;      /* 3 per triangle */
  PetscReal *Dminv;   /* 4 per triangle, row-major 2x2 */
  PetscReal *area;    /* rest area */
  PetscReal mu;
  gsl_eigen_symmv_workspace *eig; /* 6x6 PSD projection */
} Triangles;

/* d[a][j] = dF_kj / dx_{a,k} for the three vertices (a = 0: minus the others). */
static inline void Coefficients(const PetscReal *B, PetscReal d[3][2])
{
  for (int j = 0; j < 2; j++) {
    d[1][j] = B[j], d[2][j] = B[2 + j];
    d[0][j] = -(d[1][j] + d[2][j]);
  }
}

/* The columns f0, f1 of F = Ds Dm^-1 as phi[3j + k] = F_kj. */
static inline void Deformation(const Triangles *t, PetscInt e, const PetscReal *x, PetscReal phi[6])
{
  const PetscInt *v = t->tri + 3 * e;
  PetscReal d[3][2];
  Coefficients(t->Dminv + 4 * e, d);
  for (int j = 0; j < 2; j++)
    for (int k = 0; k < 3; k++) phi[3 * j + k] = d[0][j] * x[3 * v[0] + k] + d[1][j] * x[3 * v[1] + k] + d[2][j] * x[3 * v[2] + k];
}

/* R = F (F^T F)^(-1/2) in closed form: with C = F^T F, s = sqrt(det C) = |f0 x f1| and
 * t = sqrt(tr C + 2 s) = s_0 + s_1, C^(1/2) = (C + s I) / t. A rank-deficient F (s = 0) takes the
 * unit direction of its larger column and any unit vector normal to it (every such R is a closest
 * point then). */
static inline void Polar32(const PetscReal phi[6], PetscReal R[6])
{
  const PetscReal *f0 = phi, *f1 = phi + 3;
  PetscReal n[3], C00 = Vec3Dot(f0, f0), C01 = Vec3Dot(f0, f1), C11 = Vec3Dot(f1, f1), s, t;
  Vec3Cross(f0, f1, n);
  s = Vec3Norm(n);
  if (s > 1e-14 * (C00 + C11)) {
    const PetscReal M00 = (C00 + s), M01 = C01, M11 = (C11 + s), det = M00 * M11 - M01 * M01;
    t = PetscSqrtReal(C00 + C11 + 2 * s) / det;
    /* R = F t M^-1, M^-1 = [M11 -M01; -M01 M00] / det */
    for (int k = 0; k < 3; k++) {
      R[k] = t * (f0[k] * M11 - f1[k] * M01);
      R[3 + k] = t * (-f0[k] * M01 + f1[k] * M00);
    }
    return;
  }
  {
    const PetscReal *big = C00 >= C11 ? f0 : f1;
    PetscReal u[3] = {1, 0, 0}, len = Vec3Norm(big), w[3];
    if (len > 0) u[0] = big[0] / len, u[1] = big[1] / len, u[2] = big[2] / len;
    w[0] = PetscAbsReal(u[0]) < 0.9 ? 1 : 0, w[1] = 1 - w[0], w[2] = 0;
    Vec3Cross(u, w, n);
    len = Vec3Norm(n);
    for (int k = 0; k < 3; k++) n[k] /= len;
    for (int k = 0; k < 3; k++) {
      R[k] = C00 >= C11 ? u[k] : n[k];
      R[3 + k] = C00 >= C11 ? n[k] : u[k];
    }
  }
}

static PetscErrorCode Value_Triangles(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Triangles *t = (Triangles *)term->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < t->ntri; e++) {
    PetscReal phi[6], R[6], d2 = 0;
    Deformation(t, e, x, phi);
    Polar32(phi, R);
    for (int k = 0; k < 6; k++) d2 += (phi[k] - R[k]) * (phi[k] - R[k]);
    sum += t->mu * t->area[e] * d2;
  }
  *E = sum;
  PetscFunctionReturn(0);
}

/* dE/dF = 2 mu A (F - R) (the gradient of the squared distance to the set of matrices with
 * orthonormal columns), then dE/dx_{a,k} = sum_j d[a][j] dE/dF_kj. */
static PetscErrorCode Gradient_Triangles(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < t->ntri; e++) {
    const PetscInt *vt = t->tri + 3 * e;
    PetscReal phi[6], R[6], d[3][2], c = 2 * t->mu * t->area[e];
    Deformation(t, e, x, phi);
    Polar32(phi, R);
    Coefficients(t->Dminv + 4 * e, d);
    for (int a = 0; a < 3; a++)
      for (int k = 0; k < 3; k++) g[3 * vt[a] + k] += c * (d[a][0] * (phi[k] - R[k]) + d[a][1] * (phi[3 + k] - R[3 + k]));
  }
  PetscFunctionReturn(0);
}

/* d2psi/dphi2 for psi = |F - R|^2 = I1 - 2 sqrt(I1 + 2 J) + 2 (I1 = |F|^2, J = |f0 x f1| = s_0 s_1,
 * so sqrt(I1 + 2 J) = s_0 + s_1):
 *   H = 2 I - (2 I + 2 H_J) / g + q q^T / (2 g^3),   g = sqrt(I1 + 2 J),  q = 2 phi + 2 dJ/dphi,
 *   dJ/dphi = Jn^T nh,  H_J = Jn^T (I - nh nh^T) Jn / |n| + [[0, -[nh]x], [[nh]x, 0]],
 * with n = f0 x f1, nh = n/|n| and Jn = dn/dphi = [-[f1]x, [f0]x]. */
static void HessianPhi(const PetscReal phi[6], PetscReal H[36])
{
  const PetscReal *f0 = phi, *f1 = phi + 3;
  PetscReal n[3], nn, nh[3], Jn[3][6], q[6], dJ[6], I1 = 0, g, P[3][3];

  Vec3Cross(f0, f1, n);
  nn = PetscMax(Vec3Norm(n), 1e-14);
  for (int k = 0; k < 3; k++) nh[k] = n[k] / nn;
  for (int k = 0; k < 6; k++) I1 += phi[k] * phi[k];
  g = PetscSqrtReal(I1 + 2 * nn);
  /* Jn: columns 0..2 = -[f1]x, 3..5 = [f0]x; [a]x = [[0, -a2, a1], [a2, 0, -a0], [-a1, a0, 0]] */
  {
    const PetscReal *a[2] = {f1, f0};
    const PetscReal sg[2] = {-1, 1};
    for (int b = 0; b < 2; b++) {
      const PetscReal *c = a[b];
      PetscReal X[3][3] = {{0, -c[2], c[1]}, {c[2], 0, -c[0]}, {-c[1], c[0], 0}};
      for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) Jn[r][3 * b + col] = sg[b] * X[r][col];
    }
  }
  for (int i = 0; i < 6; i++) {
    dJ[i] = Jn[0][i] * nh[0] + Jn[1][i] * nh[1] + Jn[2][i] * nh[2];
    q[i] = 2 * phi[i] + 2 * dJ[i];
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) P[r][c] = (r == c) - nh[r] * nh[c];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      PetscReal HJ = 0;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) HJ += Jn[r][i] * P[r][c] * Jn[c][j];
      HJ /= nn;
      H[6 * i + j] = -2 * HJ / g + q[i] * q[j] / (2 * g * g * g) + (i == j ? 2 - 2 / g : 0);
    }
  /* the bilinear part n . (df0 x df1): block (f0, f1) = -[nh]x, block (f1, f0) = [nh]x */
  {
    const PetscReal X[3][3] = {{0, -nh[2], nh[1]}, {nh[2], 0, -nh[0]}, {-nh[1], nh[0], 0}};
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        H[6 * r + 3 + c] -= 2 * (-X[r][c]) / g;
        H[6 * (3 + r) + c] -= 2 * X[r][c] / g;
      }
  }
}

/* Exact projection of the symmetric 6x6 onto the PSD cone (eigenvalues clamped at 0, GSL). */
static PetscErrorCode ProjectPSD6(gsl_eigen_symmv_workspace *w, PetscReal H[36])
{
  double A[36], evec[36], eval[6];
  gsl_matrix_view Am = gsl_matrix_view_array(A, 6, 6), Vm = gsl_matrix_view_array(evec, 6, 6);
  gsl_vector_view ev = gsl_vector_view_array(eval, 6);

  PetscFunctionBeginUser;
  for (int k = 0; k < 36; k++) A[k] = H[k];
  PetscCheck(gsl_eigen_symmv(&Am.matrix, &ev.vector, &Vm.matrix, w) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_eigen_symmv failed");
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      PetscReal s = 0;
      for (int m = 0; m < 6; m++) s += evec[6 * i + m] * PetscMax(eval[m], 0) * evec[6 * j + m];
      H[6 * i + j] = s;
    }
  PetscFunctionReturn(0);
}

/* H_{(a,k),(b,l)} = mu A sum_{j,m} d[a][j] d[b][m] d2psi/dF_kj dF_lm, 9 blocks per triangle. */
static PetscErrorCode Hessian_Triangles(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < t->ntri; e++) {
    PetscReal phi[6], H[36], d[3][2], c = t->mu * t->area[e], *out = vals + 81 * e;
    Deformation(t, e, x, phi);
    HessianPhi(phi, H);
    if (psd) PetscCall(ProjectPSD6(t->eig, H));
    Coefficients(t->Dminv + 4 * e, d);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        for (int k = 0; k < 3; k++)
          for (int l = 0; l < 3; l++) {
            PetscReal s = 0;
            for (int j = 0; j < 2; j++)
              for (int m = 0; m < 2; m++) s += d[a][j] * d[b][m] * H[6 * (3 * j + k) + 3 * m + l];
            out[9 * (3 * a + b) + 3 * k + l] = c * s;
          }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Triangles(SimEnergy term, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  *nb = 9 * t->ntri;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < t->ntri; e++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) brow[9 * e + 3 * a + b] = t->tri[3 * e + a], bcol[9 * e + 3 * a + b] = t->tri[3 * e + b];
  PetscFunctionReturn(0);
}

/* ---- projective dynamics: one constraint per triangle on its 3 vertices, 2 rows (the columns of
 * F: row j of A is d[.][j]), p = R^T, w = 2 mu A, so w/2 |F - R|^2 is the energy. ---- */
static PetscErrorCode PDCount_Triangles(SimEnergy term, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  *nc = t->ntri, *nvert = 3, *nrows = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Triangles(SimEnergy term, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < t->ntri; e++) {
    PetscReal d[3][2];
    Coefficients(t->Dminv + 4 * e, d);
    for (int a = 0; a < 3; a++) {
      vert[3 * e + a] = t->tri[3 * e + a];
      for (int j = 0; j < 2; j++) A[6 * e + 3 * j + a] = d[a][j];
    }
    w[e] = 2 * t->mu * t->area[e];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_Triangles(SimEnergy term, const PetscReal *x, PetscReal *p)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < t->ntri; e++) {
    PetscReal phi[6];
    Deformation(t, e, x, phi);
    Polar32(phi, p + 6 * e); /* row j of p is column j of R: the same layout as phi */
  }
  PetscFunctionReturn(0);
}

/* The same for the listed triangles only (pbd/xpbd: one colour of a Gauss-Seidel sweep; compiled
 * for AVX2/FMA too, chosen at load time, as the sweep's kernel in solvers/pbd/pbd.c). */
__attribute__((target_clones("arch=x86-64-v3", "default"))) static PetscErrorCode PDProjectSome_Triangles(SimEnergy term, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *p)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscReal phi[6];
    Deformation(t, idx[q], x, phi);
    Polar32(phi, p + 6 * q);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Triangles(SimEnergy term)
{
  Triangles *t = (Triangles *)term->data;

  PetscFunctionBeginUser;
  gsl_eigen_symmv_free(t->eig);
  PetscCall(PetscFree3(t->tri, t->Dminv, t->area));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

PetscErrorCode SimTrianglesCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntri, const PetscInt *tri,
                                  PetscReal mu, SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Triangles, .gradient = Gradient_Triangles, .hessian = Hessian_Triangles,
                                   .pattern = Pattern_Triangles, .destroy = Destroy_Triangles,
                                   .pd_count = PDCount_Triangles, .pd_stencil = PDStencil_Triangles,
                                   .pd_project = PDProject_Triangles, .pd_project_some = PDProjectSome_Triangles};
  Triangles *t;

  PetscFunctionBeginUser;
  PetscCheck(ntri > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Triangle term '%s' has no triangles", name);
  PetscCheck(mu > 0 && PetscIsNormalReal(mu), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Triangle term '%s': stiffness mu %g must be finite and > 0 (N/m)", name, (double)mu);
  for (PetscInt k = 0; k < 3 * ntri; k++)
    PetscCheck(tri[k] >= 0 && tri[k] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Triangle %" PetscInt_FMT " of '%s' refers to vertex %" PetscInt_FMT " (valid 0 .. %" PetscInt_FMT ")", k / 3, name,
               tri[k], nv - 1);
  PetscCall(PetscNew(&t));
  t->ntri = ntri, t->mu = mu;
  PetscCall(PetscMalloc3(3 * ntri, &t->tri, 4 * ntri, &t->Dminv, ntri, &t->area));
  PetscCall(PetscArraycpy(t->tri, tri, 3 * ntri));
  for (PetscInt e = 0; e < ntri; e++) {
    /* rest edges in the triangle's own orthonormal frame (e1 along the first edge) */
    const PetscInt *v = tri + 3 * e;
    PetscReal u[3], w[3], l, a, b, c;
    Vec3Sub(rest + 3 * v[1], rest + 3 * v[0], u);
    Vec3Sub(rest + 3 * v[2], rest + 3 * v[0], w);
    l = Vec3Norm(u);
    {
      PetscReal n[3];
      Vec3Cross(u, w, n);
      c = l > 0 ? Vec3Norm(n) / l : 0; /* height of the third vertex over the first edge */
    }
    if (!(l > 0 && c > 1e-12 * l)) {
      PetscCall(PetscFree3(t->tri, t->Dminv, t->area));
      PetscCall(PetscFree(t));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
              "Triangle %" PetscInt_FMT " of '%s' (vertices %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ") is degenerate at rest", e,
              name, v[0], v[1], v[2]);
    }
    a = l, b = Vec3Dot(w, u) / l; /* Dm = [[a, b], [0, c]] */
    t->Dminv[4 * e + 0] = 1 / a, t->Dminv[4 * e + 1] = -b / (a * c);
    t->Dminv[4 * e + 2] = 0, t->Dminv[4 * e + 3] = 1 / c;
    t->area[e] = 0.5 * a * c;
  }
  t->eig = gsl_eigen_symmv_alloc(6);
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, t, term));
  PetscFunctionReturn(0);
}
