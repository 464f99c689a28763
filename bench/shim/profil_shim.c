// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim that profiles an unmodified program with glibc's own
 * profil(3): at load time it covers the main executable's text segment with
 * one 16-bit bin per 2 bytes (scale 65536); at exit it writes the non-zero
 * bins to $BENCH_GLIBC_PROFIL_OUT.<pid> as text:
 *
 *   exe <path>
 *   lowpc <link-time address of bin 0> binbytes 2 hz 100
 *   <link-time address> <count>        (one line per non-zero bin)
 *
 * glibc samples with ITIMER_PROF at 100 Hz; samples outside the main
 * executable are dropped by profil() itself, as in gprof.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "main_text.h"

#ifdef USE_LIBPROFIL
/*
 * Built with -DUSE_LIBPROFIL and linked with libprofil.a, the same shim
 * measures libprofil's profil() instead, with the clock and rate from
 * $BENCH_LIBPROFIL_CLOCK (thread, itimer, perf) and $BENCH_LIBPROFIL_HZ,
 * and appends libprofil's own statistics to the header.
 */
#include "profil.h"
#define OUT_ENV "BENCH_LIBPROFIL_OUT"
#else
#define OUT_ENV "BENCH_GLIBC_PROFIL_OUT"
#endif

static unsigned short *bins;
static unsigned short *volatile profil_off;
static size_t nbins;
static uintptr_t text_vaddr;
static char exe_path[4096];

/* One bin per 2 bytes of the main program's text, and profil() on it. */
static void start_profil(void)
{
	struct main_text t;

	if (main_text__find(&t) < 0)
		return;
	text_vaddr = t.vaddr;
	nbins = (t.size + 1) / 2;
	bins = calloc(nbins, sizeof(*bins));
	if (bins)
		profil(bins, nbins * sizeof(*bins), t.start, 65536);
}

__attribute__((constructor)) static void shim_start(void)
{
	ssize_t n;

	if (!getenv(OUT_ENV))
		return;
	n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[n > 0 ? n : 0] = '\0';
#ifdef USE_LIBPROFIL
	{
		const char *name = getenv("BENCH_LIBPROFIL_CLOCK"),
			   *hz = getenv("BENCH_LIBPROFIL_HZ");
		enum profil_clock clock = PROFIL_CLOCK_AUTO;

		if (name && profil_clock_from_name(name, &clock) < 0)
			return;
		if (profil_set_clock(clock, hz ? (unsigned int)atoi(hz) : 0) < 0)
			return;
	}
#endif
	start_profil();
}

__attribute__((destructor)) static void shim_stop(void)
{
	char path[4096];
	FILE *f;

	if (!bins)
		return;
	/* glibc declares buf nonnull, yet NULL is how profil() is turned off */
	profil(profil_off, 0, 0, 0);
	snprintf(path, sizeof(path), "%s.%ld", getenv(OUT_ENV), (long)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
#ifdef USE_LIBPROFIL
	{
		struct profil_stats st;

		memset(&st, 0, sizeof(st));
		profil_get_stats(&st, sizeof(st));
		fprintf(f, "exe %s\nlowpc %lu binbytes 2 hz %u\n", exe_path,
			(unsigned long)text_vaddr, st.period_us ? 1000000u / st.period_us : 0);
		fprintf(f, "stats samples %llu outside %llu lost %llu period_us %u\n",
			(unsigned long long)st.samples, (unsigned long long)st.outside,
			(unsigned long long)st.lost, st.period_us);
	}
#else
	fprintf(f, "exe %s\nlowpc %lu binbytes 2 hz 100\n", exe_path, (unsigned long)text_vaddr);
#endif
	for (size_t i = 0; i < nbins; i++)
		if (bins[i])
			fprintf(f, "%lu %u\n", (unsigned long)(text_vaddr + 2 * i), bins[i]);
	fclose(f);
}
