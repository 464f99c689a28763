// SPDX-License-Identifier: MIT
/*
 * THREAD clock: one POSIX timer per thread on that thread's CPU clock,
 * delivering the signal to that thread only (SIGEV_THREAD_ID), so every
 * thread is sampled by its own CPU time.  Threads are found by thread_table.c.
 * The kernel checks CPU timers at its tick, so the rate is capped at
 * CONFIG_HZ; the ticks merged by that cap come back as si_overrun and are
 * counted as lost.
 */
#include <errno.h>
#include <time.h>

#include "ptimer.h"
#include "tick_signal.h"
#include "thread_table.h"

static struct clock_params params;
static uint64_t rng_state; /* atomic */

/* A random first expiry in [1, period] so that threads do not tick in lock step. */
static uint64_t first_expiry(void)
{
	uint64_t x = __atomic_load_n(&rng_state, __ATOMIC_RELAXED);

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	__atomic_store_n(&rng_state, x, __ATOMIC_RELAXED);
	return 1 + x % params.period_ns;
}

static uintptr_t thread_arm(pid_t tid, unsigned int slot)
{
	int id;

	(void)slot;
	if (ptimer_create(ptimer_thread_clock(tid), params.signo, tid,
			  clock_tag(params.gen, CLOCK_TAG_SAMPLE), &id) < 0)
		return 0;
	if (ptimer_arm(id, first_expiry(), params.period_ns) < 0) {
		ptimer_delete(id);
		return 0;
	}
	return (uintptr_t)id + 1;
}

static void thread_drop(unsigned int slot, uintptr_t handle)
{
	(void)slot;
	ptimer_delete((int)(handle - 1));
}

static const struct threads_ops thread_table_ops = {
	.arm = thread_arm,
	.drop = thread_drop,
	.reap_dead = 1,
};

static int thread_probe(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	return ptimer_probe(ptimer_thread_clock(tid), tid);
}

static void thread_quiesce(void)
{
	threads_quiesce();
	for (unsigned int i = 0; i < THREADS_CAP; i++) {
		uintptr_t h = threads_take(i);

		if (h)
			thread_drop(i, h);
	}
}

static int thread_start(const struct clock_params *p)
{
	struct timespec ts;
	int ret;

	params = *p;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__atomic_store_n(&rng_state,
			 ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ 0x9e3779b97f4a7c15ull,
			 __ATOMIC_RELAXED);
	ret = threads_start(&thread_table_ops, p, 0);
	if (ret < 0) {
		thread_quiesce();
		threads_reset();
	}
	return ret;
}

static void thread_stop(void)
{
	thread_quiesce();
	threads_drain();
	thread_quiesce(); /* anything a draining handler armed */
	threads_reset();
}

const struct clock_ops clock_thread_ops = {
	.id = PROFIL_CLOCK_THREAD,
	.default_hz = 100,
	.max_hz = 100000,
	.uses_signal = 1,
	.probe = thread_probe,
	.start = thread_start,
	.quiesce = thread_quiesce,
	.stop = thread_stop,
	.forget = threads_forget,
	.lost = sig_lost,
	.threads = threads_armed,
	.thread_started = threads_arm_self,
};
