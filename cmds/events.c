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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "events/event_filter.h"
#include "events/event_reader.h"
#include "events/events.h"
#include "utils/opts.h"

static void events_usage(FILE *out)
{
	fprintf(out,
		"usage: profil events [-i FILE] [--pid P] [--comm NAME] [--event NAME]\n"
		"                     [--format json|table]\n"
		"  -i, --input FILE   event stream to read (default %s, '-' = stdin)\n"
		"  --pid P            only events of process P (processId or hostProcessId)\n"
		"  --comm NAME        only events of processes named NAME\n"
		"  --event NAME       only events NAME (prof, profil, sprofil, setitimer, ...)\n"
		"  --format FMT       json (default: the input lines) or table\n"
		"Options may be repeated and take comma-separated lists.\n",
		PROFIL_EVENTS_DEFAULT_PATH);
}

struct events_opts {
	const char *input;
	bool table;
	struct event_filter filter;
};

static int events_parse_args(int argc, char **argv, struct events_opts *o)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"event", required_argument, NULL, 'e'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = opts__next("events", argc, argv, "i:h", longopts)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'p':
			if (event_filter__add(&o->filter, "profil events", "--pid", optarg))
				return 2;
			break;
		case 'c':
			if (event_filter__add(&o->filter, "profil events", "--comm", optarg))
				return 2;
			break;
		case 'e':
			if (event_filter__add(&o->filter, "profil events", "--event", optarg))
				return 2;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"profil events: --format is json or table, not '%s'\n",
					optarg);
				return 2;
			}
			o->table = !strcmp(optarg, "table");
			break;
		case 'h':
			events_usage(stdout);
			return -1;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil events: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
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
	int rc = events_parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (event_reader__open(&r, o.input, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil events: %s\n", why);
		return 1;
	}
	rc = events_process(r, &o);
	event_reader__close(r);
	return rc;
}
