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
