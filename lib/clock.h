/* SPDX-License-Identifier: MIT */
/*
 * The internal interface every OS clock implements (one file per clock:
 * clock_thread.c, clock_itimer.c, clock_perf.c).  A clock produces samples
 * and hands each one to sampler_deliver(); it knows nothing about buffers.
 * The sampler (sampler.c) calls these operations serialised by its caller.
 */
#ifndef PROFIL_CLOCK_H
#define PROFIL_CLOCK_H

#include <stdint.h>
#include <sys/types.h>

#include "profil.h"

struct clock_params {
	unsigned int hz;    /* nominal rate, ticks per CPU second */
	uint64_t period_ns; /* 1e9 / hz */
	int signo;	    /* signal of the signal-driven clocks */
	uint32_t gen;	    /* session generation, carried in every timer's sigev_value */
};

struct clock_ops {
	enum profil_clock id;
	unsigned int default_hz;
	unsigned int max_hz;
	int uses_signal; /* needs the sampler's signal handler (tick_signal.c) */
	/* 0 if the clock can run here, else -errno (EACCES, EPERM, ENOSYS, ...). */
	int (*probe)(void);
	/* Start producing samples for every thread; -errno on failure (nothing left running). */
	int (*start)(const struct clock_params *p);
	/* Async-signal-safe, idempotent: stop producing samples (fault path). */
	void (*quiesce)(void);
	/* Full teardown: nothing of the clock survives.  Not from a signal handler. */
	void (*stop)(void);
	/* In a fork child: drop the state inherited from the parent without touching the
	 * parent's timers or events (the child has none of them). */
	void (*forget)(void);
	/* Before fork: get every sample taken so far to the sink (NULL: delivery is synchronous). */
	void (*sync)(void);
	uint64_t (*lost)(void); /* samples the clock missed since start */
	int (*threads)(void);	/* threads armed */
	/* Optional, async-signal-safe: the calling thread has just started (arm it now). */
	void (*thread_started)(void);
};

extern const struct clock_ops clock_thread_ops;
extern const struct clock_ops clock_itimer_ops;
extern const struct clock_ops clock_perf_ops;

/* Timer signal tags: what sigev_value carries so that the handler knows a tick from ours. */
enum clock_tag_kind {
	CLOCK_TAG_SAMPLE = 1,	/* a sampling tick: count the interrupted PC */
	CLOCK_TAG_DISCOVER = 2, /* the process-wide discovery tick (thread_table.c) */
	CLOCK_TAG_PROCESS = 3,	/* a sampling tick of a process-wide clock (itimer): weighed by
				 * the receiving thread's own CPU time (tick_signal.c) */
};

static inline void *clock_tag(uint32_t gen, enum clock_tag_kind kind)
{
	return (void *)(((uintptr_t)0x9f0fUL << 48) | ((uintptr_t)gen << 8) | (uintptr_t)kind);
}

#endif
