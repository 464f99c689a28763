// SPDX-License-Identifier: MIT
/*
 * profil report: where the CPU time of a recorded run went: the whole run
 * merged (perf report's --sort keys and filters), and each process image
 * (and thread), as text, JSON (doc/report-json.md), CSV or an HTML page
 * (output/html.h); with call stacks, total time beside self (--children),
 * the call trees (-g) and the trees around one function (--callers,
 * --callees).  The model and its writers are report/report.h, the
 * call-stack parts report/cgreport.h; this file holds the options.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

struct opts {
	const char *input;
	const char *output; /* --format html: the page's file, "-" for stdout */
	enum fmt format;
	int images;  /* text: each image's rows after the whole run */
	int run_csv; /* csv: the whole run's table (--sort with a key) */
	struct report_opts ro;
	struct cgreport_opts cg; /* --children, --call-graph, --callers, --callees */
	struct opt_ids pids, tids;
	struct opt_list comms, dsos, cgroups;
};

/* --sort KEYS: the report's keys, and self or name. 0, or -1 with why. */
static int parse_sort(void *out, const char *arg, char *why, size_t whylen)
{
	struct opts *o = out;
	size_t items = 0;

	o->ro.nkeys = 0;
	o->ro.sort_name = 0;
	for (const char *s = arg; *s; s += strcspn(s, ","), s += *s == ',') {
		char item[32];
		size_t len = strcspn(s, ",");
		int key;

		if (!len)
			continue;
		items++;
		snprintf(item, sizeof(item), "%.*s", (int)(len < sizeof(item) ? len : 0), s);
		key = report__key_parse(item);
		if (!strcmp(item, "self") || !strcmp(item, "name")) {
			o->ro.sort_name = !strcmp(item, "name");
		} else if (report__value_parse(item)) {
			o->ro.value = report__value_parse(item); /* most of this time first */
		} else if (!key) {
			snprintf(why, whylen,
				 "unknown sort key '%.*s' (comm, dso, sym, pid, tid, cgroup, self, "
				 "name, cpu, wall, off-cpu, sleep, blocked, preempted or stopped)",
				 (int)len, s);
			return -1;
		} else if (o->ro.nkeys < REPORT_MAX_KEYS) {
			o->ro.keys[o->ro.nkeys++] = key;
		}
	}
	if (!items) {
		snprintf(why, whylen, "--sort needs a comma-separated list, not '%s'", arg);
		return -1;
	}
	o->run_csv = o->ro.nkeys > 0;
	return 0;
}

/* --reason LIST: the off-CPU reasons kept.  0, or -1 with why. */
static int parse_reasons(void *out, const char *arg, char *why, size_t whylen)
{
	struct opts *o = out;

	o->ro.reasons = 0;
	for (const char *s = arg; *s; s += strcspn(s, ","), s += *s == ',') {
		size_t len = strcspn(s, ",");
		int k = PDATA_KIND_SLEEP;

		if (!len)
			continue;
		while (k < PDATA_KIND_NR && (strlen(pdata__kind_name((uint32_t)k)) != len ||
					     strncmp(s, pdata__kind_name((uint32_t)k), len)))
			k++;
		if (k == PDATA_KIND_NR) {
			snprintf(why, whylen,
				 "unknown reason '%.*s' (sleep, blocked, preempted or stopped)",
				 (int)len, s);
			return -1;
		}
		o->ro.reasons |= 1u << k;
	}
	if (!o->ro.reasons) {
		snprintf(why, whylen, "--reason needs a comma-separated list, not '%s'", arg);
		return -1;
	}
	return 0;
}

/* --call-graph ORDER[,PERCENT] */
static int parse_call_graph(void *out, const char *arg, char *why, size_t whylen)
{
	return cgreport__parse_call_graph(arg, &((struct opts *)out)->cg, why, whylen) < 0 ? -1 : 0;
}

static const struct opt_choice formats[] = {
	{"text", FMT_TEXT}, {"json", FMT_JSON}, {"csv", FMT_CSV}, {"html", FMT_HTML}, {NULL, 0},
};

