// SPDX-License-Identifier: MIT
/*
 * Three hot functions doing about 50/30/20 % of the work, profiled over their
 * own text with profil().  Usage: lib_hot CLOCK HZ CPU_SECONDS [MIN_SAMPLES]
 * Prints: clock= samples= in= a= b= c= ta= tb= tc= outside= lost= eff_hz=
 * nominal_hz=: a b c are the profile's shares in %, ta tb tc the shares of
 * the thread's CPU time each function measured itself spending (the truth:
 * a unit of work's cost changes with load and sanitizers).
 */
#include "lib_prog.h"

HOT_FN(hot_a)
HOT_FN(hot_b)
HOT_FN(hot_c)

/* Call fn(n) and add the CPU time it took to *ns. */
static void timed(void (*fn)(long), long n, double *ns)
{
	double t0 = thread_cpu_s();

	fn(n);
	*ns += thread_cpu_s() - t0;
}

int main(int argc, char **argv)
{
	const struct hot_range r[3] = {HOT_RANGE(hot_a), HOT_RANGE(hot_b), HOT_RANGE(hot_c)};
	struct profil_stats st;
	unsigned short *buf;
	uintptr_t lo;
	size_t size;
	double until, cpu, t[3] = {0, 0, 0}, tsum;
	uint64_t n[3], total, want = argc == 5 ? strtoull(argv[4], NULL, 10) : UINT64_MAX;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: lib_hot CLOCK HZ MAX_CPU_SECONDS [MIN_SAMPLES]\n");
		return 2;
	}
	choose_clock(argv[1], (unsigned int)atoi(argv[2]));
	cpu = atof(argv[3]);
	buf = cover(r, 3, &lo, &size);
	enable_or_skip(profil(buf, size, lo, 65536), "profil");
	until = thread_cpu_s() + cpu;
	while (thread_cpu_s() < until) {
		timed(hot_a, 50000, &t[0]);
		timed(hot_b, 30000, &t[1]);
		timed(hot_c, 20000, &t[2]);
		if (want != UINT64_MAX && profil_get_stats(&st, sizeof(st)) == 0 &&
		    st.samples >= want)
			break;
	}
	profil_get_stats(&st, sizeof(st));
	profil_off();
	for (int i = 0; i < 3; i++)
		n[i] = count_range(buf, lo, &r[i]);
	total = n[0] + n[1] + n[2];
	tsum = t[0] + t[1] + t[2];
	printf("clock=%s samples=%llu in=%llu a=%.1f b=%.1f c=%.1f ta=%.1f tb=%.1f tc=%.1f "
	       "outside=%llu lost=%llu "
	       "eff_hz=%.1f "
	       "nominal_hz=%u\n",
	       profil_clock_name(st.clock), (unsigned long long)st.samples,
	       (unsigned long long)total, total ? 100.0 * n[0] / total : 0,
	       total ? 100.0 * n[1] / total : 0, total ? 100.0 * n[2] / total : 0,
	       tsum > 0 ? 100 * t[0] / tsum : 0, tsum > 0 ? 100 * t[1] / tsum : 0,
	       tsum > 0 ? 100 * t[2] / tsum : 0,
	       (unsigned long long)st.outside, (unsigned long long)st.lost, st.effective_hz,
	       st.nominal_hz);
	free(buf);
	return 0;
}
