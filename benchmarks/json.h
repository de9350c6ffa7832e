/* A minimal streaming JSON writer (objects, arrays, strings, numbers) for summary.json. */
#pragma once
#include <stdio.h>
#include <petscsys.h>

#define BENCH_JSON_MAX_DEPTH 16

typedef struct {
  MPI_Comm comm; /* written on rank 0 of comm */
  FILE *fp;
  int depth;
  int inline_from;                           /* objects/arrays opened at this depth or deeper go on one line (0: none) */
  PetscBool has_items[BENCH_JSON_MAX_DEPTH]; /* a comma is due before the next item at this depth */
} BenchJSON;

/* Starts the top-level object on fp. */
PetscErrorCode BenchJSONBegin(BenchJSON *j, MPI_Comm comm, FILE *fp);
PetscErrorCode BenchJSONEnd(BenchJSON *j);
/* Objects and arrays opened from now on at the current depth go on one line each (compact records). */
PetscErrorCode BenchJSONInlineBegin(BenchJSON *j);
PetscErrorCode BenchJSONInlineEnd(BenchJSON *j);
/* key is NULL inside arrays. */
PetscErrorCode BenchJSONObjectBegin(BenchJSON *j, const char *key);
PetscErrorCode BenchJSONObjectEnd(BenchJSON *j);
PetscErrorCode BenchJSONArrayBegin(BenchJSON *j, const char *key);
PetscErrorCode BenchJSONArrayEnd(BenchJSON *j);
PetscErrorCode BenchJSONString(BenchJSON *j, const char *key, const char *value); /* NULL value: null */
PetscErrorCode BenchJSONReal(BenchJSON *j, const char *key, PetscReal value);     /* NaN, Inf: null */
PetscErrorCode BenchJSONInt(BenchJSON *j, const char *key, PetscInt value);
PetscErrorCode BenchJSONBool(BenchJSON *j, const char *key, PetscBool value);
