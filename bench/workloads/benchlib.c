// SPDX-License-Identifier: MIT
/* libbenchlib.so: the shared-library half of the "shlib" workload. */
#include <stdint.h>

#include "truth.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT volatile uint64_t benchlib_sink;

EXPORT NOINLINE void lib_hash(uint64_t n)
{
	uint64_t acc = n * 3;

	SPIN(n, acc);
	benchlib_sink += acc;
}

EXPORT NOINLINE void lib_mix(uint64_t n)
{
	uint64_t acc = n * 5;

	SPIN(n, acc);
	benchlib_sink += acc;
}
