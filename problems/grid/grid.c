/* The "grid" problem type: holds the grid description; the grid solver holds the fields. */
#include "framework/problem_impl.h"
#include "problems/grid/grid.h"

static PetscErrorCode Size_Grid(SimProblem p, PetscInt *count, const char **unit);

static PetscErrorCode GetDescription(SimProblem p, SimGridProblem **desc)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ops.size == Size_Grid, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Problem '%s' is a %s problem, not a grid", p->name, p->type);
  *desc = (SimGridProblem *)p->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimGridProblemGetDescription(SimProblem p, SimGridProblem **desc)
{
  PetscFunctionBeginUser;
  PetscCall(GetDescription(p, desc));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_Grid(SimProblem p)
{
  PetscFunctionBeginUser;
  PetscCall(SimGridProblemCheck((SimGridProblem *)p->data, p->name));
  PetscFunctionReturn(0);
}

static PetscErrorCode Size_Grid(SimProblem p, PetscInt *count, const char **unit)
{
  const SimGridProblem *g = (SimGridProblem *)p->data;

  PetscFunctionBeginUser;
  *count = g->n[0] * g->n[1] * g->n[2];
  *unit = "cells";
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary_Grid(SimProblem p, char *buf, size_t len)
{
  const SimGridProblem *g = (SimGridProblem *)p->data;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT "D grid, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells", g->dim, g->n[0],
                          g->n[1], g->n[2]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Grid(SimProblem p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemCreate_Grid(SimProblem p)
{
  static const SimProblemOps ops = {.setup = SetUp_Grid, .size = Size_Grid, .summary = Summary_Grid, .destroy = Destroy_Grid};
  SimGridProblem *desc = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&desc));
  PetscCall(SimGridProblemSetDefaults(desc));
  p->data = desc;
  p->ops = ops;
  PetscCall(PetscStrncpy(p->frame_ext, "vti", sizeof(p->frame_ext)));
  PetscFunctionReturn(0);
}

PetscErrorCode SimGridProblemCreateFromDescription(SimRegistry reg, MPI_Comm comm, const SimGridProblem *src, const char *name,
                                                   SimProblem *problem)
{
  SimGridProblem *desc = NULL;

  PetscFunctionBeginUser;
  PetscCall(SimProblemCreate(reg, "grid", name, comm, problem));
  PetscCall(GetDescription(*problem, &desc));
  *desc = *src;
  PetscCall(SimProblemSetUp(*problem));
  PetscFunctionReturn(0);
}
