/* Assembly of the model's Hessian H = cM M + cE d2E/dx2 + cD d2D/dv2 through PETSc's COO interface:
 * the pattern is fixed at setup, each assembly only fills a flat value array. */
#include "framework/model/model.h"

/* Builds the block offsets and the per-entry pinned mask once; returns the COO index arrays
 * (caller frees) when want_indices is true. Layout of the value array: the blocks of term 0,
 * term 1, ... (9 values each, row-major), then 3 diagonal entries per vertex. On several ranks
 * every rank keeps this layout, and the entries it must not contribute get the index -1, which
 * MatSetPreallocationCOO ignores (with their values): blocks of replicated terms whose row
 * vertex another rank owns (that rank adds them), and the diagonal of vertices it does not own.
 * A distributed term's blocks all count (its elements are this rank's only); those in rows of
 * other ranks are sent there by the COO assembly. */
static PetscErrorCode HessianPattern(SimModel m, PetscBool want_indices, PetscInt **coo_i, PetscInt **coo_j)
{
  PetscInt nblocks = 0, *brow = NULL, *bcol = NULL, *ci = NULL, *cj = NULL;

  PetscFunctionBeginUser;
  if (!m->term_block_offset) {
    PetscCall(PetscMalloc1(m->nterms + 1, &m->term_block_offset));
    m->term_block_offset[0] = 0;
    for (PetscInt t = 0; t < m->nterms; t++) {
      PetscInt nb = 0;
      if (m->term[t]->ops.pattern) PetscCall(m->term[t]->ops.pattern(m->term[t], &nb, NULL, NULL));
      m->term_block_offset[t + 1] = m->term_block_offset[t] + nb;
    }
  }
  nblocks = m->term_block_offset[m->nterms];
  m->ncoo = 9 * nblocks + 3 * m->nv;
  PetscCall(PetscMalloc2(nblocks, &brow, nblocks, &bcol));
  for (PetscInt t = 0; t < m->nterms; t++) {
    PetscInt nb, off = m->term_block_offset[t];
    if (!m->term[t]->ops.pattern) continue;
    PetscCall(m->term[t]->ops.pattern(m->term[t], &nb, brow + off, bcol + off));
  }
  if (!m->coo_vals) {
    PetscInt nmasked = 0;
    for (PetscInt b = 0; b < nblocks; b++) nmasked += m->pinned[brow[b]] || m->pinned[bcol[b]];
    PetscCall(PetscMalloc2(m->ncoo, &m->coo_vals, nmasked, &m->masked_block));
    m->nmasked_block = 0;
    for (PetscInt b = 0; b < nblocks; b++)
      if (m->pinned[brow[b]] || m->pinned[bcol[b]]) m->masked_block[m->nmasked_block++] = b;
  }
  if (want_indices) {
    PetscCall(PetscMalloc2(m->ncoo, &ci, m->ncoo, &cj));
    for (PetscInt t = 0; t < m->nterms; t++) {
      const PetscBool all = (PetscBool)(m->size == 1 || m->term[t]->distributed);
      for (PetscInt b = m->term_block_offset[t]; b < m->term_block_offset[t + 1]; b++) {
        const PetscBool keep = (PetscBool)(all || (brow[b] >= m->vstart && brow[b] < m->vend));
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) {
            ci[9 * b + 3 * r + c] = keep ? 3 * brow[b] + r : -1;
            cj[9 * b + 3 * r + c] = keep ? 3 * bcol[b] + c : -1;
          }
      }
    }
    for (PetscInt k = 0; k < 3 * m->nv; k++) {
      const PetscBool keep = (PetscBool)(k >= 3 * m->vstart && k < 3 * m->vend);
      ci[9 * nblocks + k] = cj[9 * nblocks + k] = keep ? k : -1;
    }
    *coo_i = ci;
    *coo_j = cj;
  }
  PetscCall(PetscFree2(brow, bcol));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianCreate(SimModel m, Mat *H)
{
  PetscInt *ci, *cj;

  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The model has no vertices");
  PetscCall(HessianPattern(m, PETSC_TRUE, &ci, &cj));
  PetscCall(MatCreate(m->comm, H));
  PetscCall(MatSetSizes(*H, 3 * (m->vend - m->vstart), 3 * (m->vend - m->vstart), 3 * m->nv, 3 * m->nv));
  PetscCall(MatSetType(*H, m->size > 1 ? MATMPIAIJ : MATSEQAIJ));
  PetscCall(MatSetBlockSize(*H, 3));
  PetscCall(MatSetPreallocationCOO(*H, m->ncoo, ci, cj));
  PetscCall(MatSetOption(*H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianAssemble(SimModel m, const PetscReal *x, const PetscReal *xd, const PetscReal *v, PetscReal cM,
                                       PetscReal cE, PetscReal cD, PetscBool psd, Mat H)
{
  const PetscScalar *mass;
  PetscReal *vals;
  PetscInt nblocks;

  PetscFunctionBeginUser;
  PetscCheck(m->term_block_offset && m->coo_vals, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "Create the Hessian with SimModelHessianCreate first");
  vals = m->coo_vals;
  nblocks = m->term_block_offset[m->nterms];
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy term = m->term[t];
    PetscInt off = 9 * m->term_block_offset[t], len = 9 * m->term_block_offset[t + 1] - off;
    PetscReal c = term->kind == SIM_ENERGY_POTENTIAL ? cE : cD;
    if (!len) continue;
    if (c == 0.0 || !term->ops.hessian) {
      PetscCall(PetscArrayzero(vals + off, len));
      continue;
    }
    PetscCall(term->ops.hessian(term, term->kind == SIM_ENERGY_POTENTIAL ? x : xd, v, psd, vals + off));
    if (c != 1.0)
      for (PetscInt k = 0; k < len; k++) vals[off + k] *= c;
  }
  for (PetscInt q = 0; q < m->nmasked_block; q++) PetscCall(PetscArrayzero(vals + 9 * m->masked_block[q], 9));
  /* diagonal: mass for free DOFs, identity for pinned ones (their rows/columns are otherwise 0) */
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) vals[9 * nblocks + 3 * i + d] = m->pinned[i] ? 1.0 : cM * mass[3 * i + d];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(MatSetValuesCOO(H, vals, INSERT_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianUpdatePattern(SimModel m, const PetscReal *x, PetscBool *changed)
{
  PetscInt any = 0, anyall;
  PetscBool distributed = PETSC_FALSE;

  PetscFunctionBeginUser;
  *changed = PETSC_FALSE;
  for (PetscInt t = 0; t < m->nterms; t++) {
    PetscBool c = PETSC_FALSE;
    if (!m->term[t]->ops.update_pattern) continue;
    PetscCall(m->term[t]->ops.update_pattern(m->term[t], x, &c));
    if (c) any = 1;
    if (m->term[t]->distributed) distributed = PETSC_TRUE;
  }
  anyall = any;
  if (distributed && m->size > 1) PetscCall(MPIU_Allreduce(&any, &anyall, 1, MPIU_INT, MPI_MAX, m->comm));
  if (!anyall) PetscFunctionReturn(0);
  /* the layout of the value array follows the blocks: rebuild it from every term's pattern */
  PetscCall(PetscFree(m->term_block_offset));
  PetscCall(PetscFree2(m->coo_vals, m->masked_block));
  m->nmasked_block = 0;
  PetscCall(HessianPattern(m, PETSC_FALSE, NULL, NULL));
  m->pattern_version++;
  *changed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianRepreallocate(SimModel m, Mat H)
{
  PetscInt *ci, *cj;

  PetscFunctionBeginUser;
  PetscCall(HessianPattern(m, PETSC_TRUE, &ci, &cj));
  PetscCall(MatSetPreallocationCOO(H, m->ncoo, ci, cj));
  PetscCall(MatSetOption(H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}
