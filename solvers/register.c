/* The solvers table: one line per registered time integrator / method. */
#include "solvers/register.h"
#include "framework/solver.h"

PetscErrorCode SimSolverCreate_ExplicitEuler(SimSolver);
PetscErrorCode SimSolverCreate_Midpoint(SimSolver);
PetscErrorCode SimSolverCreate_Heun(SimSolver);
PetscErrorCode SimSolverCreate_RK4(SimSolver);
PetscErrorCode SimSolverCreate_SymplecticEuler(SimSolver);
PetscErrorCode SimSolverCreate_Verlet(SimSolver);
PetscErrorCode SimSolverCreate_ImplicitEuler(SimSolver);
PetscErrorCode SimSolverCreate_LinearizedImplicit(SimSolver);
PetscErrorCode SimSolverCreate_BDF2(SimSolver);
PetscErrorCode SimSolverCreate_ImplicitMidpoint(SimSolver);
PetscErrorCode SimSolverCreate_TS(SimSolver);
PetscErrorCode SimSolverCreate_PD(SimSolver);
PetscErrorCode SimSolverCreate_StableFluids(SimSolver);
PetscErrorCode SimSolverCreate_PBD(SimSolver);
PetscErrorCode SimSolverCreate_XPBD(SimSolver);
PetscErrorCode SimSolverCreate_Compliant(SimSolver);
PetscErrorCode SimSolverCreate_Rigid(SimSolver);
PetscErrorCode SimSolverCreate_XPBDRigid(SimSolver);
PetscErrorCode SimSolverCreate_MPM(SimSolver);
PetscErrorCode SimSolverCreate_SPH(SimSolver);
PetscErrorCode SimSolverCreate_PBF(SimSolver);
PetscErrorCode SimSolverCreate_ShallowWater(SimSolver);

/* A solver names the problem types it advances (problems/register.c). */
#define ADD(name, help, fn, flags, problems) PetscCall(SimRegistryAddFor(reg, SIM_KIND_SOLVER, name, help, (SimGenericFn)(fn), flags, problems))

PetscErrorCode SimRegisterSolvers(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("explicit_euler", "forward Euler (order 1; energy grows on oscillators)", SimSolverCreate_ExplicitEuler, SIM_REG_MPI, "mesh");
  ADD("symplectic_euler", "semi-implicit Euler: v then x (order 1, symplectic)", SimSolverCreate_SymplecticEuler, SIM_REG_MPI, "mesh");
  ADD("verlet", "velocity Verlet / Stormer-Verlet (order 2, symplectic, time-reversible)", SimSolverCreate_Verlet, SIM_REG_MPI, "mesh");
  ADD("midpoint", "explicit midpoint RK2 (order 2)", SimSolverCreate_Midpoint, SIM_REG_MPI, "mesh");
  ADD("heun", "Heun's method RK2 (order 2)", SimSolverCreate_Heun, SIM_REG_MPI, "mesh");
  ADD("rk4", "classical Runge-Kutta (order 4)", SimSolverCreate_RK4, SIM_REG_MPI, "mesh");
  /* implicit family: registered by solvers/implicit, solvers/linearized, solvers/ts. SIM_REG_MPI:
   * runs on several ranks (FEM state, elements, Hessian and linear solve distributed,
   * see docs/fem.md); the others refuse mpirun -np > 1. */
  ADD("implicit_euler", "implicit Euler: Newton on the incremental potential (order 1, dissipative)", SimSolverCreate_ImplicitEuler, SIM_REG_MPI, "mesh");
  ADD("bdf2", "BDF2: Newton on the incremental potential (order 2, mildly dissipative)", SimSolverCreate_BDF2, SIM_REG_MPI, "mesh");
  ADD("implicit_midpoint", "implicit midpoint: Newton on the incremental potential (order 2, symplectic)", SimSolverCreate_ImplicitMidpoint, SIM_REG_MPI, "mesh");
  ADD("linearized_implicit", "Baraff-Witkin linearized implicit Euler, one Newton step (-linearized_beta 0..1)", SimSolverCreate_LinearizedImplicit, 0, "mesh");
  ADD("pd", "projective dynamics: implicit Euler by local projections + one prefactorized CHOLMOD solve (-pd_iterations, -pd_chebyshev)", SimSolverCreate_PD, 0, "mesh");
  ADD("pbd", "position-based dynamics (Mueller et al. 2007) on the terms' constraints: colour-ordered Gauss-Seidel or Jacobi (-pbd_iterations, -pbd_substeps, -pbd_stiffness)", SimSolverCreate_PBD, 0, "mesh");
  ADD("xpbd", "XPBD (Macklin et al. 2016): PBD with compliance 1/k, so the stiffness does not depend on iterations or dt; small steps (-pbd_substeps)", SimSolverCreate_XPBD, 0, "mesh");
  ADD("compliant", "implicit compliant constraints (Tournier et al. 2015): KKT with geometric stiffness, or Schur complement by CHOLMOD (-compliant_solve, -compliant_compliance)", SimSolverCreate_Compliant, 0, "mesh");
  ADD("ts", "PETSc TS on the model as a first-order ODE: any -ts_type (rk, bdf, theta, alpha, ...), adaptive", SimSolverCreate_TS, 0, "mesh");
  ADD("rigid", "rigid bodies by sequential impulses: contact with restitution and Coulomb friction, warm starting, ball/hinge/fixed joints (-rigid_iterations)", SimSolverCreate_Rigid, 0, "rigid");
  ADD("xpbd_rigid", "rigid bodies by XPBD (Mueller et al. 2020): substeps, position corrections with compliance, friction and restitution, joints with limits (-xpbd_rigid_substeps)", SimSolverCreate_XPBDRigid, 0, "rigid");
  /* grid solvers: Eulerian methods on grid scenes */
  ADD("stablefluids", "Stable Fluids on a MAC grid: semi-Lagrangian advection, smoke, viscosity, MGPCG projection (-sf_advection rk2|rk3|bfecc)",
      SimSolverCreate_StableFluids, SIM_REG_MPI, "grid");
  ADD("shallow_water", "2D shallow-water height field: finite volumes, HLL flux, well-balanced hydrostatic reconstruction, MUSCL + SSP-RK2 (-swe_order, -swe_flux)",
      SimSolverCreate_ShallowWater, SIM_REG_MPI, "grid");
  /* particle solvers: particles over a background grid */
  ADD("mpm", "hybrid particle-grid: PIC, FLIP, APIC, MLS-MPM (-mpm_transfer), quadratic/cubic B-splines, plasticity (snow, sand, fluid)",
      SimSolverCreate_MPM, SIM_REG_MPI, "particles");
  /* particle fluids */
  ADD("sph", "weakly compressible SPH: Tait EOS (gamma 7, c from -sph_mach), cubic/Wendland kernels, Akinci boundary particles, artificial viscosity, XSPH, CFL substeps",
      SimSolverCreate_SPH, SIM_REG_MPI, "particles");
  ADD("pbf", "position-based fluids (Macklin & Mueller 2013): density constraints, lambda with relaxation eps, s_corr tensile term, XSPH, vorticity confinement",
      SimSolverCreate_PBF, SIM_REG_MPI, "particles");
  PetscFunctionReturn(0);
}
