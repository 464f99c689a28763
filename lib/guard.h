/* SPDX-License-Identifier: MIT */
/*
 * Fault guard: run a function that writes to memory the program may unmap
 * or write-protect at any time, and get -EFAULT back instead of a crash.
 *
 * While installed, a SIGSEGV/SIGBUS handler checks a per-thread flag: if
 * the faulting thread is inside guard_call(), it jumps back out of it;
 * otherwise it chains to the disposition the program had (its handler is
 * called; SIG_DFL/SIG_IGN are put back and the instruction faults again,
 * so the program dies exactly as it would have).
 */
#ifndef PROFIL_GUARD_H
#define PROFIL_GUARD_H

/* Install the SIGSEGV/SIGBUS handler (reference counted).  Returns 0 or -errno. */
int guard_install(void);

/* Drop one reference; the last one restores the previous actions if ours are still in place. */
void guard_remove(void);

/* Run fn(arg).  Returns 0, or -EFAULT if it faulted (fn was cut short).
 * Async-signal-safe; nests. */
int guard_call(void (*fn)(void *), void *arg);

#endif
