/* SPDX-License-Identifier: MIT */
/* --pid / --comm / --event filters shared by `profil events` and `profil watch`. */
#ifndef PROFIL_EVENT_FILTER_H
#define PROFIL_EVENT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An empty list passes every event; the lists belong to the caller, events to the filter. */
struct event_filter {
	const int *pids; /* processId or hostProcessId (positive) */
	size_t npids;
	const char *const *comms; /* processName, exact */
	size_t ncomms;
	uint32_t *events; /* event ids: event_filter__events */
	size_t nevents;
};

/*
 * Filter on the events named names[0..n) (doc/events.md).  Returns 0,
 * -EINVAL with one sentence in why ("unknown event 'x' (...)"), or -ENOMEM.
 */
int event_filter__events(struct event_filter *f, const char *const *names, size_t n, char *why,
			 size_t whylen);

/* Free what event_filter__events allocated. */
void event_filter__free(struct event_filter *f);

/* True when the event passes every filter given (an empty filter passes all). */
bool event_filter__match(const struct event_filter *f, int64_t pid, int64_t host_pid,
			 const char *comm, uint32_t event_id);

#endif
