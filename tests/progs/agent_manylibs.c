// SPDX-License-Identifier: MIT
/*
 * agent_manylibs DIR N SECONDS: dlopen DIR/lib0.so .. DIR/lib<N-1>.so (copies
 * of libagent_manylibs.so), then for SECONDS of its CPU time call, round
 * after round, each copy's hop() with the next copy's spin(): every sample's
 * stack is main -> hop (copy i) -> spin (copy i+1), through ~N objects in all
 * (issue 16, item 6: the old agent's unwinder held 256 objects, and stacks
 * through the others were cut short).  Prints "manylibs done N".
 *
 * agent_manylibs swap PATH LIBA LIBB SECONDS (item 5): copies LIBA to PATH,
 * dlopens it, spins SECONDS in its spin() through its hop(), dlcloses it,
 * puts a copy of LIBB at PATH (a new file: another inode), dlopens it (the
 * loader puts it where LIBA was) and spins there as long.  Prints "swap done
 * same-address=0|1".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*spin_fn)(unsigned long);
typedef void (*hop_fn)(spin_fn, unsigned long);

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* PATH := a new copy of FROM (another inode), written beside it and renamed over it. */
static int copy_over(const char *from, const char *path)
{
	char tmp[4096], buf[65536];
	FILE *in = fopen(from, "rb"), *out;
	size_t n;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	out = fopen(tmp, "wb");
	if (!in || !out)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out) != 0)
		return -1;
	return rename(tmp, path);
}

/* dlopen path and spin seconds in it; its handle, and where its hop() is */
static void *spin_in(const char *path, double seconds, void **hop_at)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	hop_fn hop;
	spin_fn spin;
	uint64_t end;

	if (!h)
		return NULL;
	hop = (hop_fn)dlsym(h, "hop");
	spin = (spin_fn)dlsym(h, "spin");
	*hop_at = (void *)hop;
	end = cpu_ns() + (uint64_t)(seconds * 1e9);
	while (cpu_ns() < end)
		hop(spin, 100000);
	return h;
}

static int run_swap(const char *path, const char *a, const char *b, double seconds)
{
	void *h, *at_a, *at_b;

	if (copy_over(a, path) < 0 || !(h = spin_in(path, seconds, &at_a)))
		return 3;
	dlclose(h);
	if (copy_over(b, path) < 0 || !(h = spin_in(path, seconds, &at_b)))
		return 4;
	printf("swap done same-address=%d\n",
	       ((uintptr_t)at_a & ~(uintptr_t)0xfff) == ((uintptr_t)at_b & ~(uintptr_t)0xfff));
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	uint64_t end;
	hop_fn *hops;
	spin_fn *spins;
	char path[4096];

	if (argc == 6 && !strcmp(argv[1], "swap"))
		return run_swap(argv[2], argv[3], argv[4], atof(argv[5]));
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
