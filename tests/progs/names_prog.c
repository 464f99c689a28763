// SPDX-License-Identifier: MIT
/*
 * The names tests/e2e/names.sh checks, each phase about SECONDS/3 of CPU
 * time (CLOCK_THREAD_CPUTIME_ID):
 *  - plt_phase: labs called through the PLT (a labs@plt row);
 *  - clock_phase: clock_gettime, whose symbol in glibc's debug file is
 *    versioned (clock_gettime@@GLIBC_2.17: the row must be clock_gettime);
 *  - inl_outer: two always-inlined functions in a loop (inl_mid, inl_leaf),
 *    frames of their own in the stacks (checked against eu-addr2line -i).
 */
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

volatile long sink;
volatile double dsink;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void plt_phase(double secs)
{
	double end = cpu_now() + secs;
	long s = 0;

	while (cpu_now() < end)
		for (long i = 0; i < 200000; i++)
			s += labs(i - 100000);
	sink = s;
}

__attribute__((noinline)) void clock_phase(double secs)
{
	double end = cpu_now() + secs;

	while (cpu_now() < end)
		;
}

static inline __attribute__((always_inline)) double inl_leaf(double x)
{
	return x * 1.0000001 + 0.25;
}

static inline __attribute__((always_inline)) double inl_mid(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = inl_leaf(x);
	return x;
}

__attribute__((noinline)) double inl_outer(long n, double x)
{
	return inl_mid(x, n);
}

int main(int argc, char **argv)
{
	double secs = (argc > 1 ? atof(argv[1]) : 0.9) / 3, end;

	plt_phase(secs);
	clock_phase(secs);
	end = cpu_now() + secs;
	while (cpu_now() < end)
		dsink = inl_outer(5000000, dsink);
	printf("done\n");
	return 0;
}
