// SPDX-License-Identifier: MIT
/*
 * A/B sampler: the gperftools CPU profiler, ProfilerStart()/ProfilerStop().
 * The rate comes from $CPUPROFILE_FREQUENCY, read by gperftools itself at
 * load time (the harness sets it); the profile goes to $BENCH_GPERF_OUT.
 */
#include <stdlib.h>

#include <gperftools/profiler.h>

#include "ab_modes.h"

static int gperf_start(unsigned int hz)
{
	const char *out = getenv("BENCH_GPERF_OUT");

	(void)hz;
	return ProfilerStart(out ? out : "/dev/null") ? 0 : -1;
}

static uint64_t gperf_stop(void)
{
	struct ProfilerState st;

	ProfilerGetCurrentState(&st);
	ProfilerStop();
	return st.samples_gathered > 0 ? (uint64_t)st.samples_gathered : 0;
}

const struct ab_mode ab_modes[] = {
	{ "gperf", NULL, gperf_start, gperf_stop, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};
