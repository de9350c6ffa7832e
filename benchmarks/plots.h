/* Plots of a case with gnuplot (DESIGN §8): a generated DIR/<case>.gp script draws each figure as PNG
 * (pngcairo) and SVG from the case's CSV files; the script stays next to the figures so they can be
 * redrawn or restyled. */
#pragma once
#include "benchmarks/isolate.h"

/* Whether `gnuplot` runs (checked once per suite). */
PetscErrorCode BenchPlotsAvailable(PetscBool *available);
/* Writes DIR/<case>.gp for the case's metric (only figures with data to show), runs gnuplot on it in
 * DIR, and lists in res the figures whose PNG exists afterwards. A gnuplot failure is a warning. */
PetscErrorCode BenchPlotsMake(BenchContext *bc, BenchCaseResult *res);
