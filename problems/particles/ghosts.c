/* Ghost particles across ranks: every rank's box from the DMDA's ownership ranges, a send list per
 * rank closer than the width, MPI_Alltoall of the counts and MPI_Alltoallv of each field. */
#include "problems/particles/ghosts.h"

struct _p_SimParticleGhosts {
  MPI_Comm comm;
  PetscMPIInt size, rank;
  PetscInt dim;
  PetscReal w;
  PetscReal *box;     /* size x 6: lo[3], hi[3] of every rank */
  PetscMPIInt *near;  /* ranks whose box is closer than w to this rank's */
  PetscMPIInt nnear;
  /* the plan */
  PetscInt nsend, capsend, nrecv, nlocal;
  PetscInt *send;     /* local indices, grouped by destination rank */
  PetscMPIInt *scount, *sdispl, *rcount, *rdispl, *sc, *sd, *rc, *rd; /* per rank: particles, and reals of one exchange */
  PetscReal *buf;
  PetscInt capbuf;
};

/* Squared distance from x to the box b (lo = b[0..2], hi = b[3..5]). */
static PetscReal BoxDistance2(PetscInt dim, const PetscReal *b, const PetscReal *x)
{
  PetscReal d2 = 0;
  for (PetscInt d = 0; d < dim; d++) {
    const PetscReal e = x[d] < b[d] ? b[d] - x[d] : (x[d] > b[3 + d] ? x[d] - b[3 + d] : 0);
    d2 += e * e;
  }
  return d2;
}

