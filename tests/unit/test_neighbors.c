/* The neighbour search (problems/particles/neighbors.h) and the ghost particles across ranks
 * (ghosts.h): the lists equal the brute-force sets on random and clustered points in 2D and 3D,
 * duplicates and points at exactly the radius included; on 2 ranks (tests/cli/mpi.cmake) each
 * rank's own particles with its ghosts find the same sets as a brute-force search over every
 * rank's particles. */
#include "testing.h"
#include "problems/particles/neighbors.h"
#include "problems/particles/ghosts.h"

/* A reproducible generator (xorshift64*), one per test: uniform in [0, 1). */
static PetscReal Uniform(uint64_t *s)
{
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (PetscReal)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static int CompareInt(const void *a, const void *b)
{
  const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
  return (x > y) - (x < y);
}

/* The lists of every point equal the brute-force sets {j != i : |x_i - x_j| < r}. */
static void CheckAgainstBruteForce(PetscInt dim, PetscInt n, const PetscReal *x, PetscReal r, PetscBool expect_hashed)
{
  PetscBool hashed;
  SimNeighbors nb;
  SimNeighborList list = {0};
  PetscInt *brute, total = 0;

  CHECK_PETSC(SimNeighborsCreate(dim, r, &nb));
  CHECK_PETSC(SimNeighborsSetPoints(nb, n, x));
  CHECK_PETSC(SimNeighborsGetCellCount(nb, NULL, &hashed));
  ck_assert_msg(hashed == expect_hashed, "the %s cell table was expected", expect_hashed ? "hashed" : "dense");
  CHECK_PETSC(SimNeighborsFind(nb, n, NULL, &list));
  CHECK_PETSC(PetscMalloc1(n, &brute));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt nbr = 0, len = list.offset[i + 1] - list.offset[i];
    for (PetscInt j = 0; j < n; j++) {
      PetscReal d2 = 0;
      for (PetscInt d = 0; d < dim; d++) d2 += (x[dim * i + d] - x[dim * j + d]) * (x[dim * i + d] - x[dim * j + d]);
      if (j != i && d2 < r * r) brute[nbr++] = j;
    }
    ck_assert_msg(len == nbr, "point %d: %d neighbours found, brute force %d", (int)i, (int)len, (int)nbr);
    qsort(list.index + list.offset[i], len, sizeof(PetscInt), CompareInt);
    for (PetscInt k = 0; k < nbr; k++) ck_assert_int_eq(list.index[list.offset[i] + k], brute[k]);
    total += nbr;
  }
  ck_assert_msg(total > n, "the test set is too sparse to test anything (%d pairs)", (int)total);
  /* queries on a subset, in any order, give the same lists in the same order */
  {
    const PetscInt q[3] = {n - 1, 0, n / 2};
    SimNeighborList sub = {0}, again = {0};
    CHECK_PETSC(SimNeighborsFind(nb, 3, q, &sub));
    CHECK_PETSC(SimNeighborsFind(nb, n, NULL, &again)); /* unsorted, as found */
    for (PetscInt k = 0; k < 3; k++) {
      const PetscInt i = q[k], len = again.offset[i + 1] - again.offset[i];
      ck_assert_int_eq(sub.offset[k + 1] - sub.offset[k], len);
      for (PetscInt l = 0; l < len; l++) ck_assert_int_eq(sub.index[sub.offset[k] + l], again.index[again.offset[i] + l]);
    }
    CHECK_PETSC(SimNeighborListFree(&sub));
    CHECK_PETSC(SimNeighborListFree(&again));
  }
  /* half lists with two thirds of the points as queries (given in decreasing order): query i lists
     {j != i within r : j is no query, or j > i}, so that every pair of queries is listed exactly once
     and a query's non-query neighbours all are */
  {
    PetscInt *q, nq = 0, *isq, pairs = 0, once = 0;
    SimNeighborList half = {0};
    CHECK_PETSC(PetscMalloc1(n, &q));
    CHECK_PETSC(PetscCalloc1(n, &isq));
    for (PetscInt i = n - 1; i >= 0; i--)
      if (i % 3) q[nq++] = i, isq[i] = 1;
    CHECK_PETSC(SimNeighborsFindHalf(nb, nq, q, &half));
    for (PetscInt t = 0; t < nq; t++) {
      const PetscInt i = q[t], len = half.offset[t + 1] - half.offset[t];
      PetscInt nbr = 0;
      for (PetscInt j = 0; j < n; j++) {
        PetscReal d2 = 0;
        for (PetscInt d = 0; d < dim; d++) d2 += (x[dim * i + d] - x[dim * j + d]) * (x[dim * i + d] - x[dim * j + d]);
        if (j != i && d2 < r * r) {
          if (isq[j]) pairs++;
          if (!isq[j] || j > i) brute[nbr++] = j;
        }
      }
      ck_assert_msg(len == nbr, "half lists, query %d: %d neighbours found, expected %d", (int)i, (int)len, (int)nbr);
      qsort(half.index + half.offset[t], len, sizeof(PetscInt), CompareInt);
      for (PetscInt k = 0; k < nbr; k++) ck_assert_int_eq(half.index[half.offset[t] + k], brute[k]);
      for (PetscInt k = 0; k < nbr; k++) once += isq[brute[k]];
    }
    ck_assert_int_eq(2 * once, pairs); /* each query-query pair once */
    ck_assert_msg(once > 0, "no pair of queries to test");
    CHECK_PETSC(SimNeighborListFree(&half));
    CHECK_PETSC(PetscFree(isq));
    CHECK_PETSC(PetscFree(q));
  }
  CHECK_PETSC(PetscFree(brute));
  CHECK_PETSC(SimNeighborListFree(&list));
  CHECK_PETSC(SimNeighborsDestroy(&nb));
}

