// SPDX-License-Identifier: MIT
/* Ground truth bookkeeping and JSON output for the benchmark workloads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "truth.h"

#define MAX_ENTRIES 64

struct entry {
	char name[48];
	long tid;
	double sec;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry functions[MAX_ENTRIES], threads[MAX_ENTRIES];
static int nfunctions, nthreads;

double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The whole process's CPU time, user + system.  getrusage and not
 * CLOCK_PROCESS_CPUTIME_ID: while ITIMER_PROF is armed (glibc profil, gprof,
 * gperftools) the kernel reads that clock from a tick-granular group timer.
 */
static double process_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

void truth_add_function(const char *fn, double sec)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nfunctions; i++)
		if (!strcmp(functions[i].name, fn))
			break;
	if (i == nfunctions && nfunctions < MAX_ENTRIES)
		snprintf(functions[nfunctions++].name, sizeof(functions[0].name), "%s", fn);
	if (i < MAX_ENTRIES)
		functions[i].sec += sec;
	pthread_mutex_unlock(&lock);
}

void truth_add_thread(const char *name, double sec)
{
	pthread_mutex_lock(&lock);
	if (nthreads < MAX_ENTRIES) {
		struct entry *e = &threads[nthreads++];

		snprintf(e->name, sizeof(e->name), "%s", name);
		e->tid = syscall(SYS_gettid);
		e->sec = sec;
	}
	pthread_mutex_unlock(&lock);
}

void truth_write(const char *workload)
{
	const char *path = getenv(TRUTH_ENV);
	struct timespec end;
	FILE *f;
	int i;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write truth file %s\n", workload, path);
		exit(1);
	}
	pthread_mutex_lock(&lock);
	clock_gettime(CLOCK_MONOTONIC, &end);
	fprintf(f, "{\"workload\": \"%s\", \"pid\": %ld, \"process_cpu_seconds\": %.9f,\n",
		workload, (long)getpid(), process_cpu_seconds());
	/* the program's end, for the tail (its end to the profiler's exit) */
	fprintf(f, " \"end_monotonic\": %.9f,\n", (double)end.tv_sec + (double)end.tv_nsec / 1e9);
	fprintf(f, " \"functions\": {");
	for (i = 0; i < nfunctions; i++)
		fprintf(f, "%s\"%s\": %.9f", i ? ", " : "", functions[i].name, functions[i].sec);
	fprintf(f, "},\n \"threads\": [");
	for (i = 0; i < nthreads; i++)
		fprintf(f, "%s{\"tid\": %ld, \"name\": \"%s\", \"seconds\": %.9f}", i ? ", " : "",
			threads[i].tid, threads[i].name, threads[i].sec);
	fprintf(f, "]}\n");
	pthread_mutex_unlock(&lock);
	if (fclose(f)) {
		fprintf(stderr, "%s: cannot write truth file %s\n", workload, path);
		exit(1);
	}
}

double work_scale(void)
{
	const char *s = getenv(SCALE_ENV);
	double v = s ? strtod(s, NULL) : 1.0;

	return v > 0 ? v : 1.0;
}

uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}
