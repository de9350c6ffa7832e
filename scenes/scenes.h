/* Constructors of the built-in scenes (registered in scenes/register.c). */
#pragma once
#include "framework/scene.h"
#include "problems/mesh/mesh.h"
#include "problems/grid/grid.h"
#include "problems/particles/particles.h"

PetscErrorCode SimSceneCreate_Oscillator(SimScene);
PetscErrorCode SimSceneCreate_Rope(SimScene);
PetscErrorCode SimSceneCreate_Cloth(SimScene);
PetscErrorCode SimSceneCreate_Spin(SimScene);
PetscErrorCode SimSceneCreate_Bounce(SimScene);
PetscErrorCode SimSceneCreate_Slope(SimScene);
PetscErrorCode SimSceneCreate_Stack(SimScene);
PetscErrorCode SimSceneCreate_Cradle(SimScene);
PetscErrorCode SimSceneCreate_Chain(SimScene);
PetscErrorCode SimSceneCreate_Lattice(SimScene);
PetscErrorCode SimSceneCreate_File(SimScene);
PetscErrorCode SimSceneCreate_Beam(SimScene);
PetscErrorCode SimSceneCreate_Drop(SimScene);
PetscErrorCode SimSceneCreate_Twist(SimScene);
PetscErrorCode SimSceneCreate_SquishyBall(SimScene);
PetscErrorCode SimSceneCreate_IPCStack(SimScene);
PetscErrorCode SimSceneCreate_TaylorGreen(SimScene);
PetscErrorCode SimSceneCreate_LidCavity(SimScene);
PetscErrorCode SimSceneCreate_SmokePlume(SimScene);
PetscErrorCode SimSceneCreate_JellyBlocks(SimScene);
