// SPDX-License-Identifier: MIT
/*
 * Workload "funcs": one thread, three functions with about 50 %, 30 % and
 * 20 % of the CPU time.  Chunks have random sizes (0.5-1.5 ms nominal) in a
 * random order so that no sampling period can run in lock-step with them.
 */
#include <stdio.h>

#include "truth.h"

volatile uint64_t sink;

NOINLINE void hot_a(uint64_t n)
{
	uint64_t acc = n;

	SPIN(n, acc);
	sink += acc;
}

NOINLINE void hot_b(uint64_t n)
{
	uint64_t acc = n ^ 0x5555;

	SPIN(n, acc);
	sink += acc;
}

NOINLINE void hot_c(uint64_t n)
{
	uint64_t acc = n ^ 0xaaaa;

	SPIN(n, acc);
	sink += acc;
}

int main(void)
{
	/* about 0.7 CPU seconds at scale 1 */
	uint64_t budget = (uint64_t)(700 * ITERS_PER_MS * work_scale());
	uint64_t done = 0, rng = 0x9e3779b97f4a7c15ull;

	while (done < budget) {
		uint64_t n = ITERS_PER_MS / 2 + rng_next(&rng) % ITERS_PER_MS;
		unsigned int pick = rng_next(&rng) % 10;

		/* 5:3:2 by probability, same chunk size distribution */
		if (pick < 5)
			TIMED("hot_a", hot_a(n));
		else if (pick < 8)
			TIMED("hot_b", hot_b(n));
		else
			TIMED("hot_c", hot_c(n));
		done += n;
	}
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("funcs");
	return 0;
}
