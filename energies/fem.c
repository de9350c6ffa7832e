/* Linear tetrahedral FEM energy term: value, gradient and element Hessians through one batched
 * material call per evaluation. */
#include "energies/fem.h"
#include "framework/linalg/vec3.h"
#include "framework/linalg/svd3.h"
#include "framework/linalg/isotropic.h"
#include <string.h>
#include <immintrin.h>

/* Elements per batched material call in the Hessian: the chunk's dP/dF (81 values each) stays in
 * cache between the material and the element loop instead of streaming 81 values per tet through
 * memory. */
#define FEM_CHUNK 64

typedef struct {
  PetscInt nv, ntet;
  PetscInt *tet;      /* 4 per tet */
  PetscReal *Dminv;   /* 9 per tet, row-major */
  PetscReal *W;       /* rest volume per tet */
  PetscReal *rest;    /* rest positions (FVM normals) */
  PetscReal *frame;   /* 9 per tet: material frames R_e (SimFEMSetMaterialFrames), folded into Dminv; or NULL */
  SimMaterial mat;
  /* The per-state cache: F, the material's decomposition (its SVD), psi and P of every element are
   * computed once per distinct x and reused by the value, the gradient and both Hessians at that x
   * (a Newton iteration asks for them 3-4 times at one x). The key is x itself: xkey is a copy of
   * the positions they belong to, compared bitwise with the x of every call (O(nv), a few percent
   * of one element pass), so no caller can forget to invalidate it. */
  PetscBool cache;                                     /* SimFEMSetCache; off: everything recomputed per call */
  PetscBool avx;                                       /* SimFEMSetAVX: element Hessians four at a time */
  PetscReal *xkey;                                     /* 3 nv */
  PetscBool have_x, have_F, have_dec, have_psi, have_P, have_eig; /* which of the below belong to xkey */
  PetscReal *F, *P;   /* 9 per tet */
  PetscReal *psi;     /* 1 per tet */
  PetscReal *dec;     /* mat->ndec per tet */
  PetscReal *eig;     /* SIM_MATERIAL_NEIG per tet: the material's eigensystem (exact and projected Hessians share it); or NULL */
  PetscReal *dPdF;    /* scratch: 81 per element of a chunk */
  PetscReal *pd_q;    /* projective dynamics: each element's last rotation (unit quaternion, 4 per tet), the
                         warm start of the next local step */
} FEM;

static inline void Inverse3(const PetscReal *A, PetscReal *Ainv, PetscReal *det)
{
  PetscReal d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  *det = d;
  Ainv[0] = (A[4] * A[8] - A[5] * A[7]) / d;
  Ainv[1] = (A[2] * A[7] - A[1] * A[8]) / d;
  Ainv[2] = (A[1] * A[5] - A[2] * A[4]) / d;
  Ainv[3] = (A[5] * A[6] - A[3] * A[8]) / d;
  Ainv[4] = (A[0] * A[8] - A[2] * A[6]) / d;
  Ainv[5] = (A[2] * A[3] - A[0] * A[5]) / d;
  Ainv[6] = (A[3] * A[7] - A[4] * A[6]) / d;
  Ainv[7] = (A[1] * A[6] - A[0] * A[7]) / d;
  Ainv[8] = (A[0] * A[4] - A[1] * A[3]) / d;
}

/* Ds = [x1 - x0, x2 - x0, x3 - x0] (columns), row-major */
static inline void EdgeMatrix(const PetscReal *x, const PetscInt *t, PetscReal *Ds)
{
  for (int i = 0; i < 3; i++)
    for (int a = 0; a < 3; a++) Ds[3 * i + a] = x[3 * t[a + 1] + i] - x[3 * t[0] + i];
}

/* The cache's key: a call at positions other than xkey invalidates everything (see FEM). */
static void SyncState_FEM(FEM *fem, const PetscReal *x)
{
  const size_t bytes = 3 * (size_t)fem->nv * sizeof(PetscReal);

  if (fem->cache && fem->have_x && !memcmp(x, fem->xkey, bytes)) return;
  memcpy(fem->xkey, x, bytes);
  fem->have_x = PETSC_TRUE;
  fem->have_F = fem->have_dec = fem->have_psi = fem->have_P = fem->have_eig = PETSC_FALSE;
}

/* F_e = Ds Dm^-1 for every element at x: the first phase of every evaluation (once per state). */
static void DeformationGradients(FEM *fem, const PetscReal *x)
{
  SyncState_FEM(fem, x);
  if (fem->have_F) return;
  for (PetscInt e = 0; e < fem->ntet; e++) {
    PetscReal Ds[9];
    const PetscReal *B = fem->Dminv + 9 * e;
    PetscReal *F = fem->F + 9 * e;
    EdgeMatrix(x, fem->tet + 4 * e, Ds);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) F[3 * i + j] = Ds[3 * i] * B[j] + Ds[3 * i + 1] * B[3 + j] + Ds[3 * i + 2] * B[6 + j];
  }
  fem->have_F = PETSC_TRUE;
}

/* psi and/or P of every element at x, each once per state; the material's decomposition (the SVD)
 * is computed by the first of them and reused by the other and by the Hessians. */
