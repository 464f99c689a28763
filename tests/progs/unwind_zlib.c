// SPDX-License-Identifier: MIT
/*
 * The program whose real perf samples test the unwinder
 * (tests/unit/test_unwind_real.c).  Built -O2 -fomit-frame-pointer, so
 * frame pointers do not connect its frames; Debian's libz is built the
 * same way.  The main thread compresses through Debian's zlib (compress2)
 * from two distinct callers, alternately; a worker thread spins in its own
 * functions.  Each thread runs until it has used SECONDS of its own CPU
 * time (CLOCK_THREAD_CPUTIME_ID), or, with -n, a fixed amount of work (for
 * measuring the overhead of sampling it: tests/progs/unwind_bench.c).
 *
 *   unwind_zlib [SECONDS]        default 0.4
 *   unwind_zlib -n ROUNDS        ROUNDS compress2 pairs and ROUNDS spins
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define INPUT_BYTES (64 * 1024)

/* Global, not static: the test finds these names on the stacks. */
int unwind_zlib_caller_a(void);
int unwind_zlib_caller_b(void);
void *unwind_zlib_worker(void *arg);
unsigned long unwind_zlib_spin_outer(unsigned long seed);
unsigned long unwind_zlib_spin_inner(unsigned long x);

static unsigned char input[INPUT_BYTES];
static unsigned char output[INPUT_BYTES + INPUT_BYTES / 100 + 1024];
static volatile unsigned long sink;

static double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Text-like input: deflate has matches to search for. */
static void fill_input(void)
{
	static const char *const words[] = {"profile ", "sample ", "stack ",  "unwind ",
					    "frame ",	"zlib ",   "caller ", "return "};
	unsigned long x = 12345;
	size_t i = 0;

	while (i < sizeof(input)) {
		const char *w;

		x = x * 6364136223846793005ul + 1442695040888963407ul;
		w = words[(x >> 33) % 8];
		while (*w && i < sizeof(input))
			input[i++] = (unsigned char)*w++;
	}
}

/* The result is used after the call: no tail call, so the caller stays on the stack. */
__attribute__((noinline)) int unwind_zlib_caller_a(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, sizeof(input), 6);

	sink += n;
	return rc;
}

__attribute__((noinline)) int unwind_zlib_caller_b(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, sizeof(input) / 2, 9);

	sink += n;
	return rc;
}

__attribute__((noinline)) unsigned long unwind_zlib_spin_inner(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}

__attribute__((noinline)) unsigned long unwind_zlib_spin_outer(unsigned long seed)
{
	unsigned long x = unwind_zlib_spin_inner(seed);

	return unwind_zlib_spin_inner(x ^ 0x9e3779b97f4a7c15ul) + 1;
}

/* How long each thread runs: CPU seconds, or a number of rounds when rounds > 0. */
struct budget {
	double seconds;
	long rounds;
};

static int more(const struct budget *b, long done)
{
	return b->rounds > 0 ? done < b->rounds : thread_cpu_seconds() < b->seconds;
}

void *unwind_zlib_worker(void *arg)
{
	const struct budget *b = arg;
	unsigned long x = 1;

	for (long i = 0; more(b, i); i++)
		x = unwind_zlib_spin_outer(x);
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	struct budget b = {0.4, 0};
	pthread_t worker;

	if (argc > 2 && !strcmp(argv[1], "-n"))
		b.rounds = atol(argv[2]);
	else if (argc > 1)
		b.seconds = atof(argv[1]);
	if ((argc > 2 && b.rounds <= 0) || b.seconds <= 0 || b.seconds > 60) {
		fprintf(stderr, "usage: %s [SECONDS] | -n ROUNDS  (0 < SECONDS <= 60)\n", argv[0]);
		return 2;
	}
	fill_input();
	if (pthread_create(&worker, NULL, unwind_zlib_worker, &b)) {
		fprintf(stderr, "%s: cannot create a thread\n", argv[0]);
		return 1;
	}
	for (long i = 0; more(&b, i); i++) {
		if (unwind_zlib_caller_a() != Z_OK || unwind_zlib_caller_b() != Z_OK) {
			fprintf(stderr, "%s: compress2 failed\n", argv[0]);
			return 1;
		}
	}
	pthread_join(worker, NULL);
	return 0;
}
