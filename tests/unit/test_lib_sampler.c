// SPDX-License-Identifier: MIT
/*
 * The internal sampler API (lib/sampler.h) that an LD_PRELOAD agent uses
 * with its own sink: delivery, tids, stop semantics, fork handling.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"
#include "lib/sampler.h"
#include "tests/progs/cpu_clock.h"
#include "tests/progs/tick_witness.h"

struct sink_state {
	uint64_t calls;	  /* atomic */
	uint64_t mine;	  /* atomic: samples of the calling thread */
	uint64_t weights; /* atomic: their ticks (1 + the ticks the kernel merged into each) */
	uintptr_t last_pc;
	pid_t tid;
};

static void sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	struct sink_state *s = arg;

	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	if (tid == s->tid) {
		__atomic_fetch_add(&s->mine, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->weights, ticks, __ATOMIC_RELAXED);
	}
	s->last_pc = pc;
}

static void burn(double seconds)
{
	double until = thread_cpu_s() + seconds;

	/* mostly user time between the clock's system calls: the perf clock takes no sample in
	 * the kernel (exclude_kernel), and here a call costs up to a fifth of a short loop */
	while (thread_cpu_s() < until)
		for (volatile int i = 0; i < 200000; i++)
			;
}

static void test_manual(void)
{
	struct sink_state s = {.tid = 77};
	struct sampler_config c = {.clock = PROFIL_CLOCK_MANUAL, .sink = sink, .sink_arg = &s};
	struct sampler_info info;

	CHECK("manual start", sampler_start(&c, &info) == 0 && info.clock == PROFIL_CLOCK_MANUAL);
	sampler_deliver(0x1234, 77);
	CHECK("sink gets pc and tid", s.calls == 1 && s.mine == 1 && s.last_pc == 0x1234);
	sampler_stop();
	sampler_deliver(0x1234, 77);
	CHECK("no delivery after stop", s.calls == 1 && !sampler_running());
}

/* Runs the kernel held CPU-timer ticks in (tick_witness.h) are run again, up to this many times. */
#define HELD_RUNS 4

/*
 * What samples of BURN_S seconds of CPU at HZ weigh (their ticks), against
 * the CPU time measured: on a busy machine the kernel merges ticks, so fewer
 * samples carry more (issue 16, item 9).  Within [0.8, 1.1] of the CPU time;
 * in a run the kernel held ticks in (the witness got under 80 % of them)
 * at least 0.8 of what the witness got, the run said and, while runs remain,
 * run again.
 */
struct weighed {
	double cpu;	  /* seconds of CPU measured */
	double witnessed; /* the share of them the kernel delivered ticks for */
	uint64_t weights; /* what the samples weigh, in ticks */
};

static int weights_hold(const struct weighed *w, unsigned int hz)
{
	double due = w->cpu * hz, floor = due * 0.8;

	if (tick_witness_held(w->witnessed))
		floor = due * w->witnessed * 0.8;
	return (double)w->weights >= floor - 1 && (double)w->weights <= due * 1.1 + 2;
}

static int held_again(const struct weighed *w, int run, const char *what)
{
	if (!tick_witness_held(w->witnessed) || run + 1 >= HELD_RUNS)
		return 0;
	printf("# note: %s: the kernel held CPU-timer ticks (a witness got %.0f %% of its ticks for "
	       "%.3f s of CPU): run again\n",
	       what, w->witnessed * 100, w->cpu);
	return 1;
}

/* burn(SECONDS) with a tick witness at PERIOD_NS: w's CPU time and the share witnessed */
static void burn_witnessed(struct weighed *w, double seconds, uint64_t period_ns)
{
	struct tick_witness wit;

	tick_witness_start(&wit, period_ns);
	w->cpu = thread_cpu_s();
	burn(seconds);
	w->cpu = thread_cpu_s() - w->cpu;
	w->witnessed = tick_witness_stop(&wit);
}