static PetscErrorCode Stresses_FEM(FEM *fem, const PetscReal *x, PetscBool want_psi, PetscBool want_P)
{
  PetscReal *psi, *P;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  psi = want_psi && !fem->have_psi ? fem->psi : NULL;
  P = want_P && !fem->have_P ? fem->P : NULL;
  if (!psi && !P) PetscFunctionReturn(0);
  PetscCall(SimMaterialEvaluate(fem->mat, fem->ntet, fem->F, fem->dec, fem->have_dec, psi, P, NULL, NULL));
  fem->have_dec = (PetscBool)(fem->mat->ndec > 0);
  if (psi) fem->have_psi = PETSC_TRUE;
  if (P) fem->have_P = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Value_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  FEM *fem = (FEM *)term->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  PetscCall(Stresses_FEM(fem, x, PETSC_TRUE, PETSC_FALSE));
  for (PetscInt e = 0; e < fem->ntet; e++) sum += fem->W[e] * fem->psi[e];
  *E = sum;
  PetscFunctionReturn(0);
}

/* dE/dx_a = W P Dm^-T e_a for a = 1..3 (column a of W P Dm^-T), dE/dx_0 = -(sum of the others). */
static PetscErrorCode Gradient_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCall(Stresses_FEM(fem, x, PETSC_FALSE, PETSC_TRUE));
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *P = fem->P + 9 * e, *B = fem->Dminv + 9 * e;
    const PetscInt *t = fem->tet + 4 * e;
    for (int i = 0; i < 3; i++) {
      PetscReal s = 0;
      for (int a = 0; a < 3; a++) {
        PetscReal ga = fem->W[e] * (P[3 * i] * B[3 * a] + P[3 * i + 1] * B[3 * a + 1] + P[3 * i + 2] * B[3 * a + 2]);
        g[3 * t[a + 1] + i] += ga;
        s += ga;
      }
      g[3 * t[0] + i] -= s;
    }
  }
  PetscFunctionReturn(0);
}

/* Element Hessian H = W B^T A B with A = dP/dF (9 x 9) and B = dF/dx (9 x 12): dF_ij/dx_{a,k} =
 * delta_ik Dminv_{a-1,j} for a = 1..3 and minus their sum for a = 0, so only the 9 x 9 part of
 * vertices 1..3 is contracted and the blocks of vertex 0 are minus the sums of the others (rows and
 * columns of H sum to zero: a translation does not change F). Written as 16 3x3 blocks in pattern
 * order into out (144 values). */
static inline void ElementHessian(const PetscReal *A, const PetscReal *Bm, PetscReal W, PetscReal *out)
{
  PetscReal AB[9][9], K[9][9];

  /* AB[r][3a + l] = sum_n A[r][3l + n] Dminv[a][n]: (A B)_{r, (a+1, l)} */
  for (int r = 0; r < 9; r++)
    for (int l = 0; l < 3; l++)
      for (int a = 0; a < 3; a++)
        AB[r][3 * a + l] = A[9 * r + 3 * l] * Bm[3 * a] + A[9 * r + 3 * l + 1] * Bm[3 * a + 1] + A[9 * r + 3 * l + 2] * Bm[3 * a + 2];
  /* K[3a + k][c] = W sum_j Dminv[a][j] AB[3k + j][c]: H_{(a+1, k), c} */
  for (int a = 0; a < 3; a++)
    for (int k = 0; k < 3; k++)
      for (int c = 0; c < 9; c++)
        K[3 * a + k][c] = W * (Bm[3 * a] * AB[3 * k][c] + Bm[3 * a + 1] * AB[3 * k + 1][c] + Bm[3 * a + 2] * AB[3 * k + 2][c]);
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 3; l++) {
      PetscReal row0[3] = {0, 0, 0}, s00 = 0; /* row0[b] = H_{(0,k),(b+1,l)} */
      for (int b = 0; b < 3; b++) {
        PetscReal col0 = 0; /* H_{(b+1,k),(0,l)} */
        for (int a = 0; a < 3; a++) {
          const PetscReal h = K[3 * a + k][3 * b + l];
          out[9 * (4 * (a + 1) + (b + 1)) + 3 * k + l] = h;
          row0[b] -= h;
        }
        for (int c = 0; c < 3; c++) col0 -= K[3 * b + k][3 * c + l];
        out[9 * (4 * (b + 1)) + 3 * k + l] = col0;
        out[9 * (b + 1) + 3 * k + l] = row0[b];
        s00 -= row0[b];
      }
      out[3 * k + l] = s00;
    }
}

static PetscErrorCode Hessian_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  FEM *fem = (FEM *)term->data;
  const PetscInt nd = fem->mat->ndec;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  for (PetscInt e0 = 0; e0 < fem->ntet; e0 += FEM_CHUNK) {
    const PetscInt nc = PetscMin(FEM_CHUNK, fem->ntet - e0);
    PetscCall(SimMaterialEvaluate(fem->mat, nc, fem->F + 9 * e0, fem->dec ? fem->dec + nd * e0 : NULL, fem->have_dec, NULL, NULL,
                                  psd ? NULL : fem->dPdF, psd ? fem->dPdF : NULL));
    for (PetscInt e = e0; e < e0 + nc; e++) ElementHessian(fem->dPdF + 81 * (e - e0), fem->Dminv + 9 * e, fem->W[e], vals + 144 * e);
  }
  fem->have_dec = (PetscBool)(nd > 0);
  PetscFunctionReturn(0);
}

