/* SPDX-License-Identifier: MIT */
/*
 * Per-thread clocks without any help from the program: a lock-free table
 * tid -> handle (a timer id, a perf fd), filled at start from
 * /proc/self/task, then by discovery: a low-rate process-wide CPU-time
 * timer whose signal lands on the thread that used the CPU (Linux >= 6.3
 * prefers the current thread for process CPU timers); a thread found
 * without a handle arms itself there, and every few ticks the handler
 * rescans /proc/self/task (raw getdents64) for threads that have not been
 * current at a tick yet.  Dead threads are reaped by
 * tgkill(pid, tid, 0) == ESRCH, a few slots per discovery tick.
 */
#ifndef PROFIL_THREAD_TABLE_H
#define PROFIL_THREAD_TABLE_H

#include <stdint.h>
#include <sys/types.h>

#include "clock.h"

#define THREADS_CAP 4096u
#define THREADS_DISCOVER_NS 5000000u /* discovery tick: 5 ms of process CPU time */

struct threads_ops {
	/* Arm the clock on thread tid, table slot slot.  Returns a handle != 0, or 0 on failure.
	 * Async-signal-safe (it runs in the discovery handler). */
	uintptr_t (*arm)(pid_t tid, unsigned int slot);
	/* Release a handle taken out of the table.  Async-signal-safe. */
	void (*drop)(unsigned int slot, uintptr_t handle);
	int reap_dead; /* discovery reaps dead threads (else the clock does, e.g. on POLLHUP) */
};

/* Arm every existing thread but skip_tid, then start discovery.  Returns 0 or -errno. */
int threads_start(const struct threads_ops *ops, const struct clock_params *p, pid_t skip_tid);

/* The discovery tick (called by tick_signal.c); can_scan: on a stack with room for the scan of
 * /proc/self/task (else only the calling thread is armed, and dead ones reaped). */
void threads_discover(int can_scan);

/*
 * Arm the calling thread now, instead of when discovery finds it (a thread
 * that starts: the agent's pthread_create wrapper calls it through
 * sampler_thread_started()).  Discovery can take a while to find a new
 * thread on a busy machine, and its CPU time until then is not sampled.
 * Async-signal-safe; nothing when discovery is not running.
 */
void threads_arm_self(void);

/* Async-signal-safe, idempotent: stop discovery; arms racing with it are dropped. */
void threads_quiesce(void);

/* After threads_quiesce(): wait until no discovery handler is running. */
void threads_drain(void);

/* After threads_quiesce() and after the clock took every handle: reset the table. */
void threads_reset(void);

/* In a fork child: forget everything inherited (no system call on the parent's ids). */
void threads_forget(void);

/* Take a handle out of its slot (exactly one caller gets it).  0 if none. */
uintptr_t threads_take(unsigned int slot);

uintptr_t threads_handle(unsigned int slot); /* acquire load */
pid_t threads_tid(unsigned int slot);
int threads_armed(void);

#endif
