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
	struct event_filter_opts f;
	struct opt_list libs;
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

/* --ringbuf-kb KB: a power of two from 4 to 2097152. */
static int set_ringbuf(void *out, const char *arg, char *why, size_t whylen)
{
	char *end;
	unsigned long kb = strtoul(arg, &end, 10);

	if (!*arg || *arg == '-' || *end || kb < 4 || kb > (1ul << 21) || (kb & (kb - 1))) {
		snprintf(why, whylen,
			 "--ringbuf-kb needs a power of two from 4 to 2097152, not '%s'", arg);
		return -1;
	}
	((struct cmd_watch_opts *)out)->watch.ringbuf_kb = (unsigned int)kb;
	return 0;
}

static const struct opt_choice formats[] = {
	{"json", EVENT_FORMAT_JSON}, {"table", EVENT_FORMAT_TABLE}, {NULL, 0}};

#define AT(m) OPT_AT(struct cmd_watch_opts, m)
static const struct opt options[] = {
	EVENT_FILTER_OPTIONS(struct cmd_watch_opts, f),
	{"output", 'o', OPT_STRING, "FILE", AT(output),
	 "write events to FILE (default: stdout; never through a symbolic link, over another "
	 "user's file, a profile or a program; an existing file of yours is truncated)"},
	{"format", 0, OPT_CHOICE, "FMT", AT(fmt), "json (Tracee JSON lines, default) or table",
	 .what = "format", .choices = formats},
	{"duration", 0, OPT_DOUBLE, "SEC", AT(duration),
	 "stop after SEC seconds (default: at Ctrl-C / SIGTERM)",
	 .what = "a positive number of seconds", .min = 0, .max = 1e9, .flags = OPT_ABOVE_MIN},
	{"lib", 0, OPT_LIST, "PATH", AT(libs),
	 "also probe profil()/sprofil() in this library or program (repeat for more)",
	 .flags = OPT_WHOLE},
	{"ringbuf-kb", 0, OPT_CALL, "KB", AT(watch.ringbuf_kb),
	 "ring buffer size, a power of two >= 4 (default 1024)", .call = set_ringbuf},
	{"verbose", 'v', OPT_FLAG, NULL, AT(watch.verbose), "print libbpf diagnostics", .set = 1},
	OPT_END,
};

static const struct opts_cmd watch_cmd = {
	.name = "watch",
	.usage = "profil watch [OPTIONS]",
	.opts = options,
	.flags = OPTS_NO_OPERANDS,
	.text = "The filters take comma-separated lists and may be repeated (the lists add up).\n"
		"Needs root, or CAP_BPF and CAP_PERFMON.\n",
};

/* -1 to go on, else the exit status. */
static int watch_parse_args(int argc, char **argv, struct cmd_watch_opts *o)
{
	int first, rc = opts__parse(&watch_cmd, argc, argv, o, &first);

	if (rc != OPTS_GO_ON)
		return rc;
	if (o->libs.n > WATCH_MAX_LIBS)
		return opts__error("watch", "at most %d --lib options", WATCH_MAX_LIBS);
	for (size_t i = 0; i < o->libs.n; i++)
		o->watch.libs[o->watch.nlibs++] = o->libs.v[i];
	return event_filter_opts__filter("watch", &o->f, &o->filter);
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

	if (rc != OPTS_GO_ON)
		goto done;
	rc = 2;
	if (watch__check(why, sizeof(why)) < 0) {
		fprintf(stderr, "profil watch: %s\n", why);
		goto done;
	}
	rc = 1;
	if (event_writer__create(&out.w, o.output, o.fmt, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil watch: %s\n", why);
		goto done;
	}
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
done:
	event_filter__free(&o.filter);
	opts__free(&watch_cmd, &o);
	return rc;
}
