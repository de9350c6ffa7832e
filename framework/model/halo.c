/* The distributed vertex state (docs/scaling.md, "Distributed FEM state"): a rank stores its owned
 * vertices and one ghost layer, and two exchanges keep the ghost copies consistent. */
#include "framework/model/model.h"

/* Ghosts: the vertices of this rank's cells outside its owned range [vstart, vend), sorted. */
static PetscErrorCode Ghosts(SimModel m, PetscInt ncell, const PetscInt *tet, PetscInt *nghost, PetscInt **ghost)
{
  PetscInt n = 0, *g;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(4 * ncell, &g));
  for (PetscInt k = 0; k < 4 * ncell; k++) {
    PetscCheck(tet[k] >= 0 && tet[k] < m->nglobal, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cell vertex %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")",
               tet[k], m->nglobal);
    if (tet[k] < m->vstart || tet[k] >= m->vend) g[n++] = tet[k];
  }
  PetscCall(PetscSortRemoveDupsInt(&n, g));
  *nghost = n;
  *ghost = g;
  PetscFunctionReturn(0);
}

/* The per-DOF star forest from owners to ghost copies: leaf 3 (nown + k) + d is DOF d of ghost k,
 * its root DOF 3 (g - vstart_r) + d on the owner r of global vertex g. */
static PetscErrorCode GhostSF(SimModel m, PetscInt nghost, const PetscInt *ghost)
{
  PetscInt *start, *ilocal;
  PetscSFNode *iremote;
  PetscMPIInt r = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->size + 1, &start));
  PetscCallMPI(MPI_Allgather(&m->vstart, 1, MPIU_INT, start, 1, MPIU_INT, m->comm));
  start[m->size] = m->nglobal;
  PetscCall(PetscMalloc1(3 * nghost, &ilocal));
  PetscCall(PetscMalloc1(3 * nghost, &iremote));
  for (PetscInt k = 0; k < nghost; k++) { /* ghosts are sorted, so are the owners' ranges */
    while (ghost[k] >= start[r + 1]) r++;
    for (int d = 0; d < 3; d++) {
      ilocal[3 * k + d] = 3 * (m->nown + k) + d;
      iremote[3 * k + d].rank = r;
      iremote[3 * k + d].index = 3 * (ghost[k] - start[r]) + d;
    }
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscSFCreate(m->comm, &m->ghost_sf));
  PetscCall(PetscSFSetGraph(m->ghost_sf, 3 * m->nown, 3 * nghost, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(m->ghost_sf));
  PetscFunctionReturn(0);
}

