/* libFuzzer harness of the TetGen reader (SimMeshRead on a .node/.ele pair): the input is the .node
 * file, then "@@@" and the .ele file. Any input must be read or refused with an error, never crash,
 * leak or invoke undefined behaviour. */
#define _GNU_SOURCE
#include <string.h>
#include "fuzz_common.h"
#include "framework/mesh/mesh.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  return FuzzInitialize();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *sep = size >= 3 ? memmem(data, size, "@@@", 3) : NULL;
  size_t nnode = sep ? (size_t)(sep - data) : size;
  SimMesh mesh;

  (void)FuzzWriteFile("in.ele", sep ? sep + 3 : data, sep ? size - nnode - 3 : 0);
  if (!SimMeshRead(PETSC_COMM_SELF, FuzzWriteFile("in.node", data, nnode), &mesh)) (void)SimMeshFree(&mesh);
  return 0;
}
