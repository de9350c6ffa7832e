/* A whole file in memory, NUL-terminated (the test tools parse CSV, VTU and XDMF text from it). */
#pragma once
#include <stdio.h>
#include <stdlib.h>

/* The contents of path and its length in *len; NULL if it cannot be read. Free with free(). */
static char *ReadFile(const char *path, long *len)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = *len >= 0 ? malloc(*len + 1) : NULL;
  if (!buf || fread(buf, 1, *len, f) != (size_t)*len) {
    fclose(f);
    free(buf);
    return NULL;
  }
  buf[*len] = 0;
  fclose(f);
  return buf;
}
