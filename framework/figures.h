/* Named per-step figures: the values a solver (divergence, iterations, errors against an exact
 * solution) or a scene (analytic observables) reports after every step, beside the energies. SimRun
 * writes them as extra CSV columns and hands them to monitors (SimRunGetFigures); the benchmark
 * harness's spatial metric reads its error and mesh size from them. */
#pragma once

#define SIM_MAX_FIGURES 16 /* per solver and per scene */
