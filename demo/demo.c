// SPDX-License-Identifier: MIT
/*
 * libprofil demo: a program that profiles itself with profil() over its own
 * text, while three threads do different amounts of work, then prints its
 * hottest functions by name (dladdr(); the demo is linked with -rdynamic).
 *
 *   demo [CLOCK [HZ]]     CLOCK: auto (default), thread, itimer, perf
 * PROFIL_CLOCK / PROFIL_HZ in the environment work too.
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primes.h"
#include "profil.h"

extern char __executable_start[], etext[];

/* ---- the work ------------------------------------------------------------ */

__attribute__((noinline)) int mandelbrot_point(double cr, double ci)
{
	double zr = 0, zi = 0;
	int i;

	for (i = 0; i < 500 && zr * zr + zi * zi < 4; i++) {
		double t = zr * zr - zi * zi + cr;

		zi = 2 * zr * zi + ci;
		zr = t;
	}
	return i;
}

__attribute__((noinline)) long mandelbrot(int size)
{
	long sum = 0;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			sum += mandelbrot_point(-2.0 + 3.0 * x / size, -1.5 + 3.0 * y / size);
	return sum;
}

__attribute__((noinline)) uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) uint64_t checksum_rounds(int rounds)
{
	static unsigned char data[1 << 16];
	uint64_t h = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	for (int r = 0; r < rounds; r++)
		h += hash_bytes(data, sizeof(data));
	return h;
}

static void *primes_thread(void *arg)
{
	*(long *)arg = count_primes(3500000);
	return NULL;
}

static void *mandel_thread(void *arg)
{
	*(long *)arg = mandelbrot(1400);
	return NULL;
}

/* ---- the report ---------------------------------------------------------- */

struct fn_count {
	const char *name;
	uint64_t samples;
};

static int by_samples(const void *a, const void *b)
{
	const struct fn_count *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static void report(const unsigned short *buf, size_t nbins, uintptr_t lo)
{
	struct fn_count *fns = calloc(nbins, sizeof(*fns));
	size_t nfns = 0;
	uint64_t total = 0;
	struct profil_stats st;

	for (size_t i = 0; i < nbins; i++) {
		Dl_info info;
		const char *name = "(unknown)";
		size_t k;

		if (!buf[i])
			continue;
		if (dladdr((void *)(lo + 2 * i), &info) && info.dli_sname)
			name = info.dli_sname;
		for (k = 0; k < nfns && strcmp(fns[k].name, name) != 0; k++)
			;
		if (k == nfns)
			fns[nfns++].name = name;
		fns[k].samples += buf[i];
		total += buf[i];
	}
	qsort(fns, nfns, sizeof(*fns), by_samples);
	profil_get_stats(&st, sizeof(st));
	printf("clock %s, nominal %u Hz, effective %.0f samples per CPU second, %.2f s of CPU, "
	       "%llu samples (%llu outside the text, %llu lost)\n\n",
	       profil_clock_name(st.clock), st.nominal_hz, st.effective_hz, st.cpu_ns / 1e9,
	       (unsigned long long)st.samples, (unsigned long long)st.outside,
	       (unsigned long long)st.lost);
	printf("  %%time  samples  function\n");
	for (size_t k = 0; k < nfns && k < 10; k++)
		printf("%7.1f %8llu  %s\n", total ? 100.0 * fns[k].samples / total : 0.0,
		       (unsigned long long)fns[k].samples, fns[k].name);
	free(fns);
}

int main(int argc, char **argv)
{
	uintptr_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	size_t bufsiz = (hi - lo + 1) & ~(size_t)1;
	unsigned short *buf = calloc(1, bufsiz);
	long primes = 0, mandel = 0;
	pthread_t t1, t2;
	uint64_t sum;

	if (argc > 1) {
		enum profil_clock c;

		if (profil_clock_from_name(argv[1], &c) < 0 ||
		    profil_set_clock(c, argc > 2 ? (unsigned int)atoi(argv[2]) : 0) < 0) {
			fprintf(stderr, "demo: unknown clock or rate: %s %s\n", argv[1],
				argc > 2 ? argv[2] : "");
			return 2;
		}
	}
	if (!buf || profil(buf, bufsiz, lo, 65536) < 0) {
		perror("demo: profil");
		return 1;
	}
	pthread_create(&t1, NULL, primes_thread, &primes); /* threads started after profil() */
	pthread_create(&t2, NULL, mandel_thread, &mandel);
	sum = checksum_rounds(9000);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	report(buf, bufsiz / 2, lo);
	profil(buf, 0, 0, 0); /* scale 0: off (glibc's <unistd.h> declares buf nonnull) */
	printf("\n(work results: %ld primes, mandelbrot %ld, checksum %llx)\n", primes, mandel,
	       (unsigned long long)(sum & 0xffff));
	free(buf);
	return 0;
}
