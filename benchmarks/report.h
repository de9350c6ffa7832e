/* The suite's outputs besides the per-case CSVs and figures: summary.json (every number with its
 * provenance) and report.md (tables and embedded figures), DESIGN §8. */
#pragma once
#include "benchmarks/suite.h"
#include "benchmarks/results.h"

/* Where and how the numbers were made. */
typedef struct {
  char commit[64];        /* `git describe --always --dirty` of the source tree at run time, else build_commit */
  char build_commit[64];  /* PBSIM_COMMIT, fixed when the build was configured */
  char version[32];       /* PBSIM_VERSION */
  char petsc[64];         /* PETSc version string */
  char date[32];          /* UTC, ISO 8601 */
  char cpu[128];          /* model name from /proc/cpuinfo */
  PetscInt cores;         /* online processors */
  PetscMPIInt ranks;      /* MPI ranks of the suite's communicator */
  PetscReal wall_seconds; /* the whole suite */
  char command[1024];     /* how to regenerate: pbsim bench SUITE -o DIR [options] */
  char build_type[32];    /* CMAKE_BUILD_TYPE of this build */
  char compiler[128];     /* C compiler id and version */
  char cflags[512];       /* the C flags of the build type */
  char blas[PETSC_MAX_PATH_LEN]; /* the BLAS library dgemm_ resolves to (symlinks followed) */
  char blas_threads[128]; /* openblas_get_num_threads() where available, and OPENBLAS_NUM_THREADS / OMP_NUM_THREADS */
  char petsc_summary[512]; /* debugging, scalar type, index size, packages */
  const char *petsc_configure; /* PETSc's configure options */
  char suite_copy[PETSC_MAX_PATH_LEN]; /* the suite file as run, copied next to the report */
} BenchProvenance;

PetscErrorCode BenchProvenanceCollect(MPI_Comm comm, BenchProvenance *p);
/* summary.json: suite, provenance, and per case its parameters, sweeps, files, figures, result rows,
 * runs (options, status, message) and, separately, timings ("timing", "run_timing"): everything but
 * the provenance's date/machine/wall time and the timing arrays is identical when a suite is re-run. */
PetscErrorCode BenchSummaryWrite(MPI_Comm comm, const char *path, const BenchSuite *suite, const BenchProvenance *prov,
                                 PetscInt n, const BenchCaseResult res[]);
/* report.md: provenance, the suite's summary table, and per case its table, timings, figures and failures. */
PetscErrorCode BenchReportWrite(MPI_Comm comm, const char *path, const BenchSuite *suite, const BenchProvenance *prov, PetscInt n,
                                const BenchCaseResult res[]);
