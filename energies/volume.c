/* Tet volume constraints (volume.h): C_e = V_e - V0_e, w_e = k / V0_e. */
#include "energies/volume.h"
#include "framework/linalg/psd.h"
#include "framework/linalg/vec3.h"

typedef struct {
  PetscInt ntet;
  PetscInt *tet; /* 4 per tet */
  PetscReal *V0; /* rest volume */
  PetscReal *w;  /* k / V0 */
} Volume;

PetscReal SimTetVolume(const PetscReal *x0, const PetscReal *x1, const PetscReal *x2, const PetscReal *x3, PetscReal *g)
{
  PetscReal e1[3], e2[3], e3[3], c23[3];

  for (int k = 0; k < 3; k++) e1[k] = x1[k] - x0[k], e2[k] = x2[k] - x0[k], e3[k] = x3[k] - x0[k];
  Vec3Cross(e2, e3, c23);
  if (g) {
    PetscReal c31[3], c12[3];
    Vec3Cross(e3, e1, c31);
    Vec3Cross(e1, e2, c12);
    for (int k = 0; k < 3; k++) {
      g[3 + k] = c23[k] / 6, g[6 + k] = c31[k] / 6, g[9 + k] = c12[k] / 6;
      g[k] = -(g[3 + k] + g[6 + k] + g[9 + k]);
    }
  }
  return Vec3Dot(e1, c23) / 6;
}

static inline PetscReal TetC(const Volume *vol, PetscInt e, const PetscReal *x, PetscReal *g)
{
  const PetscInt *t = vol->tet + 4 * e;
  return SimTetVolume(x + 3 * t[0], x + 3 * t[1], x + 3 * t[2], x + 3 * t[3], g) - vol->V0[e];
}

static PetscErrorCode Value_Volume(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Volume *vol = (Volume *)term->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < vol->ntet; e++) {
    const PetscReal C = TetC(vol, e, x, NULL);
    sum += 0.5 * vol->w[e] * C * C;
  }
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Volume(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscReal *grad)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < vol->ntet; e++) {
    PetscReal g[12];
    const PetscReal C = TetC(vol, e, x, g);
    for (int a = 0; a < 4; a++)
      for (int k = 0; k < 3; k++) grad[3 * vol->tet[4 * e + a] + k] += vol->w[e] * C * g[3 * a + k];
  }
  PetscFunctionReturn(0);
}

/* d2V (12 x 12, row-major over (vertex, coordinate)) of tet e: d2V/de_i de_j = -(1/6) eps_ijk [e_k]x
 * for the edges e_i = x_i - x0 (V = e1 . (e2 x e3) / 6), mapped to the vertices (x0's blocks are
 * minus the sums). */
static void TetVolumeHessian(const Volume *vol, PetscInt e, const PetscReal *x, PetscReal *H)
{
  const PetscInt *t = vol->tet + 4 * e;
  PetscReal He[3][3][9] = {{{0}}}, ed[3][3];

  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) ed[i][k] = x[3 * t[i + 1] + k] - x[3 * t[0] + k];
  /* edge blocks: (i, j, k) cyclic: He_ij = -[e_k]x / 6, He_ji = +[e_k]x / 6 */
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const PetscReal *ek = ed[k];
    const PetscReal S[9] = {0, -ek[2], ek[1], ek[2], 0, -ek[0], -ek[1], ek[0], 0}; /* [e_k]x */
    for (int r = 0; r < 9; r++) He[i][j][r] = -S[r] / 6, He[j][i][r] = S[r] / 6;
  }
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          PetscReal h = 0;
          if (a > 0 && b > 0) h = He[a - 1][b - 1][3 * r + c];
          else if (a == 0 && b > 0)
            for (int i = 0; i < 3; i++) h -= He[i][b - 1][3 * r + c];
          else if (a > 0 && b == 0)
            for (int j = 0; j < 3; j++) h -= He[a - 1][j][3 * r + c];
          else
            for (int i = 0; i < 3; i++)
              for (int j = 0; j < 3; j++) h += He[i][j][3 * r + c];
          H[12 * (3 * a + r) + 3 * b + c] = h;
        }
}

