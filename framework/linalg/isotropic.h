/* Isotropic hyperelasticity in singular values: psi(sigma) -> psi, P and dP/dF (9x9) with the
 * analytic eigensystem and its exact PSD projection (Xu et al. 2015; Smith et al. 2019). */
#pragma once
#include <petscsys.h>

/* Index conventions (as framework/material.h): F, P, U, V are 3x3 row-major, A[3*r + c];
 * dPdF is 9x9 row-major, dPdF[9*(3i+j) + (3k+l)] = dP_ij / dF_kl.
 *
 * The eigensystem. With F = U diag(s) V^T (rotation-variant SVD, svd3.h), g = dpsi/ds and
 * H = d2psi/ds2, an isotropic energy has P = U diag(g) V^T (Xu et al. 2015, "Nonlinear material
 * design using principal stretches", the stress in principal stretches) and dP/dF is block-diagonal in the orthonormal basis D_ab
 * = U e_a e_b^T V^T:
 *   - the diagonal block on (D_00, D_11, D_22) is H (3 "scaling" modes: the eigenvectors w of H,
 *     as matrices U diag(w) V^T);
 *   - for each pair i < j, the block on (D_ij, D_ji) is [[a, b], [b, a]] with
 *       a = (s_i g_i - s_j g_j) / (s_i^2 - s_j^2),  b = (s_j g_i - s_i g_j) / (s_i^2 - s_j^2)
 *     (Xu et al. 2015, the 2x2 blocks of the stiffness in the principal frame), whose eigenpairs are
 *       flip:  a + b = (g_i - g_j) / (s_i - s_j),  mode U (e_i e_j^T + e_j e_i^T) V^T / sqrt(2)
 *       twist: a - b = (g_i + g_j) / (s_i + s_j),  mode U (e_i e_j^T - e_j e_i^T) V^T / sqrt(2)
 *     (Smith, de Goes, Kim 2019, "Analytic eigensystems for isotropic distortion energies": the
 *     flip and twist eigenmatrices).
 * dP/dF = sum over the 9 modes of lambda q q^T; the PSD projection replaces lambda by
 * max(lambda, 0), which is exactly the projection of the 9x9 onto the PSD cone. */

/* An isotropic energy in singular values. The callbacks are pure arithmetic (they cannot fail, so
 * they return void); ctx is the material's parameter struct; s follows the SVD convention of
 * svd3.h (s[0] >= s[1] >= |s[2]|, s[2] < 0 for inverted F). */
typedef struct {
  /* Optional: PETSC_FALSE where psi is undefined (e.g. J <= 0 for neo-Hookean); NULL means
   * defined everywhere. Where undefined, the energy is +inf and P, dP/dF are errors. */
  PetscBool (*defined)(const void *ctx, const PetscReal s[3]);
  void (*psi)(const void *ctx, const PetscReal s[3], PetscReal *psi);
  void (*gradient)(const void *ctx, const PetscReal s[3], PetscReal g[3]); /* g = dpsi/ds */
  void (*hessian)(const void *ctx, const PetscReal s[3], PetscReal H[9]);  /* d2psi/ds2, symmetric */
  /* Optional: flip[k] and twist[k] for the pairs k = (0,1), (0,2), (1,2) in a closed form that
   * stays finite as s_i -> s_j (flip) and s_i -> -s_j (twist) (Smith et al. 2019 give them per
   * energy). NULL: SimIsotropicQuotients computes them from g and H. */
  void (*quotients)(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3]);
} SimIsotropicEnergy;

/* An isotropic energy in the invariants of C = F^T F, I = (I_C, II_C, J):
 *   I_C = tr C = sum s_i^2,  II_C = ((tr C)^2 - tr(C^2)) / 2 = sum_{i<j} s_i^2 s_j^2,  J = det F = s_0 s_1 s_2.
 * The callbacks give psi, d[a] = dpsi/dI_a and the symmetric 3x3 D[3a + b] = d2psi/dI_a dI_b (pure
 * arithmetic, as above). Isochoric forms are functions of these too: Ibar_C = J^(-2/3) I_C,
 * IIbar_C = J^(-4/3) II_C (the chain rule in J is the energy's). SimInvariantsToSigma turns them
 * into the singular-value form, flip and twist in closed form (no cancellation as s_i -> s_j):
 *   g_i   = 2 d_0 s_i + 2 d_1 s_i (I_C - s_i^2) + d_2 J / s_i        (J / s_i = s_j s_m)
 *   flip  = 2 d_0 + 2 d_1 (s_m^2 - s_i s_j) - d_2 s_m,   twist = 2 d_0 + 2 d_1 (s_m^2 + s_i s_j) + d_2 s_m
 * for the pair (i, j), m the third index (Smith et al. 2019 for I_C and J; the II_C terms follow
 * from (s_i^3 -+ s_j^3) / (s_i -+ s_j)). */
typedef struct {
  /* Optional: PETSC_FALSE where psi is undefined (e.g. J <= 0); NULL means defined everywhere. */
  PetscBool (*defined)(const void *ctx, const PetscReal inv[3]);
  void (*psi)(const void *ctx, const PetscReal inv[3], PetscReal *psi);
  void (*gradient)(const void *ctx, const PetscReal inv[3], PetscReal d[3]);
  void (*hessian)(const void *ctx, const PetscReal inv[3], PetscReal D[9]);
} SimInvariantEnergy;

