// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event_filter.h"
#include "events/events.h"

int event_filter__events(struct event_filter *f, const char *const *names, size_t n, char *why,
			 size_t whylen)
{
	free(f->events);
	f->events = NULL;
	f->nevents = 0;
	if (!n)
		return 0;
	f->events = calloc(n, sizeof(*f->events));
	if (!f->events) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct profil_event_def *def = profil_event_def__by_name(names[i]);

		if (!def) {
			snprintf(why, whylen, "unknown event '%s' (see doc/events.md for the list)",
				 names[i]);
			event_filter__free(f);
			return -EINVAL;
		}
		f->events[f->nevents++] = def->id;
	}
	return 0;
}

void event_filter__free(struct event_filter *f)
{
	free(f->events);
	f->events = NULL;
	f->nevents = 0;
}

bool event_filter__match(const struct event_filter *f, int64_t pid, int64_t host_pid,
			 const char *comm, uint32_t event_id)
{
	size_t i;

	for (i = 0; i < f->npids; i++)
		if (f->pids[i] == pid || f->pids[i] == host_pid)
			break;
	if (f->npids && i == f->npids)
		return false;
	for (i = 0; i < f->ncomms; i++)
		if (comm && !strcmp(f->comms[i], comm))
			break;
	if (f->ncomms && i == f->ncomms)
		return false;
	for (i = 0; i < f->nevents; i++)
		if (f->events[i] == event_id)
			break;
	return !f->nevents || i < f->nevents;
}
