// SPDX-License-Identifier: MIT
/*
 * profil watch [--pid P] [--comm NAME] [--event NAME] [-o FILE] [--format json|table]
 *              [--duration SEC] [--lib PATH]... [--verbose]
 *
 * System-wide view of profiling activity from eBPF: the watch itself is
 * events/watch.h; this file holds the options, the filters, the output
 * (Tracee JSON lines or a table, events/events.h) and the messages.  Prints
 * "profil watch: ready ..." on stderr once every probe is attached.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "events/event_filter.h"
#include "events/events.h"
#include "events/watch.h"
#include "utils/opts.h"

struct cmd_watch_opts {
	const char *output;
	enum event_format fmt;
	double duration; /* seconds, 0 = until a signal */
	struct event_filter filter;
	struct watch_opts watch;
};

/* The output: the filtered events, written; the first write error stops the watch. */
struct output {
	const struct cmd_watch_opts *o;
	struct event_writer *w;
	int write_err;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void watch_usage(FILE *out)
{
	fprintf(out, "usage: profil watch [--pid P] [--comm NAME] [--event NAME] [-o FILE]\n"
		     "                    [--format json|table] [--duration SEC] [--lib PATH]...\n"
		     "  --pid P          only events of process P (processId or hostProcessId)\n"
		     "  --comm NAME      only events of processes named NAME\n"
		     "  --event NAME     only events NAME (prof, profil, sprofil, setitimer, ...)\n"
		     "  -o, --output F   write events to F (default: stdout; never through a\n"
		     "                   symbolic link, over another user's file, a profile or\n"
		     "                   a program; an existing file of yours is truncated)\n"
		     "  --format FMT     json (Tracee JSON lines, default) or table\n"
		     "  --duration SEC   stop after SEC seconds (default: at Ctrl-C / SIGTERM)\n"
		     "  --lib PATH       also probe profil()/sprofil() in this library or program\n"
		     "  --ringbuf-kb KB  ring buffer size, a power of two >= 4 (default 1024)\n"
		     "  -v, --verbose    print libbpf diagnostics\n"
		     "Needs root, or CAP_BPF and CAP_PERFMON.\n");
}

static int watch_parse_args(int argc, char **argv, struct cmd_watch_opts *o)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"event", required_argument, NULL, 'e'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"duration", required_argument, NULL, 'd'},
		{"lib", required_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"ringbuf-kb", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const names[] = {['p'] = "--pid", ['c'] = "--comm", ['e'] = "--event"};
	char *end;
	int c;

	while ((c = opts__next("watch", argc, argv, "o:vh", longopts)) != -1) {
		switch (c) {
		case 'p':
		case 'c':
		case 'e':
			if (event_filter__add(&o->filter, "profil watch", names[c], optarg))
				return 2;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"profil watch: --format is json or table, not '%s'\n",
					optarg);
				return 2;
			}
			o->fmt = strcmp(optarg, "json") ? EVENT_FORMAT_TABLE : EVENT_FORMAT_JSON;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (!*optarg || *end || !(o->duration > 0)) {
				fprintf(stderr,
					"profil watch: --duration needs a positive number of "
					"seconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			if (o->watch.nlibs == WATCH_MAX_LIBS) {
				fprintf(stderr, "profil watch: at most %d --lib options\n",
					WATCH_MAX_LIBS);
				return 2;
			}
			o->watch.libs[o->watch.nlibs++] = optarg;
			break;
		case 'r': {
			unsigned long kb = strtoul(optarg, &end, 10);

			if (!*optarg || *end || kb < 4 || kb > (1ul << 21) || (kb & (kb - 1))) {
				fprintf(stderr,
					"profil watch: --ringbuf-kb needs a power of two from 4 "
					"to 2097152, not '%s'\n",
					optarg);
				return 2;
			}
			o->watch.ringbuf_kb = (unsigned int)kb;
			break;
		}
		case 'v':
			o->watch.verbose = true;
			break;
		case 'h':
			watch_usage(stdout);
			return -1;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil watch: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
}

/* Write one event; the first write error is said once and stops the watch. */
static void emit(struct output *out, const struct profil_event *ev)
{
	int err = event_writer__emit(out->w, ev);

	if (err && !out->write_err) {
		out->write_err = err;
		fprintf(stderr, "profil watch: %s\n",
			event_writer__why(out->w) ? event_writer__why(out->w) : strerror(-err));
		stop_requested = 1;
	}
}

static void on_event(void *arg, const struct profil_event *ev)
{
	struct output *out = arg;

	if (ev->id == PEV_EVENTS_LOST) {
		/* never filtered: a filtered stream must still say it is incomplete */
		emit(out, ev);
		fprintf(stderr, "profil watch: %llu events lost (ring buffer full)\n",
			(unsigned long long)ev->events_lost.count);
		return;
	}
	if (event_filter__match(&out->o->filter, ev->pid, ev->host_pid, ev->comm, ev->id))
		emit(out, ev);
}

static void on_warning(void *arg, const char *sentence)
{
	(void)arg;
	fprintf(stderr, "profil watch: %s\n", sentence);
}

int cmd_watch(int argc, char **argv)
{
	struct cmd_watch_opts o = {.output = "-", .fmt = EVENT_FORMAT_JSON};
	struct output out = {.o = &o};
	struct watch_sink sink = {.arg = &out, .event = on_event, .warn = on_warning};
	struct sigaction sa = {.sa_handler = on_signal};
	struct watch *w = NULL;
	char probed[2048], why[512];
	int rc = watch_parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (watch__check(why, sizeof(why)) < 0) {
		fprintf(stderr, "profil watch: %s\n", why);
		return 2;
	}
	if (event_writer__create(&out.w, o.output, o.fmt, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil watch: %s\n", why);
		return 1;
	}
	rc = 1;
	if (watch__open(&w, &o.watch, &sink, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil watch: %s\n", why);
		goto cleanup;
	}
	watch__attach_uprobes(w, probed, sizeof(probed));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "profil watch: ready (profil/sprofil probed in: %s)\n",
		probed[0] ? probed : "none");
	if (watch__run(w, o.duration, &stop_requested, why, sizeof(why)) < 0)
		fprintf(stderr, "profil watch: %s\n", why);
	else
		rc = out.write_err ? 1 : 0;
cleanup:
	watch__close(w);
	/* a write error was said when it happened; a failed sync at the end is said here */
	if (event_writer__close(out.w, why, sizeof(why)) < 0 && !out.write_err) {
		fprintf(stderr, "profil watch: %s\n", why);
		rc = 1;
	}
	return rc;
}
