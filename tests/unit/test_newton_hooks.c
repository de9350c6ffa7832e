/* The hooks contact methods need in the model and the Newton minimizer (issue 10): a term that
 * bounds the line-search step (IPC's CCD) keeps every trial point admissible; a term whose Hessian
 * pattern follows x (a contact set) gets its new blocks assembled and the change counted; the
 * model's surface is the closed boundary of a tet mesh, a shell's triangles or a rod's segments.
 * The two terms here are toys written for the test (no built-in term uses the hooks yet). */
#include "testing.h"
#include "framework/model/model.h"
#include "framework/newton/newton.h"

/* ---- a floor barrier: E = -k sum_i log(y_i / d), +inf for y_i <= 0; max_step keeps y_i > 0 ---- */
typedef struct {
  PetscReal k, d;
  PetscBool bound; /* provide the step bound */
  PetscInt infeasible_evals;
  PetscInt lag_calls[4]; /* lag calls with k = 0, 1, 2, more */
  PetscBool lag_grad_ok; /* k = 0 came with a gradient, the later ones without */
  PetscReal lag_y;       /* the height the first lag call saw */
} Floor;

static PetscErrorCode Value_Floor(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Floor *f = (Floor *)t->data;
  PetscInt nv = 4;

  PetscFunctionBeginUser;
  *E = 0;
  for (PetscInt i = 0; i < nv; i++) {
    if (x[3 * i + 1] <= 0) {
      f->infeasible_evals++;
      *E = PETSC_INFINITY;
      PetscFunctionReturn(0);
    }
    *E -= f->k * PetscLogReal(x[3 * i + 1] / f->d);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Floor(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Floor *f = (Floor *)t->data;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 4; i++) g[3 * i + 1] -= f->k / x[3 * i + 1];
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Floor(SimEnergy t, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  PetscFunctionBeginUser;
  *nb = 4;
  if (brow)
    for (PetscInt i = 0; i < 4; i++) brow[i] = bcol[i] = i;
  PetscFunctionReturn(0);
}

static PetscErrorCode Hessian_Floor(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Floor *f = (Floor *)t->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(vals, 36));
  for (PetscInt i = 0; i < 4; i++) vals[9 * i + 4] = f->k / (x[3 * i + 1] * x[3 * i + 1]);
  PetscFunctionReturn(0);
}

/* The largest admissible step stops 10% short of the floor (IPC's safety factor on the time of impact). */
static PetscErrorCode MaxStep_Floor(SimEnergy t, const PetscReal *x, const PetscReal *p, PetscReal *alpha)
{
  Floor *f = (Floor *)t->data;

  PetscFunctionBeginUser;
  if (!f->bound) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < 4; i++)
    if (p[3 * i + 1] < 0) *alpha = PetscMin(*alpha, 0.9 * x[3 * i + 1] / -p[3 * i + 1]);
  PetscFunctionReturn(0);
}

/* Lags nothing but asks for exactly one more minimization after the first (k = 1). */
static PetscErrorCode Lag_Floor(SimEnergy t, const PetscReal *x, const PetscReal *grad, PetscReal beta, PetscInt k, PetscBool *again)
{
  Floor *f = (Floor *)t->data;

  PetscFunctionBeginUser;
  f->lag_calls[PetscMin(k, 3)]++;
  if (k == 0) f->lag_grad_ok = (PetscBool)(grad != NULL && beta > 0), f->lag_y = x[1];
  else if (grad) f->lag_grad_ok = PETSC_FALSE;
  if (k == 1) *again = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Admissible_Floor(SimEnergy t, const PetscReal *x, char *why, size_t len)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 4; i++)
    if (x[3 * i + 1] <= 0) {
      PetscCall(PetscSNPrintf(why, len, "vertex %" PetscInt_FMT " is under the floor", i));
      break;
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Toy(SimEnergy t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(t->data));
  PetscFunctionReturn(0);
}