/* Adds the element Hessian whose vertex 1..3 part is K (9 x 9, symmetric, row (a, k) = 3 (a-1) + k)
 * into CSR values (hessian_add in energy.h): the blocks of vertex 0 are minus the sums of the others
 * (rows and columns of the 12 x 12 sum to zero), block (p, b) goes to off[4p + b] + r stride + s. */
static inline void ScatterElement(PetscReal K[9][9], const PetscInt *t, const PetscInt *off, const PetscInt *stride, PetscReal *a)
{
  PetscReal S[4][4][9]; /* S[p][b]: block (p, b), row-major 3x3 */

  for (int q = 0; q < 3; q++)
    for (int b = 0; b < 3; b++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) S[q + 1][b + 1][3 * k + l] = K[3 * q + k][3 * b + l];
  for (int b = 1; b < 4; b++)
    for (int kl = 0; kl < 9; kl++) S[0][b][kl] = -(S[1][b][kl] + S[2][b][kl] + S[3][b][kl]);
  for (int q = 1; q < 4; q++)
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++) S[q][0][3 * k + l] = S[0][q][3 * l + k];
  for (int kl = 0; kl < 9; kl++) S[0][0][kl] = -(S[0][1][kl] + S[0][2][kl] + S[0][3][kl]);
  for (int p = 0; p < 4; p++) {
    const PetscInt L = stride[t[p]];
    for (int b = 0; b < 4; b++) {
      const PetscInt o = off[4 * p + b];
      if (o < 0) continue;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) a[o + k * L + l] += S[p][b][3 * k + l];
    }
  }
}

/* K = cW B^T A B on vertices 1..3 from A = dP/dF (as ElementHessian; the upper triangle, mirrored). */
static inline void ElementK(const PetscReal *A, const PetscReal *Bm, PetscReal cW, PetscReal K[9][9])
{
  PetscReal AB[9][9];

  for (int r = 0; r < 9; r++)
    for (int l = 0; l < 3; l++)
      for (int q = 0; q < 3; q++)
        AB[r][3 * q + l] = A[9 * r + 3 * l] * Bm[3 * q] + A[9 * r + 3 * l + 1] * Bm[3 * q + 1] + A[9 * r + 3 * l + 2] * Bm[3 * q + 2];
  for (int i = 0; i < 9; i++) { /* i = 3 q + k */
    const int q = i / 3, k = i % 3;
    for (int c = i; c < 9; c++)
      K[i][c] = cW * (Bm[3 * q] * AB[3 * k][c] + Bm[3 * q + 1] * AB[3 * k + 1][c] + Bm[3 * q + 2] * AB[3 * k + 2][c]);
  }
  for (int i = 0; i < 9; i++)
    for (int c = 0; c < i; c++) K[i][c] = K[c][i];
}

/* Hs = the Hessian in the singular values H, or with psd its PSD projection: H itself when positive
 * definite (leading minors), else by SimSymEig3 with the eigenvalues clamped at 0. */
static inline PetscErrorCode SigmaHessian(const PetscReal *H, PetscBool psd, PetscReal Hs[9])
{
  PetscFunctionBeginUser;
  for (int k = 0; k < 9; k++) Hs[k] = H[k];
  if (psd) {
    const PetscReal m2 = H[0] * H[4] - H[1] * H[3];
    const PetscReal det = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) + H[2] * (H[3] * H[7] - H[4] * H[6]);
    if (!(H[0] > 0 && m2 > 0 && det > 0)) {
      PetscReal l[3], Q[9];
      PetscCall(SimSymEig3(H, l, Q));
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          Hs[3 * i + j] = PetscMax(l[0], 0) * Q[3 * i] * Q[3 * j] + PetscMax(l[1], 0) * Q[3 * i + 1] * Q[3 * j + 1] +
                          PetscMax(l[2], 0) * Q[3 * i + 2] * Q[3 * j + 2];
    }
  }
  PetscFunctionReturn(0);
}

/* K from the material's analytic eigensystem (SimMaterialEigensystem) without forming dP/dF: with
 * dP/dF = sum_m l_m q_m q_m^T (modes q_m = U M_m V^T, isotropic.h), B^T A B = sum_m l_m y_m y_m^T
 * with y_m = B^T q_m, entry (a, k) = (q_m Dm^-T)_ka = (U M_m Z^T)_ka, Z = Dm^-1 V. So with
 * o_bc = (U_kb Z_ac)_(a,k): the scaling part is O Hs O^T (O = [o_00 o_11 o_22], Hs the Hessian in
 * the singular values, or its PSD projection: itself when positive definite, else by SimSymEig3), the
 * pair (i, j) adds flip (o_ij + o_ji)(..)^T / 2 and twist (o_ij - o_ji)(..)^T / 2 (clamped at 0 with
 * psd): 9 rank-one terms in 9 dimensions instead of B^T (9 x 9) B after summing the 9 x 9. */
