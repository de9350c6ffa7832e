/* IPC CCD and broad phase (energies/ipc/ccd.h, broad_phase.h): the additive CCD never returns a
 * time past contact, on hand-made degenerate cases (parallel edges, a vertex on an edge, starting at
 * dhat, touching exactly at t = 1) and on random motions against a fine sampling of the distance
 * along the path; the spatial hash and the BVH report exactly the brute-force pairs on random soups. */
#include "testing.h"
#include "energies/ipc/ccd.h"
#include "energies/ipc/broad_phase.h"

static PetscReal Uniform(unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)((*state >> 11) * (1.0 / 9007199254740992.0));
}

static PetscReal DistanceAt(IPCStencil k, const PetscReal *x, const PetscReal *p, PetscReal t)
{
  PetscReal y[12];
  for (int i = 0; i < 3 * IPCStencilSize[k]; i++) y[i] = x[i] + t * p[i];
  return PetscSqrtReal(IPCSqDistance(k, y, IPCClassify(k, y), NULL, NULL));
}

/* The smallest distance on [0, t], sampled finely (the exact first contact of the hand-made cases is
 * known; random ones use this). */
static PetscReal MinDistanceOn(IPCStencil k, const PetscReal *x, const PetscReal *p, PetscReal t)
{
  PetscReal m = PETSC_MAX_REAL;
  for (int i = 0; i <= 2000; i++) m = PetscMin(m, DistanceAt(k, x, p, t * i / 2000.0));
  return m;
}

