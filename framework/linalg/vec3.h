/* Inline helpers for 3-vectors stored in flat arrays (the hot loops' vocabulary). */
#pragma once
#include <petscsys.h>

static inline void Vec3Sub(const PetscReal *a, const PetscReal *b, PetscReal *c)
{
  c[0] = a[0] - b[0];
  c[1] = a[1] - b[1];
  c[2] = a[2] - b[2];
}
static inline PetscReal Vec3Dot(const PetscReal *a, const PetscReal *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline PetscReal Vec3Norm(const PetscReal *a)
{
  return PetscSqrtReal(Vec3Dot(a, a));
}
static inline void Vec3Cross(const PetscReal *a, const PetscReal *b, PetscReal *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
/* Signed volume of the tetrahedron t (4 vertex indices into flat xyz): positive when
 * (x1 - x0, x2 - x0, x3 - x0) is right-handed. */
static inline PetscReal Vec3TetVolume(const PetscReal *xyz, const PetscInt *t)
{
  PetscReal u[3], v[3], w[3], c[3];
  Vec3Sub(xyz + 3 * t[1], xyz + 3 * t[0], u);
  Vec3Sub(xyz + 3 * t[2], xyz + 3 * t[0], v);
  Vec3Sub(xyz + 3 * t[3], xyz + 3 * t[0], w);
  Vec3Cross(v, w, c);
  return Vec3Dot(u, c) / 6;
}
/* Writes the 3x3 block s * (a b^T) + t * I, row-major. */
static inline void Mat3OuterPlusIdentity(const PetscReal *a, const PetscReal *b, PetscReal s, PetscReal t, PetscReal *B)
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) B[3 * r + c] = s * a[r] * b[c] + (r == c ? t : 0.0);
}

/* The rotation R (3x3 row-major) with R a = b for unit vectors a, b: the smallest one, about a x b
 * (R = I + [v]x + [v]x^2 / (1 + a.b), v = a x b); for b = -a a half-turn about an axis orthogonal to
 * a. Used to turn a material direction a into per-element directions b_e (SimFEMSetMaterialFrames). */
static inline void Vec3RotationBetween(const PetscReal *a, const PetscReal *b, PetscReal *R)
{
  const PetscReal c = Vec3Dot(a, b);
  PetscReal v[3];

  Vec3Cross(a, b, v);
  if (c > -1 + 1e-12) {
    const PetscReal K[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0}, f = 1 / (1 + c);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        R[3 * i + j] = (i == j) + K[3 * i + j] + f * (K[3 * i] * K[j] + K[3 * i + 1] * K[3 + j] + K[3 * i + 2] * K[6 + j]);
  } else { /* half-turn about u orthogonal to a: R = 2 u u^T - I */
    const PetscReal e[3] = {PetscAbsReal(a[0]) < 0.9 ? 1.0 : 0.0, PetscAbsReal(a[0]) < 0.9 ? 0.0 : 1.0, 0};
    PetscReal u[3], n;
    Vec3Cross(a, e, u);
    n = Vec3Norm(u);
    for (int i = 0; i < 3; i++) u[i] /= n;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) R[3 * i + j] = 2 * u[i] * u[j] - (i == j);
  }
}
