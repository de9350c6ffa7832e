/* Analytic colliders as penalty energies: E = k/2 sum_i min(0, phi(x_i))^2 for a signed distance
 * phi (plane or sphere). Smooth enough for Newton, usable by every integrator. */
#include "energies/energies.h"
#include "framework/linalg/vec3.h"

typedef struct {
  PetscInt nv;
  PetscReal k;         /* penalty stiffness, N/m */
  PetscReal point[3];  /* plane: a point on it; sphere: the center */
  PetscReal normal[3]; /* plane: unit normal (the free side) */
  PetscReal radius;    /* sphere only */
  PetscBool sphere;
} Collider;

/* Signed distance of x to the collider, and its unit gradient n. curvature = phi'' across n
 * (1/|x - c| for a sphere, 0 for a plane). */
static inline PetscReal Distance(const Collider *c, const PetscReal *x, PetscReal *n, PetscReal *curv)
{
  PetscReal r[3], len;
  if (!c->sphere) {
    Vec3Sub(x, c->point, r);
    n[0] = c->normal[0], n[1] = c->normal[1], n[2] = c->normal[2];
    *curv = 0;
    return Vec3Dot(r, n);
  }
  Vec3Sub(x, c->point, r);
  len = Vec3Norm(r);
  if (len == 0) { /* at the center: any direction is a valid normal */
    n[0] = 0, n[1] = 1, n[2] = 0;
    *curv = 0;
    return -c->radius;
  }
  n[0] = r[0] / len, n[1] = r[1] / len, n[2] = r[2] / len;
  *curv = 1.0 / len;
  return len - c->radius;
}