#define AT(m) OPT_AT(struct opts, m)
static const struct opt options[] = {
	{"input", 'i', OPT_STRING, "FILE", AT(input), "profile to read (default profil.data)"},
	{"format", 0, OPT_CHOICE, "FMT", AT(format),
	 "text (default), json (doc/report-json.md), csv, or html: one self-contained page "
	 "(flame graph, sortable table)",
	 .what = "format", .choices = formats},
	{"output", 'o', OPT_STRING, "OUT", AT(output),
	 "html: the file to write (replaced atomically; never through a symbolic link, over "
	 "another user's file, a profile or a program), - for stdout"},
	{"sort", 0, OPT_CALL, "KEYS", AT(ro),
	 "the whole run's columns and grouping, comma-separated, as perf report's: comm, dso, "
	 "sym, pid, tid, cgroup (default comm,dso,sym); with self (most time first, the "
	 "default) or name (by name).  With off-CPU time (record --off-cpu) the time first: "
	 "wall (the default there), cpu, off-cpu, or one reason's: sleep, blocked, preempted, "
	 "stopped",
	 .call = parse_sort},
	{"reason", 0, OPT_CALL, "LIST", AT(ro.reasons),
	 "off-CPU time of these reasons only (sleep, blocked, preempted, stopped)",
	 .call = parse_reasons},
	{"pid", 0, OPT_ID_LIST, "LIST", AT(pids), "only these processes (comma-separated ids)",
	 .what = "positive process ids separated by commas"},
	{"tid", 0, OPT_ID_LIST, "LIST", AT(tids), "only these threads (comma-separated ids)",
	 .what = "positive thread ids separated by commas"},
	{"comm", 0, OPT_LIST, "LIST", AT(comms), "only these commands (thread names)"},
	{"dso", 0, OPT_LIST, "LIST", AT(dsos),
	 "only these objects (full path or base name, [kernel], ...)"},
	{"cgroup", 0, OPT_LIST, "LIST", AT(cgroups),
	 "only these cgroups (record -a): a path (and those below it), a container (docker:ID, "
	 "podman:ID, ...; a prefix of the id) or a container id's first digits"},
	{"percent-limit", 0, OPT_DOUBLE, "P", AT(ro.percent_limit),
	 "leave out rows below P % of the run (of the image, per image)",
	 .what = "a percentage from 0 to 100", .min = 0, .max = 100},
	{"top", 0, OPT_INT, "N", AT(ro.top), "at most N rows per table (0: all, the default)",
	 .what = "a whole number, 0 (all) or more", .min = 0, .max = (double)LONG_MAX},
	{"images", 0, OPT_FLAG, NULL, AT(images),
	 "text: each process image's own rows after the whole run", .set = 1},
	{"threads", 0, OPT_FLAG, NULL, AT(ro.threads),
	 "each image split by thread (text: implies --images)", .set = 1},
	{"lines", 0, OPT_FLAG, NULL, AT(ro.lines), "split by source line (file:line from DWARF)",
	 .set = 1},
	{"inline", 0, OPT_FLAG, NULL, AT(ro.inline_rows),
	 "a sample in inlined code counts for the inlined function (from DWARF), not the "
	 "function it was inlined into (call stacks always show inlined functions as frames)",
	 .set = 1},
	OPT_GROUP("call stacks (profiles recorded with -g; a flat profile has its leaves only;\n"
		  "text and json, csv with --children):"),
	{"children", 0, OPT_FLAG, NULL, AT(cg.children),
	 "total (inclusive: the row and its callees) beside self, every row on a stack, most "
	 "total first, as perf's",
	 .set = 1},
	{"call-graph", 'g', OPT_CALL, "ORDER[,PERCENT]", AT(cg),
	 "after each table, the tree of its stacks: caller (top-down, from the outermost "
	 "callers) or callee (bottom-up, from where the samples hit); nodes of at least PERCENT "
	 "of the run's (the image's) samples (default: --percent-limit, else 0.5)",
	 .call = parse_call_graph},
	{"callers", 0, OPT_STRING, "FUNC", AT(cg.callers),
	 "the tree of FUNC's callers instead of the table"},
	{"callees", 0, OPT_STRING, "FUNC", AT(cg.callees),
	 "the tree of FUNC's callees instead of the table"},
	OPT_END,
};

