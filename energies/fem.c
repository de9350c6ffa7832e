/* Linear tetrahedral FEM energy term: value, gradient and element Hessians through one batched
 * material call per evaluation. */
#include "energies/fem.h"
#include "framework/linalg/vec3.h"
#include "framework/linalg/svd3.h"

typedef struct {
  PetscInt nv, ntet;
  PetscInt *tet;      /* 4 per tet */
  PetscReal *Dminv;   /* 9 per tet, row-major */
  PetscReal *W;       /* rest volume per tet */
  PetscReal *F, *P;   /* scratch: 9 per tet */
  PetscReal *dPdF;    /* scratch: 81 per tet */
  PetscReal *psi;     /* scratch: 1 per tet */
  PetscReal *rest;    /* rest positions (FVM normals) */
  PetscReal *frame;   /* 9 per tet: material frames R_e (SimFEMSetMaterialFrames), folded into Dminv; or NULL */
  SimMaterial mat;
} FEM;

static inline void Inverse3(const PetscReal *A, PetscReal *Ainv, PetscReal *det)
{
  PetscReal d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  *det = d;
  Ainv[0] = (A[4] * A[8] - A[5] * A[7]) / d;
  Ainv[1] = (A[2] * A[7] - A[1] * A[8]) / d;
  Ainv[2] = (A[1] * A[5] - A[2] * A[4]) / d;
  Ainv[3] = (A[5] * A[6] - A[3] * A[8]) / d;
  Ainv[4] = (A[0] * A[8] - A[2] * A[6]) / d;
  Ainv[5] = (A[2] * A[3] - A[0] * A[5]) / d;
  Ainv[6] = (A[3] * A[7] - A[4] * A[6]) / d;
  Ainv[7] = (A[1] * A[6] - A[0] * A[7]) / d;
  Ainv[8] = (A[0] * A[4] - A[1] * A[3]) / d;
}

/* Ds = [x1 - x0, x2 - x0, x3 - x0] (columns), row-major */
static inline void EdgeMatrix(const PetscReal *x, const PetscInt *t, PetscReal *Ds)
{
  for (int i = 0; i < 3; i++)
    for (int a = 0; a < 3; a++) Ds[3 * i + a] = x[3 * t[a + 1] + i] - x[3 * t[0] + i];
}

/* F_e = Ds Dm^-1 for every element: the first phase of every evaluation. */
static void DeformationGradients(const FEM *fem, const PetscReal *x)
{
  for (PetscInt e = 0; e < fem->ntet; e++) {
    PetscReal Ds[9];
    const PetscReal *B = fem->Dminv + 9 * e;
    PetscReal *F = fem->F + 9 * e;
    EdgeMatrix(x, fem->tet + 4 * e, Ds);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) F[3 * i + j] = Ds[3 * i] * B[j] + Ds[3 * i + 1] * B[3 + j] + Ds[3 * i + 2] * B[6 + j];
  }
}

static PetscErrorCode Value_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  FEM *fem = (FEM *)term->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  PetscCall(SimMaterialEnergy(fem->mat, fem->ntet, fem->F, fem->psi));
  for (PetscInt e = 0; e < fem->ntet; e++) sum += fem->W[e] * fem->psi[e];
  *E = sum;
  PetscFunctionReturn(0);
}

/* dE/dx_a = W P Dm^-T e_a for a = 1..3 (column a of W P Dm^-T), dE/dx_0 = -(sum of the others). */
static PetscErrorCode Gradient_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  PetscCall(SimMaterialPK1(fem->mat, fem->ntet, fem->F, fem->P));
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *P = fem->P + 9 * e, *B = fem->Dminv + 9 * e;
    const PetscInt *t = fem->tet + 4 * e;
    for (int i = 0; i < 3; i++) {
      PetscReal s = 0;
      for (int a = 0; a < 3; a++) {
        PetscReal ga = fem->W[e] * (P[3 * i] * B[3 * a] + P[3 * i + 1] * B[3 * a + 1] + P[3 * i + 2] * B[3 * a + 2]);
        g[3 * t[a + 1] + i] += ga;
        s += ga;
      }
      g[3 * t[0] + i] -= s;
    }
  }
  PetscFunctionReturn(0);
}

/* Element Hessian H = W B^T (dP/dF) B with B = dF/dx (9 x 12): dF_ij/dx_{a,k} = delta_ik Dminv_{a-1,j}
 * for a = 1..3 and minus their sum for a = 0. Written as 16 3x3 blocks in pattern order. */
