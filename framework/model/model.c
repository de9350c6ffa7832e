/* The Lagrangian model: state, lumped masses, pins, and sums over energy terms. */
#include "framework/model/model.h"

PetscErrorCode SimModelCreate(MPI_Comm comm, SimModel *model)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(model));
  (*model)->comm = comm;
  PetscCallMPI(MPI_Comm_size(comm, &(*model)->size));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelDestroy(SimModel *model)
{
  SimModel m;

  PetscFunctionBeginUser;
  if (!model || !*model) PetscFunctionReturn(0);
  m = *model;
  for (PetscInt t = 0; t < m->nterms; t++) PetscCall(SimEnergyDestroy(&m->term[t]));
  PetscCall(VecDestroy(&m->x));
  PetscCall(VecDestroy(&m->v));
  PetscCall(VecDestroy(&m->mass));
  PetscCall(VecDestroy(&m->inv_mass));
  PetscCall(PetscFree(m->pinned));
  PetscCall(PetscFree3(m->tri, m->seg, m->tet));
  PetscCall(PetscFree(m->term_block_offset));
  if (m->surface) {
    PetscCall(PetscFree(m->surface->tri));
    PetscCall(PetscFree(m->surface->edge));
    PetscCall(PetscFree(m->surface->vert));
  }
  PetscCall(PetscFree(m->surface));
  PetscCall(PetscFree2(m->coo_vals, m->masked_block));
  PetscCall(PetscFree6(m->csr_block, m->csr_brow, m->csr_stride, m->csr_diag, m->csr_ia, m->csr_ja));
  PetscCall(PetscFree(m->is_weight));
  PetscCall(PetscFree3(m->grad_scratch, m->vel_scratch, m->dist_scratch));
  PetscCall(PetscFree2(m->natural, m->from_natural));
  PetscCall(PetscFree(m->global));
  PetscCall(PetscFree(m->local));
  PetscCall(PetscSFDestroy(&m->ghost_sf));
  PetscCall(PetscFree(*model));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelSetVertices(SimModel m, PetscInt nv, const PetscReal *xyz)
{
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCheck(!m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The model's vertices are already set");
  PetscCheck(nv > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A model needs at least one vertex (got %" PetscInt_FMT ")", nv);
  m->nv = m->nglobal = m->nown = nv;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * nv, &m->x));
  PetscCall(VecSetBlockSize(m->x, 3));
  PetscCall(VecDuplicate(m->x, &m->v));
  PetscCall(VecDuplicate(m->x, &m->mass));
  PetscCall(VecDuplicate(m->x, &m->inv_mass));
  PetscCall(VecZeroEntries(m->v));
  PetscCall(VecZeroEntries(m->mass));
  if (xyz) {
    PetscCall(VecGetArray(m->x, &x));
    PetscCall(PetscArraycpy(x, xyz, 3 * nv));
    PetscCall(VecRestoreArray(m->x, &x));
  }
  PetscCall(PetscCalloc1(nv, &m->pinned));
  PetscCall(PetscMalloc3(3 * nv, &m->grad_scratch, 3 * nv, &m->vel_scratch, 3 * nv, &m->dist_scratch));
  { /* default layout: an even split in the model's own order (replicated terms need no more) */
    PetscMPIInt rank;
    PetscInt nlocal = PETSC_DECIDE;
    PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
    PetscCall(PetscSplitOwnership(m->comm, &nlocal, &nv));
    PetscCallMPI(MPI_Scan(&nlocal, &m->vend, 1, MPIU_INT, MPI_SUM, m->comm));
    m->vstart = m->vend - nlocal;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelSetPartition(SimModel m, PetscInt vstart, PetscInt vend, const PetscInt *natural)
{
  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Set the model's vertices before its partition");
  PetscCheck(!m->term_block_offset, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Set the partition before the Hessian is created");
  PetscCheck(0 <= vstart && vstart <= vend && vend <= m->nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Owned vertex range [%" PetscInt_FMT ", %" PetscInt_FMT ") is not inside [0, %" PetscInt_FMT ")", vstart, vend, m->nv);
  m->vstart = vstart;
  m->vend = vend;
  PetscCall(PetscFree2(m->natural, m->from_natural));
  if (!natural) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(m->nv, &m->natural, m->nv, &m->from_natural));
  for (PetscInt i = 0; i < m->nv; i++) m->from_natural[i] = -1;
  for (PetscInt i = 0; i < m->nv; i++) {
    PetscCheck(natural[i] >= 0 && natural[i] < m->nv && m->from_natural[natural[i]] < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "The natural numbering is not a permutation of 0 .. %" PetscInt_FMT " (entry %" PetscInt_FMT ")", m->nv - 1, i);
    m->natural[i] = natural[i];
    m->from_natural[natural[i]] = i;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelVertexFromNatural(SimModel m, PetscInt i, PetscInt *j)
{
  PetscFunctionBeginUser;
  *j = (m->from_natural && i >= 0 && i < m->nglobal) ? m->from_natural[i] : i;
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckVertex(SimModel m, PetscInt i, const char *what)
{
  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Set the model's vertices first");
  PetscCheck(i >= 0 && i < m->nglobal, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "%s: vertex index %" PetscInt_FMT " is out of range; valid indices are 0 .. %" PetscInt_FMT, what, i, m->nglobal - 1);
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelSetVertexMass(SimModel m, PetscInt i, PetscReal mass)
{
  PetscFunctionBeginUser;
  PetscCall(CheckVertex(m, i, "vertex mass"));
  i = SimModelLocal(m, i); /* a distributed state stores some vertices only */
  if (i < 0) PetscFunctionReturn(0);
  for (int d = 0; d < 3; d++) PetscCall(VecSetValue(m->mass, 3 * i + d, mass, INSERT_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelAddMass(SimModel m, PetscInt i, PetscReal mass)
{
  PetscFunctionBeginUser;
  PetscCall(CheckVertex(m, i, "vertex mass"));
  i = SimModelLocal(m, i);
  if (i < 0) PetscFunctionReturn(0);
  for (int d = 0; d < 3; d++) PetscCall(VecSetValue(m->mass, 3 * i + d, mass, ADD_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelPin(SimModel m, PetscInt i, const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(CheckVertex(m, i, what ? what : "pin"));
  i = SimModelLocal(m, i); /* owned and ghost copies are both pinned: they must stay consistent */
  if (i < 0) PetscFunctionReturn(0);
  if (!m->pinned[i]) m->npinned++;
  m->pinned[i] = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelAddTerm(SimModel m, SimEnergy term)
{
  PetscFunctionBeginUser;
  PetscCheck(m->nterms < SIM_MAX_TERMS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Too many energy terms (max %d)", SIM_MAX_TERMS);
  PetscCheck(!m->term_block_offset, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Terms must be added before the Hessian is created");
  /* a replicated term of a distributed state would see only this rank's vertices, in local numbers */
  PetscCheck(!m->local_state || term->distributed || term->per_vertex, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Term '%s' needs the whole model on every rank; the FEM state is distributed on %d ranks (run with -fem_distributed_state 0)",
             term->name, (int)m->size);
  m->term[m->nterms++] = term;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelFindTerm(SimModel m, const char *name, SimEnergy *term)
{
  PetscFunctionBeginUser;
  *term = NULL;
  for (PetscInt t = 0; t < m->nterms; t++)
    if (!strcmp(m->term[t]->name, name)) *term = m->term[t];
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelSetTopology(SimModel m, PetscInt ntri, const PetscInt *tri, PetscInt nseg, const PetscInt *seg,
                                   PetscInt ntet, const PetscInt *tet)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(m->tri, m->seg, m->tet));
  PetscCall(PetscMalloc3(3 * ntri, &m->tri, 2 * nseg, &m->seg, 4 * ntet, &m->tet));
  if (ntri) PetscCall(PetscArraycpy(m->tri, tri, 3 * ntri));
  if (nseg) PetscCall(PetscArraycpy(m->seg, seg, 2 * nseg));
  if (ntet) PetscCall(PetscArraycpy(m->tet, tet, 4 * ntet));
  m->ntri = ntri;
  m->nseg = nseg;
  m->ntet = ntet;
  for (PetscInt k = 0; k < 3 * ntri; k++) PetscCall(CheckVertex(m, m->tri[k], "triangle"));
  for (PetscInt k = 0; k < 2 * nseg; k++) PetscCall(CheckVertex(m, m->seg[k], "segment"));
  for (PetscInt k = 0; k < 4 * ntet; k++) PetscCall(CheckVertex(m, m->tet[k], "tetrahedron"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelFinalize(SimModel m)
{
  const PetscScalar *mass, *x;
  PetscScalar *im;

  PetscFunctionBeginUser;
  PetscCheck(m->x, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The model has no vertices");
  PetscCall(VecAssemblyBegin(m->mass));
  PetscCall(VecAssemblyEnd(m->mass));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArray(m->inv_mass, &im));
  for (PetscInt i = 0; i < m->nv; i++) {
    PetscCheck(mass[3 * i] > 0 && PetscIsNormalReal(mass[3 * i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Vertex %" PetscInt_FMT " has mass %g; every mass must be positive and finite (check the density and the mesh)",
               i, (double)mass[3 * i]);
    for (int d = 0; d < 3; d++) {
      PetscCheck(PetscIsInfOrNanReal(x[3 * i + d]) == PETSC_FALSE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Vertex %" PetscInt_FMT " has a non-finite position", i);
      im[3 * i + d] = m->pinned[i] ? 0.0 : 1.0 / mass[3 * i + d];
    }
  }
  PetscCall(VecRestoreArray(m->inv_mass, &im));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelZeroPinned(SimModel m, PetscReal *a)
{
  PetscFunctionBeginUser;
  if (!m->npinned) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i]) a[3 * i] = a[3 * i + 1] = a[3 * i + 2] = 0.0;
  PetscFunctionReturn(0);
}

/* Whether a term's contributions are partial sums to be reduced over the ranks. */
static PetscBool Reduced(SimModel m, SimEnergy term)
{
  return (PetscBool)((term->distributed || m->local_state) && m->size > 1);
}

static PetscBool AnyReduced(SimModel m, SimEnergyKind kind)
{
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->kind == kind && Reduced(m, m->term[t])) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimModelEnergy(SimModel m, SimEnergyKind kind, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  PetscReal local = 0, part = 0;

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < m->nterms; t++) {
    PetscReal e = 0;
    if (m->term[t]->kind != kind) continue;
    PetscCall(m->term[t]->ops.value(m->term[t], x, v, &e));
    if (Reduced(m, m->term[t])) part += e;
    else local += e;
  }
  if (AnyReduced(m, kind)) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &part, 1, MPIU_REAL, MPIU_SUM, m->comm));
  *E = local + part;
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelGradient(SimModel m, SimEnergyKind kind, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  const PetscInt n = 3 * m->nv;
  const PetscBool reduce = AnyReduced(m, kind);

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(g, n));
  if (m->local_state) { /* every term adds into the local array; ghost rows go to their owners */
    for (PetscInt t = 0; t < m->nterms; t++)
      if (m->term[t]->kind == kind) PetscCall(m->term[t]->ops.gradient(m->term[t], x, v, g));
    PetscCall(SimModelGhostSum(m, g));
    PetscCall(SimModelZeroPinned(m, g));
    PetscFunctionReturn(0);
  }
  if (reduce) PetscCall(PetscArrayzero(m->dist_scratch, n));
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->kind == kind) PetscCall(m->term[t]->ops.gradient(m->term[t], x, v, Reduced(m, m->term[t]) ? m->dist_scratch : g));
  if (reduce) {
    /* the distributed terms' partial gradients, summed over the ranks: the full gradient everywhere */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m->dist_scratch, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, m->comm));
    for (PetscInt k = 0; k < n; k++) g[k] += m->dist_scratch[k];
  }
  PetscCall(SimModelZeroPinned(m, g));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelAcceleration(SimModel m, Vec X, Vec V, Vec A)
{
  const PetscScalar *x, *v, *im;
  PetscScalar *a;
  PetscReal *gd = m->grad_scratch;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(V, &v));
  PetscCall(VecGetArrayRead(m->inv_mass, &im));
  PetscCall(VecGetArray(A, &a));
  /* a = -M^-1 (dE/dx + dD/dv); inv_mass is zero on pinned DOFs */
  PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, a));
  PetscCall(SimModelGradient(m, SIM_ENERGY_DISSIPATION, x, v, gd));
  for (PetscInt k = 0; k < 3 * m->nv; k++) a[k] = -im[k] * (a[k] + gd[k]);
  PetscCall(VecRestoreArray(A, &a));
  PetscCall(VecRestoreArrayRead(m->inv_mass, &im));
  PetscCall(VecRestoreArrayRead(V, &v));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelMassNorm(SimModel m, const PetscReal *a, PetscReal *norm)
{
  const PetscScalar *mass;
  PetscReal s = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt k = 0; k < 3 * m->nown; k++) s += mass[k] * a[k] * a[k];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(SimModelSumOwned(m, 1, &s));
  *norm = PetscSqrtReal(s);
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelReport(SimModel m, Vec X, Vec V, SimEnergyReport *rep)
{
  const PetscScalar *x, *v, *mass;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(V, &v));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nown; i++) /* a distributed state: owned vertices, summed below */
    for (int d = 0; d < 3; d++) {
      rep->kinetic += 0.5 * mass[3 * i + d] * v[3 * i + d] * v[3 * i + d];
      rep->momentum[d] += mass[3 * i + d] * v[3 * i + d];
    }
  rep->nterms = m->nterms;
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy term = m->term[t];
    PetscCall(term->ops.value(term, x, v, &rep->term[t]));
    if (Reduced(m, term) && !m->local_state) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rep->term[t], 1, MPIU_REAL, MPIU_SUM, m->comm));
  }
  if (m->local_state) { /* one reduction of the report's scalars: kinetic, momentum, every term */
    PetscReal buf[4 + SIM_MAX_TERMS];
    buf[0] = rep->kinetic;
    for (int d = 0; d < 3; d++) buf[1 + d] = rep->momentum[d];
    for (PetscInt t = 0; t < m->nterms; t++) buf[4 + t] = rep->term[t];
    PetscCall(SimModelSumOwned(m, 4 + m->nterms, buf));
    rep->kinetic = buf[0];
    for (int d = 0; d < 3; d++) rep->momentum[d] = buf[1 + d];
    for (PetscInt t = 0; t < m->nterms; t++) rep->term[t] = buf[4 + t];
  }
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy term = m->term[t];
    rep->term_name[t] = term->name;
    if (term->kind == SIM_ENERGY_POTENTIAL) rep->potential += rep->term[t];
    else rep->dissipation_rate += 2.0 * rep->term[t]; /* power of a Rayleigh function is 2D */
  }
  rep->total = rep->kinetic + rep->potential;
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(VecRestoreArrayRead(V, &v));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelWriteArray(SimModel m, const PetscReal *a, PetscViewer viewer)
{
  PetscReal *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(3 * m->nglobal, &buf));
  PetscCall(SimModelGatherNatural(m, a, buf));
  PetscCall(PetscViewerBinaryWrite(viewer, buf, 3 * m->nglobal, PETSC_REAL));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelReadArray(SimModel m, PetscReal *a, PetscViewer viewer)
{
  PetscReal *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(3 * m->nglobal, &buf));
  PetscCall(PetscViewerBinaryRead(viewer, buf, 3 * m->nglobal, NULL, PETSC_REAL));
  for (PetscInt i = 0; i < m->nv; i++) { /* the local vertices' rows (owned and ghosts) */
    const PetscInt g = m->global ? m->global[i] : i, j = m->natural ? m->natural[g] : g;
    for (int d = 0; d < 3; d++) a[3 * i + d] = buf[3 * j + d];
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

PetscErrorCode SimModelMaxStep(SimModel m, const PetscReal *x, const PetscReal *p, PetscReal *alpha)
{
  PetscBool distributed = PETSC_FALSE;

  PetscFunctionBeginUser;
  *alpha = 1;
  for (PetscInt t = 0; t < m->nterms; t++) {
    if (!m->term[t]->ops.max_step) continue;
    PetscCall(m->term[t]->ops.max_step(m->term[t], x, p, alpha));
    if (m->term[t]->distributed || m->local_state) distributed = PETSC_TRUE;
  }
  if (distributed && m->size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, alpha, 1, MPIU_REAL, MPIU_MIN, m->comm));
  PetscCheck(*alpha >= 0 && *alpha <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A term bounded the step to %g (must be in [0, 1])", (double)*alpha);
  PetscFunctionReturn(0);
}

PetscBool SimModelHasMaxStep(SimModel m)
{
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->ops.max_step) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimModelLag(SimModel m, const PetscReal *x, const PetscReal *grad, PetscReal beta, PetscInt k, PetscBool *again)
{
  PetscFunctionBeginUser;
  *again = PETSC_FALSE;
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->ops.lag) PetscCall(m->term[t]->ops.lag(m->term[t], x, grad, beta, k, again));
  PetscFunctionReturn(0);
}

PetscBool SimModelHasLag(SimModel m)
{
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->ops.lag) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimModelAdmissible(SimModel m, const PetscReal *x, char *why, size_t len)
{
  char buf[256];

  PetscFunctionBeginUser;
  why[0] = 0;
  for (PetscInt t = 0; t < m->nterms; t++) {
    if (!m->term[t]->ops.admissible) continue;
    buf[0] = 0;
    PetscCall(m->term[t]->ops.admissible(m->term[t], x, buf, sizeof(buf)));
    if (buf[0]) {
      PetscCall(PetscSNPrintf(why, len, "%s: %s", m->term[t]->name, buf));
      break;
    }
  }
  PetscFunctionReturn(0);
}