static int clock_run(enum profil_clock clock, struct sink_state *s, struct weighed *w)
{
	struct sampler_config c = {.clock = clock, .hz = 250, .sink = sink, .sink_arg = s};
	struct sampler_info info;
	int ret;

	memset(s, 0, sizeof(*s));
	s->tid = (pid_t)syscall(SYS_gettid);
	ret = sampler_start(&c, &info);
	if (ret < 0)
		return ret;
	burn_witnessed(w, 0.3, 4000000);
	sampler_stop();
	w->weights = s->weights;
	return 0;
}

static void test_clock(enum profil_clock clock, const char *name)
{
	struct sink_state s;
	struct weighed w;
	char what[96];
	uint64_t after;
	int ret, run = 0;

	snprintf(what, sizeof(what), "%s clock: samples of this thread with its tid", name);
	do
		ret = clock_run(clock, &s, &w);
	while (ret == 0 && !(s.mine == s.calls && weights_hold(&w, 250)) &&
	       held_again(&w, run++, what));
	if (ret == -EACCES || ret == -EPERM || ret == -ENOSYS || ret == -ENOENT) {
		SKIP(what, "perf_event_open refused here");
		return;
	}
	after = s.calls;
	CHECKF(what, ret == 0 && s.mine == s.calls && weights_hold(&w, 250),
	       "ret %d, %llu of %llu samples weigh %llu ticks for %.3f s of CPU at 250 Hz "
	       "(the kernel delivered a witness %.0f %% of its ticks)",
	       ret, (unsigned long long)s.mine, (unsigned long long)s.calls,
	       (unsigned long long)w.weights, w.cpu, w.witnessed * 100);
	burn(0.05);
	snprintf(what, sizeof(what), "%s clock: nothing delivered after sampler_stop()", name);
	CHECK(what, s.calls == after);
}

struct started {
	int before, after; /* threads armed before and after sampler_thread_started() */
	uint64_t weights;  /* sum of this thread's samples' ticks */
	uint64_t samples;
};

static void *starts(void *arg)
{
	struct started *st = arg;

	st->before = sampler_threads();
	sampler_thread_started();
	st->after = sampler_threads();
	return NULL;
}

static void weight_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	struct started *st = arg;

	(void)pc;
	(void)tid;
	__atomic_fetch_add(&st->weights, ticks, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->samples, 1, __ATOMIC_RELAXED);
}

/*
 * A new thread is armed when it says it started, not when discovery finds
 * it; and a sample's ticks are its own (the tick and those the kernel merged
 * into it): at 1000 Hz asked (capped at CONFIG_HZ) the ticks of this
 * thread's samples add up to its CPU time.
 */
static void test_thread_started(void)
{
	struct started st = {0};
	struct sampler_config c = {
		.clock = PROFIL_CLOCK_THREAD, .hz = 1000, .sink = weight_sink, .sink_arg = &st};
	const char *what = "thread clock: sample weights add up to the thread's CPU time";
	struct weighed w;
	pthread_t th;
	int run = 0;

	if (sampler_start(&c, NULL) < 0) {
		SKIP("thread clock: a thread is armed as it starts",
		     "the thread clock cannot start");
		return;
	}
	pthread_create(&th, NULL, starts, &st);
	pthread_join(th, NULL);
	CHECKF("thread clock: a thread is armed as it starts", st.after == st.before + 1,
	       "threads armed %d, then %d", st.before, st.after);
	sampler_stop();
	/* 1000 Hz: one weight per ms of CPU; the first and last periods are partial */
	do {
		st.weights = st.samples = 0;
		if (sampler_start(&c, NULL) < 0)
			break;
		burn_witnessed(&w, 0.5, 1000000);
		sampler_stop();
		w.weights = st.weights;
	} while (!weights_hold(&w, 1000) && held_again(&w, run++, what));
	CHECKF(what, st.samples > 0 && st.weights > st.samples && weights_hold(&w, 1000),
	       "%llu samples weigh %llu ms for %.3f s of CPU (the kernel delivered a witness "
	       "%.0f %% of its ticks)",
	       (unsigned long long)st.samples, (unsigned long long)st.weights, w.cpu,
	       w.witnessed * 100);
}

