/* SPDX-License-Identifier: MIT */
/*
 * libprofil: the profil(2) PC-sampling profiler for Linux.
 *
 * profil() and sprofil() follow the BSD manual page and glibc's bin
 * arithmetic exactly, with these deliberate differences from glibc:
 *  - every thread is sampled by its own CPU time (not one process timer);
 *  - counters saturate at their maximum instead of wrapping;
 *  - arguments are checked (EINVAL for scale > 65536, EFAULT for a buffer
 *    that is not writable memory) and a buffer that becomes invalid while
 *    profiling turns profiling off instead of crashing the program;
 *  - the clock never uses SIGPROF or ITIMER_PROF, so a program that owns
 *    them keeps them; timers do not survive exec.
 * See doc/libprofil.md for the full contract.
 */
#ifndef PROFIL_H
#define PROFIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Count the PC of every profiling tick into buf[i], for
 * i = floor(floor((pc - offset) / 2) * scale / 65536) < bufsiz / 2.
 * buf == NULL or scale == 0 turns profiling off (glibc's <unistd.h> declares
 * buf nonnull: scale 0 is the warning-free way).  Returns 0, or -1 with
 * errno EINVAL (scale > 65536) or EFAULT (buf not writable for bufsiz bytes),
 * in which case nothing changed; or the errno of a clock that cannot run
 * here (e.g. EACCES for PROFIL_CLOCK_PERF; never for PROFIL_CLOCK_AUTO).
 */
int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale);

/* glibc's <sys/profil.h>: reuse its definitions when it has been included. */
#ifndef _PROFIL_H
#define _PROFIL_H 1
struct prof {
	void *pr_base;          /* buffer base */
	size_t pr_size;         /* buffer size in bytes */
	size_t pr_off;          /* pc offset */
	unsigned long pr_scale; /* pc scaling (16.16 fixed point) */
};

enum {
	PROF_USHORT = 0,     /* 16-bit counters (default) */
	PROF_UINT = 1 << 0,  /* 32-bit counters */
	PROF_FAST = 1 << 1   /* accepted, no effect */
};
#endif

/*
 * Profile several regions at once.  A region with pr_off == 0 and
 * pr_scale == 2 is the overflow bin: it counts ticks outside every other
 * region.  Regions with pr_scale < 2 are ignored.  Any call while regions
 * are active turns profiling off.  *tvp (if not NULL) receives the
 * sampling period of the clock that will be used.  Errors as for profil()
 * (EINVAL, EFAULT for any region buffer that would be written).
 */
int sprofil(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags);

/* ---- Extended API ---------------------------------------------------- */

/* Sampling clocks. */
enum profil_clock {
	PROFIL_CLOCK_AUTO = 0, /* best permitted: perf, else thread */
	PROFIL_CLOCK_THREAD,   /* per-thread CPU-time POSIX timers (portable default) */
	PROFIL_CLOCK_ITIMER,   /* one process-wide CPU-time timer, like glibc's ITIMER_PROF */
	PROFIL_CLOCK_PERF,     /* perf_event task-clock, per thread, kernel-captured PC */
	PROFIL_CLOCK_MANUAL,   /* no clock: profil_tick() is the only source of samples */
};

/*
 * Choose the clock and nominal rate (ticks per CPU second; 0 = the clock's
 * default) used by the next profil()/sprofil() that turns profiling on.
 * Returns 0, or -1 with errno EINVAL (unknown clock).
 */
int profil_set_clock(enum profil_clock clock, unsigned int hz);

/*
 * Choose the signal used by the signal-driven clocks (0 = default,
 * SIGRTMAX - 2).  SIGPROF is refused (EINVAL) so that the program keeps it,
 * and so are signals that cannot be caught.  Takes effect at the next enable.
 */
int profil_set_signal(int signo);

/*
 * Count one sample at pc into the active buffers, as a clock tick would.
 * Async-signal-safe and lock-free.  Does nothing while profiling is off.
 */
void profil_tick(uintptr_t pc);

struct profil_stats {
	uint64_t samples;        /* ticks taken while on, inside or outside the buffers */
	uint64_t outside;        /* ticks whose PC fell outside every region (overflow bin or not) */
	uint64_t saturated;      /* ticks that found their bin already at its maximum */
	uint64_t lost;           /* ticks the clock missed: timer overruns, ring losses */
	uint64_t cpu_ns;         /* process CPU time while on */
	double effective_hz;     /* samples per CPU second actually achieved */
	unsigned int nominal_hz; /* rate asked for */
	unsigned int period_us;  /* nominal period of the clock in use */
	enum profil_clock clock; /* clock in use, or last used */
	int active;              /* 1 while profiling is on */
	int fault_disabled;      /* 1 if profiling turned itself off on an invalid buffer */
	int threads;             /* threads the clock is armed on (0 for process clocks) */
};

/*
 * Statistics of the current (or last) profiling session.  size is
 * sizeof(struct profil_stats) as the caller was compiled with.
 * Returns 0, or -1 with errno EINVAL.
 */
int profil_get_stats(struct profil_stats *st, size_t size);

/* "auto", "thread", "itimer", "perf", "manual"; NULL for an unknown value. */
const char *profil_clock_name(enum profil_clock clock);

/* Parse a clock name.  Returns 0, or -1 with errno EINVAL. */
int profil_clock_from_name(const char *name, enum profil_clock *clock);

#ifdef __cplusplus
}
#endif

#endif /* PROFIL_H */