/* A Vec of the local size whose entries are the old (replicated) Vec's rows of the local vertices. */
static PetscErrorCode Shrink(SimModel m, Vec *v)
{
  Vec w;
  const PetscScalar *a;
  PetscScalar *b;

  PetscFunctionBeginUser;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * m->nv, &w));
  PetscCall(VecSetBlockSize(w, 3));
  PetscCall(VecGetArrayRead(*v, &a));
  PetscCall(VecGetArray(w, &b));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) b[3 * i + d] = a[3 * m->global[i] + d];
  PetscCall(VecRestoreArray(w, &b));
  PetscCall(VecRestoreArrayRead(*v, &a));
  PetscCall(VecDestroy(v));
  *v = w;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelDistributeState(SimModel m, PetscInt ncell, const PetscInt *tet)
{
  PetscInt nghost = 0, *ghost = NULL;

  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Set the model's vertices and partition before distributing its state");
  PetscCheck(!m->local_state, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The model's state is already distributed");
  PetscCheck(!m->nterms && !m->npinned && !m->term_block_offset, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "Distribute the model's state before adding pins and terms");
  if (m->size == 1) PetscFunctionReturn(0);
  PetscCall(Ghosts(m, ncell, tet, &nghost, &ghost));
  m->nown = m->vend - m->vstart;
  m->nv = m->nown + nghost;
  PetscCall(PetscMalloc1(m->nv, &m->global));
  PetscCall(PetscMalloc1(m->nglobal, &m->local));
  for (PetscInt g = 0; g < m->nglobal; g++) m->local[g] = -1;
  for (PetscInt i = 0; i < m->nv; i++) {
    m->global[i] = i < m->nown ? m->vstart + i : ghost[i - m->nown];
    m->local[m->global[i]] = i;
  }
  PetscCall(GhostSF(m, nghost, ghost));
  PetscCall(PetscFree(ghost));
  PetscCall(Shrink(m, &m->x));
  PetscCall(Shrink(m, &m->v));
  PetscCall(Shrink(m, &m->mass));
  PetscCall(Shrink(m, &m->inv_mass));
  PetscCall(PetscFree(m->pinned));
  PetscCall(PetscCalloc1(m->nv, &m->pinned));
  PetscCall(PetscFree3(m->grad_scratch, m->vel_scratch, m->dist_scratch));
  PetscCall(PetscMalloc3(3 * m->nv, &m->grad_scratch, 3 * m->nv, &m->vel_scratch, 3 * m->nv, &m->dist_scratch));
  m->local_state = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscInt SimModelLocal(SimModel m, PetscInt g)
{
  if (!m->local_state) return g;
  return (g >= 0 && g < m->nglobal) ? m->local[g] : -1;
}

/* Leaves and roots live in the same array (ghosts after the owned entries), at disjoint offsets. */
PetscErrorCode SimModelGhostUpdate(SimModel m, PetscReal *a)
{
  PetscFunctionBeginUser;
  if (!m->local_state) PetscFunctionReturn(0);
  PetscCall(PetscSFBcastBegin(m->ghost_sf, MPIU_REAL, a, a, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(m->ghost_sf, MPIU_REAL, a, a, MPI_REPLACE));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelGhostSum(SimModel m, PetscReal *a)
{
  PetscFunctionBeginUser;
  if (!m->local_state) PetscFunctionReturn(0);
  PetscCall(PetscSFReduceBegin(m->ghost_sf, MPIU_REAL, a, a, MPI_SUM));
  PetscCall(PetscSFReduceEnd(m->ghost_sf, MPIU_REAL, a, a, MPI_SUM));
  PetscCall(SimModelGhostUpdate(m, a));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelSumOwned(SimModel m, PetscInt n, PetscReal *vals)
{
  PetscFunctionBeginUser;
  if (m->local_state) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, vals, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, m->comm));
  PetscFunctionReturn(0);
}

/* The owned ranges tile [0, nglobal) in rank order, so gathered rows are in global order. */
PetscErrorCode SimModelGatherGlobal(SimModel m, PetscInt bs, const PetscReal *a, PetscBool all, PetscReal *out)
{
  PetscMPIInt *counts, *displs, mine, rank;

  PetscFunctionBeginUser;
  PetscCheck(m->local_state, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "SimModelGatherGlobal: the state is replicated");
  PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
  PetscCall(PetscMalloc2(m->size, &counts, m->size + 1, &displs));
  PetscCall(PetscMPIIntCast(bs * m->nown, &mine));
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, m->comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < m->size; r++) displs[r + 1] = displs[r] + counts[r];
  PetscCheck(displs[m->size] == bs * m->nglobal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The owned ranges do not tile the model");
  if (all) PetscCallMPI(MPI_Allgatherv((void *)a, mine, MPIU_REAL, out, counts, displs, MPIU_REAL, m->comm));
  else PetscCallMPI(MPI_Gatherv((void *)a, mine, MPIU_REAL, rank ? NULL : out, counts, displs, MPIU_REAL, 0, m->comm));
  PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelGatherNatural(SimModel m, const PetscReal *a, PetscReal *out)
{
  PetscReal *all;

  PetscFunctionBeginUser;
  if (!m->local_state) {
    for (PetscInt i = 0; i < m->nv; i++) {
      const PetscInt j = m->natural ? m->natural[i] : i;
      for (int d = 0; d < 3; d++) out[3 * j + d] = a[3 * i + d];
    }
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(3 * m->nglobal, &all));
  PetscCall(SimModelGatherGlobal(m, 3, a, PETSC_TRUE, all));
  for (PetscInt g = 0; g < m->nglobal; g++) {
    const PetscInt j = m->natural ? m->natural[g] : g;
    for (int d = 0; d < 3; d++) out[3 * j + d] = all[3 * g + d];
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/* A star forest from the owned rows (leaves, in local order) to the natural-order rows [lo, lo + n)
 * of each rank (roots): the chunk owners are found from every rank's lo. Built per call: output only. */
PetscErrorCode SimModelNaturalRows(SimModel m, PetscInt bs, const PetscReal *a, PetscInt lo, PetscInt n, PetscReal *out)
{
  PetscInt *start;
  PetscSFNode *iremote;
  PetscSF sf;
  MPI_Datatype row;
  PetscMPIInt r = 0, ibs;

  PetscFunctionBeginUser;
  PetscCheck(m->local_state, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "SimModelNaturalRows: the state is replicated");
  PetscCall(PetscMalloc1(m->size + 1, &start));
  PetscCallMPI(MPI_Allgather(&lo, 1, MPIU_INT, start, 1, MPIU_INT, m->comm));
  start[m->size] = m->nglobal;
  PetscCall(PetscMalloc1(m->nown, &iremote));
  for (PetscInt i = 0; i < m->nown; i++) {
    const PetscInt g = m->vstart + i, j = m->natural ? m->natural[g] : g;
    r = 0;
    while (j >= start[r + 1]) r++; /* a handful of ranks here; a bisection for many */
    iremote[i].rank = r;
    iremote[i].index = j - start[r];
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscSFCreate(m->comm, &sf));
  PetscCall(PetscSFSetGraph(sf, n, m->nown, NULL, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(sf));
  PetscCall(PetscMPIIntCast(bs, &ibs));
  PetscCallMPI(MPI_Type_contiguous(ibs, MPIU_REAL, &row));
  PetscCallMPI(MPI_Type_commit(&row));
  PetscCall(PetscSFReduceBegin(sf, row, a, out, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, row, a, out, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&row));
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(0);
}
