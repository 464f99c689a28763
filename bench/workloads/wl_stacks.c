// SPDX-License-Identifier: MIT
/*
 * Workload "stacks" (bench/callgraph.py): call stacks through code built
 * without frame pointers, as Debian builds its libraries.  Built -O2
 * -fomit-frame-pointer and linked with Debian's zlib.
 *
 *  - main thread, half of its work: a call tree six functions wide and four
 *    deep (tree_0..tree_5, each calling the next level by a digit of a
 *    random path: 6^4 = 1296 distinct paths) ending in a spinning leaf;
 *  - main thread, the other half: compress2 from two callers
 *    (zlib_caller_a: level 1, zlib_caller_b: level 6), alternately;
 *  - a worker thread "worker": worker_main -> worker_outer -> worker_inner,
 *    spinning in the leaf.
 *
 * A fixed amount of work (BENCH_SCALE scales it), so that the process's own
 * CPU time measures what sampling costs it.  Truth (BENCH_TRUTH): the CPU
 * time of "tree", "zlib_caller_a", "zlib_caller_b", "worker_inner", per
 * thread, and the process's.  A sample's stack is complete when it reaches
 * main (main thread) or worker_main (worker).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <zlib.h>

#include "truth.h"

/* Real calls, one body each: no inlining, and (gcc) no specialised clones. */
#ifdef __clang__
#define NODE __attribute__((noinline))
#else
#define NODE __attribute__((noinline, noclone))
#endif
#define INPUT_BYTES (16 * 1024)

volatile uint64_t sink;
static unsigned char input[INPUT_BYTES];
static unsigned char output[INPUT_BYTES + INPUT_BYTES / 100 + 1024];

NODE uint64_t tree_leaf(uint64_t n)
{
	uint64_t acc = n;

	SPIN(n, acc);
	return acc;
}

NODE uint64_t tree_0(uint32_t path, int depth, uint64_t n);
NODE uint64_t tree_1(uint32_t path, int depth, uint64_t n);
NODE uint64_t tree_2(uint32_t path, int depth, uint64_t n);
NODE uint64_t tree_3(uint32_t path, int depth, uint64_t n);
NODE uint64_t tree_4(uint32_t path, int depth, uint64_t n);
NODE uint64_t tree_5(uint32_t path, int depth, uint64_t n);

/* The next level by the lowest base-6 digit of path; "+ k" keeps every call a real call. */
static inline uint64_t tree_next(uint32_t path, int depth, uint64_t n)
{
	if (depth == 0)
		return tree_leaf(n);
	switch (path % 6) {
	case 0:
		return tree_0(path / 6, depth - 1, n) + 1;
	case 1:
		return tree_1(path / 6, depth - 1, n) + 2;
	case 2:
		return tree_2(path / 6, depth - 1, n) + 3;
	case 3:
		return tree_3(path / 6, depth - 1, n) + 4;
	case 4:
		return tree_4(path / 6, depth - 1, n) + 5;
	default:
		return tree_5(path / 6, depth - 1, n) + 6;
	}
}

#define TREE_FN(k)                                              \
	NODE uint64_t tree_##k(uint32_t path, int depth, uint64_t n) \
	{                                                       \
		return tree_next(path, depth, n) ^ (k);         \
	}
TREE_FN(0)
TREE_FN(1)
TREE_FN(2)
TREE_FN(3)
TREE_FN(4)
TREE_FN(5)

NODE int zlib_caller_a(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, sizeof(input), 1);

	sink += n;
	return rc;
}

NODE int zlib_caller_b(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, sizeof(input), 6);

	sink += n;
	return rc;
}

NODE uint64_t worker_inner(uint64_t n)
{
	uint64_t acc = n ^ 0x5bd1e995;

	SPIN(n, acc);
	return acc;
}

NODE uint64_t worker_outer(uint64_t n)
{
	return worker_inner(n) + 1;
}

NODE void *worker_main(void *arg)
{
	uint64_t budget = *(const uint64_t *)arg, done = 0, rng = 0x2545f4914f6cdd1dull, acc = 0;

	pthread_setname_np(pthread_self(), "worker");
	while (done < budget) {
		uint64_t n = ITERS_PER_MS / 20 + rng_next(&rng) % (ITERS_PER_MS / 10);

		TIMED("worker_inner", acc += worker_outer(n));
		done += n;
	}
	sink += acc;
	truth_add_thread("worker", thread_cpu_seconds());
	return NULL;
}

/* Text-like input: deflate has matches to search for. */
static void fill_input(void)
{
	static const char *const words[] = {"profile ", "sample ", "stack ",  "unwind ",
					    "frame ",	"zlib ",   "caller ", "return "};
	uint64_t x = 12345;
	size_t i = 0;

	while (i < sizeof(input)) {
		const char *w = words[rng_next(&x) % 8];

		while (*w && i < sizeof(input))
			input[i++] = (unsigned char)*w++;
	}
}

int main(void)
{
	/* about 0.3 CPU seconds of tree, 0.3 of zlib and 0.4 in the worker at scale 1 */
	double scale = work_scale();
	uint64_t tree_budget = (uint64_t)(300 * ITERS_PER_MS * scale), done = 0;
	uint64_t worker_budget = (uint64_t)(400 * ITERS_PER_MS * scale);
	long zlib_pairs = (long)(1300 * scale) + 1;
	uint64_t rng = 0x9e3779b97f4a7c15ull, acc = 0;
	pthread_t worker;

	/* no heap trimming between compress2 calls (kernel time the truth would count) */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	fill_input();
	if (pthread_create(&worker, NULL, worker_main, &worker_budget)) {
		fprintf(stderr, "stacks: cannot create a thread\n");
		return 1;
	}
	for (long i = 0; done < tree_budget || i < zlib_pairs; i++) {
		if (done < tree_budget) {
			uint64_t n = ITERS_PER_MS / 40 + rng_next(&rng) % (ITERS_PER_MS / 20);
			uint32_t path = (uint32_t)(rng_next(&rng) % 1296);

			TIMED("tree", acc += tree_next(path, 4, n));
			done += n;
		}
		if (i < zlib_pairs) {
			int rc;

			TIMED("zlib_caller_a", rc = zlib_caller_a());
			if (rc == Z_OK)
				TIMED("zlib_caller_b", rc = zlib_caller_b());
			if (rc != Z_OK) {
				fprintf(stderr, "stacks: compress2 failed\n");
				return 1;
			}
		}
	}
	sink += acc;
	pthread_join(worker, NULL);
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("stacks");
	return 0;
}
