// SPDX-License-Identifier: MIT
/*
 * Workload "funcs": one thread, three functions with about 50 %, 30 % and
 * 20 % of the CPU time.  Chunks have random sizes (0.5-1.5 ms nominal) in a
 * random order so that no sampling period can run in lock-step with them.
 */
#include <stdio.h>

#include "truth.h"

volatile uint64_t sink;

SPIN_FN(hot_a, n, sink)
SPIN_FN(hot_b, n ^ 0x5555, sink)
SPIN_FN(hot_c, n ^ 0xaaaa, sink)

/* 5:3:2 by probability, same chunk size distribution */
static const struct work works[] = {{"hot_a", hot_a, 5}, {"hot_b", hot_b, 3}, {"hot_c", hot_c, 2}};

int main(void)
{
	/* about 0.7 CPU seconds at scale 1 */
	run_works(work_budget(700), 0x9e3779b97f4a7c15ull, works, 3);
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("funcs");
	return 0;
}
