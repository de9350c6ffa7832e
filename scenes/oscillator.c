/* The oscillator scene: one mass on one spring from a pinned anchor, moving along the spring,
 * with its analytic solution (optionally damped) for convergence tests and benchmarks. */
#include "scenes/scenes.h"
#include "energies/springs.h"

typedef struct {
  PetscReal k, mass, length, amplitude, damping;
} Oscillator;

static PetscErrorCode Build_Oscillator(SimScene scene, SimProblem problem)
{
  SimModel model;
  Oscillator *o = (Oscillator *)scene->data;
  SimSpringList springs = {0};

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  model->gravity[1] = 0; /* the analytic solution assumes no gravity */
  PetscOptionsBegin(model->comm, "oscillator_", "Oscillator scene", "");
  PetscCall(PetscOptionsReal("-k", "spring stiffness (N/m)", "", o->k, &o->k, NULL));
  PetscCall(PetscOptionsReal("-mass", "mass of the moving vertex (kg)", "", o->mass, &o->mass, NULL));
  PetscCall(PetscOptionsReal("-length", "rest length (m)", "", o->length, &o->length, NULL));
  PetscCall(PetscOptionsReal("-amplitude", "initial stretch (m)", "", o->amplitude, &o->amplitude, NULL));
  PetscCall(PetscOptionsReal("-damping", "damping along the spring (N s/m)", "", o->damping, &o->damping, NULL));
  PetscOptionsEnd();
  PetscCheck(o->k > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_k must be > 0 (got %g)", (double)o->k);
  PetscCheck(o->mass > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_mass must be > 0 (got %g)", (double)o->mass);
  PetscCheck(o->length > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-oscillator_length must be > 0 (got %g)", (double)o->length);
  PetscCheck(o->damping >= 0 && o->damping < 2 * PetscSqrtReal(o->k * o->mass), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-oscillator_damping must be in [0, 2 sqrt(k m)) = [0, %g) (the analytic solution is for the underdamped case)",
             (double)(2 * PetscSqrtReal(o->k * o->mass)));
  /* |A| >= L sends the mass through its anchor, where the spring's direction flips: the run is not
   * the 1D oscillator whose exact solution the scene reports */
  PetscCheck(PetscAbsReal(o->amplitude) < o->length, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-oscillator_amplitude %.6g is not smaller than the rest length -oscillator_length %.6g: the mass would pass through its "
             "anchor (at x = L - |A| = %.6g), where the spring flips and the analytic solution no longer holds",
             (double)o->amplitude, (double)o->length, (double)(o->length - PetscAbsReal(o->amplitude)));
  {
    /* the spring's rest length comes from the positions, so build at rest, then stretch */
    const PetscReal xyz[6] = {0, 0, 0, o->length, 0, 0};
    const PetscInt seg[2] = {0, 1};
    PetscScalar *x;
    PetscCall(SimModelSetVertices(model, 2, xyz));
    PetscCall(SimModelSetVertexMass(model, 0, o->mass));
    PetscCall(SimModelSetVertexMass(model, 1, o->mass));
    PetscCall(SimModelPin(model, 0, "oscillator anchor"));
    PetscCall(SimSpringListAdd(&springs, 0, 1, o->k, o->damping));
    PetscCall(SimSpringListAddToModel(&springs, model, "spring"));
    PetscCall(SimSpringListFree(&springs));
    PetscCall(SimModelSetTopology(model, 0, NULL, 1, seg, 0, NULL));
    PetscCall(VecGetArray(model->x, &x));
    x[3] = o->length + o->amplitude;
    PetscCall(VecRestoreArray(model->x, &x));
  }
  PetscFunctionReturn(0);
}

/* x(t) = L + A e^{-zeta w t} (cos(wd t) + zeta/sqrt(1 - zeta^2) sin(wd t)), w = sqrt(k/m),
 * zeta = c / (2 sqrt(k m)), wd = w sqrt(1 - zeta^2); valid with no gravity and no colliders. */
static PetscErrorCode Exact_Oscillator(SimScene scene, PetscReal t, PetscReal *x, PetscReal *v)
{
  Oscillator *o = (Oscillator *)scene->data;
  PetscReal w = PetscSqrtReal(o->k / o->mass), zeta = o->damping / (2 * PetscSqrtReal(o->k * o->mass));
  PetscReal s = PetscSqrtReal(1 - zeta * zeta), wd = w * s, decay = PetscExpReal(-zeta * w * t);
  PetscReal c = PetscCosReal(wd * t), sn = PetscSinReal(wd * t);

  PetscFunctionBeginUser;
  for (int k = 0; k < 6; k++) x[k] = v[k] = 0;
  x[3] = o->length + o->amplitude * decay * (c + zeta / s * sn);
  /* d/dt of the above simplifies to -A w / s e^{-zeta w t} sin(wd t) */
  v[3] = -o->amplitude * w / s * decay * sn;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Oscillator(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Oscillator(SimScene scene)
{
  Oscillator *o;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&o));
  o->k = 100;
  o->mass = 1;
  o->length = 1;
  o->amplitude = 0.1;
  scene->data = o;
  scene->ops.build = Build_Oscillator;
  scene->ops.exact = Exact_Oscillator;
  scene->ops.destroy = Destroy_Oscillator;
  PetscFunctionReturn(0);
}
