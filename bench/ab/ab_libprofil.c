// SPDX-License-Identifier: MIT
/*
 * A/B samplers: libprofil's profil() with each clock, chosen by
 * profil_set_clock(clock, hz).  Built only once build/libprofil.a provides
 * the extended API (see mk/bench.mk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profil.h"

#include "ab_modes.h"

static unsigned short *bins;
static size_t nbins;
static long long lost_total;

static int lp_init(void)
{
	nbins = text.size / 2 + 1;
	bins = calloc(nbins, sizeof(*bins));
	return bins ? 0 : -1;
}

static int lp_start(enum profil_clock clock, unsigned int hz)
{
	memset(bins, 0, nbins * sizeof(*bins));
	if (profil_set_clock(clock, hz) < 0)
		return -1;
	return profil(bins, nbins * sizeof(*bins), text.start, 65536);
}

/* Samples inside or outside the buffer, as the library counts them. */
static uint64_t lp_stop(void)
{
	struct profil_stats st;

	profil(NULL, 0, 0, 0);
	if (profil_get_stats(&st, sizeof(st)) < 0)
		return 0;
	lost_total += (long long)st.lost;
	return st.samples;
}

static long long lp_lost(void)
{
	return lost_total;
}

static int lp_start_thread(unsigned int hz)
{
	return lp_start(PROFIL_CLOCK_THREAD, hz);
}

static int lp_start_itimer(unsigned int hz)
{
	return lp_start(PROFIL_CLOCK_ITIMER, hz);
}

static int lp_start_perf(unsigned int hz)
{
	return lp_start(PROFIL_CLOCK_PERF, hz);
}

const struct ab_mode ab_modes[] = {
	{ "libprofil-thread", lp_init, lp_start_thread, lp_stop, lp_lost, NULL },
	{ "libprofil-itimer", lp_init, lp_start_itimer, lp_stop, lp_lost, NULL },
	{ "libprofil-perf", lp_init, lp_start_perf, lp_stop, lp_lost, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};
