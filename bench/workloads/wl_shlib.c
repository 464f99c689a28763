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

SPIN_FN(app_compute, n, sink)

static void shlib_step(void *arg, uint64_t n, unsigned int pick)
{
	(void)arg;
	if (pick < 8)
		TIMED("app_compute", app_compute(n));
	else if (pick < 15)
		TIMED("lib_hash", lib_hash(n));
	else
		TIMED("lib_mix", lib_mix(n));
}

int main(void)
{
	run_chunks(work_budget(700), 0x2545f4914f6cdd1dull, 20, shlib_step, NULL);
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("shlib");
	return 0;
}