static inline PetscErrorCode ElementKEig(const PetscReal *dec, const PetscReal *eig, PetscBool psd, const PetscReal *Bm, PetscReal cW,
                                         PetscReal K[9][9])
{
  const PetscReal *U = dec, *V = dec + 12, *H = eig, *flip = eig + 9, *twist = eig + 12;
  PetscReal Z[9], o[3][3][9], Hs[9], w[9][9], y[9][9];
  int nm = 0;

  PetscFunctionBeginUser;
  for (int q = 0; q < 3; q++)
    for (int c = 0; c < 3; c++) Z[3 * q + c] = Bm[3 * q] * V[c] + Bm[3 * q + 1] * V[3 + c] + Bm[3 * q + 2] * V[6 + c];
  for (int b = 0; b < 3; b++)
    for (int c = 0; c < 3; c++)
      for (int q = 0; q < 3; q++)
        for (int k = 0; k < 3; k++) o[b][c][3 * q + k] = U[3 * k + b] * Z[3 * q + c];
  PetscCall(SigmaHessian(H, psd, Hs));
  /* scaling: w_c = cW O Hs[:, c], y_c = o_cc */
  for (int c = 0; c < 3; c++, nm++)
    for (int r = 0; r < 9; r++) {
      w[nm][r] = cW * (o[0][0][r] * Hs[c] + o[1][1][r] * Hs[3 + c] + o[2][2][r] * Hs[6 + c]);
      y[nm][r] = o[c][c][r];
    }
  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1];
    const PetscReal lf = psd ? PetscMax(flip[k], 0) : flip[k], lt = psd ? PetscMax(twist[k], 0) : twist[k];
    if (lf != 0) {
      for (int r = 0; r < 9; r++) {
        y[nm][r] = o[i][j][r] + o[j][i][r];
        w[nm][r] = 0.5 * cW * lf * y[nm][r];
      }
      nm++;
    }
    if (lt != 0) {
      for (int r = 0; r < 9; r++) {
        y[nm][r] = o[i][j][r] - o[j][i][r];
        w[nm][r] = 0.5 * cW * lt * y[nm][r];
      }
      nm++;
    }
  }
  /* the blocks (q, b) with b >= q, a row at a time (contiguous, vectorizable), then mirrored */
  for (int r = 0; r < 9; r++) {
    const int c0 = 3 * (r / 3);
    for (int c = c0; c < 9; c++) K[r][c] = 0;
    for (int m = 0; m < nm; m++) {
      const PetscReal wr = w[m][r];
      for (int c = c0; c < 9; c++) K[r][c] += wr * y[m][c];
    }
  }
  for (int r = 3; r < 9; r++)
    for (int c = 0; c < 3 * (r / 3); c++) K[r][c] = K[c][r];
  PetscFunctionReturn(0);
}

/* ElementKEig of four consecutive elements at once in AVX registers: each lane the scalar
 * operations in the same order (no fused multiply-add), so K is bit for bit ElementKEig's. The
 * flip/twist modes the scalar code leaves out (eigenvalue 0, or clamped to 0) are added with weight 0:
 * their terms are +-0, and K, which starts at +0 and can never become -0 in a sum, is unchanged by
 * them. Hs4: SigmaHessian of each lane (computed outside, where it may need the eigensolver). */
