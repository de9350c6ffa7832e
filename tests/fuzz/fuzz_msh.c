/* libFuzzer harness of the .msh reader (SimMeshRead): any input must be read or refused with an
 * error, never crash, leak or invoke undefined behaviour. */
#include "fuzz_common.h"
#include "framework/mesh/mesh.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  return FuzzInitialize();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  SimMesh mesh;

  if (!SimMeshRead(PETSC_COMM_SELF, FuzzWriteFile("in.msh", data, size), &mesh)) (void)SimMeshFree(&mesh);
  return 0;
}
