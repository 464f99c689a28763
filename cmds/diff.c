// SPDX-License-Identifier: MIT
/*
 * profil diff [OPTIONS] OLD NEW: what changed between two recorded profiles,
 * per function, per object and per command, as text or JSON (doc/report-json.md,
 * "profil diff").  The comparison is report/diff.h, its writers
 * output/diff_write.c; this file holds the options.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

struct diff_cmd_opts {
	struct diff_print p; /* the paths, --top */
	struct diff_opts d;
	int json;
};

static const struct opt_choice formats[] = {{"text", 0}, {"json", 1}, {NULL, 0}};
static const struct opt_choice sorts[] = {
	{"share", DIFF_SORT_SHARE}, {"seconds", DIFF_SORT_SECONDS}, {"offcpu", DIFF_SORT_OFFCPU},
	{NULL, 0}};

#define AT(m) OPT_AT(struct diff_cmd_opts, m)
static const struct opt options[] = {
	{"format", 0, OPT_CHOICE, "FMT", AT(json),
	 "text (default) or json (doc/report-json.md, \"profil diff\")", .what = "format",
	 .choices = formats},
	{"sort", 0, OPT_CHOICE, "KEY", AT(d.sort),
	 "share: by the change of share of all samples (default); seconds: by the change of "
	 "CPU seconds; offcpu: by the change of off-CPU seconds (profiles recorded with "
	 "--off-cpu; --threshold is then of the share of off-CPU time)",
	 .what = "sort key", .choices = sorts},
	{"threshold", 0, OPT_DOUBLE, "PCT", AT(d.threshold),
	 "leave out rows whose share changed by less than PCT points (default 0: every row)",
	 .what = "a number of percentage points from 0 to 100", .min = 0, .max = 100},
	{"top", 0, OPT_INT, "N", AT(p.top), "at most N rows per table",
	 .what = "a positive number", .min = 1, .max = (double)LONG_MAX},
	OPT_END,
};

static const struct opts_cmd diff_cmd = {
	.name = "diff",
	.usage = "profil diff [--format text|json] [--sort share|seconds|offcpu] [--threshold PCT] "
		 "[--top N] OLD NEW",
	.opts = options,
	.text = "OLD and NEW are two profiles (profil.data files) to compare.\n"
		"Rows: functions (name and object), objects, commands (executables), each\n"
		"summed over every process of the profile; objects are matched by base name.\n",
};

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct diff_cmd_opts *o)
{
	int first, rc = opts__parse(&diff_cmd, argc, argv, o, &first);

	if (rc != OPTS_GO_ON)
		return rc;
	if (argc - first != 2)
		return opts__error("diff", "give two profiles, OLD and NEW (usage: profil diff "
					   "[OPTIONS] OLD NEW)");
	o->p.old_path = argv[first];
	o->p.new_path = argv[first + 1];
	return OPTS_GO_ON;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd_opts o = {0};
	struct diff *d;
	char why[512];
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (diff__load(&d, o.p.old_path, o.p.new_path, &o.d, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil diff: %s\n", why);
		return 1;
	}
	rc = o.json ? diff__write_json(d, &o.p, stdout) : diff__write_text(d, &o.p, stdout);
	diff__free(d);
	if (rc < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "profil diff: cannot write the comparison: %s\n",
			rc == -ENOMEM ? "out of memory" : strerror(errno));
		return 1;
	}
	return 0;
}
