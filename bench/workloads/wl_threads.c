// SPDX-License-Identifier: MIT
/*
 * Workload "threads": four worker threads with unequal work (40/30/20/10 %
 * of the total), each in its own function plus a shared one; the main
 * thread only waits.  Threads are named w0..w3.
 */
#include <pthread.h>
#include <stdio.h>

#include "truth.h"

#define NWORKERS 4

volatile uint64_t sink;

struct worker {
	int id;
	uint64_t budget;
	pthread_t thread;
};

SPIN_FN(shared_step, n, sink)

/* One function per worker, so that function shares also reveal thread shares. */
SPIN_FN(worker0_step, n + 0, sink)
SPIN_FN(worker1_step, n + 1, sink)
SPIN_FN(worker2_step, n + 2, sink)
SPIN_FN(worker3_step, n + 3, sink)

static const struct work own[NWORKERS] = {{"worker0_step", worker0_step, 2},
					   {"worker1_step", worker1_step, 2},
					   {"worker2_step", worker2_step, 2},
					   {"worker3_step", worker3_step, 2}};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	/* one third shared, two thirds in the worker's own function */
	const struct work works[] = {{"shared_step", shared_step, 1}, own[w->id]};
	char name[16];

	snprintf(name, sizeof(name), "w%d", w->id);
	pthread_setname_np(pthread_self(), name);
	run_works(w->budget, 0x9e3779b97f4a7c15ull * (w->id + 1), works, 2);
	truth_add_thread(name, thread_cpu_seconds());
	return NULL;
}

int main(void)
{
	static const int weight[NWORKERS] = { 4, 3, 2, 1 };
	/* about 1.1 CPU seconds at scale 1 */
	uint64_t total = work_budget(1100);
	struct worker w[NWORKERS];
	int i;

	for (i = 0; i < NWORKERS; i++) {
		w[i].id = i;
		w[i].budget = total * weight[i] / 10;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			fprintf(stderr, "threads: cannot create a thread\n");
			return 1;
		}
	}
	for (i = 0; i < NWORKERS; i++)
		pthread_join(w[i].thread, NULL);
	truth_add_thread("main", thread_cpu_seconds());
	truth_write("threads");
	return 0;
}
