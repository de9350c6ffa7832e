/* The product of a symmetric matrix with 3x3 vertex blocks from its upper block triangle only: a
 * cheaper operator for Newton-CG's exact Hessian on one rank (-newton_symmetric_product). */
#pragma once
#include <petscmat.h>

/* S is a MATSHELL with A's sizes (block size 3) whose product is y = A x computed from A's upper
 * block triangle, diagonal blocks included:
 *
 *   y = (U + U^T - D) x,   U the upper 3x3 blocks (I <= J) of A, D its diagonal blocks,
 *
 * one pass over the blocks (Iterative Methods for Sparse Linear Systems, Saad 2003, 3.4: a block
 * (I, J) adds U_IJ x_J to y_I and U_IJ^T x_I to y_J). The blocks are copied out of A into flat
 * arrays (9 values each, row-major), so the product reads about half of A's bytes (AIJ's
 * 1.06 of values and indices per stored value against 0.56 here).
 *
 * A: a MATSEQAIJ with block size 3 (3 nv rows and columns), symmetric in structure and in value; S
 *    keeps a reference to it. The pattern (which block is stored where) is built from A's nonzero
 *    pattern and rebuilt whenever A's nonzero state changes (new contacts); each 3x3 block with any
 *    entry is stored whole (missing entries as 0).
 * Checks (errors, with the entry named): A not MATSEQAIJ (e.g. MPIAIJ on several ranks: there the
 *    product has no one-rank block layout; use the AIJ operator), a block size other than 3, A not
 *    assembled, an entry whose mirror (c, r) is not in the pattern, and, at the first copy of each
 *    pattern, an entry whose mirror differs by more than 1e-10 of the pair's scale
 *    (|a_rc| + |a_cr| + sqrt(|a_rr a_cc|)). Later copies read only the upper blocks: A must stay
 *    symmetric in value (the Hessians of energies are, by construction).
 * S's ops: MatMult and MatMultTranspose (the same product), MatGetDiagonal, MatView. The values are
 * those of A at the last SimSymBlockUpdate; MatMult checks A's object state and copies again when A
 * changed since, so S never multiplies with stale values (call SimSymBlockUpdate after assembling A
 * to keep the copy out of MatMult's logged time). */
PetscErrorCode SimSymBlockCreate(Mat A, Mat *S);
/* Copies A's upper blocks into S (rebuilding the block pattern first when A's nonzero pattern
 * changed). No-op when A is unchanged since the last copy. */
PetscErrorCode SimSymBlockUpdate(Mat S);