START_TEST(random_points_match_brute_force)
{
  uint64_t s = 0x9e3779b97f4a7c15ULL;
  const PetscInt n = 1500;
  PetscReal *x;

  CHECK_PETSC(PetscMalloc1(3 * n, &x));
  for (PetscInt dim = 2; dim <= 3; dim++) {
    for (PetscInt i = 0; i < dim * n; i++) x[i] = -1 + 3 * Uniform(&s); /* box [-1, 2]^dim, negative coordinates too */
    CheckAgainstBruteForce(dim, n, x, dim == 2 ? 0.12 : 0.3, PETSC_FALSE);
  }
  CHECK_PETSC(PetscFree(x));
}
END_TEST

/* Tight clusters far apart (a bounding box of millions of mostly empty cells: the hashed table), duplicate points, and pairs at
 * exactly the radius along an axis (not neighbours: the test is strict). */
START_TEST(clustered_points_match_brute_force)
{
  uint64_t s = 12345;
  const PetscInt n = 1200;
  const PetscReal r = 0.05;
  PetscReal *x;

  CHECK_PETSC(PetscMalloc1(3 * n, &x));
  for (PetscInt dim = 2; dim <= 3; dim++) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt c = i % 5;
      for (PetscInt d = 0; d < dim; d++) x[dim * i + d] = 7.0 * c * (d == 0) - 3.0 * (c == 4) + 0.08 * Uniform(&s);
    }
    for (PetscInt i = 0; i < 40; i++) /* duplicates of the first 40 */
      for (PetscInt d = 0; d < dim; d++) x[dim * (n - 1 - i) + d] = x[dim * i + d];
    for (PetscInt i = 40; i < 60; i += 2) /* pairs exactly 1/16 apart along x (exact in binary), far from the rest */
      for (PetscInt d = 0; d < dim; d++) x[dim * i + d] = 100 + 0.25 * i, x[dim * (i + 1) + d] = x[dim * i + d] + (d == 0 ? 0.0625 : 0);
    CheckAgainstBruteForce(dim, n, x, r, PETSC_TRUE);
    /* the radius equal to the pairs' distance: exactly r apart is not a neighbour */
    CheckAgainstBruteForce(dim, n, x, 0.0625, PETSC_TRUE);
  }
  CHECK_PETSC(PetscFree(x));
}
END_TEST

START_TEST(morton_code_interleaves_bits)
{
  const PetscInt c2[3] = {3, 5, 0}, c3[3] = {1, 2, 4}, big[3] = {(1 << 21) - 1, 0, 0};
  /* 2D: x = 011, y = 101 -> y2 x2 y1 x1 y0 x0 = 1 0 0 1 1 1 */
  ck_assert_int_eq((int)SimMortonCode(2, c2), 0x27);
  /* 3D: x = 001, y = 010, z = 100 -> z2 y2 x2 z1 y1 x1 z0 y0 x0 = 100 010 001 */
  ck_assert_int_eq((int)SimMortonCode(3, c3), 0421);
  ck_assert(SimMortonCode(3, big) == (PetscInt64)0x1249249249249249LL);
}
END_TEST

START_TEST(bad_input_is_refused)
{
  SimNeighbors nb;
  PetscReal x[4] = {0, 0, 1, PETSC_INFINITY};
  PetscErrorCode ierr;

  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ck_assert(SimNeighborsCreate(4, 1.0, &nb) != 0);
  ck_assert(SimNeighborsCreate(2, 0.0, &nb) != 0);
  CHECK_PETSC(SimNeighborsCreate(2, 1.0, &nb));
  ierr = SimNeighborsSetPoints(nb, 2, x);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert(ierr != 0);
  CHECK_PETSC(SimNeighborsDestroy(&nb));
  CHECK_PETSC(SimNeighborsDestroy(NULL));
}
END_TEST

/* Random particles in a 2D and a 3D box on PETSC_COMM_WORLD, with their global id as a field: each
 * rank's own particles, searched among themselves and their ghosts, have the neighbours (by id) that
 * a brute-force search over every rank's particles gives. */
