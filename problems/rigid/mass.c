/* Polyhedral mass properties (Eberly's form of Mirtich's algorithm) and principal axes. */
#include <gsl/gsl_eigen.h>
#include "problems/rigid/mass.h"

/* Eberly's subexpressions of one coordinate over a triangle's corners. */
static void Sub(PetscReal w0, PetscReal w1, PetscReal w2, PetscReal *f1, PetscReal *f2, PetscReal *f3, PetscReal *g0, PetscReal *g1, PetscReal *g2)
{
  const PetscReal t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
  *f1 = t0 + w2;
  *f2 = t2 + w2 * *f1;
  *f3 = w0 * t1 + w1 * t2 + w2 * *f2;
  *g0 = *f2 + w0 * (*f1 + w0);
  *g1 = *f2 + w1 * (*f1 + w1);
  *g2 = *f2 + w2 * (*f1 + w2);
}

PetscErrorCode SimMeshMassProperties(PetscInt nv, const PetscReal *xyz, PetscInt ntri, const PetscInt *tri, PetscReal density, PetscReal *mass, PetscReal com[3],
                                     PetscReal inertia[9])
{
  /* integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over the solid */
  static const PetscReal mult[10] = {1. / 6, 1. / 24, 1. / 24, 1. / 24, 1. / 60, 1. / 60, 1. / 60, 1. / 120, 1. / 120, 1. / 120};
  PetscReal in[10] = {0}, m, cx, cy, cz;

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < ntri; t++) {
    const PetscReal *p0 = xyz + 3 * tri[3 * t], *p1 = xyz + 3 * tri[3 * t + 1], *p2 = xyz + 3 * tri[3 * t + 2];
    const PetscReal a1 = p1[0] - p0[0], b1 = p1[1] - p0[1], c1 = p1[2] - p0[2], a2 = p2[0] - p0[0], b2 = p2[1] - p0[1], c2 = p2[2] - p0[2];
    const PetscReal d0 = b1 * c2 - b2 * c1, d1 = a2 * c1 - a1 * c2, d2 = a1 * b2 - a2 * b1;
    PetscReal f1x, f2x, f3x, g0x, g1x, g2x, f1y, f2y, f3y, g0y, g1y, g2y, f1z, f2z, f3z, g0z, g1z, g2z;
    Sub(p0[0], p1[0], p2[0], &f1x, &f2x, &f3x, &g0x, &g1x, &g2x);
    Sub(p0[1], p1[1], p2[1], &f1y, &f2y, &f3y, &g0y, &g1y, &g2y);
    Sub(p0[2], p1[2], p2[2], &f1z, &f2z, &f3z, &g0z, &g1z, &g2z);
    in[0] += d0 * f1x;
    in[1] += d0 * f2x, in[2] += d1 * f2y, in[3] += d2 * f2z;
    in[4] += d0 * f3x, in[5] += d1 * f3y, in[6] += d2 * f3z;
    in[7] += d0 * (p0[1] * g0x + p1[1] * g1x + p2[1] * g2x);
    in[8] += d1 * (p0[2] * g0y + p1[2] * g1y + p2[2] * g2y);
    in[9] += d2 * (p0[0] * g0z + p1[0] * g1z + p2[0] * g2z);
  }
  for (int k = 0; k < 10; k++) in[k] *= mult[k] * density;
  m = in[0];
  PetscCheck(m > 0 && PetscIsNormalReal(m), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "The mesh (%" PetscInt_FMT " vertices, %" PetscInt_FMT " triangles) bounds no positive volume: it must be closed with outward triangles (and density > 0)",
             nv, ntri);
  cx = in[1] / m, cy = in[2] / m, cz = in[3] / m;
  inertia[0] = in[5] + in[6] - m * (cy * cy + cz * cz);
  inertia[4] = in[4] + in[6] - m * (cz * cz + cx * cx);
  inertia[8] = in[4] + in[5] - m * (cx * cx + cy * cy);
  inertia[1] = inertia[3] = -(in[7] - m * cx * cy);
  inertia[5] = inertia[7] = -(in[8] - m * cy * cz);
  inertia[2] = inertia[6] = -(in[9] - m * cz * cx);
  *mass = m, com[0] = cx, com[1] = cy, com[2] = cz;
  PetscFunctionReturn(0);
}

PetscErrorCode SimInertiaPrincipal(const PetscReal inertia[9], PetscReal Ip[3], PetscReal R[9])
{
  double a[9], ev[3], vec[9], det;
  gsl_matrix_view A = gsl_matrix_view_array(a, 3, 3), V = gsl_matrix_view_array(vec, 3, 3);
  gsl_vector_view E = gsl_vector_view_array(ev, 3);
  gsl_eigen_symmv_workspace *w;

  PetscFunctionBeginUser;
  for (int k = 0; k < 9; k++) a[k] = (double)inertia[k];
  w = gsl_eigen_symmv_alloc(3);
  PetscCheck(w, PETSC_COMM_SELF, PETSC_ERR_MEM, "gsl_eigen_symmv_alloc failed");
  gsl_eigen_symmv(&A.matrix, &E.vector, &V.matrix, w);
  gsl_eigen_symmv_free(w);
  gsl_eigen_symmv_sort(&E.vector, &V.matrix, GSL_EIGEN_SORT_VAL_ASC);
  /* a rotation: flip the last axis of a left-handed frame */
  det = vec[0] * (vec[4] * vec[8] - vec[5] * vec[7]) - vec[1] * (vec[3] * vec[8] - vec[5] * vec[6]) + vec[2] * (vec[3] * vec[7] - vec[4] * vec[6]);
  if (det < 0)
    for (int i = 0; i < 3; i++) vec[3 * i + 2] = -vec[3 * i + 2];
  for (int k = 0; k < 3; k++) Ip[k] = (PetscReal)ev[k];
  for (int k = 0; k < 9; k++) R[k] = (PetscReal)vec[k];
  PetscFunctionReturn(0);
}
