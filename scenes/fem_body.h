/* Shared by the FEM scenes: turns a tetrahedral mesh into an elastic body of the model. */
#pragma once
#include "framework/scene.h"
#include "framework/model/model.h"
#include "framework/mesh/mesh.h"

/* Sets the model's vertices from mesh (which must be the only body), lumped masses from the
 * density, and adds an FEM term with the material named by -<prefix>material (default
 * `default_material`), whose parameters are -<prefix>youngs, -<prefix>poisson, -<prefix>density;
 * the output topology is the boundary faces plus the tets.
 * On several ranks the cells are partitioned (framework/mesh/distribute.h): the FEM term holds this
 * rank's cells only (a distributed term) and the mesh is RENUMBERED IN PLACE so that each rank's
 * vertices are contiguous, the model keeping the map back to the input numbering. Pin by geometry
 * from mesh->xyz after the call; map input vertex numbers with SimModelVertexFromNatural.
 * On an error the mesh is freed (the run ends; the caller returns the error). */
PetscErrorCode SimSceneAddFEMBody(SimScene scene, SimModel model, SimMesh *mesh, const char *prefix, const char *default_material,
                                  PetscReal default_youngs);