static void CheckAcrossRanks(PetscInt dim)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 0.5, dim == 3 ? 0.5 : 0}, r = 0.07;
  const PetscInt n = dim == 2 ? 2000 : 3000;
  uint64_t s = 777 + dim;
  SimRegistry reg;
  SimProblem p;
  PetscReal *x, *m, *vol, *id, *px, *pid, *all, *idall;
  PetscInt nl, ng, nghost, *brute;
  SimParticleGhosts g;
  SimNeighbors nb;
  SimNeighborList list = {0};
  DM sw;
  PetscMPIInt size;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimProblemCreate(reg, "particles", "random", PETSC_COMM_WORLD, &p));
  CHECK_PETSC(SimParticlesSetDomain(p, dim, lo, hi, 20));
  CHECK_PETSC(PetscMalloc4(dim * n, &x, n, &m, n, &vol, n, &id));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt d = 0; d < dim; d++) x[dim * i + d] = hi[d] * Uniform(&s);
    if (i % 7 == 0) x[dim * i] = 0.5 + 0.01 * Uniform(&s); /* a crowd at the rank boundary x = 0.5 (on 2 ranks) */
    m[i] = 1, vol[i] = 1, id[i] = i;
  }
  CHECK_PETSC(SimParticlesRegisterField(p, "id", 1));
  CHECK_PETSC(SimParticlesAdd(p, n, x, NULL, m, vol, id)); /* the material field carries the id */
  CHECK_PETSC(SimProblemSetUp(p));
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(SimParticlesGetSizes(p, &nl, &ng));
  ck_assert_int_eq(ng, n);
  CHECK_PETSC(SimParticleGhostsCreate(p, r, &g));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&px));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&pid));
  CHECK_PETSC(SimParticleGhostsSetUp(g, nl, px, &nghost));
  CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) ck_assert_msg(nghost > 0, "2 ranks, yet no ghosts");
  else ck_assert_int_eq(nghost, 0);
  CHECK_PETSC(PetscMalloc2(dim * (nl + nghost), &all, nl + nghost, &idall));
  CHECK_PETSC(PetscArraycpy(all, px, dim * nl));
  CHECK_PETSC(PetscArraycpy(idall, pid, nl));
  CHECK_PETSC(SimParticleGhostsExchange(g, dim, px, all + dim * nl));
  CHECK_PETSC(SimParticleGhostsExchange(g, 1, pid, idall + nl));
  CHECK_PETSC(SimNeighborsCreate(dim, r, &nb));
  CHECK_PETSC(SimNeighborsSetPoints(nb, nl + nghost, all));
  CHECK_PETSC(SimNeighborsFind(nb, nl, NULL, &list));
  CHECK_PETSC(PetscMalloc1(n, &brute));
  for (PetscInt i = 0; i < nl; i++) {
    const PetscInt me = (PetscInt)pid[i], len = list.offset[i + 1] - list.offset[i];
    PetscInt nbr = 0;
    for (PetscInt j = 0; j < n; j++) {
      PetscReal d2 = 0;
      for (PetscInt d = 0; d < dim; d++) d2 += (x[dim * me + d] - x[dim * j + d]) * (x[dim * me + d] - x[dim * j + d]);
      if (j != me && d2 < r * r) brute[nbr++] = j;
    }
    ck_assert_msg(len == nbr, "particle %d: %d neighbours with ghosts, brute force %d", (int)me, (int)len, (int)nbr);
    for (PetscInt k = 0; k < len; k++) list.index[list.offset[i] + k] = (PetscInt)idall[list.index[list.offset[i] + k]];
    qsort(list.index + list.offset[i], len, sizeof(PetscInt), CompareInt);
    for (PetscInt k = 0; k < nbr; k++) ck_assert_int_eq(list.index[list.offset[i] + k], brute[k]);
  }
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&pid));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&px));
  CHECK_PETSC(PetscFree(brute));
  CHECK_PETSC(PetscFree2(all, idall));
  CHECK_PETSC(PetscFree4(x, m, vol, id));
  CHECK_PETSC(SimNeighborListFree(&list));
  CHECK_PETSC(SimNeighborsDestroy(&nb));
  CHECK_PETSC(SimParticleGhostsDestroy(&g));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}

START_TEST(ghosts_complete_the_neighbour_sets_across_ranks)
{
  CheckAcrossRanks(2);
  CheckAcrossRanks(3);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("neighbors");
  TCase *tc = tcase_create("neighbors");
  tcase_add_test(tc, random_points_match_brute_force);
  tcase_add_test(tc, clustered_points_match_brute_force);
  tcase_add_test(tc, morton_code_interleaves_bits);
  tcase_add_test(tc, bad_input_is_refused);
  tcase_add_test(tc, ghosts_complete_the_neighbour_sets_across_ranks);
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  return s;
}
