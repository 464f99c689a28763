// SPDX-License-Identifier: MIT
/*
 * The sampler (see sampler.h): picks and runs one clock, owns the signal
 * handler for the signal-driven clocks, and publishes the sink.  Session
 * lifetime: sampler_deliver() counts itself in flight before it looks at
 * the sink; sampler_stop() turns delivery off, waits for the in-flight
 * count to reach zero, then stops the clock, so that the caller may free
 * the sink's memory as soon as sampler_stop() returns.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "sampler.h"
#include "tick_signal.h"
#include "tick_stack.h"

static const struct clock_ops *const clocks[] = {
	[PROFIL_CLOCK_THREAD] = &clock_thread_ops,
	[PROFIL_CLOCK_ITIMER] = &clock_itimer_ops,
	[PROFIL_CLOCK_PERF] = &clock_perf_ops,
};

static struct sampler_config cfg;   /* the running config, clock and rate resolved */
static const struct clock_ops *ops; /* NULL for the manual clock */
static struct clock_params params;
static int started;
static pid_t owner_pid; /* the process the clock was started in */
static uint32_t generation;

static int deliver_on; /* atomic */
static int inflight;   /* atomic */
static int quiet;      /* atomic: a sandbox forbids our system calls (sampler_go_quiet) */
static __thread pid_t cached_tid __attribute__((tls_model("initial-exec")));

void sampler_go_quiet(void)
{
	__atomic_store_n(&quiet, 1, __ATOMIC_SEQ_CST);
}

void sampler_go_loud(void)
{
	__atomic_store_n(&quiet, 0, __ATOMIC_SEQ_CST);
}

int sampler_quiet(void)
{
	return __atomic_load_n(&quiet, __ATOMIC_ACQUIRE);
}

pid_t sampler_tid(void)
{
	if (!cached_tid && !sampler_quiet())
		cached_tid = (pid_t)syscall(SYS_gettid);
	return cached_tid;
}

int sampler_deliver_ctx(uintptr_t pc, pid_t tid, unsigned int ticks, void *uc)
{
	int on;

	__atomic_fetch_add(&inflight, 1, __ATOMIC_SEQ_CST);
	on = __atomic_load_n(&deliver_on, __ATOMIC_SEQ_CST);
	if (on && cfg.sink_ctx)
		cfg.sink_ctx(cfg.sink_arg, pc, tid, ticks, uc);
	else if (on)
		cfg.sink(cfg.sink_arg, pc, tid, ticks);
	__atomic_fetch_sub(&inflight, 1, __ATOMIC_SEQ_CST);
	return on;
}

void sampler_deliver(uintptr_t pc, pid_t tid)
{
	sampler_deliver_ctx(pc, tid, 1, NULL);
}

int sampler_default_signal(void)
{
	return SIGRTMAX - 2;
}

int sampler_check_signal(int signo)
{
	if (signo == 0)
		return 0;
	if (signo < 1 || signo > SIGRTMAX)
		return -EINVAL;
	/* glibc keeps the real-time signals below SIGRTMIN for itself */
	if (signo > SIGSYS && signo < SIGRTMIN)
		return -EINVAL;
	switch (signo) {
	case SIGPROF: /* the program's */
	case SIGKILL:
	case SIGSTOP:
	case SIGSEGV: /* synchronous fault signals: the guard uses the first two */
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
		return -EINVAL;
	default:
		return 0;
	}
}

int sampler_resolve(const struct sampler_config *c, struct sampler_info *info)
{
	const struct clock_ops *o;
	enum profil_clock id = c->clock;
	int ret;

	if ((unsigned int)id > PROFIL_CLOCK_MANUAL || c->hz > 100000 || (!c->sink && !c->sink_ctx))
		return -EINVAL;
	ret = sampler_check_signal(c->signo);
	if (ret < 0)
		return ret;
	if (id == PROFIL_CLOCK_AUTO)
		id = clock_perf_ops.probe() == 0 ? PROFIL_CLOCK_PERF : PROFIL_CLOCK_THREAD;
	info->clock = id;
	if (id == PROFIL_CLOCK_MANUAL) {
		info->hz = 0;
		info->period_us = 0;
		return 0;
	}
	o = clocks[id];
	ret = o->probe();
	if (ret < 0)
		return ret;
	info->hz = c->hz ? c->hz : o->default_hz;
	if (info->hz > o->max_hz)
		return -EINVAL;
	info->period_us = 1000000u / info->hz;
	return 0;
}

