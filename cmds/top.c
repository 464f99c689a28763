// SPDX-License-Identifier: MIT
/*
 * profil top [OPTIONS] [-p PID | -- COMMAND [ARGS...]]
 *
 * The command: options, one call into the live view (live/live.h), which
 * records the whole machine and shows where its CPU time goes as it runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "live/live.h"
#include "record/record.h"
#include "utils/opts.h"

#define DEFAULT_DELAY_MS 1000

struct top_opts {
	struct live_opts lo;
	struct opt_list cgroups;
};

static const struct opt_choice views[] = {
	{"function", LIVE_VIEW_FUNCTION},
	{"process", LIVE_VIEW_PROCESS},
	{"cgroup", LIVE_VIEW_CGROUP},
	{NULL, 0},
};

static const struct opt_choice sorts[] = {{"last", 0}, {"total", 1}, {NULL, 0}};

/* --delay SECS: into milliseconds. */
static int set_delay(void *out, const char *arg, char *why, size_t whylen)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end || !(d >= 0.1 && d <= 3600)) {
		snprintf(why, whylen, "--delay needs seconds from 0.1 to 3600, not '%s'", arg);
		return -1;
	}
	((struct top_opts *)out)->lo.delay_ms = (unsigned int)(d * 1000 + 0.5);
	return 0;
}

#define STR(x) #x
#define XSTR(x) STR(x)
#define AT(m) OPT_AT(struct top_opts, m)
static const struct opt options[] = {
	{"delay", 'd', OPT_CALL, "SECS", AT(lo.delay_ms), "refresh period (default 1; 0.1 to 3600)",
	 .call = set_delay},
	{"freq", 'F', OPT_INT, "HZ", AT(lo.hz),
	 "samples per CPU second (default " XSTR(RECORD_DEFAULT_HZ) ")",
	 .what = "a rate from 1 to 1000000 Hz", .min = 1, .max = 1000000},
	{"pid", 'p', OPT_INT, "PID", AT(lo.pid), "only this process (until it ends)",
	 .what = "a process id (1 or more)", .min = 1, .max = INT_MAX},
	{"cpu", 'C', OPT_STRING, "LIST", AT(lo.cpu_list), "these CPUs only (e.g. 0,2-3)"},
	{"cgroup", 0, OPT_LIST, "LIST", AT(cgroups),
	 "only these cgroups: a path (and those below it), a container (docker:ID, ...) or a "
	 "container id's first digits"},
	{NULL, 'g', OPT_FLAG, NULL, AT(lo.callgraph), "record call stacks", .set = 1},
	{"children", 0, OPT_FLAG, NULL, AT(lo.children),
	 "with -g: each function's callers' share too", .set = 1},
	{"view", 0, OPT_CHOICE, "VIEW", AT(lo.view), "the first view: function, process or cgroup",
	 .what = "view", .choices = views},
	{"sort", 0, OPT_CHOICE, "ORDER", AT(lo.sort_total),
	 "last (the last period, the default) or total (decayed)", .what = "order",
	 .choices = sorts},
	{"iterations", 'n', OPT_INT, "N", AT(lo.iterations), "stop after N refreshes",
	 .what = "a count of 1 or more", .min = 1, .max = (double)LONG_MAX},
	{"batch", 'b', OPT_FLAG, NULL, AT(lo.batch),
	 "one table per refresh on stdout (also when stdout is not a terminal)", .set = 1},
	{"rows", 0, OPT_INT, "N", AT(lo.rows), "batch: rows per table (default 20)",
	 .what = "a count from 1 to 100000", .min = 1, .max = 100000},
	OPT_END,
};

static const struct opts_cmd top_cmd = {
	.name = "top",
	.usage = "profil top [OPTIONS] [-p PID | -- COMMAND [ARGS...]]",
	.opts = options,
	.flags = OPTS_IN_ORDER,
	.text = "Where the whole machine's CPU time goes, refreshed as it runs: rows by function\n"
		"(and object), by process or by cgroup, with each row's share of the last period\n"
		"and of a decayed total (7/8 kept at each refresh).  Needs what record -a needs\n"
		"(root, CAP_PERFMON or kernel.perf_event_paranoid <= 0).\n"
		"Keys: f functions, p processes, c cgroups (Tab: the next view), s sort,\n"
		"space pause, z zero the totals, q quit.  Ctrl-C quits, Ctrl-Z suspends; the\n"
		"terminal is restored either way.  With COMMAND: its processes, until it ends;\n"
		"profil top then exits with its status.\n",
};

/* -2 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct top_opts *t)
{
	int first, rc;

	t->lo.hz = RECORD_DEFAULT_HZ;
	t->lo.delay_ms = DEFAULT_DELAY_MS;
	rc = opts__parse(&top_cmd, argc, argv, t, &first);
	if (rc != OPTS_GO_ON)
		return rc;
	t->lo.argv = argv + first;
	t->lo.cgroups = t->cgroups.v;
	t->lo.ncgroups = t->cgroups.n;
	if (t->lo.pid && *t->lo.argv)
		return opts__error("top", "give either a COMMAND or -p PID, not both");
	if (t->lo.children && !t->lo.callgraph)
		return opts__error("top", "--children needs call stacks: add -g");
	return -2;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts t = {0};
	char why[512];
	int rc = parse_args(argc, argv, &t), status;

	if (rc == -2) {
		if (live__run(&t.lo, &status, why, sizeof(why)) < 0)
			fprintf(stderr, "profil top: %s\n", why);
		rc = status;
	}
	opts__free(&top_cmd, &t);
	return rc;
}
