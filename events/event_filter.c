// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/event_filter.h"
#include "events/events.h"

static int add_one(struct event_filter *f, const char *prefix, const char *opt, char *v)
{
	if (!strcmp(opt, "--pid")) {
		char *end;
		long long pid = strtoll(v, &end, 10);

		if (!*v || *end || pid <= 0) {
			fprintf(stderr, "%s: --pid needs a positive process id, not '%s'\n", prefix,
				v);
			return -EINVAL;
		}
		if (f->npids == EVENT_FILTER_MAX)
			goto too_many;
		f->pids[f->npids++] = pid;
	} else if (!strcmp(opt, "--comm")) {
		if (f->ncomms == EVENT_FILTER_MAX)
			goto too_many;
		f->comms[f->ncomms++] = v;
	} else {
		const struct profil_event_def *def = profil_event_def__by_name(v);

		if (!def) {
			fprintf(stderr, "%s: unknown event '%s' (see doc/events.md for the list)\n",
				prefix, v);
			return -EINVAL;
		}
		if (f->nevents == EVENT_FILTER_MAX)
			goto too_many;
		f->events[f->nevents++] = def->id;
	}
	return 0;
too_many:
	fprintf(stderr, "%s: at most %d values for %s\n", prefix, EVENT_FILTER_MAX, opt);
	return -EINVAL;
}

int event_filter__add(struct event_filter *f, const char *prefix, const char *opt, char *value)
{
	char *save = NULL;

	if (!value[strspn(value, ", ")]) {
		fprintf(stderr, "%s: %s needs a value\n", prefix, opt);
		return -EINVAL;
	}
	for (char *tok = strtok_r(value, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int err = add_one(f, prefix, opt, tok);
		if (err)
			return err;
	}
	return 0;
}

bool event_filter__match(const struct event_filter *f, int64_t pid, int64_t host_pid,
			 const char *comm, uint32_t event_id)
{
	unsigned int i;

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
