/* The twist scene: an elastic bar clamped at both ends whose end faces are turned in opposite
 * directions about the bar's axis (scripted kinematic pins): large deformation, near-inversion. */
#include "scenes/scenes.h"
#include "scenes/fem_body.h"

typedef struct {
  PetscInt nv;
  PetscReal length, rate, max_angle;
  PetscReal *rest; /* rest positions, 3*nv */
  PetscBool *end;  /* -1/+1 end membership is read from rest x */
} Twist;

/* The end x = 0 turns by -theta(t), the end x = L by +theta(t), theta = min(rate t, max_angle),
 * about the x axis through the bar's center line. */
static PetscErrorCode Kinematic_Twist(void *ctx, PetscReal t, PetscReal *x)
{
  Twist *tw = (Twist *)ctx;
  PetscReal theta = PetscMin(tw->rate * t, tw->max_angle);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < tw->nv; i++) {
    const PetscReal *p = tw->rest + 3 * i;
    PetscReal a, c, s;
    if (!tw->end[i]) continue;
    a = p[0] > 0.5 * tw->length ? theta : -theta;
    c = PetscCosReal(a), s = PetscSinReal(a);
    x[3 * i] = p[0];
    x[3 * i + 1] = c * p[1] - s * p[2];
    x[3 * i + 2] = s * p[1] + c * p[2];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_Twist(SimScene scene, SimProblem problem)
{
  SimModel model;
  Twist *tw = (Twist *)scene->data;
  PetscReal width = 0.2;
  PetscInt n = 10, nw = 2;
  SimMesh mesh;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  model->gravity[1] = 0; /* the twist alone: no sag */
  tw->length = 1;
  tw->rate = PETSC_PI;
  tw->max_angle = PETSC_PI;
  PetscOptionsBegin(model->comm, "twist_", "Twist scene", "");
  PetscCall(PetscOptionsReal("-length", "bar length along x (m)", "", tw->length, &tw->length, NULL));
  PetscCall(PetscOptionsReal("-width", "side of the square cross-section (m)", "", width, &width, NULL));
  PetscCall(PetscOptionsInt("-n", "cells along the bar", "", n, &n, NULL));
  PetscCall(PetscOptionsInt("-nw", "cells across", "", nw, &nw, NULL));
  PetscCall(PetscOptionsReal("-rate", "turning rate of each end (rad/s)", "", tw->rate, &tw->rate, NULL));
  PetscCall(PetscOptionsReal("-angle", "final angle of each end (rad); the ends turn in opposite directions", "", tw->max_angle, &tw->max_angle, NULL));
  PetscOptionsEnd();
  PetscCheck(tw->length > 0 && width > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-twist_length and -twist_width must be > 0");
  PetscCheck(n >= 1 && nw >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-twist_n and -twist_nw must be >= 1");
  PetscCheck(tw->rate >= 0 && tw->max_angle >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-twist_rate and -twist_angle must be >= 0");
  {
    const PetscInt cells[3] = {n, nw, nw};
    const PetscReal lo[3] = {0, -0.5 * width, -0.5 * width}, hi[3] = {tw->length, 0.5 * width, 0.5 * width};
    PetscCall(SimMeshCreateBox(cells, lo, hi, &mesh));
  }
  PetscCall(SimSceneAddFEMBody(scene, model, &mesh, "twist_", "stable_neohookean", 1e5));
  /* the scripted ends over the model's vertices: all of them, or this rank's owned and ghost ones
   * when the state is distributed (the kinematic callback writes the model's local array) */
  tw->nv = model->nv;
  PetscCall(PetscMalloc2(3 * model->nv, &tw->rest, model->nv, &tw->end));
  for (PetscInt i = 0; i < model->nv; i++) {
    const PetscInt g = model->global ? model->global[i] : i;
    PetscCall(PetscArraycpy(tw->rest + 3 * i, mesh.xyz + 3 * g, 3));
    tw->end[i] = (PetscBool)(mesh.xyz[3 * g] == 0.0 || mesh.xyz[3 * g] == tw->length);
    if (tw->end[i]) PetscCall(SimModelPin(model, g, "twist clamp"));
  }
  model->kinematic = Kinematic_Twist;
  model->kinematic_ctx = tw;
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Twist(SimScene scene)
{
  Twist *tw = (Twist *)scene->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree2(tw->rest, tw->end));
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Twist(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew((Twist **)&scene->data));
  scene->ops.build = Build_Twist;
  scene->ops.destroy = Destroy_Twist;
  PetscFunctionReturn(0);
}
