/* SPDX-License-Identifier: MIT */
/*
 * The one signal handler of the signal-driven clocks.  Timers carry a tag
 * (clock_tag() in clock.h) in sigev_value; the handler counts the
 * interrupted PC for a sampling tick, runs thread discovery for a discovery
 * tick, ignores stale ticks of an older session and hands any other
 * occurrence of the signal to the program's previous disposition.
 */
#ifndef PROFIL_TICK_SIGNAL_H
#define PROFIL_TICK_SIGNAL_H

#include <stdint.h>

/* Install the handler for signo, accepting tags of generation gen; period_ns: the clock's period
 * (a process-wide tick is weighed in it).  Returns 0 or -errno. */
int sig_install(int signo, uint32_t gen, uint64_t period_ns);

/* The calling thread starts now (at_birth: it is a new thread, its CPU clock at 0), in the
 * session installed: a process-wide tick weighs its CPU time from here.  Async-signal-safe. */
void sig_thread_begins(int at_birth);

/* Stop accepting ticks and restore the previous action if ours is still installed. */
void sig_restore(void);

/* Ticks no sink received since sig_install() (the sampler was stopping, or had stopped
 * after a fault), with the ticks the kernel merged into them. */
uint64_t sig_lost(void);

#endif