#define FEM_LOAD4(p, stride, k) _mm256_set_pd((p)[3 * (stride) + (k)], (p)[2 * (stride) + (k)], (p)[(stride) + (k)], (p)[k])
static __attribute__((target("avx"))) void ElementKEigAvx4(const PetscReal *dec, const PetscReal *eig, PetscReal Hs4[4][9], PetscBool psd, const PetscReal *Bm,
                                                           const PetscReal cW4[4], PetscReal K4[4][81])
{
  __m256d U[9], V[9], B[9], Z[9], o[3][3][9], Hs[9], w[9][9], y[9][9], K[9][9], cw, half = _mm256_set1_pd(0.5), zero = _mm256_setzero_pd();
  int nm = 0;

  for (int k = 0; k < 9; k++) {
    U[k] = FEM_LOAD4(dec, SIM_ISOTROPIC_NDEC, k), V[k] = FEM_LOAD4(dec, SIM_ISOTROPIC_NDEC, 12 + k), B[k] = FEM_LOAD4(Bm, 9, k);
    Hs[k] = _mm256_set_pd(Hs4[3][k], Hs4[2][k], Hs4[1][k], Hs4[0][k]);
  }
  cw = _mm256_loadu_pd(cW4);
  for (int q = 0; q < 3; q++)
    for (int c = 0; c < 3; c++) Z[3 * q + c] = B[3 * q] * V[c] + B[3 * q + 1] * V[3 + c] + B[3 * q + 2] * V[6 + c];
  for (int b = 0; b < 3; b++)
    for (int c = 0; c < 3; c++)
      for (int q = 0; q < 3; q++)
        for (int k = 0; k < 3; k++) o[b][c][3 * q + k] = U[3 * k + b] * Z[3 * q + c];
  for (int c = 0; c < 3; c++, nm++)
    for (int r = 0; r < 9; r++) {
      w[nm][r] = cw * (o[0][0][r] * Hs[c] + o[1][1][r] * Hs[3 + c] + o[2][2][r] * Hs[6 + c]);
      y[nm][r] = o[c][c][r];
    }
  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1];
    const __m256d f = FEM_LOAD4(eig, SIM_MATERIAL_NEIG, 9 + k), t = FEM_LOAD4(eig, SIM_MATERIAL_NEIG, 12 + k);
    const __m256d lf = psd ? _mm256_max_pd(zero, f) : f, lt = psd ? _mm256_max_pd(zero, t) : t;
    for (int r = 0; r < 9; r++) {
      y[nm][r] = o[i][j][r] + o[j][i][r];
      w[nm][r] = half * cw * lf * y[nm][r];
      y[nm + 1][r] = o[i][j][r] - o[j][i][r];
      w[nm + 1][r] = half * cw * lt * y[nm + 1][r];
    }
    nm += 2;
  }
  for (int r = 0; r < 9; r++) {
    const int c0 = 3 * (r / 3);
    for (int c = c0; c < 9; c++) K[r][c] = zero;
    for (int m = 0; m < nm; m++) {
      const __m256d wr = w[m][r];
      for (int c = c0; c < 9; c++) K[r][c] += wr * y[m][c];
    }
  }
  for (int r = 3; r < 9; r++)
    for (int c = 0; c < 3 * (r / 3); c++) K[r][c] = K[c][r];
  for (int r = 0; r < 9; r++)
    for (int c = 0; c < 9; c++) {
      PetscReal l4[4];
      _mm256_storeu_pd(l4, K[r][c]);
      for (int l = 0; l < 4; l++) K4[l][9 * r + c] = l4[l];
    }
}

static PetscErrorCode HessianAdd_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal c, const PetscInt *off,
                                     const PetscInt *stride, PetscReal *a)
{
  FEM *fem = (FEM *)term->data;
  const PetscInt nd = fem->mat->ndec;
  const PetscBool eig = (PetscBool)(fem->mat->ops.eigensystem && nd == SIM_ISOTROPIC_NDEC);
  const PetscBool avx = fem->avx;
  PetscReal K[9][9];

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  for (PetscInt e0 = 0; e0 < fem->ntet; e0 += FEM_CHUNK) {
    const PetscInt nc = PetscMin(FEM_CHUNK, fem->ntet - e0);
    if (eig) {
      const PetscReal *E = fem->eig + SIM_MATERIAL_NEIG * e0;
      if (!fem->have_eig) PetscCall(SimMaterialEigensystem(fem->mat, nc, fem->F + 9 * e0, fem->dec + nd * e0, fem->have_dec, fem->eig + SIM_MATERIAL_NEIG * e0));
      PetscInt e = e0;
      if (avx)
        for (; e + 4 <= e0 + nc; e += 4) {
          PetscReal Hs4[4][9], cW4[4], K4[4][81];
          for (int l = 0; l < 4; l++) {
            PetscCall(SigmaHessian(E + SIM_MATERIAL_NEIG * (e + l - e0), psd, Hs4[l]));
            cW4[l] = c * fem->W[e + l];
          }
          ElementKEigAvx4(fem->dec + nd * e, E + SIM_MATERIAL_NEIG * (e - e0), Hs4, psd, fem->Dminv + 9 * e, cW4, K4);
          for (int l = 0; l < 4; l++) ScatterElement((PetscReal(*)[9])K4[l], fem->tet + 4 * (e + l), off + 16 * (e + l), stride, a);
        }
      for (; e < e0 + nc; e++) {
        PetscCall(ElementKEig(fem->dec + nd * e, E + SIM_MATERIAL_NEIG * (e - e0), psd, fem->Dminv + 9 * e, c * fem->W[e], K));
        ScatterElement(K, fem->tet + 4 * e, off + 16 * e, stride, a);
      }
      continue;
    }
    PetscCall(SimMaterialEvaluate(fem->mat, nc, fem->F + 9 * e0, fem->dec ? fem->dec + nd * e0 : NULL, fem->have_dec, NULL, NULL,
                                  psd ? NULL : fem->dPdF, psd ? fem->dPdF : NULL));
    for (PetscInt e = e0; e < e0 + nc; e++) {
      ElementK(fem->dPdF + 81 * (e - e0), fem->Dminv + 9 * e, c * fem->W[e], K);
      ScatterElement(K, fem->tet + 4 * e, off + 16 * e, stride, a);
    }
  }
  fem->have_dec = (PetscBool)(nd > 0);
  fem->have_eig = (PetscBool)(eig && fem->cache);
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_FEM(SimEnergy term, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  *nb = 16 * fem->ntet;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < fem->ntet; e++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        brow[16 * e + 4 * a + b] = fem->tet[4 * e + a];
        bcol[16 * e + 4 * a + b] = fem->tet[4 * e + b];
      }
  PetscFunctionReturn(0);
}

