/* Private side of SimProblem: the ops table and the object, for problem-type implementations
 * (problems/<type>/) only. */
#pragma once
#include "framework/problem.h"

/* Ops. Required: size, summary. Optional (the front end supplies the default in brackets):
 *   setup        [nothing]       after the scene filled the problem
 *   state        [NULL state]    the Vec the problem holds
 *   before_step, after_step [nothing]
 *   report       [no report]     energy/momentum of the state it holds
 *   is_finite    [finite norm of `state`, or PETSC_TRUE without one]
 *   admissible   [always]        rules of the state beyond finiteness (contact: no intersection)
 *   stash        [nothing]       copy / restore of the last good state
 *   write_frame, write_image [not written]
 *   write_xdmf   [not written]   a frame as XDMF + HDF5, collectively (framework/io/xdmf.h; -output_format xdmf)
 *   save, load   [nothing]       checkpoint of the state it holds
 *   view         [nothing beyond type and summary]
 *   destroy      [nothing] */
typedef struct {
  PetscErrorCode (*setup)(SimProblem);
  PetscErrorCode (*size)(SimProblem, PetscInt *count, const char **unit);
  PetscErrorCode (*summary)(SimProblem, char *buf, size_t len);
  PetscErrorCode (*state)(SimProblem, Vec *);
  PetscErrorCode (*before_step)(SimProblem, PetscReal t, PetscReal dt);
  PetscErrorCode (*after_step)(SimProblem, PetscReal t, PetscReal dt);
  PetscErrorCode (*report)(SimProblem, SimEnergyReport *);
  PetscErrorCode (*is_finite)(SimProblem, PetscBool *);
  PetscErrorCode (*stash)(SimProblem, PetscBool restore);
  PetscErrorCode (*write_frame)(SimProblem, const char *path);
  PetscErrorCode (*write_image)(SimProblem, const char *caption, const char *path);
  PetscErrorCode (*write_xdmf)(SimProblem, const char *path); /* path: the frame's .xmf */
  PetscErrorCode (*save)(SimProblem, PetscViewer);
  PetscErrorCode (*load)(SimProblem, PetscViewer);
  PetscErrorCode (*view)(SimProblem, PetscViewer);
  PetscErrorCode (*destroy)(SimProblem);
  PetscErrorCode (*admissible)(SimProblem, char *why, size_t len);
} SimProblemOps;

struct _p_SimProblem {
  char type[64];
  char name[64];
  MPI_Comm comm;
  SimRegistry reg;       /* the tables it was created from (energy terms, materials) */
  char frame_ext[8];     /* set by the constructor, e.g. "vtu" */
  SimProblemOps ops;
  void *data;            /* implementation data */
  PetscBool setupcalled;
};
