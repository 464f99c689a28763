/* SPDX-License-Identifier: MIT */
/*
 * The environment variables libprofil reads: the one place their names are
 * defined.  They are read once, by a constructor, and set the defaults that
 * profil_set_clock() and profil_set_signal() override.
 */
#ifndef PROFIL_ENV_H
#define PROFIL_ENV_H

/* Signal used by the signal-driven clocks: a number ("60") or "SIGRTMAX-2"/"RTMIN+3". */
#define PROFIL_ENV_SIGNAL "PROFIL_SIGNAL"
/* Clock: "auto", "thread", "itimer", "perf" or "manual". */
#define PROFIL_ENV_CLOCK "PROFIL_CLOCK"
/* Nominal rate in ticks per CPU second (1..100000). */
#define PROFIL_ENV_HZ "PROFIL_HZ"

/*
 * Set by `profil record --events`: an AF_UNIX datagram socket on which every
 * profil()/sprofil() call is reported (lib/callmsg.h).
 */
#define PROFIL_ENV_EVENTS_FD "PROFIL_EVENTS_FD"

#endif