/* ---- projective dynamics: ARAP strain constraints (Bouaziz et al. 2014, strain constraints) ----
 * One constraint per tet on its 4 vertices: the 3 rows of A x_c are the columns of F = Ds Dm^-1
 * (row j of A holds dF_kj/dx_{a,k} = d[a][j], as in Hessian_FEM), the projection onto the
 * rotations is p = R^T with F = R S (SimPolar3: det R = +1, so an inverted F is pulled back), and
 * w = 2 mu W makes w/2 |F - R|^2 = W mu |F - R|^2, the `arap` material's energy (Chao et al.
 * 2010). Other materials have other energies, so only `arap` offers these constraints. */
static PetscErrorCode PDCount_FEM(SimEnergy term, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  FEM *fem = (FEM *)term->data;
  PetscBool arap;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(fem->mat->name, "arap", &arap));
  PetscCheck(arap, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "FEM term '%s' uses material '%s': projective dynamics supports the 'arap' material only "
             "(set the scene's material option, e.g. -beam_material arap)",
             term->name, fem->mat->name);
  *nc = fem->ntet, *nvert = 4, *nrows = 3;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_FEM(SimEnergy term, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *Bm = fem->Dminv + 9 * e;
    PetscReal *Ae = A + 12 * e;
    for (int a = 0; a < 4; a++) vert[4 * e + a] = fem->tet[4 * e + a];
    for (int j = 0; j < 3; j++) {
      Ae[4 * j + 1] = Bm[j], Ae[4 * j + 2] = Bm[3 + j], Ae[4 * j + 3] = Bm[6 + j];
      Ae[4 * j + 0] = -(Bm[j] + Bm[3 + j] + Bm[6 + j]);
    }
    w[e] = 2 * fem->mat->par.mu * fem->W[e];
  }
  PetscFunctionReturn(0);
}

/* Local step: F for every tet, then p = R^T from the polar decomposition F = R S (by Newton on the
 * rotations from the element's rotation at the last local step, SimPolar3Warm: one or two cheap
 * iterations instead of a full SVD; the same R to rounding); with strain
 * limits (the arap material's [s_min, s_max], Bouaziz et al. 2014 strain limiting) p = (U C V^T)^T
 * with F = U diag(s) V^T and C = diag(clamp(s_i, s_min, s_max)), the closest matrix whose singular
 * values lie in the band, so w/2 |F - U C V^T|^2 = W mu sum (s_i - c_i)^2 is the material's energy. */
/* p_e = (U C V^T)^T (strain limits) or R^T of one element's F (9 values, row j of p = column j). */
static inline PetscErrorCode ProjectOne_FEM(FEM *fem, PetscInt e, const PetscReal *F, PetscBool exact, PetscReal *pe)
{
  const PetscReal smin = fem->mat->par.strain_min, smax = fem->mat->par.strain_max;
  PetscReal R[9];

  PetscFunctionBeginUser;
  if (smin == 1 && smax == 1) {
    if (exact) PetscCall(SimPolar3Warm(F, fem->pd_q + 4 * e, R, NULL));
    else PetscCall(SimPolar3WarmSteps(F, fem->pd_q + 4 * e, 1, R, NULL));
  }
  else {
    PetscReal U[9], sig[3], V[9];
    PetscCall(SimSvd3(F, U, sig, V));
    for (int k = 0; k < 3; k++) sig[k] = PetscMin(PetscMax(sig[k], smin), smax);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) R[3 * i + j] = U[3 * i] * sig[0] * V[3 * j] + U[3 * i + 1] * sig[1] * V[3 * j + 1] + U[3 * i + 2] * sig[2] * V[3 * j + 2];
  }
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) pe[3 * j + k] = R[3 * k + j];
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_FEM(SimEnergy term, const PetscReal *x, PetscReal *p)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  if (fem->mat->par.strain_min == 1 && fem->mat->par.strain_max == 1) { /* R of every element in one batch (SimPolar3WarmBatch), then p = R^T */
    PetscCall(SimPolar3WarmBatch(fem->ntet, fem->F, fem->pd_q, p, NULL));
    for (PetscInt e = 0; e < fem->ntet; e++) {
      PetscReal *pe = p + 9 * e, t;
      t = pe[1], pe[1] = pe[3], pe[3] = t;
      t = pe[2], pe[2] = pe[6], pe[6] = t;
      t = pe[5], pe[5] = pe[7], pe[7] = t;
    }
  } else
    for (PetscInt e = 0; e < fem->ntet; e++) PetscCall(ProjectOne_FEM(fem, e, fem->F + 9 * e, PETSC_TRUE, p + 9 * e));
  PetscFunctionReturn(0);
}

/* The same for the listed elements only, F from x directly (pbd/xpbd: one colour of a Gauss-Seidel
 * sweep; the cache of F is left alone). The rotation is one Newton step from the element's rotation
 * at the previous sweep (SimPolar3WarmSteps), not converged per call: the iterate moves little
 * between sweeps, so R follows the polar rotation to second order and is exact once the sweeps
 * converge (a fixed point of the step is the polar R); the full solve cost ~4x as much. */
