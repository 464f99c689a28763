// SPDX-License-Identifier: MIT
/*
 * 4 threads created before profiling is turned on and 4 created after,
 * each burning its own function for the same CPU time, all at once, in
 * rounds of ROUND_CPU seconds each until the 8 functions hold MIN_SAMPLES
 * samples (at most 12 rounds).
 * Usage: lib_threads CLOCK HZ ROUND_CPU MIN_SAMPLES
 * Prints one line per thread "thread=K group=before|after share=S" where S is
 * its % of the 8 threads' samples, then "samples= lost= eff_hz= threads=".
 */
#include <pthread.h>

#include "lib_prog.h"

HOT_FN(t0)
HOT_FN(t1)
HOT_FN(t2)
HOT_FN(t3)
HOT_FN(t4)
HOT_FN(t5)
HOT_FN(t6)
HOT_FN(t7)

static void (*const fns[8])(long) = {t0, t1, t2, t3, t4, t5, t6, t7};
static pthread_barrier_t go, done;
static double cpu_round;
static volatile int stop;

static void *worker(void *arg)
{
	void (*fn)(long) = fns[(uintptr_t)arg];
	double until;

	for (;;) {
		pthread_barrier_wait(&go);
		if (stop)
			return NULL;
		until = thread_cpu_s() + cpu_round;
		while (thread_cpu_s() < until)
			fn(20000);
		pthread_barrier_wait(&done);
	}
}

int main(int argc, char **argv)
{
	const struct hot_range r[8] = {HOT_RANGE(t0), HOT_RANGE(t1), HOT_RANGE(t2), HOT_RANGE(t3),
				       HOT_RANGE(t4), HOT_RANGE(t5), HOT_RANGE(t6), HOT_RANGE(t7)};
	pthread_t th[8];
	struct profil_stats st;
	unsigned short *buf;
	uint64_t n[8], total = 0;
	uintptr_t lo;
	size_t size;
	uint64_t want;
	int armed, rounds = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: lib_threads CLOCK HZ ROUND_CPU MIN_SAMPLES\n");
		return 2;
	}
	choose_clock(argv[1], (unsigned int)atoi(argv[2]));
	cpu_round = atof(argv[3]);
	want = strtoull(argv[4], NULL, 10);
	buf = cover(r, 8, &lo, &size);
	pthread_barrier_init(&go, NULL, 9);
	pthread_barrier_init(&done, NULL, 9);
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	enable_or_skip(profil(buf, size, lo, 65536), "profil");
	for (uintptr_t i = 4; i < 8; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&go);
	profil_get_stats(&st, sizeof(st));
	armed = st.threads;
	for (;;) {
		pthread_barrier_wait(&done);
		rounds++;
		total = 0;
		for (int i = 0; i < 8; i++)
			total += count_range(buf, lo, &r[i]);
		if (total >= want || rounds == 12)
			stop = 1;
		pthread_barrier_wait(&go);
		if (stop)
			break;
	}
	total = 0;
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	profil_get_stats(&st, sizeof(st));
	profil_off();
	for (int i = 0; i < 8; i++)
		total += n[i] = count_range(buf, lo, &r[i]);
	for (int i = 0; i < 8; i++)
		printf("thread=%d group=%s share=%.2f\n", i, i < 4 ? "before" : "after",
		       total ? 100.0 * n[i] / total : 0);
	printf("clock=%s samples=%llu in=%llu lost=%llu eff_hz=%.1f threads_at_start=%d "
	       "rounds=%d\n",
	       profil_clock_name(st.clock), (unsigned long long)st.samples,
	       (unsigned long long)total, (unsigned long long)st.lost, st.effective_hz, armed,
	       rounds);
	free(buf);
	return 0;
}
