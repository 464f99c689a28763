// SPDX-License-Identifier: MIT
/*
 * An agent whose atfork child handler was registered BEFORE the sampler's
 * (so it runs first in the child) restarts the sampler from it: the sampler
 * must recognise the child and not touch the parent's clock (for perf: not
 * join a helper thread that does not exist in the child).
 */
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lib/sampler.h"
#include "tests/progs/tick_witness.h"

static uint64_t weights; /* atomic: the samples' ticks (1 + those the kernel merged) */
static int restart_ret = -1;

static void sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	(void)arg;
	(void)pc;
	(void)tid;
	__atomic_fetch_add(&weights, ticks, __ATOMIC_RELAXED);
}

static void agent_child(void)
{
	__atomic_store_n(&weights, 0, __ATOMIC_RELAXED);
	restart_ret = sampler_child_restart();
}

static void burn(double seconds)
{
	struct timespec ts;
	double until;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	until = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
	do {
		for (volatile int i = 0; i < 10000; i++)
			;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < until);
}

static void run(enum profil_clock clock, const char *name)
{
	struct sampler_config c = {
		.clock = clock, .hz = 1000, .sink = sink, .flags = SAMPLER_FORK_MANUAL};
	int ret = sampler_start(&c, NULL), status = -1;
	char what[128];
	pid_t pid;

	snprintf(what, sizeof(what), "%s: agent's early atfork handler restarts the sampler", name);
	if (ret == -EACCES || ret == -EPERM || ret == -ENOSYS || ret == -ENOENT) {
		SKIP(what, "perf_event_open refused here");
		return;
	}
	burn(0.05);
	pid = fork();
	if (pid == 0) {
		struct tick_witness wit;
		double witnessed, floor = 100;

		alarm(10); /* a hang (joining the parent's helper thread) fails the test */
		tick_witness_start(&wit, 1000000);
		burn(0.2);
		witnessed = tick_witness_stop(&wit);
		sampler_stop();
		/* 0.2 s of CPU at 1000 Hz asked (the thread clock capped at CONFIG_HZ, its ticks
		 * merged: what the samples stand for is what counts, 200 ms); half of it, or
		 * half of what the kernel delivered to a witness when it held ticks back */
		if (tick_witness_held(witnessed))
			floor *= witnessed;
		_exit(restart_ret == 0 &&
				      (double)__atomic_load_n(&weights, __ATOMIC_RELAXED) >= floor - 1
			      ? 0
			      : 1);
	}
	waitpid(pid, &status, 0);
	sampler_stop();
	CHECKF(what, ret == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "start %d, child status %d", ret, status);
}

int main(void)
{
	pthread_atfork(NULL, NULL, agent_child); /* before the sampler registers its own */
	run(PROFIL_CLOCK_PERF, "perf");
	run(PROFIL_CLOCK_THREAD, "thread");
	return CHECK_DONE();
}
