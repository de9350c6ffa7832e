/* YAML configs (DESIGN §6): a file of `key: value` pairs read into PETSc options, checked before
 * any of it is used. */
#pragma once
#include <petscsys.h>

/* One option a config sets: `-name value`, from the key on `line` of the file. */
typedef struct {
  char *name;       /* with the dash, e.g. "-cloth_n" (a nested `cloth: {n: 8}` gives the same) */
  char *value;      /* the scalar, or a sequence's items joined by commas; NULL for a flag */
  int line;         /* 1-based line of the key */
  PetscBool merged; /* came through a YAML merge key `<<` (an explicit key may override it) */
} SimConfigEntry;

typedef struct {
  char path[PETSC_MAX_PATH_LEN];
  PetscInt n;
  SimConfigEntry *entry;
} SimConfig;

/* Limits: a config is small and hand-written. */
#define SIM_CONFIG_MAX_BYTES (1 << 20) /* file size */
#define SIM_CONFIG_MAX_DEPTH 16        /* nested mappings and sequences */
#define SIM_CONFIG_MAX_OPTIONS 4096

/* Parses `len` bytes of YAML text (need not end with NUL) that came from `path` into *cfg, with
 * PETSc's YAML semantics (PetscOptionsInsertFileYAML): a nested mapping prefixes its keys with
 * `<key>_`, a sequence becomes a comma-separated value, `<<` merges a mapping, keys starting with
 * `$$` are ignored. Everything else is an error on `comm` naming the file and the line (and column,
 * where YAML gives one): malformed YAML, a NUL byte or invalid UTF-8, a top level that is not a
 * mapping, a key with no value, a key that is not an option name, a multi-line value, nesting
 * deeper than SIM_CONFIG_MAX_DEPTH, more than SIM_CONFIG_MAX_OPTIONS options, no option at all,
 * and an option set twice (naming both lines). */
PetscErrorCode SimConfigParse(MPI_Comm comm, const char *path, const char *text, size_t len, SimConfig *cfg);

/* Reads and parses the file on every rank of comm (the errors are collective): a missing or
 * unreadable file, a directory or a file larger than SIM_CONFIG_MAX_BYTES is an error naming it. */
PetscErrorCode SimConfigRead(MPI_Comm comm, const char *path, SimConfig *cfg);

/* Sets every entry in `options` (NULL: the global database) except those whose name is in
 * skip[0..nskip) (case-insensitive, as PETSc's names): options given on the command line override
 * the config. */
PetscErrorCode SimConfigInsert(const SimConfig *cfg, PetscOptions options, int nskip, const char *const *skip);

/* The entry that sets option `name` (case-insensitive, with the dash), or NULL. */
const SimConfigEntry *SimConfigFind(const SimConfig *cfg, const char *name);

PetscErrorCode SimConfigFree(SimConfig *cfg); /* accepts a zeroed config */
