/* Shared by the FEM scenes: turns a tetrahedral mesh into an elastic body of the model. */
#pragma once
#include "framework/scene.h"
#include "framework/mesh/mesh.h"

/* Sets the model's vertices from mesh (which must be the only body), lumped masses from the
 * density, and adds an FEM term with the material named by -<prefix>material (default
 * `default_material`), whose parameters are -<prefix>youngs, -<prefix>poisson, -<prefix>density;
 * the output topology is the boundary faces plus the tets. */
PetscErrorCode SimSceneAddFEMBody(SimScene scene, SimModel model, const SimMesh *mesh, const char *prefix, const char *default_material,
                                  PetscReal default_youngs);
