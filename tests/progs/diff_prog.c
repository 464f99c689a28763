// SPDX-License-Identifier: MIT
/*
 * diff_prog A_MS B_MS C_MS: spends A, B and C milliseconds of its own thread's
 * CPU time in diff_alpha(), diff_beta() and diff_gamma(), in turn, and prints
 * the CPU time each one took, measured by itself with CLOCK_THREAD_CPUTIME_ID,
 * as "NAME NANOSECONDS" lines ("total" the three summed): the ground truth
 * of tests/e2e/diff_record.sh, which records it twice with different
 * arguments.  The loops are in the functions themselves (no callee), so
 * their samples are theirs; the clock is read every ~20 µs of work.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_clock.h"

#define NOINLINE __attribute__((noinline, used))

static volatile uint64_t sink;

/*
 * The loop of each function: a linear congruential step, ~20 µs a round; the
 * increment k differs so that no compiler folds the three functions into one.
 */
#define SPIN(ns, k)                                                                                \
	do {                                                                                       \
		uint64_t t0 = thread_cpu_ns(), x = t0 | 1;                                         \
		do {                                                                               \
			for (int i = 0; i < 20000; i++)                                            \
				x = x * 6364136223846793005ull + (k);                              \
			sink = x;                                                                  \
		} while (thread_cpu_ns() - t0 < (ns));                                             \
	} while (0)

NOINLINE void diff_alpha(uint64_t ns)
{
	SPIN(ns, 1442695040888963407ull);
}

NOINLINE void diff_beta(uint64_t ns)
{
	SPIN(ns, 1013904223ull);
}

NOINLINE void diff_gamma(uint64_t ns)
{
	SPIN(ns, 12345ull);
}

int main(int argc, char **argv)
{
	void (*const fn[3])(uint64_t) = {diff_alpha, diff_beta, diff_gamma};
	const char *const name[3] = {"diff_alpha", "diff_beta", "diff_gamma"};
	uint64_t took[3], total = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: diff_prog ALPHA_MS BETA_MS GAMMA_MS\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = thread_cpu_ns();

		fn[i]((uint64_t)strtoull(argv[i + 1], NULL, 10) * 1000000ull);
		took[i] = thread_cpu_ns() - t0;
		total += took[i];
	}
	for (int i = 0; i < 3; i++)
		printf("%s %llu\n", name[i], (unsigned long long)took[i]);
	printf("total %llu\n", (unsigned long long)total);
	return 0;
}
