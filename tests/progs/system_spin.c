// SPDX-License-Identifier: MIT
/*
 * A busy process that profil is not told about (record -a, top): spins in
 * the function its first argument names (alpha or beta) until it is killed
 * or, with a second argument, for that many seconds of its own CPU time;
 * with a third, in that many threads (the bench's busy threads).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_alpha(double until)
{
	while (cpu_s() < until)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void spin_beta(double until)
{
	while (cpu_s() < until)
		for (int i = 0; i < 100000; i++)
			sink ^= (unsigned long)i * 13;
}

static void *spin_thread(void *arg)
{
	(void)arg;
	spin_alpha(1e12);
	return NULL;
}

int main(int argc, char **argv)
{
	double until = argc > 2 ? atof(argv[2]) : 1e12;
	int threads = argc > 3 ? atoi(argv[3]) : 1;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 1; i < threads; i++) {
		pthread_t t;

		pthread_create(&t, NULL, spin_thread, NULL);
	}
	if (argc > 1 && !strcmp(argv[1], "beta"))
		spin_beta(until);
	else
		spin_alpha(until);
	return 0;
}
