/* Assembly of the model's Hessian H = cM M + cE d2E/dx2 + cD d2D/dv2 through PETSc's COO interface:
 * the pattern is fixed at setup, each assembly only fills a flat value array. */
#include <petscpc.h>
#include "framework/model/model.h"
#include "framework/linalg/csr.h"

/* Builds the block offsets and the per-entry pinned mask once; returns the COO index arrays
 * (caller frees) when want_indices is true. Layout of the value array: the blocks of term 0,
 * term 1, ... (9 values each, row-major), then 3 diagonal entries per vertex. On several ranks
 * every rank keeps this layout, and the entries it must not contribute get the index -1, which
 * MatSetPreallocationCOO ignores (with their values): blocks of replicated terms whose row
 * vertex another rank owns (that rank adds them), and the diagonal of vertices it does not own.
 * A distributed term's blocks all count (its elements are this rank's only); those in rows of
 * other ranks are sent there by the COO assembly. */
static PetscErrorCode HessianPattern(SimModel m, PetscBool want_indices, PetscBool local, PetscInt **coo_i, PetscInt **coo_j)
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
  if (want_indices && local) { /* MATIS: local numbering, every block and every vertex's diagonal on every rank */
    PetscCall(PetscMalloc2(m->ncoo, &ci, m->ncoo, &cj));
    for (PetscInt b = 0; b < nblocks; b++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          ci[9 * b + 3 * r + c] = 3 * brow[b] + r;
          cj[9 * b + 3 * r + c] = 3 * bcol[b] + c;
        }
    for (PetscInt k = 0; k < 3 * m->nv; k++) ci[9 * nblocks + k] = cj[9 * nblocks + k] = k;
    *coo_i = ci;
    *coo_j = cj;
  } else if (want_indices) {
    /* blocks name local vertices; the matrix global ones (the same numbers when replicated). With a
     * distributed state every block counts: distributed terms hold this rank's elements, vertex
     * terms its owned vertices. */
    const PetscInt *G = m->global;
    PetscCall(PetscMalloc2(m->ncoo, &ci, m->ncoo, &cj));
    for (PetscInt t = 0; t < m->nterms; t++) {
      const PetscBool all = (PetscBool)(m->size == 1 || m->term[t]->distributed || m->local_state);
      for (PetscInt b = m->term_block_offset[t]; b < m->term_block_offset[t + 1]; b++) {
        const PetscInt gr = G ? G[brow[b]] : brow[b], gc = G ? G[bcol[b]] : bcol[b];
        const PetscBool keep = (PetscBool)(all || (gr >= m->vstart && gr < m->vend));
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) {
            ci[9 * b + 3 * r + c] = keep ? 3 * gr + r : -1;
            cj[9 * b + 3 * r + c] = keep ? 3 * gc + c : -1;
          }
      }
    }
    for (PetscInt k = 0; k < 3 * m->nv; k++) {
      const PetscInt gk = G ? 3 * G[k / 3] + k % 3 : k;
      const PetscBool keep = (PetscBool)(gk >= 3 * m->vstart && gk < 3 * m->vend);
      ci[9 * nblocks + k] = cj[9 * nblocks + k] = keep ? gk : -1;
    }
    *coo_i = ci;
    *coo_j = cj;
  }
  PetscCall(PetscFree2(brow, bcol));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianSetIS(SimModel m, PetscBool use_is)
{
  PetscFunctionBeginUser;
  m->hessian_is = use_is;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianSetISFromOptions(SimModel m, const char *prefix)
{
  char pc[64] = "";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, prefix, "-pc_type", pc, sizeof(pc), &set));
  m->hessian_is = (PetscBool)(set && !strcmp(pc, PCBDDC));
  PetscFunctionReturn(0);
}

/* The unassembled Hessian: sizes as the AIJ one, the local-to-global map of the model's local vertices
 * (block size 3), the subdomain matrix preallocated by COO in local numbering; is_weight[i] = 1 / (ranks
 * storing vertex i). */