static int start_clock(void)
{
	int ret;

	if (++generation == 0)
		generation = 1;
	params.gen = generation;
	__atomic_store_n(&inflight, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&deliver_on, 1, __ATOMIC_SEQ_CST);
	if (!ops)
		return 0;
	if (ops->uses_signal) {
		ret = sig_install(params.signo, params.gen, params.period_ns);
		if (ret < 0)
			goto fail;
	}
	ret = ops->start(&params);
	if (ret == 0)
		return 0;
	if (ops->uses_signal)
		sig_restore();
fail:
	__atomic_store_n(&deliver_on, 0, __ATOMIC_SEQ_CST);
	return ret;
}

static void atfork_child(void);

/*
 * In a fork child whose atfork handler has not run yet (an agent's handler registered before
 * ours may call us first): drop the parent's clock state, which is not ours to stop.
 * Returns 1 if it did.
 */
static int forget_parent(void)
{
	if (!started || owner_pid == getpid())
		return 0;
	__atomic_store_n(&inflight, 0, __ATOMIC_SEQ_CST);
	if (ops)
		ops->forget();
	return 1;
}

/* Before fork: samples still queued in the clock reach the sink, so both copies hold them. */
static void atfork_prepare(void)
{
	if (started && ops && ops->sync && __atomic_load_n(&deliver_on, __ATOMIC_SEQ_CST))
		ops->sync();
}

static void register_atfork(void)
{
	pthread_atfork(atfork_prepare, NULL, atfork_child);
}

int sampler_start(const struct sampler_config *c, struct sampler_info *info)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct sampler_info inf;
	int ret;

	pthread_once(&once, register_atfork);
	sampler_stop();
	ret = sampler_resolve(c, &inf);
	if (ret < 0)
		return ret;
	cfg = *c;
	cfg.clock = inf.clock;
	cfg.hz = inf.hz;
	cfg.signo = c->signo ? c->signo : sampler_default_signal();
	ops = inf.clock == PROFIL_CLOCK_MANUAL ? NULL : clocks[inf.clock];
	params.hz = inf.hz;
	params.period_ns = inf.hz ? 1000000000u / inf.hz : 0;
	params.signo = cfg.signo;
	ret = start_clock();
	if (ret < 0)
		return ret;
	started = 1;
	owner_pid = getpid();
	if (info)
		*info = inf;
	return 0;
}

static void drain(void)
{
	while (__atomic_load_n(&inflight, __ATOMIC_SEQ_CST))
		sched_yield();
}

void sampler_stop(void)
{
	if (!started)
		return;
	if (forget_parent()) {
		__atomic_store_n(&deliver_on, 0, __ATOMIC_SEQ_CST);
		if (ops && ops->uses_signal)
			sig_restore();
		started = 0;
		return;
	}
	/* Delivery off and drained first: no sink (hence no fault-path quiesce) can run while the
	 * clock is torn down; ticks arriving in between find delivery off. */
	__atomic_store_n(&deliver_on, 0, __ATOMIC_SEQ_CST);
	drain();
	if (ops)
		ops->stop();
	if (ops && ops->uses_signal)
		sig_restore();
	started = 0;
}

void sampler_fault_stop(void)
{
	__atomic_store_n(&deliver_on, 0, __ATOMIC_SEQ_CST);
	if (started && ops)
		ops->quiesce();
}

int sampler_child_restart(void)
{
	struct sampler_config c = cfg;

	if (!c.sink && !c.sink_ctx)
		return -EINVAL;
	return sampler_start(&c, NULL);
}

/* Fork child: only this thread exists; the parent's timers and events are not ours. */
static void atfork_child(void)
{
	int was_on = __atomic_load_n(&deliver_on, __ATOMIC_SEQ_CST);

	tick_stacks_forget(); /* held by threads of the parent only */
	cached_tid = 0;	      /* the parent thread's */
	if (!forget_parent())
		return; /* not started, or already taken care of by sampler_child_restart() */
	if (!was_on || (cfg.flags & SAMPLER_FORK_MANUAL)) {
		__atomic_store_n(&deliver_on, 0, __ATOMIC_SEQ_CST);
		if (ops && ops->uses_signal)
			sig_restore();
		started = 0;
		return;
	}
	owner_pid = getpid();
	if (start_clock() < 0)
		started = 0;
}

int sampler_running(void)
{
	return started;
}

uint64_t sampler_lost(void)
{
	return started && ops ? ops->lost() : 0;
}

int sampler_threads(void)
{
	return started && ops ? ops->threads() : 0;
}

void sampler_thread_started(void)
{
	const struct clock_ops *o = __atomic_load_n(&ops, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE) || !o)
		return;
	if (o->uses_signal)
		sig_thread_begins(1);
	if (o->thread_started)
		o->thread_started();
}