START_TEST(ccd_hand_made_degenerate_cases)
{
  const PetscReal eta = 0.9;
  PetscReal t;
  { /* parallel edges approaching head-on: contact at t = 0.5 (distance 1, closing speed 2) */
    const PetscReal x[12] = {0, 0, 0, 1, 0, 0, 0.2, 1, 0, 1.2, 1, 0}, p[12] = {0, 1, 0, 0, 1, 0, 0, -1, 0, 0, -1, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_EE, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && t < 0.5 && DistanceAt(IPC_STENCIL_EE, x, p, t) >= (1 - eta) * 1 - 1e-12, "parallel edges: t = %g", t);
    ck_assert_msg(t > 0.4, "parallel edges: t = %g is needlessly short", t);
  }
  { /* parallel collinear edges sliding into each other end to end: contact at t = 0.25 */
    const PetscReal x[12] = {0, 0, 0, 1, 0, 0, 1.5, 0, 0, 2.5, 0, 0}, p[12] = {1, 0, 0, 1, 0, 0, -1, 0, 0, -1, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_EE, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && t < 0.25, "collinear edges: t = %g", t);
  }
  { /* a vertex on an edge at t = 0: no admissible motion */
    const PetscReal x[9] = {0.5, 0, 0, 0, 0, 0, 1, 0, 0}, p[9] = {0, 1, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(IPCAdditiveCCD(IPC_STENCIL_PE, x, p, eta, 0, 1, 1000000, NULL) == 0);
  }
  { /* a vertex passing exactly through an edge's interior at t = 0.5 */
    const PetscReal x[9] = {0.5, 1, 0, 0, 0, 0, 1, 0, 0}, p[9] = {0, -2, 0, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_PE, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && t < 0.5, "vertex through an edge: t = %g", t);
  }
  { /* a vertex hitting a triangle's edge exactly (the edge t0 t1), at t = 0.5 */
    const PetscReal x[12] = {0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, p[12] = {0, -2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_PT, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && t < 0.5, "vertex onto a triangle edge: t = %g", t);
  }
  { /* starting at dhat = 1e-3 from a triangle and moving in at 1e-2 per unit time: contact at 0.1 */
    const PetscReal x[12] = {0.2, 0.2, 1e-3, 0, 0, 0, 1, 0, 0, 0, 1, 0}, p[12] = {0, 0, -1e-2, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_PT, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && t < 0.1 && DistanceAt(IPC_STENCIL_PT, x, p, t) >= (1 - eta) * 1e-3 * (1 - 1e-9), "from dhat: t = %g", t);
  }
  { /* touching exactly at t = 1: the step stops short of it */
    const PetscReal x[12] = {0.2, 0.2, 0.5, 0, 0, 0, 1, 0, 0, 0, 1, 0}, p[12] = {0, 0, -0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_PT, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t < 1 && DistanceAt(IPC_STENCIL_PT, x, p, t) > 0, "touching at t = 1: t = %g", t);
    /* and crossing edges touching at t = 1 */
    const PetscReal e[12] = {-1, 0, 1, 1, 0, 1, 0, -1, 0, 0, 1, 0}, q[12] = {0, 0, -1, 0, 0, -1, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_EE, e, q, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t < 1 && DistanceAt(IPC_STENCIL_EE, e, q, t) > 0, "edges touching at t = 1: t = %g", t);
  }
  { /* sliding parallel to a triangle at a tiny gap: no contact, the whole step (or a conservative part) */
    const PetscReal x[12] = {0.1, 0.1, 1e-6, 0, 0, 0, 1, 0, 0, 0, 1, 0}, p[12] = {0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    t = IPCAdditiveCCD(IPC_STENCIL_PT, x, p, eta, 0, 1, 1000000, NULL);
    ck_assert_msg(t > 0 && MinDistanceOn(IPC_STENCIL_PT, x, p, t) > 0, "sliding: t = %g", t);
  }
  /* obstacles: plane hit at t = 0.5, sphere hit at t = 0.5 */
  {
    const PetscReal x[3] = {0, 1, 0}, p[3] = {0, -2, 0}, o[3] = {0, 0, 0}, n[3] = {0, 1, 0}, c[3] = {0, -1, 0};
    t = IPCPlaneCCD(x, p, o, n, eta, 1);
    ck_assert(t < 0.5 && t > 0.4);
    t = IPCSphereCCD(x, p, c, 1, eta, 1, 1000000);
    ck_assert(t < 0.5 && t > 0.4);
    ck_assert(IPCPlaneCCD(o, p, o, n, eta, 1) == 0);
  }
}
END_TEST

/* Random motions: the distance never reaches 0 on [0, t] and is at least (1 - eta) d0 at t. */
START_TEST(ccd_random_never_past_contact)
{
  unsigned long long seed = 7;
  const PetscReal eta = 0.9;
  PetscInt hits = 0;
  for (int k = 0; k < 4; k++)
    for (int trial = 0; trial < 150; trial++) {
      const int n = 3 * IPCStencilSize[k];
      PetscReal x[12], p[12], t, d0;
      for (int i = 0; i < n; i++) x[i] = 2 * Uniform(&seed) - 1, p[i] = 3 * (2 * Uniform(&seed) - 1);
      d0 = DistanceAt((IPCStencil)k, x, p, 0);
      t = IPCAdditiveCCD((IPCStencil)k, x, p, eta, 0, 1, 1000000, NULL);
      if (t < 1) hits++;
      ck_assert_msg(MinDistanceOn((IPCStencil)k, x, p, t) > 0, "stencil %d trial %d: contact before t = %g", k, trial, t);
      ck_assert_msg(DistanceAt((IPCStencil)k, x, p, t) >= (1 - eta) * d0 * (1 - 1e-9), "stencil %d trial %d: too close at t = %g", k, trial, t);
    }
  ck_assert_msg(hits > 50, "only %d motions came close: the test does not exercise the CCD", (int)hits);
}
END_TEST

static void RandomBoxes(unsigned long long *seed, PetscInt n, PetscReal size, PetscReal *lo, PetscReal *hi)
{
  for (PetscInt i = 0; i < n; i++)
    for (int d = 0; d < 3; d++) {
      const PetscReal c = Uniform(seed), e = size * Uniform(seed) * (i % 7 == 0 ? 4 : 1);
      lo[3 * i + d] = c - e, hi[3 * i + d] = c + e;
    }
}

static int ComparePairs(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

START_TEST(broad_phase_equals_brute_force)
{
  unsigned long long seed = 3;
  const PetscInt na = 700, nb = 500;
  PetscReal *alo, *ahi, *blo, *bhi;
  IPCBroad bp[3];

  CHECK_PETSC(PetscMalloc4(3 * na, &alo, 3 * na, &ahi, 3 * nb, &blo, 3 * nb, &bhi));
  for (int m = 0; m < 3; m++) CHECK_PETSC(IPCBroadCreate((IPCBroadMethod)m, &bp[m]));
  for (int soup = 0; soup < 4; soup++) {
    const PetscReal size = soup < 2 ? 0.03 : 0.02;
    const PetscBool self = (PetscBool)(soup % 2);
    IPCPairs out[3] = {{0}};
    RandomBoxes(&seed, na, size, alo, ahi);
    RandomBoxes(&seed, nb, size, blo, bhi);
    if (soup == 3) /* degenerate boxes (points) and a flat layer */
      for (PetscInt i = 0; i < na; i++) {
        if (i % 3 == 0) ahi[3 * i] = alo[3 * i];
        alo[3 * i + 1] = ahi[3 * i + 1] = 0.5;
      }
    for (int m = 0; m < 3; m++) {
      /* a second call reuses the scratch: its answer must be the same */
      for (int rep = 0; rep < 2; rep++) {
        out[m].n = 0;
        CHECK_PETSC(IPCBroadPairs(bp[m], na, alo, ahi, self ? na : nb, self ? alo : blo, self ? ahi : bhi, self, &out[m]));
      }
      qsort(out[m].pair, (size_t)out[m].n, 2 * sizeof(PetscInt), ComparePairs);
    }
    ck_assert_msg(out[IPC_BROAD_BRUTE].n > 100, "soup %d: only %d overlapping pairs", soup, (int)out[IPC_BROAD_BRUTE].n);
    for (int m = 0; m < 2; m++) {
      ck_assert_msg(out[m].n == out[IPC_BROAD_BRUTE].n, "soup %d, %s: %d pairs, brute force %d", soup, IPCBroadMethods[m], (int)out[m].n,
                    (int)out[IPC_BROAD_BRUTE].n);
      for (PetscInt k = 0; k < 2 * out[m].n; k++) ck_assert(out[m].pair[k] == out[IPC_BROAD_BRUTE].pair[k]);
    }
    for (int m = 0; m < 3; m++) CHECK_PETSC(IPCPairsFree(&out[m]));
  }
  for (int m = 0; m < 3; m++) CHECK_PETSC(IPCBroadDestroy(&bp[m]));
  CHECK_PETSC(PetscFree4(alo, ahi, blo, bhi));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("ipc_ccd");
  TCase *tc = tcase_create("ccd");
  tcase_add_test(tc, ccd_hand_made_degenerate_cases);
  tcase_add_test(tc, ccd_random_never_past_contact);
  tcase_add_test(tc, broad_phase_equals_brute_force);
  suite_add_tcase(s, tc);
  return s;
}
