/* SPDX-License-Identifier: MIT */
/*
 * A witness of the kernel's CPU-timer ticks: a timer of the test program's
 * own on a CPU clock, each tick it gets crediting the thread's CPU time since
 * its previous one (so the ticks the kernel merged into it count).
 *
 * Why: when every CPU is busy, the kernel can leave a thread's expired CPU
 * timers unprocessed for hundreds of ms of that thread's CPU time (measured on
 * this machine's 6.18 kernel with two busy loops beside: a timer at 100 Hz
 * went 93 ms of CPU without a tick, then delivered it with an overrun of 8;
 * at times a whole 0.3 s run got nothing; doc/libprofil.md).  A profiler
 * whose clock is such a timer (the thread and itimer clocks) cannot sample
 * what the kernel does not deliver.  A test of those clocks' accuracy reads
 * the witness beside its CPU time: where the witness got its ticks and the
 * profiler did not, the profiler lost them; where the witness was held too,
 * the kernel did, and the run says so (and is run again, a bounded number of
 * times).  Two kinds share one handler: a timer on the thread's own clock,
 * and one on the process's (below).  Header-only, for the test programs and the unit tests.
 */
#ifndef PROFIL_TESTS_TICK_WITNESS_H
#define PROFIL_TESTS_TICK_WITNESS_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_clock.h"

/*
 * The program's own signal, not libprofil's (SIGRTMAX - 2 by default), and
 * above it: when both timers expire at one kernel tick, the kernel delivers
 * the lower-numbered signal first, and the handler of the one delivered
 * second runs first, interrupted at the other handler's first instruction.
 * So the profiler's tick is delivered first and still sees the program's PC.
 */
#define TICK_WITNESS_SIGNAL SIGRTMAX

struct tick_witness {
	timer_t id;
	uint64_t cpu0_ns; /* the thread's CPU clock when it started */
	int armed;
};

/*
 * Each witness tick stands for the receiving thread's own CPU time since its
 * previous one (as the itimer clock weighs its ticks; for a timer on the
 * thread's own clock, that is the period times the ticks it merged): CPU
 * time of a measured stretch that no tick stood for is what the kernel held
 * back, or (the process-wide kind) gave to the process's other threads.
 */
static __thread struct {
	int on;		    /* in a measured stretch */
	uint64_t last_ns;   /* the thread's CPU clock at its previous witness tick */
	uint64_t credit_ns; /* CPU time of the stretch its ticks stood for */
} tick_witness_thread;

static void tick_witness_on_tick(int sig, siginfo_t *si, void *uc)
{
	uint64_t now;

	(void)sig;
	(void)si;
	(void)uc;
	if (!tick_witness_thread.on)
		return;
	now = thread_cpu_ns();
	tick_witness_thread.credit_ns += now - tick_witness_thread.last_ns;
	tick_witness_thread.last_ns = now;
}

/* A timer on CLOCK at PERIOD_NS, its ticks to tick_witness_on_tick() as EV says.  0, or -1. */
static inline int tick_witness_arm(clockid_t clock, struct sigevent *ev, uint64_t period_ns,
				   timer_t *id)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = tick_witness_on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/* every signal blocked while it reads the thread's clock (a system call): else the
	 * profiler's tick lands in that call (11 % of the itimer's samples in [vdso], measured) */
	sigfillset(&sa.sa_mask);
	ev->sigev_signo = TICK_WITNESS_SIGNAL;
	its.it_value.tv_sec = its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
	its.it_value.tv_nsec = its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
	if (sigaction(TICK_WITNESS_SIGNAL, &sa, NULL) < 0 || timer_create(clock, ev, id) < 0)
		return -1;
	if (timer_settime(*id, 0, &its, NULL) < 0) {
		timer_delete(*id);
		return -1;
	}
	return 0;
}

static inline void tick_witness_thread_begin(void)
{
	tick_witness_thread.credit_ns = 0;
	tick_witness_thread.last_ns = thread_cpu_ns();
	tick_witness_thread.on = 1;
}

/* The CPU time of the stretch the witness's ticks to this thread stood for. */
static inline uint64_t tick_witness_thread_end(void)
{
	tick_witness_thread.on = 0;
	return tick_witness_thread.credit_ns;
}

/* Start a witness on the calling thread at PERIOD_NS of its CPU time.  0, or -1. */
static inline int tick_witness_start(struct tick_witness *w, uint64_t period_ns)
{
	struct sigevent ev;

	memset(w, 0, sizeof(*w));
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	tick_witness_thread_begin();
	w->cpu0_ns = tick_witness_thread.last_ns;
	if (tick_witness_arm(CLOCK_THREAD_CPUTIME_ID, &ev, period_ns, &w->id) < 0) {
		tick_witness_thread_end();
		return -1;
	}
	w->armed = 1;
	return 0;
}

/*
 * Stop the calling thread's witness.  Returns the share of the thread's CPU
 * time since the start that the kernel delivered ticks for (1.0 when it
 * held none back; about 1 - period/CPU is the most a run gets, as the last
 * period is partial), or -1 if the witness could not start.
 */
static inline double tick_witness_stop(struct tick_witness *w)
{
	uint64_t cpu, credit;

	if (!w->armed)
		return -1;
	timer_delete(w->id);
	w->armed = 0;
	credit = tick_witness_thread_end();
	cpu = thread_cpu_ns() - w->cpu0_ns;
	return cpu ? (double)credit / (double)cpu : 1.0;
}

/*
 * The process-wide kind, for a process-wide clock (itimer): one timer on the
 * process's CPU clock, whose tick the kernel gives to the thread that is
 * running (Linux >= 6.3), as it does the profiler's.  A thread that runs on
 * without receiving one has CPU time no tick stood for: what it got is what
 * the kernel gave.  tick_witness_process_start() once per process; each
 * measured stretch of a thread between tick_witness_thread_begin() and _end().
 */

/* The process's witness at PERIOD_NS of its CPU time (once; later calls do nothing).  0, or -1. */
static inline int tick_witness_process_start(uint64_t period_ns)
{
	static int started; /* 2 starting (a racing call returns 0 meanwhile), 1 started, -1 failed */
	struct sigevent ev;
	timer_t id;
	int expected = 0;

	if (!__atomic_compare_exchange_n(&started, &expected, 2, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return expected == -1 ? -1 : 0;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	if (tick_witness_arm(CLOCK_PROCESS_CPUTIME_ID, &ev, period_ns, &id) < 0) {
		__atomic_store_n(&started, -1, __ATOMIC_RELEASE);
		return -1;
	}
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A run the kernel held ticks in: the witness got under 80 % of the CPU time's ticks. */
static inline int tick_witness_held(double delivered)
{
	return delivered >= 0 && delivered < 0.8;
}

#endif
