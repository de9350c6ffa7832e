/* The energy-term table: one line per term. Terms with a constructor can be created from options
 * (-colliders plane,sphere; gravity always); the others are built by scenes and listed here so
 * that `pbsim list` documents them. */
#include "energies/register.h"
#include "energies/energies.h"
#include "energies/ipc/ipc.h"

#define ADD(name, help, fn) PetscCall(SimRegistryAdd(reg, SIM_KIND_ENERGY, name, help, (SimGenericFn)(fn), 0))

PetscErrorCode SimRegisterEnergies(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("spring", "Hookean springs k/2 (|xi - xj| - L)^2, PSD-projected when compressed (built by scenes)", NULL);
  ADD("spring_damping", "Rayleigh damping kd/2 ((vi - vj).d)^2 along each spring (scenes: *_damping)", NULL);
  ADD("attachment", "soft positional attachments k/2 |x_i - t_i|^2 (built by scenes: -cloth_attach)", NULL);
  ADD("elastic", "linear tetrahedral FEM, sum of V psi(F) with a registered material (built by the FEM scenes: -<scene>_material)", NULL);
  ADD("triangles", "membrane strain of triangles in 3D, mu A |F - R|^2 with F 3x2 (built by scenes: -cloth_model fem)", NULL);
  ADD("bending", "quadratic isometric bending over interior edges (Bergou et al. 2006; built by scenes: -cloth_model fem)", NULL);
  ADD("shape_matching", "shape matching (Mueller et al. 2005): rigid, linear or quadratic goals of vertex clusters (FEM scenes: -<scene>_shape k; pbd/xpbd)", NULL);
  ADD("gravity", "-m g . x, from -gravity gx,gy,gz (default 0,-9.81,0)", SimEnergyCreate_Gravity);
  ADD("plane", "penalty plane collider (-colliders plane; -plane_point, -plane_normal, -plane_stiffness)", SimEnergyCreate_Plane);
  ADD("sphere", "penalty sphere collider (-colliders sphere; -sphere_center, -sphere_radius, -sphere_stiffness)", SimEnergyCreate_Sphere);
  ADD("ipc", "IPC contact (Li et al. 2020): log barrier on surface distances and a plane/sphere, CCD-bounded Newton, lagged friction (-colliders ipc; docs/ipc.md)", SimEnergyCreate_IPC);
  PetscFunctionReturn(0);
}
