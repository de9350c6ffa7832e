/* The product of a symmetric matrix with 3x3 vertex blocks from its upper block triangle only: a
 * cheaper operator for Newton-CG's exact Hessian on one rank (-newton_symmetric_product). */
#pragma once
#include <petscmat.h>

/* S is a MATSHELL with A's sizes (block size 3) whose product is y = A x computed from A's upper
 * block triangle, diagonal blocks included:
 *
 *   y = (U + U^T - D) x,   U the upper 3x3 blocks (I <= J) of A, D its diagonal blocks,
 *
 * one pass over the blocks (Saad, Iterative Methods for Sparse Linear Systems, 2003, 3.4: a block
 * (I, J) adds U_IJ x_J to y_I and U_IJ^T x_I to y_J). The blocks are copied out of A into flat
 * arrays (9 values each, row-major, one column index per block), so the product reads about half of
 * the bytes AIJ's MatMult reads (the 64 x 64 cloth: 2.1 MB against 4.4 MB with inode column indices).
 *
 * A: a MATSEQAIJ with block size 3 (3 nv rows and columns), symmetric in structure and in value; S
 *    keeps a reference to it. The block pattern is built from A's nonzero pattern and rebuilt
 *    whenever A's nonzero state changes (a contact term's new pairs); each 3x3 block with any entry
 *    is stored whole (missing entries as 0).
 * Errors (naming the entry): A not MATSEQAIJ (e.g. MPIAIJ on several ranks), a block size other than
 *    3, A not assembled, an entry whose mirror (c, r) is not in the pattern, and, at the first copy
 *    after each pattern build, an entry whose mirror differs by more than 1e-10 of the pair's scale
 *    (|a_rc| + |a_cr| + sqrt(|a_rr a_cc|)). Later copies read only the upper blocks: A must stay
 *    symmetric in value (the Hessians of energies are, by construction).
 * S's ops: MatMult and MatMultTranspose (the same product; logged under MatMult), MatGetDiagonal,
 * MatView. S holds A's values as of the last SimSymBlockUpdate: call it after every assembly of A
 * (a product before the first update is an error). */
PetscErrorCode SimSymBlockCreate(Mat A, Mat *S);
/* Copies A's diagonal and upper blocks into S (rebuilding the block pattern first when A's nonzero
 * pattern changed): one gather of 9 (nv + upper blocks) values. */
PetscErrorCode SimSymBlockUpdate(Mat S);
