// SPDX-License-Identifier: MIT
/*
 * profil diff [OPTIONS] OLD NEW: what changed between two recorded profiles,
 * per function, per object and per command, as text or JSON (doc/report-json.md,
 * "profil diff"), as a differential flame graph in one HTML page, or as one
 * pprof profile that go tool pprof reads as -diff_base OLD NEW.  The
 * comparison is report/diff.h, its writers output/diff_write.c,
 * output/diff_html.c and output/pprof.c; this file holds the options.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

enum diff_format { FMT_TEXT, FMT_JSON, FMT_HTML, FMT_PPROF };

struct diff_cmd_opts {
	struct diff_print p; /* the paths, --top, --normalize */
	struct diff_opts d;
	enum diff_format format;
	const char *output; /* html, pprof: the file, "-" for stdout */
};

static const struct opt_choice formats[] = {{"text", FMT_TEXT},
					    {"json", FMT_JSON},
					    {"html", FMT_HTML},
					    {"pprof", FMT_PPROF},
					    {NULL, 0}};
static const struct opt_choice sorts[] = {
	{"share", DIFF_SORT_SHARE}, {"seconds", DIFF_SORT_SECONDS}, {NULL, 0}};

#define AT(m) OPT_AT(struct diff_cmd_opts, m)
static const struct opt options[] = {
	{"format", 0, OPT_CHOICE, "FMT", AT(format),
	 "text (default); json (doc/report-json.md, \"profil diff\"); html: a differential "
	 "flame graph and the tables in one self-contained page (needs -o); pprof: one gzipped "
	 "pprof profile, NEW with OLD negated, that 'go tool pprof -top OUT' reads as "
	 "'-diff_base OLD NEW' (needs -o)",
	 .what = "format", .choices = formats},
	{"output", 'o', OPT_STRING, "OUT", AT(output),
	 "html, pprof: the file to write (- for stdout); written to a temporary file beside it "
	 "and renamed, never through a symbolic link, over another user's file, a profile or a "
	 "program"},
	{"normalize", 0, OPT_FLAG, NULL, AT(p.normalize),
	 "html: the page first compares shares of each profile's samples (a toggle in the "
	 "page; else CPU seconds); pprof: NEW scaled to OLD's totals, as pprof -normalize",
	 .set = 1},
	{"sort", 0, OPT_CHOICE, "KEY", AT(d.sort),
	 "share: by the change of share of all samples (default); seconds: by the change of "
	 "CPU seconds",
	 .what = "sort key", .choices = sorts},
	{"threshold", 0, OPT_DOUBLE, "PCT", AT(d.threshold),
	 "leave out rows whose share changed by less than PCT points (default 0: every row)",
	 .what = "a number of percentage points from 0 to 100", .min = 0, .max = 100},
	{"top", 0, OPT_INT, "N", AT(p.top), "at most N rows per table", .what = "a positive number",
	 .min = 1, .max = (double)LONG_MAX},
	OPT_END,
};

static const struct opts_cmd diff_cmd = {
	.name = "diff",
	.usage = "profil diff [--format text|json] [--sort share|seconds] [--threshold PCT] "
		 "[--top N] OLD NEW\n"
		 "profil diff --format html|pprof -o OUT [--normalize] [OPTIONS] OLD NEW",
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
	if ((o->format == FMT_HTML || o->format == FMT_PPROF) && !o->output)
		return opts__error("diff", "--format %s needs -o FILE (or -o - for stdout)",
				   o->format == FMT_HTML ? "html" : "pprof");
	if ((o->format == FMT_TEXT || o->format == FMT_JSON) && o->output)
		return opts__error("diff", "-o is for --format html and pprof; text and json go "
					   "to stdout");
	o->p.old_path = argv[first];
	o->p.new_path = argv[first + 1];
	return OPTS_GO_ON;
}

/* html, pprof: into a file, a line on stderr saying what it holds. */
static int write_file(const struct diff *d, const struct diff_cmd_opts *o)
{
	struct pprof_summary sum = {0};
	char why[512];
	int rc = o->format == FMT_HTML ?
			 diff__write_html(d, &o->p, o->output, why, sizeof(why)) :
			 diff__write_pprof(d, &o->p, o->output, &sum, why, sizeof(why));

	if (rc < 0) {
		fprintf(stderr, "profil diff: %s\n", why);
		return 1;
	}
	if (o->format == FMT_PPROF && strcmp(o->output, "-"))
		fprintf(stderr,
			"profil diff: %s: NEW's samples and OLD's negated (label pprof::base), "
			"%zu %s in %zu %s; read it with: go tool pprof -top %s\n",
			o->output, sum.nlocations,
			report__plural(sum.nlocations, "location", "locations"), sum.nfunctions,
			report__plural(sum.nfunctions, "function", "functions"), o->output);
	return 0;
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
	if (o.format == FMT_HTML || o.format == FMT_PPROF) {
		rc = write_file(d, &o);
		diff__free(d);
		return rc;
	}
	rc = o.format == FMT_JSON ? diff__write_json(d, &o.p, stdout) :
				    diff__write_text(d, &o.p, stdout);
	diff__free(d);
	if (rc < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "profil diff: cannot write the comparison: %s\n",
			rc == -ENOMEM ? "out of memory" : strerror(errno));
		return 1;
	}
	return 0;
}
