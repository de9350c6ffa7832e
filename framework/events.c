/* Registration of pbsim's PETSc log events (see events.h). */
#include "framework/events.h"

PetscErrorCode SimEventsGet(SimEvents *ev)
{
  /* PETSc's event ids are process-wide by nature; registering twice would create duplicates. */
  static SimEvents registered;
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!done) {
    PetscCall(PetscClassIdRegister("pbsim", &registered.classid));
    PetscCall(PetscLogEventRegister("SimStep", registered.classid, &registered.step));
    PetscCall(PetscLogEventRegister("SimForce", registered.classid, &registered.force));
    PetscCall(PetscLogEventRegister("SimAssemble", registered.classid, &registered.assemble));
    PetscCall(PetscLogEventRegister("SimFactor", registered.classid, &registered.factor));
    PetscCall(PetscLogEventRegister("SimSolve", registered.classid, &registered.solve));
    PetscCall(PetscLogEventRegister("SimLineSearch", registered.classid, &registered.linesearch));
    PetscCall(PetscLogEventRegister("SimOutput", registered.classid, &registered.output));
    done = PETSC_TRUE;
  }
  *ev = registered;
  PetscFunctionReturn(0);
}
