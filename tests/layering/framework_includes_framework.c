/* Must compile: the control for framework_includes_solver.c (same layer, same flags). */
#include "framework/solver.h"
int pbsim_layering_control(void) { return 0; }
