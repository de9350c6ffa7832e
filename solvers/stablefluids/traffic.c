/* The bytes model of a stablefluids step: the memory traffic of each phase, counted where the code
 * makes each array pass (advect.c, forces.c, smoke.c, stablefluids.c) in the counting of the pressure
 * solve's model (projection.c): 8-byte values, every pass over an array counted once (a read, a
 * write, or both: 2), caches ignored. A semi-Lagrangian pass reads the advecting velocity and the
 * advected field once each (every sample reads near its own point) and writes the result; an
 * exchange (DMGlobalToLocal) reads the global vector and writes the ghosted local one; on one rank
 * there is none (SFExchange: the passes read the global vectors themselves). The harness
 * divides by the STREAM bandwidth for each phase's bound (docs/stablefluids.md, "The bytes model"). */
#include "solvers/stablefluids/sf_impl.h"

PetscErrorCode SFTrafficSetUp(SF *sf)
{
  PetscReal conf = (PetscReal)sf->conf_entries, F, F1, N;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(SimMACEntries(sf->dav, &sf->ent_u, &sf->ent_ul));
  if (sf->smoke) PetscCall(SimMACEntries(sf->dac, &sf->ent_s, &sf->ent_sl));
  PetscCallMPI(MPI_Allreduce(&conf, &sf->ent_conf, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sf->dav)));
  /* the end of a step beside the solve: the projection around it, then the divergence norms
   * (the divergence: exchange of u, F + F1, read F1, write N; the 2-norm and the max, N each) */
  PetscCall(SimProjectionBytesAround(sf->proj, &sf->bytes_end));
  PetscCall(SimMACEntries(sf->mac->dav, &F, &F1));
  PetscCall(SimMACEntries(sf->mac->da, &N, NULL));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)sf->dav), &size));
  sf->ent_p = N;
  sf->bytes_end += 8 * ((size > 1 ? F + F1 : 0) + (F1 + N) + 2 * N); /* one rank: no exchange (SimMACGhosted) */
  PetscFunctionReturn(0);
}

PetscErrorCode SFExchange(SF *sf, DM dm, Vec q, Vec l, Vec *r)
{
  PetscBool copied;

  PetscFunctionBegin;
  PetscCall(SimMACGhosted(dm, q, l, r, &copied));
  if (copied) SFTrafficExchange(sf, dm);
  PetscFunctionReturn(0);
}

PetscErrorCode SFTrafficStepEnd(SF *sf, PetscInt pressure_its)
{
  PetscReal per_it;

  PetscFunctionBegin;
  PetscCall(SimProjectionBytesPerIteration(sf->proj, &per_it));
  sf->bytes[SF_PHASE_SOLVE] = pressure_its * per_it;
  sf->bytes[SF_PHASE_OTHER] += sf->bytes_end;
  PetscFunctionReturn(0);
}
