// SPDX-License-Identifier: MIT
/*
 * 4 threads created before profiling is turned on and 4 created after,
 * each burning its own function for the same CPU time, all at once.
 * Usage: lib_threads CLOCK HZ CPU_SECONDS_PER_THREAD
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

static void (*const fns[8])(long) = { t0, t1, t2, t3, t4, t5, t6, t7 };
static pthread_barrier_t go;
static double cpu_each;

static void *worker(void *arg)
{
	void (*fn)(long) = fns[(uintptr_t)arg];
	double until;

	pthread_barrier_wait(&go);
	until = thread_cpu_s() + cpu_each;
	while (thread_cpu_s() < until)
		fn(20000);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct hot_range r[8] = { HOT_RANGE(t0), HOT_RANGE(t1), HOT_RANGE(t2), HOT_RANGE(t3),
					HOT_RANGE(t4), HOT_RANGE(t5), HOT_RANGE(t6), HOT_RANGE(t7) };
	pthread_t th[8];
	struct profil_stats st;
	unsigned short *buf;
	uint64_t n[8], total = 0;
	uintptr_t lo;
	size_t size;
	int armed;

	if (argc != 4) {
		fprintf(stderr, "usage: lib_threads CLOCK HZ CPU_SECONDS_PER_THREAD\n");
		return 2;
	}
	choose_clock(argv[1], (unsigned int)atoi(argv[2]));
	cpu_each = atof(argv[3]);
	buf = cover(r, 8, &lo, &size);
	pthread_barrier_init(&go, NULL, 9);
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	enable_or_skip(profil(buf, size, lo, 65536), "profil");
	for (uintptr_t i = 4; i < 8; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&go);
	profil_get_stats(&st, sizeof(st));
	armed = st.threads;
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	profil_get_stats(&st, sizeof(st));
	profil_off();
	for (int i = 0; i < 8; i++)
		total += n[i] = count_range(buf, lo, &r[i]);
	for (int i = 0; i < 8; i++)
		printf("thread=%d group=%s share=%.2f\n", i, i < 4 ? "before" : "after",
		       total ? 100.0 * n[i] / total : 0);
	printf("clock=%s samples=%llu in=%llu lost=%llu eff_hz=%.1f threads_at_start=%d\n",
	       profil_clock_name(st.clock), (unsigned long long)st.samples,
	       (unsigned long long)total, (unsigned long long)st.lost, st.effective_hz, armed);
	return 0;
}