/* The invariants (I_C, II_C, J) of F = U diag(s) V^T. */
void SimInvariantsOfSigma(const PetscReal s[3], PetscReal inv[3]);
/* psi (may be NULL), g = dpsi/ds (may be NULL) and, if H is not NULL, H = d2psi/ds2 with the flip
 * and twist quotients, of an invariant energy at singular values s. */
void SimInvariantsToSigma(const SimInvariantEnergy *e, const void *ctx, const PetscReal s[3], PetscReal *psi, PetscReal g[3],
                          PetscReal H[9], PetscReal flip[3], PetscReal twist[3]);

/* An anisotropic fibre term psi_f(I4) of a unit direction a (in the reference frame):
 *   I4 = a^T C a = |F a|^2,  dI4/dF = 2 (F a) a^T,  d2I4/dF_ij dF_kl = 2 delta_ik a_j a_l, so
 *   P_f = 2 psi_f' (F a) a^T,
 *   dP_f/dF_ijkl = 2 psi_f' delta_ik a_j a_l + 4 psi_f'' (F a)_i a_j (F a)_k a_l.
 * On the subspace {x a^T} it is 2 psi_f' I + 4 psi_f'' (F a)(F a)^T: eigenvalues 2 psi_f' (twice)
 * and 2 psi_f' + 4 psi_f'' I4 (along F a), 0 elsewhere (Kim, de Goes, Iben 2019, "Anisotropic
 * elasticity for inversion-safety and element rehabilitation", the I4 eigensystem). */
PetscReal SimFibreI4(const PetscReal F[9], const PetscReal a[3]);
/* P += 2 d1 (F a) a^T, with d1 = psi_f'(I4). */
void SimFibreAddPK1(const PetscReal F[9], const PetscReal a[3], PetscReal d1, PetscReal P[9]);
/* dPdF += the fibre term above, with d1 = psi_f'(I4), d2 = psi_f''(I4). */
void SimFibreAddHessian(const PetscReal F[9], const PetscReal a[3], PetscReal d1, PetscReal d2, PetscReal dPdF[81]);

/* The denominator s_i + s_j of a twist quotient for energies that are genuinely singular at
 * s_i = -s_j (ARAP, corotated: the polar rotation jumps there): kept at least eps in magnitude,
 * so the eigenvalue is huge but finite (and clamped to 0 by the PSD projection when negative). */
static inline PetscReal SimIsotropicTwistDenominator(PetscReal sum)
{
  return PetscAbsReal(sum) >= PETSC_MACHINE_EPSILON ? sum : (sum < 0 ? -PETSC_MACHINE_EPSILON : PETSC_MACHINE_EPSILON);
}

/* The pair order used by flip/twist: pair k is (SimIsotropicPairs[k][0], SimIsotropicPairs[k][1]). */
extern const int SimIsotropicPairs[3][2];

/* The generic flip/twist quotients from g and H, for energies without closed forms:
 *   flip  = (g_i - g_j) / (s_i - s_j)  if |s_i - s_j| > tau (|s_i| + |s_j|), else (H_ii + H_jj)/2 - H_ij
 *   twist = (g_i + g_j) / (s_i + s_j)  if |s_i + s_j| > tau (|s_i| + |s_j|), else (H_ii + H_jj)/2 + H_ij
 * with tau = eps^(1/3). The limits are second-order accurate: g_i - g_j is odd in s_i - s_j by
 * the permutation symmetry of psi. The twist limit further assumes psi is invariant under
 * negating two singular values (true for functions of s_k^2 and of J, e.g. StVK, neo-Hookean; not
 * for ARAP/corotated, whose twist eigenvalue is genuinely singular at s_i = -s_j: such energies
 * must supply quotients). Cancellation and truncation errors are both O(eps^(2/3)) relative. */
void SimIsotropicQuotients(const PetscReal s[3], const PetscReal g[3], const PetscReal H[9], PetscReal flip[3],
                           PetscReal twist[3]);

/* The per-element decomposition the materials' evaluate op keeps (framework/material.h): U (9),
 * s (3), V (9) of F = U diag(s) V^T. */
#define SIM_ISOTROPIC_NDEC 21

/* The exact dP/dF and its PSD projection (either may be NULL) from one eigensystem (as below). */
PetscErrorCode SimIsotropicHessians(const PetscReal U[9], const PetscReal V[9], const PetscReal H[9], const PetscReal flip[3],
                                    const PetscReal twist[3], PetscReal dPdF[81], PetscReal dPdF_psd[81]);

/* dP/dF (81 values) from the eigensystem: U, V of the SVD, the 3x3 Hessian in s, flip/twist per
 * pair; psd clamps the 9 eigenvalues at 0. If lambda is not NULL it receives the 9 (unclamped)
 * eigenvalues: the 3 scaling ones (descending), then flip[0..2], then twist[0..2].
 * Errors: non-finite H (from the 3x3 eigensolver). */
PetscErrorCode SimIsotropicHessian(const PetscReal U[9], const PetscReal V[9], const PetscReal H[9], const PetscReal flip[3],
                                   const PetscReal twist[3], PetscBool psd, PetscReal dPdF[81], PetscReal lambda[9]);
