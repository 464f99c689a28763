// SPDX-License-Identifier: MIT
/*
 * agent_manylibs DIR N SECONDS: dlopen DIR/lib0.so .. DIR/lib<N-1>.so (copies
 * of libagent_manylibs.so), then for SECONDS of its CPU time call, round
 * after round, each copy's hop() with the next copy's spin(): every sample's
 * stack is main -> hop (copy i) -> spin (copy i+1), through ~N objects in all
 * (issue 16, item 6: the old agent's unwinder held 256 objects, and stacks
 * through the others were cut short).  Prints "manylibs done N".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*spin_fn)(unsigned long);
typedef void (*hop_fn)(spin_fn, unsigned long);

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	uint64_t end;
	hop_fn *hops;
	spin_fn *spins;
	char path[4096];

	if (argc < 4 || n < 2)
		return 2;
	hops = calloc((size_t)n, sizeof(*hops));
	spins = calloc((size_t)n, sizeof(*spins));
	for (int i = 0; i < n; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "agent_manylibs: %s\n", dlerror());
			return 3;
		}
		hops[i] = (hop_fn)dlsym(h, "hop");
		spins[i] = (spin_fn)dlsym(h, "spin");
	}
	end = cpu_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	while (cpu_ns() < end)
		for (int i = 0; i < n; i++)
			hops[i](spins[(i + 1) % n], 100000);
	printf("manylibs done %d\n", n);
	return 0;
}
