/* MatMult on a 3 x 3-block matrix in PETSc's three sequential formats: AIJ (with its inode routines,
 * which the Newton Hessians use), BAIJ (block size 3) and SBAIJ (upper triangle only). Issue 17 asks
 * whether the Hessian's block structure would pay as BAIJ/SBAIJ. The matrix: the 27-point stencil
 * of an n^3 vertex grid with a dense 3 x 3 block per coupling (a hexahedral/tetrahedral FEM Hessian's
 * pattern), SPD values. Prints ms per product and GB/s of matrix data.
 *
 *   mpicc -O3 tools/blockmult.c $(pkg-config --cflags --libs PETSc) -o /tmp/blockmult && /tmp/blockmult -n 24 -reps 200
 */
#include <petscmat.h>

int main(int argc, char **argv)
{
  PetscInt n = 24, reps = 200, nv, N;
  Mat A, B, S;
  Vec x, y;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  nv = n * n * n;
  N = 3 * nv;
  PetscCall(MatCreateSeqBAIJ(PETSC_COMM_SELF, 3, N, N, 27, NULL, &B));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        PetscInt row = (k * n + j) * n + i;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              PetscInt ii = i + di, jj = j + dj, kk = k + dk, col;
              PetscScalar v[9];
              if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
              col = (kk * n + jj) * n + ii;
              for (PetscInt a = 0; a < 9; a++) v[a] = (row == col) ? (a % 4 == 0 ? 60.0 : 0.5) : -0.5 - 0.01 * (a % 3);
              if (row != col) { /* symmetric blocks */
                v[1] = v[3] = -0.3; v[2] = v[6] = -0.2; v[5] = v[7] = -0.1;
              }
              PetscCall(MatSetValuesBlocked(B, 1, &row, 1, &col, v, INSERT_VALUES));
            }
      }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(B, MATSEQSBAIJ, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  {
    Mat mats[3] = {A, B, S};
    const char *names[3] = {"aij (inodes)", "baij 3", "sbaij 3"};
    PetscReal norms[3];
    for (int m = 0; m < 3; m++) {
      MatInfo info;
      PetscLogDouble t0, t1, best = 1e30;
      PetscCall(MatGetInfo(mats[m], MAT_LOCAL, &info));
      for (int round = 0; round < 3; round++) {
        PetscCall(PetscTime(&t0));
        for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(mats[m], x, y));
        PetscCall(PetscTime(&t1));
        best = PetscMin(best, (t1 - t0) / reps);
      }
      PetscCall(VecNorm(y, NORM_2, &norms[m]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-14s n = %" PetscInt_FMT " (%" PetscInt_FMT " unknowns): %.3f ms per MatMult, %.0f stored nonzeros, %.2f GB/s of values; |y| = %.12g\n",
                            names[m], n, N, 1e3 * best, info.nz_used, 8e-9 * info.nz_used / best, (double)norms[m]));
    }
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&S));
  PetscCall(PetscFinalize());
  return 0;
}
