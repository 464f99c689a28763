// SPDX-License-Identifier: MIT
/*
 * ITIMER clock: glibc's semantics (one process-wide CPU-time clock, one
 * signal stream for all threads) on a POSIX timer of our own instead of
 * setitimer(ITIMER_PROF): the program keeps ITIMER_PROF and SIGPROF, and
 * exec deletes the timer.  Linux >= 6.3 delivers the tick to the thread
 * that used the CPU.
 */
#include <errno.h>
#include <time.h>

#include "clock.h"
#include "ptimer.h"
#include "tick_signal.h"

static int timer_id;
static int timer_on; /* atomic: 1 while timer_id is ours to delete */

static int itimer_probe(void)
{
	int id, ret = ptimer_create(CLOCK_PROCESS_CPUTIME_ID, SIGRTMAX - 2, 0, NULL, &id);

	if (ret == 0)
		ptimer_delete(id);
	return ret;
}

static void itimer_quiesce(void)
{
	if (__atomic_exchange_n(&timer_on, 0, __ATOMIC_ACQ_REL))
		ptimer_delete(timer_id);
}

static int itimer_start(const struct clock_params *p)
{
	int ret = ptimer_create(CLOCK_PROCESS_CPUTIME_ID, p->signo, 0,
				clock_tag(p->gen, CLOCK_TAG_PROCESS), &timer_id);

	if (ret < 0)
		return ret;
	__atomic_store_n(&timer_on, 1, __ATOMIC_RELEASE);
	ret = ptimer_arm(timer_id, p->period_ns, p->period_ns);
	if (ret < 0)
		itimer_quiesce();
	return ret;
}

static void itimer_forget(void)
{
	__atomic_store_n(&timer_on, 0, __ATOMIC_RELEASE);
}

static uint64_t itimer_lost(void)
{
	return sig_lost();
}

static int itimer_threads(void)
{
	return 0;
}

const struct clock_ops clock_itimer_ops = {
	.id = PROFIL_CLOCK_ITIMER,
	.default_hz = 100,
	.max_hz = 100000,
	.uses_signal = 1,
	.probe = itimer_probe,
	.start = itimer_start,
	.quiesce = itimer_quiesce,
	.stop = itimer_quiesce,
	.forget = itimer_forget,
	.lost = itimer_lost,
	.threads = itimer_threads,
};
