// SPDX-License-Identifier: MIT
/*
 * profil diff [OPTIONS] OLD NEW: what changed between two recorded profiles,
 * per function, per object and per command, as text or JSON (doc/report-json.md,
 * "profil diff").  The comparison is report/diff.h, its writers
 * output/diff_write.c; this file holds the options.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

struct diff_cmd_opts {
	struct diff_print p; /* the paths, --top */
	struct diff_opts d;
	int json;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil diff [--format text|json] [--sort share|seconds] [--threshold PCT]\n"
		"                   [--top N] OLD NEW\n"
		"  OLD, NEW          two profiles (profil.data files) to compare\n"
		"  --format FMT      text (default) or json (doc/report-json.md, \"profil diff\")\n"
		"  --sort KEY        share: by the change of share of all samples (default);\n"
		"                    seconds: by the change of CPU seconds\n"
		"  --threshold PCT   leave out rows whose share changed by less than PCT points\n"
		"                    (default 0: every row)\n"
		"  --top N           at most N rows per table\n"
		"Rows: functions (name and object), objects, commands (executables), each\n"
		"summed over every process of the profile; objects are matched by base name.\n");
}

/* ---- command --------------------------------------------------------------- */

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct diff_cmd_opts *o)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"sort", required_argument, NULL, 's'},
		{"threshold", required_argument, NULL, 't'},
		{"top", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end;
	int c;

	while ((c = opts__next("diff", argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "profil diff: unknown format '%s' (text or json)\n",
					optarg);
				return 2;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 's':
			if (strcmp(optarg, "share") && strcmp(optarg, "seconds")) {
				fprintf(stderr,
					"profil diff: unknown sort key '%s' (share or seconds)\n",
					optarg);
				return 2;
			}
			o->d.sort =
				!strcmp(optarg, "seconds") ? DIFF_SORT_SECONDS : DIFF_SORT_SHARE;
			break;
		case 't':
			errno = 0;
			o->d.threshold = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->d.threshold) ||
			    o->d.threshold < 0 || o->d.threshold > 100) {
				fprintf(stderr,
					"profil diff: --threshold needs a number of percentage "
					"points "
					"from 0 to 100, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			o->p.top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->p.top < 1) {
				fprintf(stderr,
					"profil diff: --top needs a positive number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr,
			"profil diff: give two profiles, OLD and NEW (usage: profil diff [OPTIONS] "
			"OLD NEW)\n");
		return 2;
	}
	o->p.old_path = argv[optind];
	o->p.new_path = argv[optind + 1];
	return -1;
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
