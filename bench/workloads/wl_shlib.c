// SPDX-License-Identifier: MIT
/*
 * Workload "shlib": hot time split between the program's own code (about
 * 40 %) and a shared library, libbenchlib.so (lib_hash about 35 %, lib_mix
 * about 25 %).  Profilers that only cover the main executable miss the
 * library's share.
 */
#include <stdio.h>

#include "benchlib.h"
#include "truth.h"

volatile uint64_t sink;

NOINLINE void app_compute(uint64_t n)
{
	uint64_t acc = n;

	SPIN(n, acc);
	sink += acc;
}

int main(void)
{
	uint64_t budget = (uint64_t)(700 * ITERS_PER_MS * work_scale());
	uint64_t done = 0, rng = 0x2545f4914f6cdd1dull;

	while (done < budget) {
		uint64_t n = ITERS_PER_MS / 2 + rng_next(&rng) % ITERS_PER_MS;
		unsigned int pick = rng_next(&rng) % 20;

		if (pick < 8)
			TIMED("app_compute", app_compute(n));
		else if (pick < 15)
			TIMED("lib_hash", lib_hash(n));
		else
			TIMED("lib_mix", lib_mix(n));
		done += n;
	}
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("shlib");
	return 0;
}
