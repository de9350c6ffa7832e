/* Must NOT compile: framework/ may not see a solver's header (the layers link only downward). */
#include "framework/solver.h"
#include "solvers/register.h"
int pbsim_layering_violation(void) { return 0; }
