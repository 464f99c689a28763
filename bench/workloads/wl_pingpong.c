// SPDX-License-Identifier: MIT
/*
 * The off-CPU benchmark's workload (bench/offcpu.py): two threads bounce
 * one byte over two pipes, so that each round trip is two switches out and
 * two in per thread: the worst case for anything that runs at every
 * context switch.  Runs SECONDS (default 4) and prints, per 0.25 s window,
 * the round trips per second of that window:
 *   window T RATE
 * and at the end its own CPU time (getrusage RUSAGE_SELF):
 *   cpu USER_S SYS_S
 * The benchmark takes the windows after the peers attached (an attaching
 * profiler needs some time to start), so every variant is measured alike.
 * With $PINGPONG_CPU set, both threads run on that CPU only: every round
 * trip is then four switches on one CPU, and the throughput measures what
 * a switch costs, not where the scheduler placed the threads (on two CPUs
 * a round trip waits for cross-CPU wakeups, and a profiler that keeps
 * one CPU busy can make it faster by putting both threads on the other).
 */
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];

static void *pong(void *arg)
{
	char c;

	(void)arg;
	while (read(ab[0], &c, 1) == 1)
		if (write(ba[1], &c, 1) != 1)
			break;
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 4.0, t0, tw, t;
	long n = 0, nw = 0;
	struct rusage ru;
	pthread_t th;
	char c = 'x';

	if (getenv("PINGPONG_CPU")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(getenv("PINGPONG_CPU")), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return 1;
	}
	if (pipe(ab) || pipe(ba) || pthread_create(&th, NULL, pong, NULL))
		return 1;
	t0 = tw = now();
	do {
		for (int i = 0; i < 256; i++) {
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				return 1;
			n++;
		}
		t = now();
		if (t - tw >= 0.25) {
			printf("window %.2f %.0f\n", t - t0, (double)(n - nw) / (t - tw));
			nw = n;
			tw = t;
		}
	} while (t - t0 < secs);
	close(ab[1]);
	pthread_join(th, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu %.3f %.3f\n", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
	return 0;
}
