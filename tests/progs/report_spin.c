// SPDX-License-Identifier: MIT
/*
 * report_spin: a real CPU-bound program for record -> report -> gprof:
 * hot_a and hot_b in the main thread, lib_hot (libreport_lib.so) in a thread
 * named "spinner".  It measures the CPU time of each part itself
 * (CLOCK_THREAD_CPUTIME_ID) and prints "NAME SECONDS" lines, so the test can
 * compare the profile with the truth whatever the machine's speed.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

#define UNIT 100000000

int lib_hot(int n);

static volatile unsigned long sink;
static double spinner_seconds;

__attribute__((noinline)) void hot_a(int units)
{
	for (long i = 0; i < (long)units * UNIT; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void hot_b(int units)
{
	for (long i = 0; i < (long)units * UNIT; i++)
		sink += (unsigned long)i;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spinner(void *arg)
{
	double t0 = cpu_now();

	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	for (int i = 0; i < 2 * (UNIT / 1000000); i++)
		lib_hot(1000000);
	spinner_seconds = cpu_now() - t0;
	return 0;
}

int main(void)
{
	double t0, t1, t2;
	pthread_t t;

	pthread_create(&t, 0, spinner, 0);
	pthread_join(t, 0);
	t0 = cpu_now();
	hot_a(3);
	t1 = cpu_now();
	hot_b(1);
	t2 = cpu_now();
	printf("hot_a %.4f\nhot_b %.4f\nlib_hot %.4f\n", t1 - t0, t2 - t1, spinner_seconds);
	return 0;
}
