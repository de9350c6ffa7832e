/* Particle seeding (particle_fill.h). */
#include "scenes/particle_fill.h"
#include "problems/particles/particles.h"

/* splitmix64 (Steele, Lea, Flood 2014): a uniform double in [0, 1) */
static PetscReal Uniform(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

void SimFillBoxRandom(PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscInt n, uint64_t *seed, PetscReal *x)
{
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt d = 0; d < dim; d++) x[dim * i + d] = lo[d] + (hi[d] - lo[d]) * Uniform(seed);
}

PetscErrorCode SimFillLattice(PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscReal s, PetscBool (*inside)(void *, const PetscReal *),
                              void *ctx, PetscInt *n, PetscReal **x)
{
  PetscInt m[3] = {1, 1, 1}, total, k = 0;

  PetscFunctionBeginUser;
  PetscCheck(s > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Lattice spacing must be > 0 (got %g)", (double)s);
  for (PetscInt d = 0; d < dim; d++) m[d] = (PetscInt)PetscFloorReal((hi[d] - lo[d]) / s + 1e-9);
  total = m[0] * m[1] * m[2];
  PetscCall(PetscMalloc1(dim * total + 1, x));
  for (PetscInt c = 0; c < m[2]; c++)
    for (PetscInt b = 0; b < m[1]; b++)
      for (PetscInt a = 0; a < m[0]; a++) {
        const PetscInt ijk[3] = {a, b, c};
        PetscReal p[3] = {0, 0, 0};
        for (PetscInt d = 0; d < dim; d++) p[d] = lo[d] + (ijk[d] + 0.5) * s;
        if (inside && !inside(ctx, p)) continue;
        for (PetscInt d = 0; d < dim; d++) (*x)[dim * k + d] = p[d];
        k++;
      }
  *n = k;
  PetscFunctionReturn(0);
}

PetscErrorCode SimAddLattice(SimProblem problem, PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscReal s,
                             PetscBool (*inside)(void *, const PetscReal *), void *ctx, PetscReal density, const PetscReal v0[])
{
  PetscReal *x, *v = NULL, *m, *vol;
  PetscInt np;

  PetscFunctionBeginUser;
  PetscCall(SimFillLattice(dim, lo, hi, s, inside, ctx, &np, &x));
  PetscCall(PetscMalloc3(v0 ? dim * np : 0, &v, np, &m, np, &vol));
  for (PetscInt i = 0; i < np; i++) {
    for (PetscInt d = 0; v0 && d < dim; d++) v[dim * i + d] = v0[d];
    vol[i] = PetscPowReal(s, dim), m[i] = density * vol[i];
  }
  PetscCall(SimParticlesAdd(problem, np, x, v0 ? v : NULL, m, vol, NULL));
  PetscCall(PetscFree3(v, m, vol));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(0);
}
