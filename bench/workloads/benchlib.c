// SPDX-License-Identifier: MIT
/* libbenchlib.so: the shared-library half of the "shlib" workload. */
#include <stdint.h>

#include "truth.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT volatile uint64_t benchlib_sink;

EXPORT SPIN_FN(lib_hash, n * 3, benchlib_sink)
EXPORT SPIN_FN(lib_mix, n * 5, benchlib_sink)
