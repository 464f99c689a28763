// SPDX-License-Identifier: MIT
/*
 * stack_stress SECONDS: the hazards of unwinding inside a signal handler,
 * all at once, for tests/e2e/record_stacks.sh (short) and
 * tests/stress/stack_stress.sh (long, many runs).  Under the agent with
 * call stacks on, every thread is sampled while:
 *
 *  - "dl":     dlopen + call + dlclose of libstack_stress.so (which has a
 *              __thread variable: dynamic TLS, loader lock, the unwinder's
 *              table activation and retirement) in a loop;
 *  - "malloc": malloc/realloc/free of random sizes (malloc's locks held
 *              when a tick lands);
 *  - "phdr":   dl_iterate_phdr() in a loop (the loader's lock held);
 *  - "fork":   fork + exec of this program ("child" mode: a short recursive
 *              burn, exit 0), then waitpid (children are profiled too);
 *  - main:     a deep recursion burning CPU, until SECONDS of its CPU time.
 *
 * Exit 0 when every thread finished and every child exited 0; 1 otherwise.
 * A hang is the caller's to detect (timeout).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_clock.h"

#define NOINLINE __attribute__((noinline))

static volatile int stop;
static volatile uint64_t sink;
static char lib_path[PATH_MAX], self_path[PATH_MAX];
static long children, bad_children, dl_rounds, mallocs, phdr_rounds;
static int failed;

NOINLINE uint64_t burn(int depth, uint64_t n)
{
	uint64_t acc = n;

	if (depth > 0)
		return burn(depth - 1, n) + (uint64_t)depth;
	for (uint64_t i = 0; i < n; i++)
		acc = acc * 2862933555777941757ull + 3037000493ull;
	sink += acc;
	return acc;
}

static void *dl_loop(void *arg)
{
	(void)arg;
	while (!stop) {
		void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
		uint64_t (*work)(uint64_t);

		if (!h) {
			fprintf(stderr, "stack_stress: dlopen: %s\n", dlerror());
			failed = 1;
			return NULL;
		}
		*(void **)&work = dlsym(h, "stress_lib_work");
		if (work)
			sink += work(20000);
		dlclose(h);
		dl_rounds++;
	}
	return NULL;
}

static void *malloc_loop(void *arg)
{
	void *live[256] = {0};
	uint32_t x = 2463534242u;

	(void)arg;
	while (!stop) {
		unsigned int i;
		size_t size;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		i = x % 256;
		size = 16 + (x >> 8) % 65536;
		if (live[i] && (x & 1)) {
			void *p = realloc(live[i], size);

			if (p)
				live[i] = p;
		} else {
			free(live[i]);
			live[i] = malloc(size);
		}
		if (live[i])
			((volatile char *)live[i])[0] = 1;
		mallocs++;
	}
	for (int i = 0; i < 256; i++)
		free(live[i]);
	return NULL;
}

static int count_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	(*(long *)arg)++;
	return 0;
}

static void *phdr_loop(void *arg)
{
	(void)arg;
	while (!stop) {
		long n = 0;

		dl_iterate_phdr(count_object, &n);
		phdr_rounds++;
	}
	return NULL;
}

static void *fork_loop(void *arg)
{
	(void)arg;
	while (!stop) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			char *argv[] = {self_path, "child", NULL};

			execv(self_path, argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad_children++;
		children++;
	}
	return NULL;
}

static int find_paths(void)
{
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	char dir[PATH_MAX];

	if (n <= 0)
		return -1;
	self_path[n] = 0;
	snprintf(dir, sizeof(dir), "%s", self_path);
	snprintf(lib_path, sizeof(lib_path), "%s/libstack_stress.so", dirname(dir));
	return 0;
}

int main(int argc, char **argv)
{
	void *(*loops[])(void *) = {dl_loop, malloc_loop, phdr_loop, fork_loop};
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	pthread_t threads[4];

	if (argc > 1 && !strcmp(argv[1], "child")) {
		double until = thread_cpu_s() + 0.02;

		while (thread_cpu_s() < until)
			sink += burn(40, 10000);
		return 0;
	}
	if (find_paths() < 0)
		return 1;
	for (int i = 0; i < 4; i++)
		if (pthread_create(&threads[i], NULL, loops[i], NULL))
			return 1;
	while (thread_cpu_s() < seconds)
		sink += burn(60, 50000);
	stop = 1;
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	printf("stack_stress children=%ld bad_children=%ld dl=%ld mallocs=%ld phdr=%ld\n", children,
	       bad_children, dl_rounds, mallocs, phdr_rounds);
	return failed || bad_children || !children || !dl_rounds ? 1 : 0;
}
