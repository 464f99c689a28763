/* SPDX-License-Identifier: MIT */
/*
 * The sampler: runs one clock and delivers every sample to one sink.
 * Internal API (hidden, not exported by libprofil.so): profil()/sprofil()
 * use it with the histogram sink (profil.c); an LD_PRELOAD agent linking
 * the objects of libprofil.a uses it with its own sink.
 *
 * Usage:
 *	struct sampler_config cfg = { .clock = PROFIL_CLOCK_AUTO, .hz = 997,
 *				      .sink = my_sink, .sink_arg = my_state };
 *	struct sampler_info info;
 *	if (sampler_start(&cfg, &info) < 0) ...;    // -errno
 *	...
 *	sampler_stop();                              // after it returns, no sink call is running
 *
 * Rules:
 *  - One sampler per process.  sampler_start/stop/child_restart are not
 *    reentrant: the caller serialises them (profil.c holds its mutex).
 *  - The sink runs in a signal handler (thread, itimer clocks; every signal
 *    blocked) or in the perf helper thread: it must be async-signal-safe and
 *    lock-free.  tid is the sampled thread (0 when unknown: profil_tick).
 *  - ticks: the clock's periods the sample stands for: 1, plus the ticks the
 *    kernel merged into it (a timer's overrun: it checks CPU-time timers at
 *    its own tick, CONFIG_HZ, so above that rate a tick carries several).
 *    They are the sampled thread's own.  A sink that counts one per sample
 *    (profil()) counts the merged ones as lost itself; sampler_lost() counts
 *    the ticks no sink received.
 *  - A sink that needs the interrupted context (an unwinder) sets sink_ctx
 *    instead of sink: it is then called for every sample with uc, the
 *    ucontext_t * the signal handler received (the interrupted registers),
 *    or NULL when the clock has no such context (perf: samples come from
 *    the kernel's ring buffer; profil_tick).  uc is valid only during the
 *    call.  A config with sink only (profil()/sprofil()) costs one
 *    predictable branch more per sample, nothing else.
 *  - A sink that writes to memory that may vanish wraps the write in
 *    guard_call() (guard.h) and calls sampler_fault_stop() if it faulted.
 *  - Fork: by default the child re-arms the same clock with the same sink
 *    (pthread_atfork).  With SAMPLER_FORK_MANUAL the child starts with the
 *    sampler stopped and its inherited state dropped; the caller restarts it
 *    with sampler_child_restart() (or stops it), e.g. from its own atfork
 *    child handler: it works whether that handler runs before or after the
 *    sampler's own (the sampler recognises a child by its pid).
 *  - Exec: nothing survives (POSIX timers are deleted by exec, perf fds are
 *    close-on-exec, the helper thread dies); the signal disposition is reset
 *    by the kernel.
 */
#ifndef PROFIL_SAMPLER_H
#define PROFIL_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "profil.h"

typedef void (*sampler_sink_fn)(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks);
/* uc: the signal's ucontext_t * (NULL if the clock has none); see the rules above. */
typedef void (*sampler_sink_ctx_fn)(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks,
				    void *uc);

enum sampler_flags {
	SAMPLER_FORK_MANUAL = 1 << 0, /* do not re-arm in a fork child */
};

struct sampler_config {
	enum profil_clock clock; /* AUTO picks perf if permitted, else thread */
	unsigned int hz;	 /* 0: the clock's default */
	int signo;		 /* 0: SIGRTMAX - 2 */
	sampler_sink_fn sink;
	void *sink_arg;
	unsigned int flags;
	sampler_sink_ctx_fn sink_ctx; /* optional: called instead of sink, with the context */
};

struct sampler_info {
	enum profil_clock clock; /* the clock actually started (AUTO resolved) */
	unsigned int hz;	 /* nominal rate */
	unsigned int period_us;
};

/* Start the clock; the sink gets samples until sampler_stop().  Returns 0 or -errno. */
int sampler_start(const struct sampler_config *cfg, struct sampler_info *info);

/* Stop the clock, wait until no sink call is in flight, restore the signal
 * disposition.  Idempotent. */
void sampler_stop(void);

/* Async-signal-safe: stop delivering and quiesce the clock (used by a sink
 * that found its memory gone).  sampler_stop() must still be called later. */
void sampler_fault_stop(void);

/* Give one sample of one tick to the sink (clocks and profil_tick call this).  Lock-free. */
void sampler_deliver(uintptr_t pc, pid_t tid);

/* The same with its ticks and the interrupted context (the signal clocks' handler): uc goes
 * to sink_ctx.  Returns 1 if a sink received it, 0 if delivery is off. */
int sampler_deliver_ctx(uintptr_t pc, pid_t tid, unsigned int ticks, void *uc);

/* In a fork child with SAMPLER_FORK_MANUAL: start again with the last config. */
int sampler_child_restart(void);

/* 1 while started (even after sampler_fault_stop). */
int sampler_running(void);
uint64_t sampler_lost(void);
int sampler_threads(void);

/* A thread that has just started: sample it from now on (per-thread clocks arm it at once
 * instead of waiting for discovery).  Async-signal-safe; nothing when not running. */
void sampler_thread_started(void);

/*
 * Sandboxes (seccomp): from sampler_go_quiet() on, the clocks' handler makes
 * no system call (the agent calls it before the program's seccomp() or
 * prctl(PR_SET_SECCOMP) takes effect): ticks of threads already armed are
 * still delivered, with the thread id cached before (sampler_tid(), 0 if
 * none) and no context (uc NULL: nothing walks on a stack it cannot check);
 * no thread is armed any more, discovery stops, the program's sigaltstack
 * is left alone.  Not undone but by sampler_go_loud() (the call failed).
 */
void sampler_go_quiet(void);
void sampler_go_loud(void);
int sampler_quiet(void);

/* Async-signal-safe: the calling thread's id, cached per thread (no system call once known;
 * 0 when quiet and not known). */
pid_t sampler_tid(void);

/* Resolve the clock and rate a config would get, without starting anything.
 * Returns 0 or -errno (the clock cannot run here). */
int sampler_resolve(const struct sampler_config *cfg, struct sampler_info *info);

/* The default signal: SIGRTMAX - 2. */
int sampler_default_signal(void);

/* 0 if signo may be used by the clocks, else -EINVAL. */
int sampler_check_signal(int signo);

#endif
