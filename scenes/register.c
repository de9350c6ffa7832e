/* The scenes table: one line per registered scene generator. */
#include "scenes/register.h"
#include "scenes/scenes.h"

/* A scene names the problem type it builds (problems/register.c). */
#define ADD(name, help, fn) PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0, "mesh"))
#define ADD_RIGID(name, help, fn) PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0, "rigid"))
#define ADD_GRID(name, help, fn) PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0, "grid"))
#define ADD_PARTICLES(name, help, fn) PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0, "particles"))
/* A scene whose default solver is not its problem type's (particle fluids: sph, not mpm). */
#define ADD_WITH_SOLVER(type, name, help, fn, solver) \
  do { \
    PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, name, help, (SimGenericFn)(fn), 0, type)); \
    PetscCall(SimRegistrySetDefaultSolver(reg, name, solver)); \
  } while (0)
#define ADD_FLUID_PARTICLES(name, help, fn) ADD_WITH_SOLVER("particles", name, help, fn, "sph")

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
  ADD("squishy_ball", "a soft neo-Hookean ball dropped on the ground with IPC contact (-squishy_ball_n; docs/ipc.md)", SimSceneCreate_SquishyBall);
  ADD("ipc_stack", "a column of elastic bodies landing on each other with IPC contact (-ipc_stack_count, -ipc_stack_mesh; docs/ipc.md)", SimSceneCreate_IPCStack);
  ADD("twist", "an elastic bar whose clamped ends turn in opposite directions (FEM, scripted pins; -twist_material)", SimSceneCreate_Twist);
  /* rigid-body scenes: for the rigid solver (docs/rigid.md) */
  ADD_RIGID("spin", "a free box spinning about a principal axis (-spin_axis major|intermediate|minor): the intermediate-axis flip", SimSceneCreate_Spin);
  ADD_RIGID("bounce", "a box dropped flat on the ground with restitution e: rebounds to e^2 of its height (-bounce_restitution)", SimSceneCreate_Bounce);
  ADD_RIGID("slope", "a box on an inclined plane with Coulomb friction: sticks below tan(angle) = mu (-slope_angle, -slope_friction)", SimSceneCreate_Slope);
  ADD_RIGID("stack", "a stack of boxes on the ground (-stack_n, default 10)", SimSceneCreate_Stack);
  ADD_RIGID("cradle", "Newton's cradle: spheres on rods (ball joints), restitution 1 (-cradle_n, -cradle_speed)", SimSceneCreate_Cradle);
  ADD_RIGID("chain", "a chain of boxes linked by joints swinging from one end (-chain_n 20, -chain_joint ball|hinge|fixed)", SimSceneCreate_Chain);
  ADD_RIGID("hull", "a convex hull of a mesh's vertices (or of points on an ellipsoid) dropped on a slope (-hull_mesh, -hull_slope)", SimSceneCreate_Hull);
  ADD_RIGID("hulls", "a tetrahedron, an octahedron, a hexagonal prism, a cube and an ellipsoid's hull tumbling onto a static box ramp (-hulls_ramp)", SimSceneCreate_Hulls);
  /* grid scenes: Eulerian problems for grid solvers (stablefluids) */
  ADD_GRID("taylor_green", "2D Taylor-Green vortex in a free-slip box, analytic decay (-taylor_green_n, -taylor_green_re; 0 = inviscid)", SimSceneCreate_TaylorGreen);
  ADD_GRID("lid_cavity", "2D lid-driven cavity, viscous (-lid_cavity_n, -lid_cavity_re)", SimSceneCreate_LidCavity);
  ADD_GRID("smoke_plume", "hot smoke rising from a floor inlet, 2D or 3D (-smoke_plume_dim, -smoke_plume_n)", SimSceneCreate_SmokePlume);
  /* height-field water: grid scenes for the shallow_water solver (docs/shallow_water.md) */
  ADD_WITH_SOLVER("grid", "dam_break_swe", "shallow-water dam break in a channel, 1D or with a breach 2D (-dam_break_swe_left, -right, -breach)",
                  SimSceneCreate_DamBreakSWE, "shallow_water");
  ADD_WITH_SOLVER("grid", "swe_drop", "a drop (a hump of water) in a square pool, walls or open; a bottom hill (-swe_drop_bump)",
                  SimSceneCreate_SWEDrop, "shallow_water");
  ADD_WITH_SOLVER("grid", "wave_tank", "a box floating in a tank of still water, coupled by displaced volume; a wave (-wave_tank_wave, -offset)",
                  SimSceneCreate_WaveTank, "shallow_water");
  /* particle scenes: particles over a background grid for particle solvers (mpm) */
  ADD_PARTICLES("jelly_blocks", "the 88-line MLS-MPM scene: three blocks (jelly, snow, fluid) fall in a box (-jelly_blocks_plastic, -jelly_blocks_dim)",
                SimSceneCreate_JellyBlocks);
  ADD_PARTICLES("sand_column", "granular column collapse, Drucker-Prager sand, 2D or 3D; figure: normalized run-out (-sand_column_aspect, -sand_column_dim)",
                SimSceneCreate_SandColumn);
  ADD_PARTICLES("snowball", "a ball of snow thrown at a sticky wall (Stomakhin et al. 2013), 2D or 3D (-snowball_speed, -snowball_dim)", SimSceneCreate_Snowball);
  ADD_PARTICLES("dam_break_mpm", "a column of weakly compressible fluid collapsing in a box, 2D or 3D; figure: front position (-dam_break_mpm_dim)",
                SimSceneCreate_DamBreakMPM);
  /* particle-fluid scenes: fluid and boundary particles for sph (their default) and pbf */
  ADD_FLUID_PARTICLES("tank", "fluid at rest in a tank of boundary particles, 2D or 3D (-tank_dim, -tank_n)", SimSceneCreate_Tank);
  ADD_FLUID_PARTICLES("dam_break", "dam break: a water column a x 2a collapsing in a tank, front vs Martin & Moyce 1952 (-dam_break_dim, -dam_break_n)",
                SimSceneCreate_DamBreak);
  ADD_FLUID_PARTICLES("double_dam_break", "two water columns collapsing onto an obstacle in the middle of a tank (-double_dam_break_dim)",
                SimSceneCreate_DoubleDamBreak);
  ADD_FLUID_PARTICLES("drop_pool", "a block of fluid dropping into a pool (-drop_pool_dim, -drop_pool_n)", SimSceneCreate_DropPool);
  PetscFunctionReturn(0);
}
