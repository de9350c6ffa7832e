/* libFuzzer harness of the YAML config reader (SimConfigParse): any input must be parsed or refused
 * with an error, never crash, leak or invoke undefined behaviour. */
#include "fuzz_common.h"
#include "framework/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  return FuzzInitialize();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  SimConfig cfg;

  if (size > SIM_CONFIG_MAX_BYTES) return 0; /* SimConfigRead refuses larger files before parsing */
  if (!SimConfigParse(PETSC_COMM_SELF, "fuzz.yaml", (const char *)data, size, &cfg)) (void)SimConfigFree(&cfg);
  return 0;
}
