// SPDX-License-Identifier: MIT
/*
 * The program whose real perf samples test the unwinder
 * (tests/unit/test_unwind_real.c).  Built -O2 -fomit-frame-pointer, so
 * frame pointers do not connect its frames; Debian's libz is built the
 * same way.  The main thread compresses through Debian's zlib (compress2)
 * from two distinct callers, alternately; a worker thread spins in its own
 * functions.  Each thread runs until it has used SECONDS of its own CPU
 * time (CLOCK_THREAD_CPUTIME_ID), or, with -n, a fixed amount of work (for
 * measuring the overhead of sampling it: tests/bench/unwind_bench.c).
 *
 *   unwind_zlib [-t FILE] [-k] [SECONDS]   default 0.4
 *   unwind_zlib [-t FILE] [-k] -n ROUNDS   ROUNDS compress2 pairs and ROUNDS spins
 *
 * -t FILE: write the truth there at the end, the CPU time (this thread's,
 * CLOCK_THREAD_CPUTIME_ID) spent in each caller's calls and the worker's:
 *     caller_a SECONDS\ncaller_b SECONDS\nworker SECONDS\n
 * -k: then SIGKILL itself (tests/e2e/record_callgraph.sh: a killed program's stacks).
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cpu_clock.h"

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
/* How much of the input the next call compresses (drawn at random by main: see there). */
static size_t input_len = sizeof(input);

__attribute__((noinline)) int unwind_zlib_caller_a(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, input_len, 6);

	sink += n;
	return rc;
}

__attribute__((noinline)) int unwind_zlib_caller_b(void)
{
	uLongf n = sizeof(output);
	int rc = compress2(output, &n, input, input_len / 2, 9);

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
	double worker_cpu; /* out: the worker's CPU time */
};

static int more(const struct budget *b, long done)
{
	return b->rounds > 0 ? done < b->rounds : thread_cpu_s() < b->seconds;
}

void *unwind_zlib_worker(void *arg)
{
	const struct budget *b = arg;
	unsigned long x = 1;

	for (long i = 0; more(b, i); i++)
		x = unwind_zlib_spin_outer(x);
	sink += x;
	((struct budget *)arg)->worker_cpu = thread_cpu_s();
	return NULL;
}

/* One call of a caller, its CPU time added to *spent.  Returns compress2's status. */
static int timed(int (*caller)(void), double *spent)
{
	double t0 = thread_cpu_s();
	int rc = caller();

	*spent += thread_cpu_s() - t0;
	return rc;
}

static int write_truth(const char *path, double a, double b, double worker)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "caller_a %.6f\ncaller_b %.6f\nworker %.6f\n", a, b, worker);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct budget b = {0.4, 0, 0};
	const char *truth = NULL, *prog = argv[0];
	double spent_a = 0, spent_b = 0;
	unsigned long order = 12345;
	int kill_self = 0, bad = 0;
	pthread_t worker;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "-k")) {
			kill_self = 1;
		} else if (!strcmp(argv[1], "-t") && argc > 2) {
			truth = argv[2];
			argc--, argv++;
		} else if (!strcmp(argv[1], "-n") && argc > 2) {
			b.rounds = atol(argv[2]);
			bad |= b.rounds <= 0;
			argc--, argv++;
		} else {
			bad = 1;
			break;
		}
	}
	if (argc > 2 || (argc == 2 && b.rounds))
		bad = 1;
	else if (argc == 2)
		b.seconds = atof(argv[1]);
	if (bad || b.seconds <= 0 || b.seconds > 60) {
		fprintf(stderr,
			"usage: %s [-t FILE] [-k] [SECONDS] | -n ROUNDS  (0 < SECONDS <= 60)\n",
			prog);
		return 2;
	}
	/*
	 * compress2 allocates ~270 KiB and frees it per call; glibc would give
	 * the heap top back each time (sbrk) and fault it in again: kernel time
	 * that a profile of user code cannot see, counted in the truth.
	 */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	fill_input();
	if (pthread_create(&worker, NULL, unwind_zlib_worker, &b)) {
		fprintf(stderr, "%s: cannot create a thread\n", argv[0]);
		return 1;
	}
	/*
	 * Each round calls one caller or the other on 1/8 to all of the input,
	 * both drawn at random: calls of a fixed length in a fixed a, b, a, b
	 * rhythm phase-lock with a clock that samples every tick of CPU time (the
	 * thread clock on a busy machine, where the thread runs from one
	 * kernel tick to the next: caller_a got 0.14 to 0.32 of the samples
	 * against a measured 0.32).
	 */
	for (long i = 0; more(&b, i); i++) {
		order = order * 6364136223846793005ul + 1442695040888963407ul;
		input_len = sizeof(input) - (size_t)((order >> 20) % (sizeof(input) / 8 * 7));
		if (order >> 63 ? timed(unwind_zlib_caller_a, &spent_a) != Z_OK :
				  timed(unwind_zlib_caller_b, &spent_b) != Z_OK) {
			fprintf(stderr, "%s: compress2 failed\n", prog);
			return 1;
		}
	}
	pthread_join(worker, NULL);
	if (truth && write_truth(truth, spent_a, spent_b, b.worker_cpu) < 0) {
		fprintf(stderr, "%s: cannot write %s\n", prog, truth);
		return 1;
	}
	if (kill_self)
		raise(SIGKILL);
	return 0;
}
