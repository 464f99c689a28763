// SPDX-License-Identifier: MIT
/*
 * profil top [OPTIONS] [-p PID | -- COMMAND [ARGS...]]
 *
 * The command: options, one call into the live view (live/live.h), which
 * records the whole machine and shows where its CPU time goes as it runs.
 */
#include <errno.h>
#include <getopt.h>
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
	char *cgroup_buf;
	const char **cgroups;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil top [OPTIONS] [-p PID | -- COMMAND [ARGS...]]\n"
		"\n"
		"Where the whole machine's CPU time goes, refreshed as it runs: rows by function\n"
		"(and object), by process or by cgroup, with each row's share of the last period\n"
		"and of a decayed total (7/8 kept at each refresh).  Needs what record -a needs\n"
		"(root, CAP_PERFMON or kernel.perf_event_paranoid <= 0).\n"
		"\n"
		"  -d, --delay SECS    refresh period (default 1; 0.1 to 3600)\n"
		"  -F, --freq HZ       samples per CPU second (default %d)\n"
		"  -p, --pid PID       only this process (until it ends)\n"
		"  -C, --cpu LIST      these CPUs only (e.g. 0,2-3)\n"
		"      --cgroup LIST   only these cgroups: a path (and those below it), a\n"
		"                      container (docker:ID, ...) or a container id's first "
		"digits\n"
		"  -g                  record call stacks\n"
		"      --children      with -g: each function's callers' share too\n"
		"      --view VIEW     the first view: function, process or cgroup\n"
		"      --sort ORDER    last (the last period, the default) or total (decayed)\n"
		"  -n, --iterations N  stop after N refreshes\n"
		"  -b, --batch         one table per refresh on stdout (also when stdout is not a\n"
		"                      terminal)\n"
		"      --rows N        batch: rows per table (default 20)\n"
		"\n"
		"Keys: f functions, p processes, c cgroups (Tab: the next view), s sort,\n"
		"space pause, z zero the totals, q quit.  Ctrl-C quits, Ctrl-Z suspends; the\n"
		"terminal is restored either way.  With COMMAND: its processes, until it ends;\n"
		"profil top then exits with its status.\n",
		RECORD_DEFAULT_HZ);
}

static int bad(const char *opt, const char *what, const char *arg)
{
	fprintf(stderr, "profil top: %s needs %s, not '%s'\n", opt, what, arg);
	return OPTS_EXIT_USAGE;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_cgroups(struct top_opts *t, const char *arg)
{
	char *save = NULL, *tok;
	size_t n = 0;

	free(t->cgroup_buf);
	free(t->cgroups);
	t->cgroup_buf = strdup(arg);
	t->cgroups = calloc(strlen(arg) / 2 + 2, sizeof(*t->cgroups));
	if (!t->cgroup_buf || !t->cgroups)
		return 1;
	for (tok = strtok_r(t->cgroup_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		t->cgroups[n++] = tok;
	t->lo.cgroups = t->cgroups;
	t->lo.ncgroups = n;
	return n ? 0 : bad("--cgroup", "a comma-separated list", arg);
}

static int parse_view(struct live_opts *o, const char *arg)
{
	if (!strcmp(arg, "function"))
		o->view = LIVE_VIEW_FUNCTION;
	else if (!strcmp(arg, "process"))
		o->view = LIVE_VIEW_PROCESS;
	else if (!strcmp(arg, "cgroup"))
		o->view = LIVE_VIEW_CGROUP;
	else
		return bad("--view", "function, process or cgroup", arg);
	return 0;
}

static int parse_opt(int c, struct top_opts *t)
{
	struct live_opts *o = &t->lo;
	double d;
	long v;
	char *end;

	switch (c) {
	case 'd':
		errno = 0;
		d = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(d >= 0.1 && d <= 3600))
			return bad("--delay", "seconds from 0.1 to 3600", optarg);
		o->delay_ms = (unsigned int)(d * 1000 + 0.5);
		return 0;
	case 'F':
		if (parse_long(optarg, 1, 1000000, &v) < 0)
			return bad("--freq", "a rate from 1 to 1000000 Hz", optarg);
		o->hz = (unsigned int)v;
		return 0;
	case 'p':
		if (parse_long(optarg, 1, INT_MAX, &v) < 0)
			return bad("--pid", "a process id", optarg);
		o->pid = (pid_t)v;
		return 0;
	case 'C':
		o->cpu_list = optarg;
		return 0;
	case 'G':
		return parse_cgroups(t, optarg);
	case 'g':
		o->callgraph = 1;
		return 0;
	case 'K':
		o->children = 1;
		return 0;
	case 'V':
		return parse_view(o, optarg);
	case 's':
		if (strcmp(optarg, "last") && strcmp(optarg, "total"))
			return bad("--sort", "last or total", optarg);
		o->sort_total = !strcmp(optarg, "total");
		return 0;
	case 'n':
		if (parse_long(optarg, 1, LONG_MAX, &v) < 0)
			return bad("--iterations", "a count of 1 or more", optarg);
		o->iterations = v;
		return 0;
	case 'b':
		o->batch = 1;
		return 0;
	case 'r':
		if (parse_long(optarg, 1, 100000, &v) < 0)
			return bad("--rows", "a count of 1 or more", optarg);
		o->rows = (unsigned int)v;
		return 0;
	case 'h':
		usage(stdout);
		return -1;
	default:
		return OPTS_EXIT_USAGE;
	}
}

/* Returns -2 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct top_opts *t)
{
	static const struct option longopts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"freq", required_argument, NULL, 'F'},
		{"pid", required_argument, NULL, 'p'},
		{"cpu", required_argument, NULL, 'C'},
		{"cgroup", required_argument, NULL, 'G'},
		{"children", no_argument, NULL, 'K'},
		{"view", required_argument, NULL, 'V'},
		{"sort", required_argument, NULL, 's'},
		{"iterations", required_argument, NULL, 'n'},
		{"batch", no_argument, NULL, 'b'},
		{"rows", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;

	t->lo.hz = RECORD_DEFAULT_HZ;
	t->lo.delay_ms = DEFAULT_DELAY_MS;
	while ((c = opts__next("top", argc, argv, "+d:F:p:C:gn:bh", longopts)) != -1) {
		rc = parse_opt(c, t);
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	t->lo.argv = argv + optind;
	if (t->lo.pid && *t->lo.argv) {
		fprintf(stderr, "profil top: give either a COMMAND or -p PID, not both\n");
		return OPTS_EXIT_USAGE;
	}
	if (t->lo.children && !t->lo.callgraph) {
		fprintf(stderr, "profil top: --children needs call stacks: add -g\n");
		return OPTS_EXIT_USAGE;
	}
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
	free(t.cgroup_buf);
	free(t.cgroups);
	return rc;
}
