/* SPDX-License-Identifier: MIT */
/* Report profil()/sprofil() calls to `profil record --events` (callmsg.h). */
#ifndef PROFIL_CALLREPORT_H
#define PROFIL_CALLREPORT_H

#include <stddef.h>
#include <stdint.h>

#include "profil.h"

/* Read PROFIL_EVENTS_FD once (constructor). */
void callreport_init(void);

/* clock: the enum profil_clock sampling after the call, -1 when profiling is off. */
void callreport_profil(const void *buf, size_t bufsiz, size_t offset, unsigned int scale,
		       uintptr_t pc, int ret, int clock);
void callreport_sprofil(const struct prof *profp, int profcnt, const struct timeval *tvp,
			unsigned int flags, uintptr_t pc, int ret, int clock);

#endif