static PetscErrorCode PDProjectSome_FEM(SimEnergy term, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *p)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt e = idx[q];
    const PetscReal *B = fem->Dminv + 9 * e;
    PetscReal Ds[9], F[9];
    EdgeMatrix(x, fem->tet + 4 * e, Ds);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) F[3 * i + j] = Ds[3 * i] * B[j] + Ds[3 * i + 1] * B[3 + j] + Ds[3 * i + 2] * B[6 + j];
    PetscCall(ProjectOne_FEM(fem, e, F, PETSC_FALSE, p + 9 * q));
  }
  PetscFunctionReturn(0);
}

/* The projection is the polar rotation reached by one Newton step from pd_q (PDProjectSome_FEM)
 * unless the material has strain limits. */
static PetscErrorCode PDRotations_FEM(SimEnergy term, PetscReal **q)
{
  FEM *fem = (FEM *)term->data;
  PetscBool arap;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(fem->mat->name, "arap", &arap));
  *q = (arap && fem->mat->par.strain_min == 1 && fem->mat->par.strain_max == 1) ? fem->pd_q : NULL;
  PetscFunctionReturn(0);
}

/* Checkpoint: the rotations that warm-start the next local step (PD), as a Vec over the term's
 * elements in rank order (the term may be distributed). */
static PetscErrorCode RotationsVec_FEM(SimEnergy term, PetscViewer viewer, Vec *q)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)viewer), 1, 4 * fem->ntet, PETSC_DECIDE, fem->pd_q, q));
  PetscFunctionReturn(0);
}

