/* The public side of the stablefluids solver: what code outside its folder (the harness's poisson
 * metric, tests) may call. The MAC grid (mac.h) and the pressure projection (projection.h) are
 * usable on their own, e.g. to time the Poisson solve alone; everything else in this folder
 * (sf_impl.h, the stencil and multigrid internals) is private to the solver. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include "solvers/stablefluids/projection.h"
