/* MatMult on a 3 x 3-block matrix in PETSc's three sequential formats: AIJ (with its inode routines,
 * which the Newton Hessians use), BAIJ (block size 3) and SBAIJ (upper triangle only), and pbsim's
 * symmetric block product (framework/linalg/symblock.h, -newton_symmetric_product). Issue 17 asks
 * whether the Hessian's block structure would pay as BAIJ/SBAIJ. The matrix: the 27-point stencil
 * of an n^3 vertex grid with a dense 3 x 3 block per coupling (a hexahedral/tetrahedral FEM Hessian's
 * pattern), or with -cloth the default demo's n x n cloth (structural, shear and bending springs: 13
 * blocks per row), SPD values. Prints ms per product, GB/s of matrix data, and for the formats that
 * copy the AIJ Hessian after each assembly (SBAIJ by MatConvert with MAT_REUSE_MATRIX, symblock by
 * SimSymBlockUpdate) ms per copy.
 *
 *   mpicc -O3 -I. tools/blockmult.c framework/linalg/symblock.c $(pkg-config --cflags --libs PETSc) -lm -o /tmp/blockmult
 *   /tmp/blockmult -n 24 -reps 200; /tmp/blockmult -cloth -n 64 -reps 400
 */
#include <petscmat.h>
#include "framework/linalg/symblock.h"

/* The block (row, col) of the matrix: SPD overall (diagonally dominant), symmetric blocks. */
static PetscErrorCode SetBlock(Mat B, PetscInt row, PetscInt col, PetscInt nnb)
{
  PetscScalar v[9];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 9; a++) v[a] = (row == col) ? (a % 4 == 0 ? 2.0 * nnb + 6.0 : 0.5) : -0.5 - 0.01 * (a % 3);
  if (row != col) { /* symmetric blocks */
    v[1] = v[3] = -0.3;
    v[2] = v[6] = -0.2;
    v[5] = v[7] = -0.1;
  }
  PetscCall(MatSetValuesBlocked(B, 1, &row, 1, &col, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt n = 24, reps = 200, nv, N;
  PetscBool cloth = PETSC_FALSE;
  Mat A, B, S, Y;
  Vec x, y;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cloth", &cloth, NULL));
  nv = cloth ? n * n : n * n * n;
  N = 3 * nv;
  PetscCall(MatCreateSeqBAIJ(PETSC_COMM_SELF, 3, N, N, 27, NULL, &B));
  if (cloth) { /* cloth springs: (1, 0), (0, 1), (1, +-1) and (2, 0), (0, 2) in both directions */
    const PetscInt off[13][2] = {{0, 0},  {1, 0},  {-1, 0}, {0, 1},  {0, -1}, {1, 1}, {-1, -1},
                                 {1, -1}, {-1, 1}, {2, 0},  {-2, 0}, {0, 2},  {0, -2}};
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++)
        for (int o = 0; o < 13; o++) {
          const PetscInt ii = i + off[o][0], jj = j + off[o][1];
          if (ii < 0 || jj < 0 || ii >= n || jj >= n) continue;
          PetscCall(SetBlock(B, j * n + i, jj * n + ii, 13));
        }
  } else {
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) {
          PetscInt row = (k * n + j) * n + i;
          for (PetscInt dk = -1; dk <= 1; dk++)
            for (PetscInt dj = -1; dj <= 1; dj++)
              for (PetscInt di = -1; di <= 1; di++) {
                PetscInt ii = i + di, jj = j + dj, kk = k + dk;
                if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
                PetscCall(SetBlock(B, row, (kk * n + jj) * n + ii, 27));
              }
        }
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatConvert(B, MATSEQSBAIJ, MAT_INITIAL_MATRIX, &S));
  PetscCall(SimSymBlockCreate(A, &Y));
  PetscCall(SimSymBlockUpdate(Y));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  {
    Mat mats[4] = {A, B, S, Y};
    const char *names[4] = {"aij (inodes)", "baij 3", "sbaij 3", "symblock"};
    PetscReal norms[4];
    for (int m = 0; m < 4; m++) {
      MatInfo info;
      PetscLogDouble t0, t1, best = 1e30, copy = 0;
      if (m < 3)
        PetscCall(MatGetInfo(mats[m], MAT_LOCAL, &info));
      else { /* symblock stores the upper blocks and the diagonal ones */
        PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
        info.nz_used = 0.5 * (info.nz_used - 9.0 * nv) + 9.0 * nv;
      }
      for (int round = 0; round < 3; round++) {
        PetscCall(PetscTime(&t0));
        for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(mats[m], x, y));
        PetscCall(PetscTime(&t1));
        best = PetscMin(best, (t1 - t0) / reps);
      }
      if (m == 2 || m == 3) { /* the copy after each assembly of the AIJ Hessian */
        PetscLogDouble cbest = 1e30;
        for (int round = 0; round < 3; round++) {
          PetscCall(PetscTime(&t0));
          for (PetscInt r = 0; r < reps / 10 + 1; r++) {
            if (m == 2)
              PetscCall(MatConvert(A, MATSEQSBAIJ, MAT_REUSE_MATRIX, &S));
            else
              PetscCall(SimSymBlockUpdate(Y));
          }
          PetscCall(PetscTime(&t1));
          cbest = PetscMin(cbest, (t1 - t0) / (reps / 10 + 1));
        }
        copy = cbest;
      }
      PetscCall(VecNorm(y, NORM_2, &norms[m]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "%-14s n = %" PetscInt_FMT " (%" PetscInt_FMT
                            " unknowns): %.3f ms per MatMult, %.0f stored nonzeros, %.2f GB/s of values; "
                            "|y| = %.12g",
                            names[m], n, N, 1e3 * best, info.nz_used, 8e-9 * info.nz_used / best, (double)norms[m]));
      if (copy > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; %.3f ms per copy from AIJ", 1e3 * copy));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    }
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&Y));
  PetscCall(PetscFinalize());
  return 0;
}
