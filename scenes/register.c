/* The scenes table: one line per registered scene generator. */
#include "scenes/register.h"
#include "scenes/scenes.h"

#define ADD(name, help, fn) PetscCall(SimRegistryAdd(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0))

PetscErrorCode SimRegisterScenes(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("oscillator", "one mass on one spring from a pinned anchor; analytic solution", SimSceneCreate_Oscillator);
  ADD("rope", "a chain of masses and springs pinned at one end, swinging under gravity", SimSceneCreate_Rope);
  ADD("cloth", "n x m cloth: structural, shear and bending springs; pinned corners or edge", SimSceneCreate_Cloth);
  ADD("lattice", "3D spring cube (structural + shear + bending) dropped on a ground plane", SimSceneCreate_Lattice);
  ADD("file", "a body from a mesh file (.obj springs + bending, .msh/.node tets as edge springs)", SimSceneCreate_File);
  ADD("beam", "cantilever: a tet box clamped at x = 0 sagging under gravity (FEM; -beam_material)", SimSceneCreate_Beam);
  ADD("drop", "a soft elastic box falling on a ground plane (FEM; -drop_material)", SimSceneCreate_Drop);
  ADD("twist", "an elastic bar whose clamped ends turn in opposite directions (FEM, scripted pins; -twist_material)", SimSceneCreate_Twist);
  PetscFunctionReturn(0);
}
