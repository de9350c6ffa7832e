/* The problem-type table: one line per kind of simulated state, with the solver a run uses when
 * -solver is not given. */
#include "problems/register.h"
#include "problems/mesh/mesh.h"
#include "problems/grid/grid.h"
#include "problems/rigid/rigid.h"
#include "problems/particles/particles.h"

#define ADD(name, help, fn, default_solver) \
  PetscCall(SimRegistryAddFor(reg, SIM_KIND_PROBLEM, name, help, (SimGenericFn)(fn), 0, default_solver))

PetscErrorCode SimRegisterProblems(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("mesh", "Lagrangian model: vertices with masses, pins and energy terms (x, v replicated on every rank)", SimProblemCreate_Mesh,
      "implicit_euler");
  ADD("rigid", "rigid bodies (sphere, box) with x, q, v, omega, planes and joints (replicated on every rank)", SimProblemCreate_Rigid, "rigid");
  ADD("grid", "Eulerian box on a DMDA: domain, faces, initial and boundary fields; the solver keeps the fields", SimProblemCreate_Grid,
      "stablefluids");
  ADD("particles", "particles in a DMSwarm over a DMDA background grid, migrating with the grid's decomposition (MPM, SPH, PBF)",
      SimProblemCreate_Particles, "mpm");
  PetscFunctionReturn(0);
}