PetscErrorCode SimParticleGhostsCreate(SimProblem p, PetscReal width, SimParticleGhosts *gout)
{
  SimParticleGhosts g;
  SimParticlesInfo in;
  DM da;
  const PetscInt *own[3];
  PetscInt np[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  PetscCheck(width > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Ghost particles: the width must be > 0 (got %g)", (double)width);
  PetscCall(SimParticlesGetInfo(p, &in));
  PetscCall(SimParticlesGetGrid(p, &da));
  PetscCall(PetscNew(&g));
  PetscCall(SimProblemGetComm(p, &g->comm));
  PetscCallMPI(MPI_Comm_size(g->comm, &g->size));
  PetscCallMPI(MPI_Comm_rank(g->comm, &g->rank));
  g->dim = in.dim;
  g->w = width;
  PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, &np[0], &np[1], &np[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(da, &own[0], &own[1], &own[2]));
  PetscCall(PetscMalloc1(6 * g->size, &g->box));
  for (PetscMPIInt r = 0; r < g->size; r++) {
    const PetscInt rr[3] = {r % np[0], (r / np[0]) % np[1], r / (np[0] * np[1])};
    for (PetscInt d = 0; d < 3; d++) {
      PetscInt start = 0;
      if (d >= in.dim) {
        g->box[6 * r + d] = g->box[6 * r + 3 + d] = 0;
        continue;
      }
      for (PetscInt k = 0; k < rr[d]; k++) start += own[d][k];
      g->box[6 * r + d] = in.lo[d] + start * in.h;
      g->box[6 * r + 3 + d] = in.lo[d] + (start + own[d][rr[d]]) * in.h;
    }
  }
  PetscCall(PetscMalloc1(g->size, &g->near));
  for (PetscMPIInt r = 0; r < g->size; r++) {
    PetscReal gap2 = 0;
    if (r == g->rank) continue;
    for (PetscInt d = 0; d < g->dim; d++) { /* box-box gap */
      const PetscReal *a = g->box + 6 * g->rank, *b = g->box + 6 * r;
      const PetscReal e = PetscMax(0, PetscMax(b[d] - a[3 + d], a[d] - b[3 + d]));
      gap2 += e * e;
    }
    if (gap2 < width * width) g->near[g->nnear++] = r;
  }
  PetscCall(PetscCalloc4(g->size, &g->scount, g->size, &g->sdispl, g->size, &g->rcount, g->size, &g->rdispl));
  PetscCall(PetscCalloc4(g->size, &g->sc, g->size, &g->sd, g->size, &g->rc, g->size, &g->rd));
  *gout = g;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticleGhostsSetUp(SimParticleGhosts g, PetscInt n, const PetscReal *x, PetscInt *nghost)
{
  const PetscReal w2 = g->w * g->w;

  PetscFunctionBeginUser;
  g->nlocal = n;
  g->nsend = 0;
  for (PetscMPIInt r = 0; r < g->size; r++) g->scount[r] = 0;
  /* send lists, destination by destination (so each group is in local index order) */
  for (PetscMPIInt k = 0; k < g->nnear; k++) {
    const PetscMPIInt r = g->near[k];
    const PetscReal *b = g->box + 6 * r;
    g->sdispl[r] = (PetscMPIInt)g->nsend;
    for (PetscInt i = 0; i < n; i++) {
      if (BoxDistance2(g->dim, b, x + g->dim * i) >= w2) continue;
      if (g->nsend >= g->capsend) {
        g->capsend = PetscMax(256, 2 * g->capsend);
        PetscCall(PetscRealloc(sizeof(PetscInt) * g->capsend, &g->send));
      }
      g->send[g->nsend++] = i;
    }
    g->scount[r] = (PetscMPIInt)(g->nsend - g->sdispl[r]);
  }
  if (g->size > 1) PetscCallMPI(MPI_Alltoall(g->scount, 1, MPI_INT, g->rcount, 1, MPI_INT, g->comm));
  g->nrecv = 0;
  for (PetscMPIInt r = 0; r < g->size; r++) g->rdispl[r] = (PetscMPIInt)g->nrecv, g->nrecv += g->rcount[r];
  *nghost = g->nrecv;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticleGhostsExchange(SimParticleGhosts g, PetscInt bs, const PetscReal *local, PetscReal *ghost)
{
  PetscFunctionBeginUser;
  if (g->size == 1) PetscFunctionReturn(0);
  if (bs * g->nsend > g->capbuf) {
    PetscCall(PetscFree(g->buf));
    g->capbuf = bs * g->nsend;
    PetscCall(PetscMalloc1(g->capbuf, &g->buf));
  }
  for (PetscInt k = 0; k < g->nsend; k++)
    for (PetscInt c = 0; c < bs; c++) g->buf[bs * k + c] = local[bs * g->send[k] + c];
  for (PetscMPIInt r = 0; r < g->size; r++) {
    g->sc[r] = (PetscMPIInt)(bs * g->scount[r]), g->sd[r] = (PetscMPIInt)(bs * g->sdispl[r]);
    g->rc[r] = (PetscMPIInt)(bs * g->rcount[r]), g->rd[r] = (PetscMPIInt)(bs * g->rdispl[r]);
  }
  PetscCallMPI(MPI_Alltoallv(g->buf, g->sc, g->sd, MPIU_REAL, ghost, g->rc, g->rd, MPIU_REAL, g->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticleGhostsGetBox(SimParticleGhosts g, PetscReal lo[3], PetscReal hi[3])
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) lo[d] = g->box[6 * g->rank + d], hi[d] = g->box[6 * g->rank + 3 + d];
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticleGhostsDestroy(SimParticleGhosts *g)
{
  PetscFunctionBeginUser;
  if (!g || !*g) PetscFunctionReturn(0);
  PetscCall(PetscFree((*g)->box));
  PetscCall(PetscFree((*g)->near));
  PetscCall(PetscFree((*g)->send));
  PetscCall(PetscFree((*g)->buf));
  PetscCall(PetscFree4((*g)->scount, (*g)->sdispl, (*g)->rcount, (*g)->rdispl));
  PetscCall(PetscFree4((*g)->sc, (*g)->sd, (*g)->rc, (*g)->rd));
  PetscCall(PetscFree(*g));
  PetscFunctionReturn(0);
}
