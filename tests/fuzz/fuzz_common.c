/* Set-up shared by the fuzz harnesses. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fuzz_common.h"

static char scratch[256];

int FuzzInitialize(void)
{
  if (PetscInitializeNoArguments()) return 1;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return 1;
  /* in memory when possible: a disk-backed /tmp makes a run 30 times slower */
  snprintf(scratch, sizeof(scratch), "%s/pbsim-fuzz-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
  if (!mkdtemp(scratch)) return 1;
  return 0;
}

const char *FuzzWriteFile(const char *name, const uint8_t *data, size_t size)
{
  static char path[512];
  FILE *fp;

  snprintf(path, sizeof(path), "%s/%s", scratch, name);
  fp = fopen(path, "wb");
  if (!fp) abort(); /* the harness itself is broken */
  if (size && fwrite(data, 1, size, fp) != size) abort();
  fclose(fp);
  return path;
}