static const struct opts_cmd report_cmd = {
	.name = "report",
	.usage = "profil report [OPTIONS]\n"
		 "profil report --format html -o OUT [-i FILE] [--lines]",
	.opts = options,
	.flags = OPTS_NO_OPERANDS,
	.operand_hint = "the profile is given with -i",
	.text = "The text report starts with the whole run merged; %time is a share of the whole\n"
		"run (per image: of the image).  [kernel] rows marked \"accounted\" are each\n"
		"thread's system time as the kernel accounted it, where the kernel could not be\n"
		"sampled; [unsampled] rows are CPU time of a process image that no sample covers\n"
		"(short processes).  CSV: per image as before; with --sort KEYS, the whole run.\n",
};

/* What the options cannot say alone. */
static int check_opts(const struct opts *o)
{
	if (o->format == FMT_HTML && !o->output)
		return opts__error("report", "--format html needs -o FILE (or -o - for stdout)");
	if (o->format != FMT_HTML && o->output)
		return opts__error("report",
				   "-o is for --format html; text, json and csv go to stdout");
	if ((o->format == FMT_HTML && cgreport__wanted(&o->cg)) ||
	    (o->format == FMT_CSV && (o->cg.call_graph || o->cg.callers || o->cg.callees)))
		return opts__error("report",
				   "--children, --call-graph, --callers and --callees are for text "
				   "and json (csv: --children); the html page shows totals and "
				   "stacks itself");
	if (o->format == FMT_CSV && o->run_csv && o->ro.threads)
		return opts__error("report",
				   "csv: --threads splits the per-image table, --sort KEYS makes "
				   "the whole run's table (add the tid key to split it)");
	return 0;
}

/* -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct report_filter *f = &o->ro.filter;
	int first, rc;

	o->input = "profil.data";
	o->cg.threshold = CGREPORT_DEFAULT_THRESHOLD; /* of every tree; --call-graph may set it */
	rc = opts__parse(&report_cmd, argc, argv, o, &first);
	if (rc != OPTS_GO_ON)
		return rc;
	o->ro.children = o->cg.children;
	f->pids = o->pids.v;
	f->npids = o->pids.n;
	f->tids = o->tids.v;
	f->ntids = o->tids.n;
	f->comms = o->comms.v;
	f->ncomms = o->comms.n;
	f->dsos = o->dsos.v;
	f->ndsos = o->dsos.n;
	f->cgroups = o->cgroups.v;
	f->ncgroups = o->cgroups.n;
	rc = check_opts(o);
	return rc ? rc : -1;
}

static int write_report(struct report *m, const struct cgreport *cr, const struct opts *o,
			char *why, size_t whylen)
{
	switch (o->format) {
	case FMT_HTML:
		return html__write_report(m, o->output, why, whylen);
	case FMT_JSON:
		return report__write_json(m, cr, stdout);
	case FMT_CSV:
		return report__write_csv(m, stdout, o->run_csv);
	default:
		return report__write_text(m, cr, stdout, o->input, o->images);
	}
}

int cmd_report(int argc, char **argv)
{
	struct opts o = {0};
	struct report *m = NULL;
	struct cgreport *cr = NULL;
	char why[512] = "";
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0) {
		opts__free(&report_cmd, &o);
		return rc;
	}
	rc = report__load(&m, o.input, &o.ro, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s\n", why);
		opts__free(&report_cmd, &o);
		return 1;
	}
	rc = cgreport__new(&cr, m, &o.cg, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s: %s\n", o.input, why);
		report__free(m);
		opts__free(&report_cmd, &o);
		return 1;
	}
	rc = write_report(m, cr, &o, why, sizeof(why));
	cgreport__free(cr);
	report__free(m);
	opts__free(&report_cmd, &o);
	if (rc < 0 && o.format == FMT_HTML) {
		fprintf(stderr, "profil report: %s\n", why);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "profil report: cannot write the report: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
