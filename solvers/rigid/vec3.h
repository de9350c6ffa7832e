/* 3-vector and 3x3 helpers shared by the rigid-body solvers (plain inline C on PetscReal arrays). */
#pragma once
#include <petscsys.h>

static inline void Cross(const PetscReal *a, const PetscReal *b, PetscReal *c)
{
  PetscReal r0 = a[1] * b[2] - a[2] * b[1], r1 = a[2] * b[0] - a[0] * b[2], r2 = a[0] * b[1] - a[1] * b[0];
  c[0] = r0, c[1] = r1, c[2] = r2;
}
static inline PetscReal Dot(const PetscReal *a, const PetscReal *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void MatVec(const PetscReal *M, const PetscReal *v, PetscReal *o)
{
  for (int i = 0; i < 3; i++) o[i] = M[3 * i] * v[0] + M[3 * i + 1] * v[1] + M[3 * i + 2] * v[2];
}
/* o = M^T v */
static inline void MatTVec(const PetscReal *M, const PetscReal *v, PetscReal *o)
{
  for (int i = 0; i < 3; i++) o[i] = M[i] * v[0] + M[3 + i] * v[1] + M[6 + i] * v[2];
}
