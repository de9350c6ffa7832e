/* Helpers shared by the Check unit tests. Each test file defines test_suite(). */
#pragma once
#include <check.h>
#include <petscsys.h>
#include "framework/registry.h"

Suite *test_suite(void);

/* A PETSc call inside a test: any error fails the test with the call's text. */
#define CHECK_PETSC(call) ck_assert_msg((call) == 0, "PETSc error in %s", #call)

/* A registry with every built-in implementation (the same tables the CLI uses). */
PetscErrorCode TestRegistryCreate(SimRegistry *reg);

/* Replaces the options database content for one test: clears it and inserts `opts`
 * (a command-line style string, e.g. "-dt 0.01 -cloth_n 8"). */
PetscErrorCode TestSetOptions(const char *opts);