static void test_fork_manual(void)
{
	struct sink_state s = {0};
	struct sampler_config c = {.clock = PROFIL_CLOCK_THREAD,
				   .hz = 250,
				   .sink = sink,
				   .sink_arg = &s,
				   .flags = SAMPLER_FORK_MANUAL};
	int status = -1;
	pid_t pid;

	s.tid = (pid_t)syscall(SYS_gettid);
	sampler_start(&c, NULL);
	pid = fork();
	if (pid == 0) {
		uint64_t before;
		struct weighed w;

		if (sampler_running())
			_exit(10); /* must start stopped */
		s.tid = (pid_t)syscall(SYS_gettid);
		s.mine = s.weights = 0;
		if (sampler_child_restart() < 0)
			_exit(11);
		before = s.weights;
		burn_witnessed(&w, 0.2, 4000000);
		sampler_stop();
		w.weights = s.weights - before;
		/* its samples' ticks against its CPU time (250 Hz), as the kernel delivered them */
		_exit(weights_hold(&w, 250) ? 0 : 12);
	}
	waitpid(pid, &status, 0);
	sampler_stop();
	CHECKF("SAMPLER_FORK_MANUAL: child starts stopped, restarts with its own tid",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

struct ctx_state {
	uint64_t calls, with_uc, uc_matches; /* atomic */
};

static void ctx_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks, void *uc)
{
	struct ctx_state *s = arg;

	(void)tid;
	(void)ticks;
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	if (!uc)
		return;
	__atomic_fetch_add(&s->with_uc, 1, __ATOMIC_RELAXED);
	if ((uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] == pc)
		__atomic_fetch_add(&s->uc_matches, 1, __ATOMIC_RELAXED);
}

/* sink_ctx: the signal clocks pass the interrupted context, the others NULL */
static void test_sink_ctx(void)
{
	struct ctx_state s = {0};
	struct sampler_config c = {
		.clock = PROFIL_CLOCK_THREAD, .hz = 250, .sink_ctx = ctx_sink, .sink_arg = &s};

	CHECK("sink_ctx alone is a valid config", sampler_start(&c, NULL) == 0);
	/* 0.2 s of CPU, longer (up to 2 s) until 5 deliveries: a busy machine merges ticks */
	for (int i = 0; i < 20 && (i < 2 || __atomic_load_n(&s.calls, __ATOMIC_RELAXED) < 5); i++)
		burn(0.1);
	sampler_stop();
	CHECKF("thread clock: sink_ctx gets the context, whose PC is the sample's",
	       s.calls >= 5 && s.with_uc == s.calls && s.uc_matches == s.calls,
	       "calls %llu with context %llu matching %llu", (unsigned long long)s.calls,
	       (unsigned long long)s.with_uc, (unsigned long long)s.uc_matches);
	memset(&s, 0, sizeof(s));
	c.clock = PROFIL_CLOCK_MANUAL;
	sampler_start(&c, NULL);
	sampler_deliver(0x1234, 77);
	sampler_stop();
	CHECK("manual clock: sink_ctx gets no context", s.calls == 1 && s.with_uc == 0);
}

static void test_resolve(void)
{
	struct sink_state s = {0};
	struct sampler_config c = {.clock = PROFIL_CLOCK_AUTO, .sink = sink, .sink_arg = &s};
	struct sampler_info info;

	CHECK("auto resolves to perf or thread",
	      sampler_resolve(&c, &info) == 0 &&
		      (info.clock == PROFIL_CLOCK_PERF || info.clock == PROFIL_CLOCK_THREAD));
	c.signo = SIGPROF;
	CHECK("SIGPROF refused", sampler_resolve(&c, &info) == -EINVAL);
}

int main(void)
{
	test_manual();
	test_clock(PROFIL_CLOCK_THREAD, "thread");
	test_clock(PROFIL_CLOCK_ITIMER, "itimer");
	test_clock(PROFIL_CLOCK_PERF, "perf");
	test_thread_started();
	test_fork_manual();
	test_sink_ctx();
	test_resolve();
	return CHECK_DONE();
}
