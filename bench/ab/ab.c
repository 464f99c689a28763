// SPDX-License-Identifier: MIT
/*
 * In-process A/B overhead harness.  Runs the same fixed chunk of CPU work
 * many times, alternating sampling off and on (ABBA order, so that a slow
 * drift of the machine cancels), and prints, as one JSON object, the CPU
 * time of every chunk:
 *
 *   ab MODE HZ PAIRS CHUNK_MS
 *
 * MODE is one of the samplers compiled in (see ab_modes.h): "glibc"
 * (glibc profil(), 100 Hz whatever HZ says), "perf" (a `perf record
 * --control fifo:...` parent, fifos in $BENCH_PERF_CTL / $BENCH_PERF_ACK;
 * with BENCH_AB_HELPER=parent the parent's CPU time, read from
 * /proc/<ppid>/task/<tid>/schedstat, is added to each chunk), "gperf"
 * (ProfilerStart/Stop),
 * "libprofil-<clock>" (profil_set_clock + profil()).
 * A chunk's cost is the main thread's CPU time (signal handlers included),
 * plus the run time of the process's other threads and of the helper
 * process, if any.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ab_modes.h"

#define ITERS_PER_MS 600000ull
#define NOINLINE __attribute__((noinline))

volatile uint64_t sink;

struct main_text text;

NOINLINE void ab_work(uint64_t n)
{
	uint64_t acc = n;

	for (uint64_t i = 0; i < n; i++) {
		acc = acc * 6364136223846793005ull + 1442695040888963407ull;
		acc ^= acc >> 29;
	}
	sink += acc;
}

/*
 * The calling thread's CPU time.  Not CLOCK_PROCESS_CPUTIME_ID: while a
 * process CPU timer (ITIMER_PROF) is armed, the kernel reads that clock
 * from its tick-granular (4 ms here) group timer, which would bias "on".
 */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Run time of every thread of process pid except skip_tid, from schedstat
 * (ns): helper threads of a sampler, or a whole helper process.
 */
static uint64_t threads_cpu_ns(long pid, long skip_tid)
{
	char path[384], line[256];
	struct dirent *d;
	uint64_t sum = 0;
	DIR *dir;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.' || atol(d->d_name) == skip_tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%s/schedstat", pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f))
			sum += strtoull(line, NULL, 10);
		fclose(f);
	}
	closedir(dir);
	return sum;
}

static const struct ab_mode *find_mode(const char *name)
{
	for (int i = 0; ab_modes[i].name; i++)
		if (!strcmp(ab_modes[i].name, name))
			return &ab_modes[i];
	return NULL;
}

/* Run one chunk; returns its CPU cost in ns (process + helper). */
static uint64_t chunk(const struct ab_mode *m, int on, unsigned int hz, uint64_t iters, long helper,
		      uint64_t *samples)
{
	uint64_t t0, t1, h0, h1;
	long self = getpid();

	if (on && m->start(hz) < 0) {
		fprintf(stderr, "ab: cannot start sampler %s\n", m->name);
		exit(1);
	}
	/* the main thread is the only one running ab_work: tid == pid */
	h0 = threads_cpu_ns(self, self) + threads_cpu_ns(helper, 0);
	t0 = thread_cpu_ns();
	ab_work(iters);
	t1 = thread_cpu_ns();
	h1 = threads_cpu_ns(self, self) + threads_cpu_ns(helper, 0);
	if (on)
		*samples += m->stop();
	return (t1 - t0) + (h1 - h0);
}

int main(int argc, char **argv)
{
	const struct ab_mode *m;
	unsigned int hz;
	int pairs;
	uint64_t iters, samples = 0, off_total = 0, on_total = 0;
	const char *hp = getenv("BENCH_AB_HELPER");
	/* "parent": the process that started us (perf record) works for us too */
	long helper = hp && !strcmp(hp, "parent") ? (long)getppid() : 0;

	if (argc != 5) {
		fprintf(stderr, "usage: ab MODE HZ PAIRS CHUNK_MS\n");
		return 2;
	}
	m = find_mode(argv[1]);
	if (!m) {
		fprintf(stderr, "ab: mode %s is not compiled into this program\n", argv[1]);
		return 2;
	}
	hz = atoi(argv[2]);
	pairs = atoi(argv[3]);
	iters = (uint64_t)(atof(argv[4]) * ITERS_PER_MS);
	main_text__find(&text);
	if (m->init && m->init() < 0) {
		fprintf(stderr, "ab: cannot initialise sampler %s\n", m->name);
		return 1;
	}
	ab_work(iters); /* warm up */
	printf("{\"mode\": \"%s\", \"hz\": %u, \"pairs\": [", m->name, hz);
	for (int p = 0; p < pairs; p++) {
		uint64_t off, on;

		if (p % 2 == 0) {
			off = chunk(m, 0, hz, iters, helper, &samples);
			on = chunk(m, 1, hz, iters, helper, &samples);
		} else {
			on = chunk(m, 1, hz, iters, helper, &samples);
			off = chunk(m, 0, hz, iters, helper, &samples);
		}
		off_total += off;
		on_total += on;
		printf("%s[%llu, %llu]", p ? ", " : "", (unsigned long long)off,
		       (unsigned long long)on);
	}
	printf("], \"samples\": %llu, \"on_cpu_ns\": %llu, \"off_cpu_ns\": %llu, \"lost\": %lld}\n",
	       (unsigned long long)samples, (unsigned long long)on_total,
	       (unsigned long long)off_total, (long long)(m->lost ? m->lost() : -1));
	if (m->fini)
		m->fini();
	return 0;
}
