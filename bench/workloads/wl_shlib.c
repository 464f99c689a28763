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

static const struct work works[] = {
	{"app_compute", app_compute, 8}, {"lib_hash", lib_hash, 7}, {"lib_mix", lib_mix, 5}};

int main(void)
{
	run_works(work_budget(700), 0x2545f4914f6cdd1dull, works, 3);
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("shlib");
	return 0;
}