static PetscErrorCode Hessian_FEM(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  PetscCall(SimMaterialHessian(fem->mat, fem->ntet, fem->F, psd, fem->dPdF));
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *A = fem->dPdF + 81 * e, *Bm = fem->Dminv + 9 * e;
    PetscReal d[4][3], AB[9][12], *out = vals + 144 * e;
    /* d[a][j] = dF_ij / dx_{a,i} */
    for (int j = 0; j < 3; j++) {
      d[1][j] = Bm[j], d[2][j] = Bm[3 + j], d[3][j] = Bm[6 + j];
      d[0][j] = -(d[1][j] + d[2][j] + d[3][j]);
    }
    /* AB = dP/dF B: column (b, l) of B has d[b][n] at row (l, n) */
    for (int r = 0; r < 9; r++)
      for (int b = 0; b < 4; b++)
        for (int l = 0; l < 3; l++) AB[r][3 * b + l] = A[9 * r + 3 * l] * d[b][0] + A[9 * r + 3 * l + 1] * d[b][1] + A[9 * r + 3 * l + 2] * d[b][2];
    /* H_{(a,k),(b,l)} = W sum_j d[a][j] AB[(k,j)][(b,l)] */
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscReal *blk = out + 9 * (4 * a + b);
        for (int k = 0; k < 3; k++)
          for (int l = 0; l < 3; l++)
            blk[3 * k + l] = fem->W[e] * (d[a][0] * AB[3 * k][3 * b + l] + d[a][1] * AB[3 * k + 1][3 * b + l] + d[a][2] * AB[3 * k + 2][3 * b + l]);
      }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_FEM(SimEnergy term, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  *nb = 16 * fem->ntet;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < fem->ntet; e++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        brow[16 * e + 4 * a + b] = fem->tet[4 * e + a];
        bcol[16 * e + 4 * a + b] = fem->tet[4 * e + b];
      }
  PetscFunctionReturn(0);
}

/* ---- projective dynamics: ARAP strain constraints (Bouaziz et al. 2014, strain constraints) ----
 * One constraint per tet on its 4 vertices: the 3 rows of A x_c are the columns of F = Ds Dm^-1
 * (row j of A holds dF_kj/dx_{a,k} = d[a][j], as in Hessian_FEM), the projection onto the
 * rotations is p = R^T with F = R S (SimPolar3: det R = +1, so an inverted F is pulled back), and
 * w = 2 mu W makes w/2 |F - R|^2 = W mu |F - R|^2, the `arap` material's energy (Chao et al.
 * 2010). Other materials have other energies, so only `arap` offers these constraints. */
static PetscErrorCode PDCount_FEM(SimEnergy term, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  FEM *fem = (FEM *)term->data;
  PetscBool arap;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(fem->mat->name, "arap", &arap));
  PetscCheck(arap, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "FEM term '%s' uses material '%s': projective dynamics supports the 'arap' material only "
             "(set the scene's material option, e.g. -beam_material arap)",
             term->name, fem->mat->name);
  *nc = fem->ntet, *nvert = 4, *nrows = 3;
  PetscFunctionReturn(0);
}

static PetscErrorCode PDStencil_FEM(SimEnergy term, PetscInt *vert, PetscReal *A, PetscReal *w)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *Bm = fem->Dminv + 9 * e;
    PetscReal *Ae = A + 12 * e;
    for (int a = 0; a < 4; a++) vert[4 * e + a] = fem->tet[4 * e + a];
    for (int j = 0; j < 3; j++) {
      Ae[4 * j + 1] = Bm[j], Ae[4 * j + 2] = Bm[3 + j], Ae[4 * j + 3] = Bm[6 + j];
      Ae[4 * j + 0] = -(Bm[j] + Bm[3 + j] + Bm[6 + j]);
    }
    w[e] = 2 * fem->mat->par.mu * fem->W[e];
  }
  PetscFunctionReturn(0);
}

/* Local step: F for every tet, then p = R^T from the polar decomposition F = R S; with strain
 * limits (the arap material's [s_min, s_max], Bouaziz et al. 2014 strain limiting) p = (U C V^T)^T
 * with F = U diag(s) V^T and C = diag(clamp(s_i, s_min, s_max)), the closest matrix whose singular
 * values lie in the band, so w/2 |F - U C V^T|^2 = W mu sum (s_i - c_i)^2 is the material's energy. */
