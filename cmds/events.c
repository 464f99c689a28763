// SPDX-License-Identifier: MIT
/*
 * profil events [-i FILE] [--pid P] [--comm NAME] [--event NAME] [--format json|table]
 *
 * Read a recorded Tracee JSON-lines event stream (default profil.events,
 * "-" = stdin), keep the events that pass the filters and print them as
 * JSON lines (the input lines, byte for byte) or as a table.  The input is
 * streamed, so `profil watch | profil events --format table` works; a line
 * that is not a Tracee event stops the command with one sentence naming
 * the file and line, and exit status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "events/event_filter.h"
#include "events/event_reader.h"
#include "events/events.h"
#include "utils/opts.h"

struct events_opts {
	const char *input;
	bool table;
	struct event_filter_opts f;
	struct event_filter filter;
};

static const struct opt_choice formats[] = {{"json", 0}, {"table", 1}, {NULL, 0}};

#define AT(m) OPT_AT(struct events_opts, m)
static const struct opt options[] = {
	{"input", 'i', OPT_STRING, "FILE", AT(input),
	 "event stream to read (default " PROFIL_EVENTS_DEFAULT_PATH ", '-' = stdin)"},
	EVENT_FILTER_OPTIONS(struct events_opts, f),
	{"format", 0, OPT_CHOICE, "FMT", AT(table), "json (default: the input lines) or table",
	 .what = "format", .choices = formats},
	OPT_END,
};

static const struct opts_cmd events_cmd = {
	.name = "events",
	.usage = "profil events [-i FILE] [--pid LIST] [--comm LIST] [--event LIST] "
		 "[--format json|table]",
	.opts = options,
	.flags = OPTS_NO_OPERANDS,
	.text = "The filters take comma-separated lists and may be repeated (the lists add up).\n",
};

int event_filter_opts__filter(const char *cmd, const struct event_filter_opts *o,
			      struct event_filter *f)
{
	char why[256];

	f->pids = o->pids.v;
	f->npids = o->pids.n;
	f->comms = o->comms.v;
	f->ncomms = o->comms.n;
	if (event_filter__events(f, o->events.v, o->events.n, why, sizeof(why)) < 0)
		return opts__error(cmd, "%s", why);
	return OPTS_GO_ON;
}

/* Copy the events that pass the filters to stdout, as they are or as a table. */
static int events_process(struct event_reader *r, const struct events_opts *o)
{
	struct event_line ev;
	bool header = false;
	char why[512];
	int rc;

	while ((rc = event_reader__next(r, &ev, why, sizeof(why))) > 0) {
		if (!event_filter__match(&o->filter, ev.pid, ev.host_pid, ev.comm, ev.id))
			continue;
		if (o->table) {
			if (!header)
				event_table__header(stdout);
			header = true;
			event_table__row(stdout, ev.obj);
		} else {
			fwrite(ev.text, 1, ev.len, stdout);
			fputc('\n', stdout);
		}
	}
	if (rc < 0)
		fprintf(stderr, "profil events: %s\n", why);
	if (fflush(stdout) && rc >= 0) {
		fprintf(stderr, "profil events: writing the output failed: %s\n", strerror(errno));
		rc = -EIO;
	}
	return rc < 0 ? 1 : 0;
}

int cmd_events(int argc, char **argv)
{
	struct events_opts o = {.input = PROFIL_EVENTS_DEFAULT_PATH};
	struct event_reader *r;
	char why[512];
	int first, rc = opts__parse(&events_cmd, argc, argv, &o, &first);

	if (rc == OPTS_GO_ON)
		rc = event_filter_opts__filter("events", &o.f, &o.filter);
	if (rc == OPTS_GO_ON && event_reader__open(&r, o.input, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil events: %s\n", why);
		rc = 1;
	} else if (rc == OPTS_GO_ON) {
		rc = events_process(r, &o);
		event_reader__close(r);
	}
	event_filter__free(&o.filter);
	opts__free(&events_cmd, &o);
	return rc;
}