/* Four free unit masses at height 0.05 m falling at 3 m/s onto the barrier; one implicit Euler step
 * of 0.1 s, whose inertial guess y = x + h v lies 25 cm below the floor. */
static PetscErrorCode FloorStep(PetscBool bound, PetscBool guess_y, Floor *out, PetscReal *ymin, SimStepStats *st)
{
  static const SimEnergyOps ops = {.value = Value_Floor,
                                   .gradient = Gradient_Floor,
                                   .hessian = Hessian_Floor,
                                   .pattern = Pattern_Floor,
                                   .destroy = Destroy_Toy,
                                   .max_step = MaxStep_Floor,
                                   .lag = Lag_Floor,
                                   .admissible = Admissible_Floor};
  const PetscReal xyz[12] = {0, 0.05, 0, 1, 0.05, 0, 0, 0.05, 1, 1, 0.05, 1}, h = 0.1;
  PetscReal y[12], X[12];
  SimModel m;
  SimEnergy term;
  Floor *f;
  SimNewton nt;
  Vec x;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(TestSetOptions(NULL));
  PetscCall(SimModelCreate(PETSC_COMM_SELF, &m));
  PetscCall(SimModelSetVertices(m, 4, xyz));
  for (PetscInt i = 0; i < 4; i++) PetscCall(SimModelSetVertexMass(m, i, 1));
  PetscCall(PetscNew(&f));
  f->k = 1e-2, f->d = 0.05, f->bound = bound;
  PetscCall(SimEnergyCreate("floor", SIM_ENERGY_POTENTIAL, &ops, f, &term));
  PetscCall(SimModelAddTerm(m, term));
  PetscCall(SimModelFinalize(m));
  for (PetscInt k = 0; k < 12; k++) X[k] = xyz[k], y[k] = xyz[k] + (k % 3 == 1 ? -3 * h : 0);
  PetscCall(SimNewtonCreate(m, "hooks_", &nt));
  PetscCall(SimNewtonSetFromOptions(nt));
  PetscCall(VecDuplicate(m->x, &x));
  if (guess_y) { /* the inertial guess, under the floor: the step bound filters it */
    PetscCall(VecGetArrayWrite(x, (PetscScalar **)&a));
    PetscCall(PetscArraycpy((PetscScalar *)a, y, 12));
    PetscCall(VecRestoreArrayWrite(x, (PetscScalar **)&a));
  } else PetscCall(VecCopy(m->x, x)); /* a feasible guess: the current state */
  PetscCall(SimNewtonMinimize(nt, h, y, X, X, x, st));
  PetscCall(VecGetArrayRead(x, &a));
  *ymin = PETSC_MAX_REAL;
  for (PetscInt i = 0; i < 4; i++) *ymin = PetscMin(*ymin, a[3 * i + 1]);
  PetscCall(VecRestoreArrayRead(x, &a));
  {
    char why[128];
    PetscCall(VecGetArrayRead(x, &a));
    PetscCall(SimModelAdmissible(m, a, why, sizeof(why)));
    PetscCall(VecRestoreArrayRead(x, &a));
    PetscCheck(!why[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the minimizer is not admissible: %s", why);
    PetscCall(SimModelAdmissible(m, y, why, sizeof(why)));
    PetscCheck(why[0] && strstr(why, "floor: vertex 0 is under the floor"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "y: '%s'", why);
  }
  *out = *f;
  PetscCall(VecDestroy(&x));
  PetscCall(SimNewtonDestroy(&nt));
  PetscCall(SimModelDestroy(&m));
  PetscFunctionReturn(0);
}

START_TEST(step_bound_keeps_every_trial_admissible)
{
  Floor f_bound, f_free, f_guess;
  PetscInt bad_bound, bad_free;
  PetscReal ymin_bound, ymin_free, ymin_guess;
  SimStepStats st_bound, st_free, st_guess;

  CHECK_PETSC(FloorStep(PETSC_TRUE, PETSC_FALSE, &f_bound, &ymin_bound, &st_bound));
  CHECK_PETSC(FloorStep(PETSC_FALSE, PETSC_FALSE, &f_free, &ymin_free, &st_free));
  bad_bound = f_bound.infeasible_evals, bad_free = f_free.infeasible_evals;
  ck_assert_msg(st_bound.outcome == SIM_STEP_OK && st_free.outcome == SIM_STEP_OK, "outcomes %d %d", (int)st_bound.outcome, (int)st_free.outcome);
  /* the same minimizer either way, above the floor */
  ck_assert_msg(ymin_bound > 0 && PetscAbsReal(ymin_bound - ymin_free) < 1e-8, "minimizers %g and %g", ymin_bound, ymin_free);
  /* without the bound the line search tries points under the floor; with it, never */
  ck_assert_msg(bad_free > 0, "the unbounded search should have evaluated infeasible points");
  ck_assert_int_eq(bad_bound, 0);
  /* the lag op: k = 0 once at the state with the gradient, then k = 1 (asks again) and k = 2 */
  ck_assert_msg(f_bound.lag_calls[0] == 1 && f_bound.lag_calls[1] == 1 && f_bound.lag_calls[2] == 1 && f_bound.lag_calls[3] == 0,
                "lag calls %d %d %d %d", (int)f_bound.lag_calls[0], (int)f_bound.lag_calls[1], (int)f_bound.lag_calls[2],
                (int)f_bound.lag_calls[3]);
  ck_assert_msg(f_bound.lag_grad_ok && f_bound.lag_y == 0.05, "lag k = 0 at y = %g", f_bound.lag_y);

  /* The inertial guess itself (25 cm under the floor): the minimizer cuts the path from the state to it
   * where the bound says, so not even the guess is evaluated infeasible, and it reaches the same minimizer. */
  CHECK_PETSC(FloorStep(PETSC_TRUE, PETSC_TRUE, &f_guess, &ymin_guess, &st_guess));
  ck_assert_msg(st_guess.outcome == SIM_STEP_OK && f_guess.infeasible_evals == 0, "outcome %d, %d infeasible evaluations",
                (int)st_guess.outcome, (int)f_guess.infeasible_evals);
  ck_assert_msg(PetscAbsReal(ymin_guess - ymin_bound) < 1e-8, "minimizers %g and %g", ymin_guess, ymin_bound);
}
END_TEST

/* ---- proximity springs: k/2 (|xi - xj| - r)^2 for every pair closer than r, pattern = those pairs ---- */
typedef struct {
  PetscInt nv, npair, pairs[64];
  PetscReal k, r;
  PetscInt updates;
} Proximity;

static void ActivePairs(Proximity *q, const PetscReal *x, PetscInt *n, PetscInt *pairs)
{
  *n = 0;
  for (PetscInt i = 0; i < q->nv; i++)
    for (PetscInt j = i + 1; j < q->nv; j++) {
      PetscReal d2 = 0;
      for (int c = 0; c < 3; c++) d2 += (x[3 * i + c] - x[3 * j + c]) * (x[3 * i + c] - x[3 * j + c]);
      if (d2 < q->r * q->r && *n < 32) pairs[2 * *n] = i, pairs[2 * *n + 1] = j, (*n)++;
    }
}

static PetscErrorCode Value_Prox(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Proximity *q = (Proximity *)t->data;
  PetscInt n, pairs[64];

  PetscFunctionBeginUser;
  ActivePairs(q, x, &n, pairs); /* the energy sees every pair in range, not only the assembled ones */
  *E = 0;
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = pairs[2 * p], j = pairs[2 * p + 1];
    PetscReal d2 = 0;
    for (int c = 0; c < 3; c++) d2 += (x[3 * i + c] - x[3 * j + c]) * (x[3 * i + c] - x[3 * j + c]);
    *E += 0.5 * q->k * (PetscSqrtReal(d2) - q->r) * (PetscSqrtReal(d2) - q->r);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Prox(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Proximity *q = (Proximity *)t->data;
  PetscInt n, pairs[64];

  PetscFunctionBeginUser;
  ActivePairs(q, x, &n, pairs);
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = pairs[2 * p], j = pairs[2 * p + 1];
    PetscReal d[3], l = 0;
    for (int c = 0; c < 3; c++) d[c] = x[3 * i + c] - x[3 * j + c], l += d[c] * d[c];
    l = PetscSqrtReal(l);
    for (int c = 0; c < 3; c++) g[3 * i + c] += q->k * (l - q->r) * d[c] / l, g[3 * j + c] -= q->k * (l - q->r) * d[c] / l;
  }
  PetscFunctionReturn(0);
}

/* blocks (i,i), (j,j), (i,j), (j,i) per assembled pair */
static PetscErrorCode Pattern_Prox(SimEnergy t, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Proximity *q = (Proximity *)t->data;

  PetscFunctionBeginUser;
  *nb = 4 * q->npair;
  if (brow)
    for (PetscInt p = 0; p < q->npair; p++) {
      const PetscInt i = q->pairs[2 * p], j = q->pairs[2 * p + 1];
      brow[4 * p] = i, bcol[4 * p] = i, brow[4 * p + 1] = j, bcol[4 * p + 1] = j;
      brow[4 * p + 2] = i, bcol[4 * p + 2] = j, brow[4 * p + 3] = j, bcol[4 * p + 3] = i;
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode Hessian_Prox(SimEnergy t, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Proximity *q = (Proximity *)t->data;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < q->npair; p++) {
    const PetscInt i = q->pairs[2 * p], j = q->pairs[2 * p + 1];
    PetscReal d[3], l = 0, K[9];
    for (int c = 0; c < 3; c++) d[c] = x[3 * i + c] - x[3 * j + c], l += d[c] * d[c];
    l = PetscSqrtReal(l);
    /* k (u u^T + (1 - r/l)(I - u u^T)); the second part is negative in compression: dropped when psd */
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        const PetscReal uu = d[a] * d[b] / (l * l), c = (psd && l < q->r) ? 0 : 1 - q->r / l;
        K[3 * a + b] = q->k * (uu + c * ((a == b) - uu));
      }
    for (int e = 0; e < 9; e++) vals[36 * p + e] = vals[36 * p + 9 + e] = K[e], vals[36 * p + 18 + e] = vals[36 * p + 27 + e] = -K[e];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode UpdatePattern_Prox(SimEnergy t, const PetscReal *x, PetscBool *changed)
{
  Proximity *q = (Proximity *)t->data;
  PetscInt n, pairs[64];

  PetscFunctionBeginUser;
  ActivePairs(q, x, &n, pairs);
  *changed = (PetscBool)(n != q->npair);
  for (PetscInt k = 0; !*changed && k < 2 * n; k++)
    if (pairs[k] != q->pairs[k]) *changed = PETSC_TRUE;
  if (*changed) {
    q->npair = n;
    PetscCall(PetscArraycpy(q->pairs, pairs, 2 * n));
    q->updates++;
  }
  PetscFunctionReturn(0);
}

START_TEST(changing_pattern_is_assembled_and_counted)
{
  static const SimEnergyOps ops = {.value = Value_Prox,
                                   .gradient = Gradient_Prox,
                                   .hessian = Hessian_Prox,
                                   .pattern = Pattern_Prox,
                                   .destroy = Destroy_Toy,
                                   .update_pattern = UpdatePattern_Prox};
  /* a row of 5 masses 0.3 m apart, contact radius 0.25: no pair in range at rest; the inertial target
   * squeezes the middle three together, so the minimizer finds the pairs during the solve */
  PetscReal xyz[15], y[15], X[15], h = 0.1;
  SimModel m;
  SimEnergy term;
  Proximity *q;
  SimNewton nt;
  SimStepStats st;
  Vec x;
  Mat H, Hfresh;
  PetscReal *g, *gp, *xt, err = 0, scale = 0;
  const PetscScalar *a;

  CHECK_PETSC(TestSetOptions("-prox_newton_ksp_type preonly -prox_newton_rtol 1e-12"));
  for (PetscInt i = 0; i < 5; i++) xyz[3 * i] = 0.3 * i, xyz[3 * i + 1] = xyz[3 * i + 2] = 0;
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, 5, xyz));
  for (PetscInt i = 0; i < 5; i++) CHECK_PETSC(SimModelSetVertexMass(m, i, 1));
  CHECK_PETSC(PetscNew(&q));
  q->nv = 5, q->k = 50, q->r = 0.25;
  CHECK_PETSC(SimEnergyCreate("proximity", SIM_ENERGY_POTENTIAL, &ops, q, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  for (PetscInt k = 0; k < 15; k++) X[k] = y[k] = xyz[k];
  y[3] += 0.12, y[9] -= 0.12; /* vertices 1 and 3 aimed at vertex 2 */
  CHECK_PETSC(SimNewtonCreate(m, "prox_newton_", &nt));
  CHECK_PETSC(SimNewtonSetFromOptions(nt));
  CHECK_PETSC(VecDuplicate(m->x, &x));
  CHECK_PETSC(VecCopy(m->x, x));
  CHECK_PETSC(SimNewtonMinimize(nt, h, y, X, X, x, &st));
  ck_assert_msg(st.outcome == SIM_STEP_OK, "outcome %d after %d iterations, |g| = %g", (int)st.outcome, (int)st.nonlinear_its, st.residual);
  ck_assert_msg(st.pattern_changes >= 1 && q->npair >= 2, "pattern changes %d, pairs in contact %d", (int)st.pattern_changes, (int)q->npair);
  /* At the solution: the model's exact Hessian in the new pattern matches a central difference of
   * its gradient column by column, and the minimizer's re-preallocated matrix holds the same blocks
   * (projected) as a matrix made fresh in that pattern. */
  CHECK_PETSC(PetscMalloc3(15, &g, 15, &gp, 15, &xt));
  CHECK_PETSC(VecGetArrayRead(x, &a));
  CHECK_PETSC(PetscArraycpy(xt, a, 15));
  CHECK_PETSC(VecRestoreArrayRead(x, &a));
  CHECK_PETSC(SimModelHessianCreate(m, &Hfresh));
  CHECK_PETSC(SimModelHessianAssemble(m, xt, xt, NULL, 0, 1, 0, PETSC_FALSE, Hfresh));
  for (PetscInt c = 0; c < 15; c++) {
    const PetscReal e = 1e-6, x0 = xt[c];
    xt[c] = x0 + e;
    CHECK_PETSC(SimModelGradient(m, SIM_ENERGY_POTENTIAL, xt, NULL, gp));
    xt[c] = x0 - e;
    CHECK_PETSC(SimModelGradient(m, SIM_ENERGY_POTENTIAL, xt, NULL, g));
    xt[c] = x0;
    for (PetscInt r = 0; r < 15; r++) {
      PetscScalar hv;
      CHECK_PETSC(MatGetValue(Hfresh, r, c, &hv));
      err = PetscMax(err, PetscAbsReal(hv - (gp[r] - g[r]) / (2 * e)));
      scale = PetscMax(scale, PetscAbsReal(hv));
    }
  }
  ck_assert_msg(scale > 0 && err < 1e-5 * scale, "Hessian vs FD of the gradient: %g (scale %g)", err, scale);
  CHECK_PETSC(SimNewtonHessian(nt, h, X, X, xt, &H));
  CHECK_PETSC(SimModelHessianAssemble(m, xt, xt, NULL, 1 / (h * h), 1, 0, PETSC_TRUE, Hfresh));
  CHECK_PETSC(MatAXPY(Hfresh, -1, H, SAME_NONZERO_PATTERN));
  CHECK_PETSC(MatNorm(Hfresh, NORM_FROBENIUS, &err));
  ck_assert_msg(err == 0, "the minimizer's matrix differs from a fresh one in the new pattern by %g", err);
  CHECK_PETSC(MatDestroy(&Hfresh));
  CHECK_PETSC(PetscFree3(g, gp, xt));
  CHECK_PETSC(VecDestroy(&x));
  CHECK_PETSC(SimNewtonDestroy(&nt));
  CHECK_PETSC(SimModelDestroy(&m));
}
END_TEST

/* ---- the surface ---- */
START_TEST(surface_of_tets_shells_and_rods)
{
  TestSim t;
  const SimSurface *s;
  PetscReal vol = 0;
  const PetscScalar *x;
  PetscInt *uses;

  /* a tet beam 1 x 0.1 x 0.1: a closed, outward surface: V - E + F = 2, every edge on two faces,
   * and the divergence theorem gives the volume */
  CHECK_PETSC(TestSimCreate("beam", NULL, "-beam_n 6 -beam_nw 2", &t));
  CHECK_PETSC(SimModelGetSurface(t.model, &s));
  ck_assert_int_eq(s->nvert - s->nedge + s->ntri, 2);
  CHECK_PETSC(PetscCalloc1(s->nedge, &uses));
  for (PetscInt f = 0; f < s->ntri; f++)
    for (int k = 0; k < 3; k++) {
      const PetscInt a = PetscMin(s->tri[3 * f + k], s->tri[3 * f + (k + 1) % 3]), b = PetscMax(s->tri[3 * f + k], s->tri[3 * f + (k + 1) % 3]);
      for (PetscInt e = 0; e < s->nedge; e++)
        if (s->edge[2 * e] == a && s->edge[2 * e + 1] == b) uses[e]++;
    }
  for (PetscInt e = 0; e < s->nedge; e++) ck_assert_msg(uses[e] == 2, "edge %d on %d faces", (int)e, (int)uses[e]);
  CHECK_PETSC(PetscFree(uses));
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
  for (PetscInt f = 0; f < s->ntri; f++) {
    const PetscReal *p0 = &x[3 * s->tri[3 * f]], *p1 = &x[3 * s->tri[3 * f + 1]], *p2 = &x[3 * s->tri[3 * f + 2]];
    /* 1/6 p0 . (p1 x p2), summed over outward faces, is the enclosed volume */
    vol += (p0[0] * (p1[1] * p2[2] - p1[2] * p2[1]) - p0[1] * (p1[0] * p2[2] - p1[2] * p2[0]) + p0[2] * (p1[0] * p2[1] - p1[1] * p2[0])) / 6;
  }
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
  ck_assert_msg(PetscAbsReal(vol - 0.01) < 1e-12, "enclosed volume %g, the beam's 0.01", vol);
  CHECK_PETSC(TestSimDestroy(&t));

  /* a cloth: its triangles, every vertex on the surface */
  CHECK_PETSC(TestSimCreate("cloth", NULL, "-cloth_n 5", &t));
  CHECK_PETSC(SimModelGetSurface(t.model, &s));
  ck_assert_int_eq(s->ntri, t.model->ntri);
  ck_assert_int_eq(s->nvert, t.model->nv);
  ck_assert_int_eq(s->nvert - s->nedge + s->ntri, 1); /* a disc */
  CHECK_PETSC(TestSimDestroy(&t));

  /* a rope: segments only */
  CHECK_PETSC(TestSimCreate("rope", NULL, "-rope_n 7", &t));
  CHECK_PETSC(SimModelGetSurface(t.model, &s));
  ck_assert_int_eq(s->ntri, 0);
  ck_assert_int_eq(s->nedge, 6);
  ck_assert_int_eq(s->nvert, 7);
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("newton_hooks");
  TCase *tc = tcase_create("hooks");
  tcase_add_test(tc, step_bound_keeps_every_trial_admissible);
  tcase_add_test(tc, changing_pattern_is_assembled_and_counted);
  tcase_add_test(tc, surface_of_tets_shells_and_rods);
  suite_add_tcase(s, tc);
  return s;
}