static PetscErrorCode PDProject_FEM(SimEnergy term, const PetscReal *x, PetscReal *p)
{
  FEM *fem = (FEM *)term->data;
  const PetscReal smin = fem->mat->par.strain_min, smax = fem->mat->par.strain_max;
  const PetscBool limits = (PetscBool)(smin != 1 || smax != 1);

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  for (PetscInt e = 0; e < fem->ntet; e++) {
    PetscReal R[9], *pe = p + 9 * e;
    if (!limits) PetscCall(SimPolar3(fem->F + 9 * e, R, NULL));
    else {
      PetscReal U[9], sig[3], V[9];
      PetscCall(SimSvd3(fem->F + 9 * e, U, sig, V));
      for (int k = 0; k < 3; k++) sig[k] = PetscMin(PetscMax(sig[k], smin), smax);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = U[3 * i] * sig[0] * V[3 * j] + U[3 * i + 1] * sig[1] * V[3 * j + 1] + U[3 * i + 2] * sig[2] * V[3 * j + 2];
    }
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) pe[3 * j + k] = R[3 * k + j];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_FEM(SimEnergy term)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCall(SimMaterialDestroy(&fem->mat));
  PetscCall(PetscFree4(fem->tet, fem->Dminv, fem->W, fem->rest));
  PetscCall(PetscFree4(fem->F, fem->P, fem->dPdF, fem->psi));
  PetscCall(PetscFree(fem->frame));
  PetscCall(PetscFree(fem));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, SimMaterial mat,
                            SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_FEM, .gradient = Gradient_FEM, .hessian = Hessian_FEM, .pattern = Pattern_FEM, .destroy = Destroy_FEM,
                                   .pd_count = PDCount_FEM, .pd_stencil = PDStencil_FEM, .pd_project = PDProject_FEM};
  FEM *fem;

  PetscFunctionBeginUser;
  PetscCheck(ntet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FEM term '%s' has no tetrahedra", name);
  for (PetscInt e = 0; e < 4 * ntet; e++)
    PetscCheck(tet[e] >= 0 && tet[e] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Tetrahedron %" PetscInt_FMT " refers to vertex %" PetscInt_FMT " (valid 0 .. %" PetscInt_FMT ")",
               e / 4, tet[e], nv - 1);
  /* validate the rest shape before allocating, so an error leaves the material with the caller */
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal Dm[9], inv[9], det;
    EdgeMatrix(rest, tet + 4 * e, Dm);
    Inverse3(Dm, inv, &det);
    PetscCheck(det > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "Tetrahedron %" PetscInt_FMT " (vertices %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ") is %s at rest (6 x volume = %g); fix the mesh",
               e, tet[4 * e], tet[4 * e + 1], tet[4 * e + 2], tet[4 * e + 3], det < 0 ? "inverted" : "degenerate", (double)det);
  }
  PetscCall(PetscNew(&fem));
  fem->nv = nv;
  fem->ntet = ntet;
  fem->mat = mat;
  PetscCall(PetscMalloc4(4 * ntet, &fem->tet, 9 * ntet, &fem->Dminv, ntet, &fem->W, 3 * nv, &fem->rest));
  PetscCall(PetscMalloc4(9 * ntet, &fem->F, 9 * ntet, &fem->P, 81 * ntet, &fem->dPdF, ntet, &fem->psi));
  PetscCall(PetscArraycpy(fem->tet, tet, 4 * ntet));
  PetscCall(PetscArraycpy(fem->rest, rest, 3 * nv));
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal Dm[9], det;
    EdgeMatrix(rest, tet + 4 * e, Dm);
    Inverse3(Dm, fem->Dminv + 9 * e, &det);
    fem->W[e] = det / 6.0;
  }
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, fem, term));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMSetMaterialFrames(SimEnergy term, const PetscReal *R)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  PetscCheck(!fem->frame, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "FEM term '%s': material frames are already set", term->name);
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscReal *Q = R + 9 * e;
    const PetscReal det = Q[0] * (Q[4] * Q[8] - Q[5] * Q[7]) - Q[1] * (Q[3] * Q[8] - Q[5] * Q[6]) + Q[2] * (Q[3] * Q[7] - Q[4] * Q[6]);
    PetscReal err = 0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) err += PetscSqr(Q[i] * Q[j] + Q[3 + i] * Q[3 + j] + Q[6 + i] * Q[6 + j] - (i == j));
    PetscCheck(PetscSqrtReal(err) <= 1e-10 && det > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "FEM term '%s': the material frame of element %" PetscInt_FMT " is not a rotation (|R^T R - I| = %g, det %g)", term->name, e,
               (double)PetscSqrtReal(err), (double)det);
  }
  PetscCall(PetscMalloc1(9 * fem->ntet, &fem->frame));
  PetscCall(PetscArraycpy(fem->frame, R, 9 * fem->ntet));
  for (PetscInt e = 0; e < fem->ntet; e++) { /* Dm^-1 <- Dm^-1 R_e, so that F = Ds Dm^-1 R_e */
    PetscReal *B = fem->Dminv + 9 * e, A[9];
    const PetscReal *Q = R + 9 * e;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) A[3 * i + j] = B[3 * i] * Q[j] + B[3 * i + 1] * Q[3 + j] + B[3 * i + 2] * Q[6 + j];
    PetscCall(PetscArraycpy(B, A, 9));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMAddLumpedMass(SimModel model, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, PetscReal density)
{
  PetscFunctionBeginUser;
  PetscCheck(density > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Density must be > 0 (got %g)", (double)density);
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal quarter = density * PetscAbsReal(Vec3TetVolume(rest, tet + 4 * e)) / 4;
    for (int a = 0; a < 4; a++) PetscCall(SimModelAddMass(model, tet[4 * e + a], quarter));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMGetDeformation(SimEnergy term, const PetscReal *x, PetscInt *ntet, PetscReal *F, const PetscReal **volume)
{
  FEM *fem = (FEM *)term->data;

  PetscFunctionBeginUser;
  DeformationGradients(fem, x);
  *ntet = fem->ntet;
  if (F) PetscCall(PetscArraycpy(F, fem->F, 9 * fem->ntet));
  if (volume) *volume = fem->W;
  PetscFunctionReturn(0);
}

PetscErrorCode SimFEMForcesFVM(SimEnergy term, const PetscReal *x, PetscReal *f)
{
  FEM *fem = (FEM *)term->data;
  /* the face opposite vertex a, ordered so that its normal points out of a positive tet */
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(f, 3 * fem->nv));
  DeformationGradients(fem, x);
  PetscCall(SimMaterialPK1(fem->mat, fem->ntet, fem->F, fem->P));
  for (PetscInt e = 0; e < fem->ntet; e++) {
    const PetscInt *t = fem->tet + 4 * e;
    PetscReal P[9];
    if (fem->frame) { /* P = P_mat(F R) R^T in the reference frame of the normals */
      const PetscReal *Pm = fem->P + 9 * e, *Q = fem->frame + 9 * e;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P[3 * i + j] = Pm[3 * i] * Q[3 * j] + Pm[3 * i + 1] * Q[3 * j + 1] + Pm[3 * i + 2] * Q[3 * j + 2];
    } else PetscCall(PetscArraycpy(P, fem->P + 9 * e, 9));
    PetscReal AN[4][3]; /* area-weighted outward normal of the face opposite each vertex */
    for (int a = 0; a < 4; a++) {
      const PetscReal *p0 = fem->rest + 3 * t[face[a][0]], *p1 = fem->rest + 3 * t[face[a][1]], *p2 = fem->rest + 3 * t[face[a][2]];
      PetscReal u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, w[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
      AN[a][0] = 0.5 * (u[1] * w[2] - u[2] * w[1]);
      AN[a][1] = 0.5 * (u[2] * w[0] - u[0] * w[2]);
      AN[a][2] = 0.5 * (u[0] * w[1] - u[1] * w[0]);
    }
    /* vertex a touches the three faces other than its opposite one */
    for (int a = 0; a < 4; a++) {
      PetscReal N[3] = {0, 0, 0};
      for (int b = 0; b < 4; b++)
        if (b != a)
          for (int k = 0; k < 3; k++) N[k] += AN[b][k];
      for (int i = 0; i < 3; i++) f[3 * t[a] + i] -= (P[3 * i] * N[0] + P[3 * i + 1] * N[1] + P[3 * i + 2] * N[2]) / 3.0;
    }
  }
  PetscFunctionReturn(0);
}
