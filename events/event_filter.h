/* SPDX-License-Identifier: MIT */
/* --pid / --comm / --event filters shared by `profil events` and `profil watch`. */
#ifndef PROFIL_EVENT_FILTER_H
#define PROFIL_EVENT_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#define EVENT_FILTER_MAX 16

struct event_filter {
	unsigned int npids, ncomms, nevents;
	int64_t pids[EVENT_FILTER_MAX];	     /* processId or hostProcessId */
	const char *comms[EVENT_FILTER_MAX]; /* processName, exact */
	uint32_t events[EVENT_FILTER_MAX];   /* event ids */
};

/*
 * Add a filter value from option opt ("--pid", "--comm", "--event"); value
 * may be a comma-separated list.  Returns 0, or -EINVAL after printing one
 * sentence on stderr (prefix names the command).
 */
int event_filter__add(struct event_filter *f, const char *prefix, const char *opt, char *value);

/* True when the event passes every filter given (an empty filter passes all). */
bool event_filter__match(const struct event_filter *f, int64_t pid, int64_t host_pid,
			 const char *comm, uint32_t event_id);

#endif
