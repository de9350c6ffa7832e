/* The fields stablefluids keeps (the grid problem holds only their description): the last-good
 * stash and the checkpoint, so that a restarted run continues bit for bit on any number of ranks
 * (VecView/VecLoad of DMDA vectors use the natural ordering). */
#include "solvers/stablefluids/sf_impl.h"

/* The state: face velocity, pressure (written in frames), the smoke's density and temperature
 * (one interleaved vector), with -sf_time sl_bdf2 the velocity of the step before (with its
 * dt_prev: 0 before the first step), and with -sf_pressure_extrapolation the pressures of the steps
 * before (with the count of valid ones): the next initial guess, so that a restart takes the same
 * CG iterates. */
static PetscInt StateVecs(SF *sf, Vec v[6])
{
  PetscInt n = 0;
  v[n++] = sf->u;
  v[n++] = sf->p;
  if (sf->s) v[n++] = sf->s;
  if (sf->uprev) v[n++] = sf->uprev;
  for (PetscInt i = 0; i < 2; i++)
    if (sf->phist[i]) v[n++] = sf->phist[i];
  return n;
}

PetscErrorCode SFStash(SimSolver s, PetscBool restore)
{
  SF *sf = (SF *)s->data;
  Vec v[6];
  PetscInt n = StateVecs(sf, v);

  PetscFunctionBegin;
  if (!sf->stash[0])
    for (PetscInt i = 0; i < n; i++) PetscCall(VecDuplicate(v[i], &sf->stash[i]));
  for (PetscInt i = 0; i < n; i++) PetscCall(restore ? VecCopy(sf->stash[i], v[i]) : VecCopy(v[i], sf->stash[i]));
  if (restore) sf->dt_prev = sf->stash_dt_prev, sf->p_valid = sf->stash_p_valid;
  else sf->stash_dt_prev = sf->dt_prev, sf->stash_p_valid = sf->p_valid;
  if (restore) SFStateChanged(sf);
  PetscFunctionReturn(0);
}

PetscErrorCode SFSave(SimSolver s, PetscViewer viewer)
{
  SF *sf = (SF *)s->data;
  Vec v[6];
  PetscInt n = StateVecs(sf, v);

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryWrite(viewer, &n, 1, PETSC_INT));
  for (PetscInt i = 0; i < n; i++) PetscCall(VecView(v[i], viewer));
  if (sf->uprev) PetscCall(PetscViewerBinaryWrite(viewer, &sf->dt_prev, 1, PETSC_REAL));
  if (sf->phist[0]) PetscCall(PetscViewerBinaryWrite(viewer, &sf->p_valid, 1, PETSC_INT));
  PetscFunctionReturn(0);
}

PetscErrorCode SFLoad(SimSolver s, PetscViewer viewer)
{
  SF *sf = (SF *)s->data;
  Vec v[6];
  PetscInt n = StateVecs(sf, v), m;

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryRead(viewer, &m, 1, NULL, PETSC_INT));
  PetscCheck(m == n, s->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint holds %" PetscInt_FMT " fields, this stablefluids run %" PetscInt_FMT
             " (smoke, -sf_time sl_bdf2 or -sf_pressure_extrapolation on in one and off in the other?)", m, n);
  for (PetscInt i = 0; i < n; i++) PetscCall(VecLoad(v[i], viewer));
  if (sf->uprev) PetscCall(PetscViewerBinaryRead(viewer, &sf->dt_prev, 1, NULL, PETSC_REAL));
  if (sf->phist[0]) PetscCall(PetscViewerBinaryRead(viewer, &sf->p_valid, 1, NULL, PETSC_INT));
  sf->p_dt = 0; /* the loaded pressure is the next initial guess as it is */
  SFStateChanged(sf);
  PetscFunctionReturn(0);
}

PetscErrorCode SFStashDestroy(SF *sf)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < 6; i++) PetscCall(VecDestroy(&sf->stash[i]));
  PetscFunctionReturn(0);
}