/* H = w (g g^T + C d2V). psd: the exact projection of the 12 x 12 matrix. */
static PetscErrorCode Hessian_Volume(SimEnergy term, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < vol->ntet; e++) {
    PetscReal g[12], H[144];
    const PetscReal C = TetC(vol, e, x, g), w = vol->w[e];
    TetVolumeHessian(vol, e, x, H);
    for (int i = 0; i < 12; i++)
      for (int j = 0; j < 12; j++) H[12 * i + j] = w * (g[i] * g[j] + C * H[12 * i + j]);
    if (psd) PetscCall(SimSymProjectPSD(12, H));
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++)
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) vals[144 * e + 9 * (4 * a + b) + 3 * r + c] = H[12 * (3 * a + r) + 3 * b + c];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Pattern_Volume(SimEnergy term, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  *nb = 16 * vol->ntet;
  if (!brow) PetscFunctionReturn(0);
  for (PetscInt e = 0; e < vol->ntet; e++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) brow[16 * e + 4 * a + b] = vol->tet[4 * e + a], bcol[16 * e + 4 * a + b] = vol->tet[4 * e + b];
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsCount_Volume(SimEnergy term, PetscInt *nc, PetscInt *nvert)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  *nc = vol->ntet, *nvert = 4;
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsStencil_Volume(SimEnergy term, PetscInt *vert, PetscReal *w)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(vert, vol->tet, 4 * vol->ntet));
  PetscCall(PetscArraycpy(w, vol->w, vol->ntet));
  PetscFunctionReturn(0);
}

static PetscErrorCode ConsEval_Volume(SimEnergy term, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *C, PetscReal *grad)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) C[q] = TetC(vol, idx[q], x, grad + 12 * q);
  PetscFunctionReturn(0);
}

/* d2C = d2V (the compliant solver's geometric stiffness). */
static PetscErrorCode ConsHessian_Volume(SimEnergy term, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *H)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) TetVolumeHessian(vol, idx[q], x, H + 144 * q);
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Volume(SimEnergy term)
{
  Volume *vol = (Volume *)term->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree3(vol->tet, vol->V0, vol->w));
  PetscCall(PetscFree(vol));
  PetscFunctionReturn(0);
}

PetscErrorCode SimVolumeCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, PetscReal k, SimEnergy *term)
{
  static const SimEnergyOps ops = {.value = Value_Volume, .gradient = Gradient_Volume, .hessian = Hessian_Volume, .pattern = Pattern_Volume,
                                   .destroy = Destroy_Volume, .cons_count = ConsCount_Volume, .cons_stencil = ConsStencil_Volume,
                                   .cons_eval = ConsEval_Volume, .cons_hessian = ConsHessian_Volume};
  Volume *vol;

  PetscFunctionBeginUser;
  PetscCheck(k > 0 && PetscIsNormalReal(k), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Volume term '%s': stiffness %g must be finite and > 0 (Pa)", name,
             (double)k);
  PetscCall(PetscNew(&vol));
  vol->ntet = ntet;
  PetscCall(PetscMalloc3(4 * ntet + 4, &vol->tet, ntet + 1, &vol->V0, ntet + 1, &vol->w));
  for (PetscInt e = 0; e < ntet; e++) {
    for (int a = 0; a < 4; a++) {
      PetscCheck(tet[4 * e + a] >= 0 && tet[4 * e + a] < nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Volume term '%s': tet %" PetscInt_FMT " refers to vertex %" PetscInt_FMT " (valid 0 .. %" PetscInt_FMT ")", name, e, tet[4 * e + a], nv - 1);
      vol->tet[4 * e + a] = tet[4 * e + a];
    }
    vol->V0[e] = SimTetVolume(rest + 3 * tet[4 * e], rest + 3 * tet[4 * e + 1], rest + 3 * tet[4 * e + 2], rest + 3 * tet[4 * e + 3], NULL);
    PetscCheck(vol->V0[e] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Volume term '%s': tet %" PetscInt_FMT " has rest volume %g <= 0 (inverted or flat)",
               name, e, (double)vol->V0[e]);
    vol->w[e] = k / vol->V0[e];
  }
  PetscCall(SimEnergyCreate(name, SIM_ENERGY_POTENTIAL, &ops, vol, term));
  PetscFunctionReturn(0);
}