static PetscErrorCode Value_Collider(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Collider *c = (Collider *)e->data;
  PetscReal sum = 0, n[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++) {
    PetscReal phi = Distance(c, x + 3 * i, n, &curv);
    if (phi < 0) sum += 0.5 * c->k * phi * phi;
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Collider(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  Collider *c = (Collider *)e->data;
  PetscReal n[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++) {
    PetscReal phi = Distance(c, x + 3 * i, n, &curv);
    if (phi < 0)
      for (int d = 0; d < 3; d++) g[3 * i + d] += c->k * phi * n[d];
  }
  PetscFunctionReturn(0);
}

/* d2E = k [n n^T + phi * curv (I - n n^T)]; inside a sphere phi * curv < 0, which the PSD
 * projection clamps to zero (the eigenvalues are k and k phi curv). */
static PetscErrorCode Hessian_Collider(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Collider *c = (Collider *)e->data;
  PetscReal n[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++) {
    PetscReal phi = Distance(c, x + 3 * i, n, &curv), across = phi * curv;
    if (phi >= 0) {
      PetscCall(PetscArrayzero(vals + 9 * i, 9));
      continue;
    }
    if (psd && across < 0) across = 0;
    Mat3OuterPlusIdentity(n, n, c->k * (1.0 - across), c->k * across, vals + 9 * i);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Collider(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Collider *c = (Collider *)e->data;

  PetscFunctionBeginUser;
  *nb = c->nv;
  if (brow)
    for (PetscInt i = 0; i < c->nv; i++) brow[i] = bcol[i] = i;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Collider(SimEnergy e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(e->data));
  PetscFunctionReturn(0);
}

/* ---- projective dynamics: one constraint per vertex, the half-space (plane) or the outside of the
 * ball (sphere) (Bouaziz et al. 2014 treat collisions as such unilateral constraints) ----
 * A = [1], w = k, and p = x - min(0, phi) n is the closest point of the free side, so
 * w/2 |x - p|^2 = k/2 min(0, phi)^2, the penalty energy itself. Only vertices that penetrate
 * carry energy: pd_active marks them, and the solver keeps the others out of its matrix. */
static PetscErrorCode PDCount_Collider(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  Collider *c = (Collider *)e->data;

  PetscFunctionBeginUser;
  *nc = c->nv, *nvert = 1, *nrows = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_Collider(SimEnergy e, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  Collider *c = (Collider *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++) vert[i] = i, A[i] = 1, w[i] = c->k;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDProject_Collider(SimEnergy e, const PetscReal *x, PetscReal *p)
{
  Collider *c = (Collider *)e->data;
  PetscReal n[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++) {
    const PetscReal phi = PetscMin(0, Distance(c, x + 3 * i, n, &curv));
    for (int d = 0; d < 3; d++) p[3 * i + d] = x[3 * i + d] - phi * n[d];
  }
  PetscFunctionReturn(0);
}

/* The same for the listed vertices only (pbd/xpbd: one colour of a Gauss-Seidel sweep). */
static PetscErrorCode PDProjectSome_Collider(SimEnergy e, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *p)
{
  Collider *c = (Collider *)e->data;
  PetscReal nrm[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscReal *xi = x + 3 * idx[q];
    const PetscReal phi = PetscMin(0, Distance(c, xi, nrm, &curv));
    for (int d = 0; d < 3; d++) p[3 * q + d] = xi[d] - phi * nrm[d];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PDActive_Collider(SimEnergy e, const PetscReal *x, PetscBool *active)
{
  Collider *c = (Collider *)e->data;
  PetscReal n[3], curv;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->nv; i++)
    if (Distance(c, x + 3 * i, n, &curv) < 0) active[i] = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* A plane's constraint acts along its normal only (x - p = min(0, phi) n); a sphere's normal varies
 * from vertex to vertex, so the sphere has no such direction. */
static PetscErrorCode PDDirection_Plane(SimEnergy e, PetscReal n[3])
{
  Collider *c = (Collider *)e->data;

  PetscFunctionBeginUser;
  n[0] = c->normal[0], n[1] = c->normal[1], n[2] = c->normal[2];
  PetscFunctionReturn(0);
}

static const SimEnergyOps plane_ops = {.value = Value_Collider, .gradient = Gradient_Collider, .hessian = Hessian_Collider,
                                       .pattern = Pattern_Collider, .destroy = Destroy_Collider,
                                       .pd_count = PDCount_Collider, .pd_stencil = PDStencil_Collider,
                                       .pd_project = PDProject_Collider, .pd_active = PDActive_Collider,
                                       .pd_project_some = PDProjectSome_Collider, .pd_direction = PDDirection_Plane};

static const SimEnergyOps sphere_ops = {.value = Value_Collider, .gradient = Gradient_Collider, .hessian = Hessian_Collider,
                                        .pattern = Pattern_Collider, .destroy = Destroy_Collider,
                                        .pd_count = PDCount_Collider, .pd_stencil = PDStencil_Collider,
                                        .pd_project = PDProject_Collider, .pd_active = PDActive_Collider,
                                        .pd_project_some = PDProjectSome_Collider};

/* -plane_point x,y,z (default origin)  -plane_normal nx,ny,nz (default 0,1,0)  -plane_stiffness k */
PetscErrorCode SimEnergyCreate_Plane(SimModel model, const char *prefix, SimEnergy *term)
{
  Collider *c, opt = {.nv = model->nown, .k = 1e4, .normal = {0, 1, 0}}; /* the term's data, allocated once the options are valid */
  PetscInt n3 = 3, p3 = 3;
  PetscBool pset, nset;
  PetscReal len;

  PetscFunctionBeginUser;
  PetscOptionsBegin(model->comm, prefix, "Plane collider (penalty)", "");
  PetscCall(PetscOptionsRealArray("-point", "a point on the plane (m)", "", opt.point, &p3, &pset));
  PetscCall(PetscOptionsRealArray("-normal", "normal pointing to the free side", "", opt.normal, &n3, &nset));
  PetscCall(PetscOptionsReal("-stiffness", "penalty stiffness (N/m)", "", opt.k, &opt.k, NULL));
  PetscOptionsEnd();
  PetscCheck((!pset || p3 == 3) && (!nset || n3 == 3), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%spoint and -%snormal take 3 values x,y,z",
             prefix, prefix);
  len = Vec3Norm(opt.normal);
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%snormal must be a non-zero vector", prefix);
  PetscCheck(opt.k > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sstiffness must be > 0 (got %g)", prefix, (double)opt.k);
  for (int d = 0; d < 3; d++) opt.normal[d] /= len;
  PetscCall(PetscNew(&c));
  *c = opt;
  PetscCall(SimEnergyCreate("plane", SIM_ENERGY_POTENTIAL, &plane_ops, c, term));
  (*term)->per_vertex = PETSC_TRUE; /* on the model's first nown vertices: a rank's owned ones when distributed */
  PetscFunctionReturn(0);
}

/* -sphere_center x,y,z  -sphere_radius r (default 0.5)  -sphere_stiffness k */
PetscErrorCode SimEnergyCreate_Sphere(SimModel model, const char *prefix, SimEnergy *term)
{
  Collider *c, opt = {.nv = model->nown, .k = 1e4, .radius = 0.5, .sphere = PETSC_TRUE}; /* the term's data, allocated once the options are valid */
  PetscInt p3 = 3;
  PetscBool pset;

  PetscFunctionBeginUser;
  PetscOptionsBegin(model->comm, prefix, "Sphere collider (penalty)", "");
  PetscCall(PetscOptionsRealArray("-center", "center (m)", "", opt.point, &p3, &pset));
  PetscCall(PetscOptionsReal("-radius", "radius (m)", "", opt.radius, &opt.radius, NULL));
  PetscCall(PetscOptionsReal("-stiffness", "penalty stiffness (N/m)", "", opt.k, &opt.k, NULL));
  PetscOptionsEnd();
  PetscCheck(!pset || p3 == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%scenter takes 3 values x,y,z (got %" PetscInt_FMT ")", prefix, p3);
  PetscCheck(opt.radius > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sradius must be > 0 (got %g)", prefix, (double)opt.radius);
  PetscCheck(opt.k > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sstiffness must be > 0 (got %g)", prefix, (double)opt.k);
  PetscCall(PetscNew(&c));
  *c = opt;
  PetscCall(SimEnergyCreate("sphere", SIM_ENERGY_POTENTIAL, &sphere_ops, c, term));
  (*term)->per_vertex = PETSC_TRUE; /* on the model's first nown vertices: a rank's owned ones when distributed */
  PetscFunctionReturn(0);
}
