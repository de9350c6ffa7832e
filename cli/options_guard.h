/* Stricter numeric and boolean options for the pbsim executable (cli/options_guard.c). */
#pragma once
#include "framework/config.h"

/* Where the options came from, for messages: the config (NULL: none) and the option names given on
 * the command line (those override the config's). The pointers must outlive the run. */
void PbsimOptionsGuardSetOrigin(const SimConfig *cfg, int nkeys, const char *const *keys);
