/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for the benchmark workloads.  Every work function is timed
 * with the calling thread's CPU clock around each chunk it runs, so the true
 * CPU seconds of every function and thread are known by construction.  At
 * exit the truth is written as JSON to the file named by $BENCH_TRUTH
 * (nothing is written when it is unset).
 */
#ifndef BENCH_TRUTH_H
#define BENCH_TRUTH_H

#include <stdint.h>

#define TRUTH_ENV "BENCH_TRUTH"
#define SCALE_ENV "BENCH_SCALE"
#define NOINLINE __attribute__((noinline))

/* CPU seconds consumed so far by the calling thread. */
double thread_cpu_seconds(void);

/* Add sec CPU seconds to function fn (thread-safe). */
void truth_add_function(const char *fn, double sec);

/* Record the total CPU seconds of the calling thread under its tid and name. */
void truth_add_thread(const char *name, double sec);

/* Write the JSON truth file (if $BENCH_TRUTH is set).  Call once, at the end of main. */
void truth_write(const char *workload);

/* $BENCH_SCALE as a positive number (default 1.0). */
double work_scale(void);

/* A deterministic xorshift generator for chunk sizes (no lock-step with samplers). */
uint64_t rng_next(uint64_t *state);

/* Iterations of the spin loop below that take about one millisecond (measured here). */
#define ITERS_PER_MS 600000ull

/* The iterations of about ms milliseconds of work at $BENCH_SCALE. */
uint64_t work_budget(double ms);

/* A work function of a workload and its share of the chunks (a weight). */
struct work {
	const char *name;
	void (*fn)(uint64_t n);
	unsigned int weight;
};

/*
 * The workloads' loop: chunks of 0.5 to 1.5 ms nominal in random sizes (the
 * xorshift from seed: no sampling period runs in lock-step with them) until
 * budget iterations have run, each in one of the nworks works chosen at
 * random by weight, and its thread CPU time charged to it (TIMED).
 */
void run_works(uint64_t budget, uint64_t seed, const struct work *works, unsigned int nworks);

/*
 * The body every work function spins in, expanded inline so that the time
 * is the function's own (self) time.  The result depends on every step.
 */
#define SPIN(n, acc)                                                                    \
	do {                                                                            \
		for (uint64_t spin_i_ = 0; spin_i_ < (n); spin_i_++) {                  \
			(acc) = (acc) * 6364136223846793005ull + 1442695040888963407ull; \
			(acc) ^= (acc) >> 29;                                           \
		}                                                                       \
	} while (0)

/*
 * A work function: name(n) spins n iterations from acc = init (an expression
 * of n) and adds acc to sink, so that all its time is its own (self) time.
 */
#define SPIN_FN(name, init, sink)                                               \
	NOINLINE void name(uint64_t n)                                          \
	{                                                                       \
		uint64_t acc = (init);                                          \
		SPIN(n, acc);                                                   \
		(sink) += acc;                                                  \
	}

/* Run call (an expression) and charge its thread CPU time to fn. */
#define TIMED(fn, call)                                                 \
	do {                                                            \
		double timed_t0_ = thread_cpu_seconds();                \
		call;                                                   \
		truth_add_function(fn, thread_cpu_seconds() - timed_t0_); \
	} while (0)

#endif
