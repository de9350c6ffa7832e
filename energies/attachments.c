/* Positional attachments E = sum_i k_i/2 |x_i - t_i|^2: value, gradient, Hessian and the PD form. */
#include "energies/attachments.h"

typedef struct {
  PetscInt n;
  PetscInt *vert;     /* n */
  PetscReal *target;  /* 3n */
  PetscReal *k;       /* n */
} Attachments;

static PetscErrorCode Value_Attachments(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Attachments *a = (Attachments *)e->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < a->n; q++) {
    const PetscReal *xi = x + 3 * a->vert[q], *t = a->target + 3 * q;
    const PetscReal d0 = xi[0] - t[0], d1 = xi[1] - t[1], d2 = xi[2] - t[2];
    sum += 0.5 * a->k[q] * (d0 * d0 + d1 * d1 + d2 * d2);
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Attachments(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < a->n; q++)
    for (int d = 0; d < 3; d++) g[3 * a->vert[q] + d] += a->k[q] * (x[3 * a->vert[q] + d] - a->target[3 * q + d]);
  PetscFunctionReturn(0);
}

/* d2E/dx_i^2 = k I: PSD already. */
static PetscErrorCode Hessian_Attachments(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < a->n; q++)
    for (int r = 0; r < 9; r++) vals[9 * q + r] = r % 4 == 0 ? a->k[q] : 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Attachments(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  *nb = a->n;
  if (brow)
    for (PetscInt q = 0; q < a->n; q++) brow[q] = bcol[q] = a->vert[q];
  PetscFunctionReturn(0);
}

/* Projective dynamics: one constraint per attachment, A = [1], w = k and the constant projection
 * p = t (the constraint manifold is the single point t), so w/2 |x_i - p|^2 is the energy. */
static PetscErrorCode PDCount_Attachments(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  *nc = a->n, *nvert = 1, *nrows = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Attachments(SimEnergy e, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < a->n; q++) vert[q] = a->vert[q], A[q] = 1, w[q] = a->k[q];
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_Attachments(SimEnergy e, const PetscReal *x, PetscReal *p)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(p, a->target, 3 * a->n));
  PetscFunctionReturn(0);
}

/* Scalar constraints (the compliant solver, energy.h cons_*): the three coordinates of each
 * attachment, C_{3q+k} = x_{v,k} - t_k with w = k_q, so sum w/2 C^2 is the energy. Linear: no
 * cons_hessian. */
static PetscErrorCode ConsCount_Attachments(SimEnergy e, PetscInt *nc, PetscInt *nvert)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  *nc = 3 * a->n, *nvert = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsStencil_Attachments(SimEnergy e, PetscInt *vert, PetscReal *w)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3 * a->n; c++) vert[c] = a->vert[c / 3], w[c] = a->k[c / 3];
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsEval_Attachments(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *C, PetscReal *grad)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt c = idx[q], k = c % 3;
    C[q] = x[3 * a->vert[c / 3] + k] - a->target[c];
    for (int l = 0; l < 3; l++) grad[3 * q + l] = l == k;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Attachments(SimEnergy e)
{
  Attachments *a = (Attachments *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree3(a->vert, a->target, a->k));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

PetscErrorCode SimAttachmentsCreate(const char *name, PetscInt nv, PetscInt n, const PetscInt *vert, const PetscReal *target,
                                    const PetscReal *k, SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Attachments, .gradient = Gradient_Attachments, .hessian = Hessian_Attachments,
                                   .pattern = Pattern_Attachments, .destroy = Destroy_Attachments,
                                   .pd_count = PDCount_Attachments, .pd_stencil = PDStencil_Attachments,
                                   .pd_project = PDProject_Attachments, .cons_count = ConsCount_Attachments,
                                   .cons_stencil = ConsStencil_Attachments, .cons_eval = ConsEval_Attachments};
  Attachments *a;

  PetscFunctionBeginUser;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Attachments '%s': no vertices to attach", name);
  for (PetscInt q = 0; q < n; q++) {
    PetscCheck(vert[q] >= 0 && vert[q] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Attachments '%s': vertex %" PetscInt_FMT " is out of range (valid 0 .. %" PetscInt_FMT ")", name, vert[q], nv - 1);
    PetscCheck(k[q] > 0 && PetscIsNormalReal(k[q]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Attachments '%s': stiffness %g of vertex %" PetscInt_FMT " must be finite and > 0 (N/m)", name, (double)k[q], vert[q]);
  }
  PetscCall(PetscNew(&a));
  a->n = n;
  PetscCall(PetscMalloc3(n, &a->vert, 3 * n, &a->target, n, &a->k));
  PetscCall(PetscArraycpy(a->vert, vert, n));
  PetscCall(PetscArraycpy(a->target, target, 3 * n));
  PetscCall(PetscArraycpy(a->k, k, n));
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, a, term));
  PetscFunctionReturn(0);
}
