// SPDX-License-Identifier: MIT
/*
 * A function with two loops on two source lines, whose CPU time it measures
 * itself (CLOCK_THREAD_CPUTIME_ID around each loop), for tests/e2e/annotate.sh:
 * profil annotate must split the function's samples between the two lines as
 * the measured times split.  Runs about SECONDS of CPU (argument, default
 * 1.0) in rounds of 50 ms, loop A about 30 % of each round, loop B 70 %, and
 * prints the measured seconds and the two lines:
 *   loop_a SECONDS / loop_b SECONDS / line_a N / line_b N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int line_a, line_b;
volatile double sink_a, sink_b;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void two_loops(long na, long nb, double *ta, double *tb)
{
	double x = 1.0, y = 2.0, t0, t1, t2;

	t0 = cpu_now();
	for (long i = 0; i < na; i++) x = x * 1.0000001 + 0.25; line_a = __LINE__;
	t1 = cpu_now();
	for (long i = 0; i < nb; i++) y = y * 0.9999999 + 0.5; line_b = __LINE__;
	t2 = cpu_now();
	sink_a = x;
	sink_b = y;
	*ta += t1 - t0;
	*tb += t2 - t1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, ta = 0, tb = 0, per;
	long n = 1000000;

	/* the cost of an iteration (both loops have the same dependency chain) */
	do {
		ta = tb = 0;
		two_loops(n, n, &ta, &tb);
		n *= 2;
	} while (ta + tb < 0.01);
	per = (ta + tb) / (double)n;
	ta = tb = 0;
	for (double start = cpu_now(); cpu_now() - start < seconds;)
		two_loops((long)(0.015 / per), (long)(0.035 / per), &ta, &tb);
	printf("loop_a %.6f\nloop_b %.6f\nline_a %d\nline_b %d\n", ta, tb, line_a, line_b);
	return 0;
}