static PetscErrorCode Save_FEM(SimEnergy term, PetscViewer viewer)
{
  Vec q;

  PetscFunctionBeginUser;
  PetscCall(RotationsVec_FEM(term, viewer, &q));
  PetscCall(VecView(q, viewer));
  PetscCall(VecDestroy(&q));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_FEM(SimEnergy term, PetscViewer viewer)
{
  Vec q;

  PetscFunctionBeginUser;
  PetscCall(RotationsVec_FEM(term, viewer, &q));
  PetscCall(VecLoad(q, viewer));
  PetscCall(VecDestroy(&q));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_FEM(SimEnergy term)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCall(SimMaterialDestroy(&fem->mat));
  PetscCall(PetscFree4(fem->tet, fem->Dminv, fem->W, fem->rest));
  PetscCall(PetscFree4(fem->F, fem->P, fem->dPdF, fem->psi));
  PetscCall(PetscFree4(fem->xkey, fem->dec, fem->pd_q, fem->eig));
  PetscCall(PetscFree(fem->frame));
  PetscCall(PetscFree(fem));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, SimMaterial mat,
                            SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_FEM, .gradient = Gradient_FEM, .hessian = Hessian_FEM, .hessian_add = HessianAdd_FEM, .pattern = Pattern_FEM, .destroy = Destroy_FEM,
                                   .pd_count = PDCount_FEM, .pd_stencil = PDStencil_FEM, .pd_project = PDProject_FEM,
                                   .pd_project_some = PDProjectSome_FEM, .pd_rotations = PDRotations_FEM, .save = Save_FEM, .load = Load_FEM};
  FEM *fem;

  PetscFunctionBeginUser;
  PetscCheck(ntet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FEM term '%s' has no tetrahedra", name);
  for (PetscInt e = 0; e < 4 * ntet; e++)
    PetscCheck(tet[e] >= 0 && tet[e] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Tetrahedron %" PetscInt_FMT " refers to vertex %" PetscInt_FMT " (valid 0 .. %" PetscInt_FMT ")",
               e / 4, tet[e], nv - 1);
  /* validate the rest shape before allocating, so an error leaves the material with the caller */
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal Dm[9], inv[9], det;
    EdgeMatrix(rest, tet + 4 * e, Dm);
    Inverse3(Dm, inv, &det);
    PetscCheck(det > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "Tetrahedron %" PetscInt_FMT " (vertices %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ") is %s at rest (6 x volume = %g); fix the mesh",
               e, tet[4 * e], tet[4 * e + 1], tet[4 * e + 2], tet[4 * e + 3], det < 0 ? "inverted" : "degenerate", (double)det);
  }
  PetscCall(PetscNew(&fem));
  fem->nv = nv;
  fem->ntet = ntet;
  fem->mat = mat;
  PetscCall(PetscMalloc4(4 * ntet, &fem->tet, 9 * ntet, &fem->Dminv, ntet, &fem->W, 3 * nv, &fem->rest));
  PetscCall(PetscMalloc4(9 * ntet, &fem->F, 9 * ntet, &fem->P, 81 * FEM_CHUNK, &fem->dPdF, ntet, &fem->psi));
  PetscCall(PetscMalloc4(3 * nv, &fem->xkey, mat->ndec * ntet, &fem->dec, 4 * ntet, &fem->pd_q, (mat->ops.eigensystem ? SIM_MATERIAL_NEIG : 0) * ntet, &fem->eig));
  for (PetscInt e = 0; e < ntet; e++) fem->pd_q[4 * e] = 1, fem->pd_q[4 * e + 1] = fem->pd_q[4 * e + 2] = fem->pd_q[4 * e + 3] = 0;
  fem->cache = PETSC_TRUE;
  fem->avx = (PetscBool)(__builtin_cpu_supports("avx") > 0);
  PetscCall(PetscArraycpy(fem->tet, tet, 4 * ntet));
  PetscCall(PetscArraycpy(fem->rest, rest, 3 * nv));
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal Dm[9], det;
    EdgeMatrix(rest, tet + 4 * e, Dm);
    Inverse3(Dm, fem->Dminv + 9 * e, &det);
    fem->W[e] = det / 6.0;
  }
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, fem, term));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMSetMaterialFrames(SimEnergy term, const PetscReal *R)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCheck(!fem->frame, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "FEM term '%s': material frames are already set", term->name);
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *Q = R + 9 * e;
    const PetscReal det = Q[0] * (Q[4] * Q[8] - Q[5] * Q[7]) - Q[1] * (Q[3] * Q[8] - Q[5] * Q[6]) + Q[2] * (Q[3] * Q[7] - Q[4] * Q[6]);
    PetscReal err = 0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) err += PetscSqr(Q[i] * Q[j] + Q[3 + i] * Q[3 + j] + Q[6 + i] * Q[6 + j] - (i == j));
    PetscCheck(PetscSqrtReal(err) <= 1e-10 && det > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "FEM term '%s': the material frame of element %" PetscInt_FMT " is not a rotation (|R^T R - I| = %g, det %g)", term->name, e,
               (double)PetscSqrtReal(err), (double)det);
  }
  PetscCall(PetscMalloc1(9 * fem->ntet, &fem->frame));
  PetscCall(PetscArraycpy(fem->frame, R, 9 * fem->ntet));
  for (PetscInt e = 0; e < fem->ntet; e++) { /* Dm^-1 <- Dm^-1 R_e, so that F = Ds Dm^-1 R_e */
    PetscReal *B = fem->Dminv + 9 * e, A[9];
    const PetscReal *Q = R + 9 * e;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) A[3 * i + j] = B[3 * i] * Q[j] + B[3 * i + 1] * Q[3 + j] + B[3 * i + 2] * Q[6 + j];
    PetscCall(PetscArraycpy(B, A, 9));
  }
  fem->have_x = PETSC_FALSE; /* F changes with Dm^-1: the per-state cache is stale */
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMAddLumpedMass(SimModel model, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, PetscReal density)
{
  PetscFunctionBeginUser;
  PetscCheck(density > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Density must be > 0 (got %g)", (double)density);
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal quarter = density * PetscAbsReal(Vec3TetVolume(rest, tet + 4 * e)) / 4;
    for (int a = 0; a < 4; a++) PetscCall(SimModelAddMass(model, tet[4 * e + a], quarter));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMGetDeformation(SimEnergy term, const PetscReal *x, PetscInt *ntet, PetscReal *F, const PetscReal **volume)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  *ntet = fem->ntet;
  if (F) PetscCall(PetscArraycpy(F, fem->F, 9 * fem->ntet));
  if (volume) *volume = fem->W;
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMForcesFVM(SimEnergy term, const PetscReal *x, PetscReal *f)
{
  FEM *fem = (FEM *)term->data;
  /* the face opposite vertex a, ordered so that its normal points out of a positive tet */
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(f, 3 * fem->nv));
  PetscCall(Stresses_FEM(fem, x, PETSC_FALSE, PETSC_TRUE));
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscInt *t = fem->tet + 4 * e;
    PetscReal P[9];
    if (fem->frame) { /* P = P_mat(F R) R^T in the reference frame of the normals */
      const PetscReal *Pm = fem->P + 9 * e, *Q = fem->frame + 9 * e;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P[3 * i + j] = Pm[3 * i] * Q[3 * j] + Pm[3 * i + 1] * Q[3 * j + 1] + Pm[3 * i + 2] * Q[3 * j + 2];
    } else PetscCall(PetscArraycpy(P, fem->P + 9 * e, 9));
    PetscReal AN[4][3]; /* area-weighted outward normal of the face opposite each vertex */
    for (int a = 0; a < 4; a++) {
      const PetscReal *p0 = fem->rest + 3 * t[face[a][0]], *p1 = fem->rest + 3 * t[face[a][1]], *p2 = fem->rest + 3 * t[face[a][2]];
      PetscReal u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, w[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
      AN[a][0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
      AN[a][1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
      AN[a][2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
    }
    /* vertex a touches the three faces other than its opposite one */
    for (int a = 0; a < 4; a++) {
      PetscReal N[3] = {0, 0, 0};
      for (int b = 0; b < 4; b++)
        if (b != a)
          for (int k = 0; k < 3; k++) N[k] += AN[b][k];
      for (int i = 0; i < 3; i++) f[3 * t[a] + i] -= (P[3 * i] * N[0] + P[3 * i + 1] * N[1] + P[3 * i + 2] * N[2]) / 3.0;
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMSetCache(SimEnergy term, PetscBool cache)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  fem->cache = cache;
  fem->have_x = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMSetAVX(SimEnergy term, PetscBool avx)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  fem->avx = (PetscBool)(avx && __builtin_cpu_supports("avx") > 0);
  PetscFunctionReturn(0);
}
