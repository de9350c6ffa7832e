/* Must NOT compile: a material may not see an energy term's header (materials sit below energies). */
#include "framework/material.h"
#include "energies/fem.h"
int pbsim_layering_violation_materials(void) { return 0; }
