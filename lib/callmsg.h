/* SPDX-License-Identifier: MIT */
/*
 * The message libprofil sends for every profil()/sprofil() call when the
 * program runs under `profil record --events`: one datagram per call on
 * the AF_UNIX socket whose descriptor is in PROFIL_EVENTS_FD (lib/env.h).
 * The recorder turns each into a `profil`/`sprofil` event (events/events.h).
 * One source of truth for the wire format, shared by lib/callreport.c and
 * events/record_events.c (same machine, same build: native layout).
 */
#ifndef PROFIL_CALLMSG_H
#define PROFIL_CALLMSG_H

#include <stdint.h>

#define PROFIL_CALLMSG_MAGIC 0x50434d31u /* "PCM1" */
#define PROFIL_CALLMSG_REGIONS 8

enum profil_callmsg_kind {
	PROFIL_CALL_PROFIL = 1,
	PROFIL_CALL_SPROFIL = 2,
};

struct profil_callmsg {
	uint32_t magic;
	uint32_t kind;      /* enum profil_callmsg_kind */
	int32_t pid, tid;
	uint64_t time_ns;   /* CLOCK_REALTIME */
	uint64_t pc;        /* the caller's PC (return address of the call) */
	int64_t ret;        /* 0 or -errno */
	int32_t clock;      /* enum profil_clock sampling after the call, -1 when off */
	uint32_t flags;     /* sprofil flags */
	/* profil */
	uint64_t buf, bufsiz, offset;
	uint32_t scale;
	/* sprofil */
	int32_t profcnt;
	uint64_t profp, tvp;
	uint32_t nregions;  /* copied, at most PROFIL_CALLMSG_REGIONS */
	struct {
		uint64_t base, size, off, scale;
	} regions[PROFIL_CALLMSG_REGIONS];
};

#endif
