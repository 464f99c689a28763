/* SPDX-License-Identifier: MIT */
/*
 * Stacks of our own for the tick handler (issue 16, item 2).  The tick
 * lands on whatever stack the program was running on: its main or thread
 * stack, a 16 KiB coroutine stack, or its own 8 KiB sigaltstack, with its
 * signal handler's frames above.  The handler's work (an unwinder walk
 * needs several KiB; thread discovery reads a directory into a buffer)
 * must not go below them: it runs on a stack of this pool instead, and
 * only the kernel's signal frame and a few hundred bytes of trampoline
 * stay on the program's stack.
 *
 * A pool, not a stack per thread: nothing to allocate in a signal handler
 * or to free when a thread ends, and a stack is only held while a handler
 * runs, so TICK_STACKS is the number of handlers running at the same time
 * (threads preempted inside the handler included).  When all are taken,
 * tick_stack_run() says so and the caller does the light part of its work
 * in place (a leaf-only sample), counted.
 *
 * Each stack has a PROT_NONE guard page below it.  Under ASan the switches
 * are announced (__sanitizer_start/finish_switch_fiber).
 */
#ifndef PROFIL_TICK_STACK_H
#define PROFIL_TICK_STACK_H

#include <stdint.h>

#define TICK_STACKS 64	      /* handlers on our stacks at the same time */
#define TICK_STACK_SIZE 65536 /* bytes each (an unwinder walk uses ~10 KiB) */

/* Map the pool (once; not in a signal handler).  Returns 0 or -errno. */
int tick_stacks_init(void);

/*
 * Async-signal-safe: run fn(arg) on a free stack of the pool and return 0,
 * or return -EBUSY (every stack taken, or no pool) without running it.
 */
int tick_stack_run(void (*fn)(void *), void *arg);

/* Fork child: the stacks held by threads that do not exist here are free again. */
void tick_stacks_forget(void);

/* Times tick_stack_run() found no free stack (for tests and notes). */
uint64_t tick_stacks_busy(void);

#endif