static PetscErrorCode HessianCreateIS(SimModel m, Mat H)
{
  ISLocalToGlobalMapping l2g;
  PetscInt *ci, *cj, *idx;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->nv, &idx));
  for (PetscInt i = 0; i < m->nv; i++) idx[i] = m->global ? m->global[i] : i;
  PetscCall(ISLocalToGlobalMappingCreate(m->comm, 3, m->nv, idx, PETSC_OWN_POINTER, &l2g));
  PetscCall(MatSetType(H, MATIS));
  PetscCall(MatSetBlockSize(H, 3));
  PetscCall(MatSetLocalToGlobalMapping(H, l2g, l2g));
  PetscCall(ISLocalToGlobalMappingDestroy(&l2g));
  PetscCall(HessianPattern(m, PETSC_TRUE, PETSC_TRUE, &ci, &cj));
  PetscCall(MatSetPreallocationCOOLocal(H, m->ncoo, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  { /* the multiplicity of every local vertex: 1 per rank storing it, summed onto the owner and sent back */
    PetscReal *w;
    PetscCall(PetscMalloc1(3 * m->nv, &w));
    for (PetscInt k = 0; k < 3 * m->nv; k++) w[k] = 1.0;
    PetscCall(SimModelGhostSum(m, w));
    PetscCall(PetscFree(m->is_weight));
    PetscCall(PetscMalloc1(m->nv, &m->is_weight));
    for (PetscInt i = 0; i < m->nv; i++) m->is_weight[i] = 1.0 / w[3 * i];
    PetscCall(PetscFree(w));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianCreate(SimModel m, Mat *H)
{
  PetscInt *ci, *cj;

  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The model has no vertices");
  if (m->hessian_is) {
    PetscCheck(m->size == 1 || m->local_state, m->comm, PETSC_ERR_SUP,
               "The unassembled Hessian (MATIS, for -newton_pc_type bddc) needs the distributed FEM state on several ranks: "
               "each rank's subdomain must be its own elements; this model keeps the whole state on every rank "
               "(-fem_distributed_state 0, or a scene whose terms need every vertex, e.g. IPC contact). Use the default "
               "Cholesky (MUMPS) or -newton_pc_type gamg");
    PetscCall(MatCreate(m->comm, H));
    PetscCall(MatSetSizes(*H, 3 * (m->vend - m->vstart), 3 * (m->vend - m->vstart), 3 * m->nglobal, 3 * m->nglobal));
    PetscCall(HessianCreateIS(m, *H));
    PetscCall(MatSetOption(*H, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(*H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
    PetscFunctionReturn(0);
  }
  PetscCall(HessianPattern(m, PETSC_TRUE, PETSC_FALSE, &ci, &cj));
  PetscCall(MatCreate(m->comm, H));
  PetscCall(MatSetSizes(*H, 3 * (m->vend - m->vstart), 3 * (m->vend - m->vstart), 3 * m->nglobal, 3 * m->nglobal));
  PetscCall(MatSetType(*H, m->size > 1 ? MATMPIAIJ : MATSEQAIJ));
  PetscCall(MatSetBlockSize(*H, 3));
  PetscCall(MatSetPreallocationCOO(*H, m->ncoo, ci, cj));
  PetscCall(MatSetOption(*H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

/* ---- the one-rank path: straight into the SeqAIJ values ----
 * Every block (row vertex i, column vertex j) owns the entries (3i + r, 3j + s); a row's columns
 * are sorted, so the block's three entries of row 3i + r are contiguous, and the three rows of
 * vertex i hold the same columns (every entry of them comes from a 3x3 block or the diagonal, which
 * lies in the block (i, i) when there is one), so row 3i + r starts stride[i] * r after row 3i.
 * CsrBuild finds each block's position once per pattern; a vertex whose rows differ (no (i, i)
 * block: only the diagonal) gets no blocks (it has none) and its own diagonal offsets. */
static PetscErrorCode CsrFind(const PetscInt *ia, const PetscInt *ja, PetscInt row, PetscInt col, PetscInt *pos)
{
  PetscFunctionBeginUser;
  *pos = SimCsrPlace(ia, ja, row, col);
  PetscCheck(*pos >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Hessian entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the matrix's nonzero pattern", row, col);
  PetscFunctionReturn(0);
}

static PetscErrorCode CsrBuild(SimModel m, const PetscInt *ia, const PetscInt *ja, PetscBool *ok)
{
  const PetscInt nblocks = m->term_block_offset[m->nterms], n = 3 * m->nv, nnz = ia[n];
  PetscInt *brow, *bcol;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(PetscFree6(m->csr_block, m->csr_brow, m->csr_stride, m->csr_diag, m->csr_ia, m->csr_ja));
  m->csr_version = 0;
  m->csr_mat[0] = m->csr_mat[1] = 0;
  PetscCall(PetscMalloc6(nblocks, &m->csr_block, nblocks, &m->csr_brow, m->nv, &m->csr_stride, n, &m->csr_diag, n + 1, &m->csr_ia, nnz,
                         &m->csr_ja));
  PetscCall(PetscArraycpy(m->csr_ia, ia, n + 1));
  PetscCall(PetscArraycpy(m->csr_ja, ja, nnz));
  m->csr_nnz = nnz;
  for (PetscInt i = 0; i < m->nv; i++) m->csr_stride[i] = ia[3 * i + 1] - ia[3 * i];
  for (PetscInt k = 0; k < n; k++) PetscCall(CsrFind(ia, ja, k, k, &m->csr_diag[k]));
  brow = m->csr_brow;
  PetscCall(PetscMalloc1(nblocks, &bcol));
  for (PetscInt t = 0; t < m->nterms; t++) {
    PetscInt nb, off = m->term_block_offset[t];
    if (m->term[t]->ops.pattern) PetscCall(m->term[t]->ops.pattern(m->term[t], &nb, brow + off, bcol + off));
  }
  for (PetscInt b = 0; b < nblocks; b++) {
    const PetscInt i = brow[b], j = bcol[b], L = m->csr_stride[i];
    if (m->pinned[i] || m->pinned[j]) {
      m->csr_block[b] = -1;
      continue;
    }
    PetscCall(CsrFind(ia, ja, 3 * i, 3 * j, &m->csr_block[b]));
    for (int r = 0; r < 3; r++) { /* the layout the scatter assumes: rows L apart, columns contiguous */
      const PetscInt p = m->csr_block[b] + r * L;
      if (ia[3 * i + r + 1] - ia[3 * i + r] != L || ja[p] != 3 * j || ja[p + 1] != 3 * j + 1 || ja[p + 2] != 3 * j + 2) {
        PetscCall(PetscFree(bcol));
        PetscFunctionReturn(0);
      }
    }
  }
  PetscCall(PetscFree(bcol));
  m->csr_version = m->pattern_version + 1;
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Whether H has the layout the offsets were built for (building them if needed): a matrix seen
 * recently with the same nonzero state is trusted, any other is compared entry by entry. */
static PetscErrorCode CsrReady(SimModel m, Mat H, PetscBool *ok)
{
  PetscObjectId id;
  PetscObjectState nz;
  const PetscInt *ia, *ja;
  PetscInt n;
  PetscBool done, same;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSEQAIJ, &same));
  if (!same || m->size > 1 || m->coo_only) PetscFunctionReturn(0);
  PetscCall(MatAssembled(H, &same));
  if (!same) { /* fresh from MatSetPreallocationCOO: assembled once through COO (zeros), as every later value goes in the same way */
    PetscCall(PetscArrayzero(m->coo_vals, m->ncoo));
    PetscCall(MatSetValuesCOO(H, m->coo_vals, INSERT_VALUES));
  }
  PetscCall(PetscObjectGetId((PetscObject)H, &id));
  PetscCall(MatGetNonzeroState(H, &nz));
  if (m->csr_version == m->pattern_version + 1)
    for (int k = 0; k < 2; k++)
      if (m->csr_mat[k] == id && m->csr_nzstate[k] == nz) {
        *ok = PETSC_TRUE;
        PetscFunctionReturn(0);
      }
  PetscCall(MatGetRowIJ(H, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (!done || n != 3 * m->nv) {
    if (done) PetscCall(MatRestoreRowIJ(H, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscFunctionReturn(0);
  }
  same = (PetscBool)(m->csr_version == m->pattern_version + 1 && m->csr_nnz == ia[n]);
  if (same) PetscCall(PetscArraycmp(m->csr_ia, ia, n + 1, &same));
  if (same) PetscCall(PetscArraycmp(m->csr_ja, ja, ia[n], &same));
  if (same) *ok = PETSC_TRUE;
  else PetscCall(CsrBuild(m, ia, ja, ok));
  PetscCall(MatRestoreRowIJ(H, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (*ok) {
    m->csr_mat[1] = m->csr_mat[0];
    m->csr_nzstate[1] = m->csr_nzstate[0];
    m->csr_mat[0] = id;
    m->csr_nzstate[0] = nz;
  }
  PetscFunctionReturn(0);
}

/* Adds c times the blocks vals (9 each, in pattern order from block b0) into the CSR values. */
static void CsrAddBlocks(const SimModel m, PetscInt b0, PetscInt nb, PetscReal c, const PetscReal *vals, PetscReal *a)
{
  for (PetscInt b = 0; b < nb; b++) {
    const PetscInt p = m->csr_block[b0 + b];
    if (p < 0) continue;
    const PetscInt L = m->csr_stride[m->csr_brow[b0 + b]];
    const PetscReal *v = vals + 9 * b;
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) a[p + r * L + s] += c * v[3 * r + s];
  }
}

static PetscErrorCode AssembleCsr(SimModel m, const PetscReal *x, const PetscReal *xd, const PetscReal *v, PetscReal cM, PetscReal cE,
                                  PetscReal cD, PetscBool psd, Mat H)
{
  const PetscScalar *mass;
  PetscReal *a, *vals = m->coo_vals;

  PetscFunctionBeginUser;
  PetscCall(MatSeqAIJGetArrayWrite(H, &a));
  PetscCall(PetscArrayzero(a, m->csr_nnz));
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy term = m->term[t];
    const PetscInt b0 = m->term_block_offset[t], nb = m->term_block_offset[t + 1] - b0;
    const PetscReal c = term->kind == SIM_ENERGY_POTENTIAL ? cE : cD;
    const PetscReal *xt = term->kind == SIM_ENERGY_POTENTIAL ? x : xd;
    if (!nb || c == 0.0 || !term->ops.hessian) continue;
    if (term->ops.hessian_add) {
      PetscCall(term->ops.hessian_add(term, xt, v, psd, c, m->csr_block + b0, m->csr_stride, a));
      continue;
    }
    PetscCall(term->ops.hessian(term, xt, v, psd, vals + 9 * b0));
    CsrAddBlocks(m, b0, nb, c, vals + 9 * b0, a);
  }
  /* diagonal: mass for free DOFs, identity for pinned ones (their rows/columns are otherwise 0) */
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) a[m->csr_diag[3 * i + d]] += m->pinned[i] ? 1.0 : cM * mass[3 * i + d];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(MatSeqAIJRestoreArrayWrite(H, &a));
  /* what the matrix derived from its old values (inverted diagonals of SOR and of the inode blocks)
   * is invalid now: a final assembly (no new entries, so nothing moves) says so */
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
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
  {
    PetscBool csr;
    PetscCall(CsrReady(m, H, &csr));
    if (csr) {
      PetscCall(AssembleCsr(m, x, xd, v, cM, cE, cD, psd, H));
      PetscFunctionReturn(0);
    }
  }
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
  {
    PetscBool is;
    PetscCall(PetscObjectTypeCompare((PetscObject)H, MATIS, &is));
    if (is) { /* each subdomain holds its share of the per-vertex diagonal */
      PetscCheck(m->is_weight, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Create the MATIS Hessian with SimModelHessianCreate first");
      for (PetscInt i = 0; i < m->nv; i++)
        for (int d = 0; d < 3; d++) vals[9 * nblocks + 3 * i + d] *= m->is_weight[i];
    }
  }
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
    if (m->term[t]->distributed || m->local_state) distributed = PETSC_TRUE;
  }
  anyall = any;
  if (distributed && m->size > 1) PetscCall(MPIU_Allreduce(&any, &anyall, 1, MPIU_INT, MPI_MAX, m->comm));
  if (!anyall) PetscFunctionReturn(0);
  /* the layout of the value array follows the blocks: rebuild it from every term's pattern */
  PetscCall(PetscFree(m->term_block_offset));
  PetscCall(PetscFree2(m->coo_vals, m->masked_block));
  m->nmasked_block = 0;
  PetscCall(HessianPattern(m, PETSC_FALSE, PETSC_FALSE, NULL, NULL));
  m->pattern_version++;
  *changed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelHessianRepreallocate(SimModel m, Mat H)
{
  PetscInt *ci, *cj;
  PetscBool is;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATIS, &is));
  PetscCall(HessianPattern(m, PETSC_TRUE, is, &ci, &cj));
  if (is) PetscCall(MatSetPreallocationCOOLocal(H, m->ncoo, ci, cj));
  else PetscCall(MatSetPreallocationCOO(H, m->ncoo, ci, cj));
  PetscCall(MatSetOption(H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}
