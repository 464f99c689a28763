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
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

/* The filters' lists, as parsed (the report points into them). */
struct lists {
	int *pids, *tids;
	char **comms, **dsos, **cgroups;
	char *comm_buf, *dso_buf, *cgroup_buf; /* the strings of comms, dsos and cgroups */
};

struct opts {
	const char *input;
	const char *output; /* --format html: the page's file, "-" for stdout */
	enum fmt format;
	int images;  /* text: each image's rows after the whole run */
	int run_csv; /* csv: the whole run's table (--sort with a key) */
	struct report_opts ro;
	struct cgreport_opts cg; /* --children, --call-graph, --callers, --callees */
	struct lists l;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil report [-i FILE] [--format text|json|csv] [--sort KEYS]\n"
		"                     [--pid LIST] [--tid LIST] [--comm LIST] [--dso LIST]\n"
		"                     [--cgroup LIST]\n"
		"                     [--percent-limit P] [--top N] [--images] [--threads] "
		"[--lines]\n"
		"                     [--children] [-g|--call-graph caller|callee[,PERCENT]]\n"
		"                     [--callers FUNC] [--callees FUNC]\n"
		"       profil report --format html -o OUT [-i FILE] [--lines]\n"
		"  -i, --input FILE    profile to read (default profil.data)\n"
		"  --format FMT        text (default), json (doc/report-json.md), csv, or html:\n"
		"                      one self-contained page (flame graph, sortable table)\n"
		"  -o, --output OUT    html: the file to write (replaced atomically; never\n"
		"                      through a symbolic link, over another user's file, a\n"
		"                      profile or a program), - for stdout\n"
		"  --sort KEYS         the whole run's columns and grouping, comma-separated, as\n"
		"                      perf report's: comm, dso, sym, pid, tid, cgroup (default "
		"comm,dso,sym);\n"
		"                      with self (most time first, the default) or name (by name)\n"
		"  --pid, --tid LIST   only these processes, threads (comma-separated ids)\n"
		"  --comm LIST         only these commands (thread names)\n"
		"  --dso LIST          only these objects (full path or base name, [kernel], ...)\n"
		"  --cgroup LIST       only these cgroups (record -a): a path (and those below\n"
		"                      it), a container (docker:ID, podman:ID, ...; a prefix of\n"
		"                      the id) or a container id's first digits\n"
		"  --percent-limit P   leave out rows below P %% of the run (of the image, per "
		"image)\n"
		"  --top N             at most N rows per table (0: all, the default)\n"
		"  --images            text: each process image's own rows after the whole run\n"
		"  --threads           each image split by thread (text: implies --images)\n"
		"  --lines             split by source line (file:line from DWARF)\n"
		"call stacks (profiles recorded with -g; a flat profile has its leaves only):\n"
		"  --children          total (inclusive: the row and its callees) beside self,\n"
		"                      every row on a stack, most total first, as perf's\n"
		"  -g, --call-graph ORDER[,PERCENT]\n"
		"                      after each table, the tree of its stacks: caller "
		"(top-down,\n"
		"                      from the outermost callers) or callee (bottom-up, from\n"
		"                      where the samples hit); nodes of at least PERCENT of the\n"
		"                      run's (the image's) samples (default: --percent-limit,\n"
		"                      else 0.5)\n"
		"  --callers FUNC      the tree of FUNC's callers instead of the table\n"
		"  --callees FUNC      the tree of FUNC's callees instead of the table\n"
		"  (text and json; csv with --children)\n"
		"The text report starts with the whole run merged; %%time is a share of the whole\n"
		"run (per image: of the image).  [kernel] rows marked \"accounted\" are each\n"
		"thread's system time as the kernel accounted it, where the kernel could not be\n"
		"sampled; [unsampled] rows are CPU time of a process image that no sample covers\n"
		"(short processes).  CSV: per image as before; with --sort KEYS, the whole run.\n");
}

/* ---- option values ---------------------------------------------------------------- */

static int bad_value(const char *opt, const char *what, const char *arg)
{
	fprintf(stderr, "profil report: %s needs %s, not '%s'\n", opt, what, arg);
	return OPTS_EXIT_USAGE;
}

/* Split a comma-separated list in place (buf is a copy of arg); no empty items. */
static int split(const char *opt, const char *arg, char **buf, char ***items, size_t *n)
{
	char *save = NULL, *tok;

	free(*buf);
	free(*items);
	*items = NULL;
	*n = 0;
	*buf = strdup(arg);
	*items = calloc(strlen(arg) / 2 + 2, sizeof(**items));
	if (!*buf || !*items) {
		fprintf(stderr, "profil report: out of memory\n");
		return 1;
	}
	for (tok = strtok_r(*buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		(*items)[(*n)++] = tok;
	return *n ? 0 : bad_value(opt, "a comma-separated list", arg);
}

static int parse_ids(const char *opt, const char *what, const char *arg, int **ids, size_t *n)
{
	char *buf = NULL, **items = NULL;
	int rc = split(opt, arg, &buf, &items, n);

	free(*ids);
	*ids = rc ? NULL : calloc(*n, sizeof(**ids));
	if (!rc && !*ids)
		rc = 1;
	for (size_t i = 0; !rc && i < *n; i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(items[i], &end, 10);
		if (errno || end == items[i] || *end || v < 0 || v > INT32_MAX)
			rc = bad_value(opt, what, arg);
		else
			(*ids)[i] = (int)v;
	}
	free(buf);
	free(items);
	return rc;
}

static int parse_sort(const char *arg, struct opts *o)
{
	char *buf = NULL, **items = NULL;
	size_t n = 0;
	int rc = split("--sort", arg, &buf, &items, &n);

	o->ro.nkeys = 0;
	o->ro.sort_name = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		int key = report__key_parse(items[i]);

		if (!strcmp(items[i], "self") || !strcmp(items[i], "name")) {
			o->ro.sort_name = !strcmp(items[i], "name");
		} else if (!key) {
			fprintf(stderr,
				"profil report: unknown sort key '%s' (comm, dso, sym, pid, tid, "
				"cgroup, self or name)\n",
				items[i]);
			rc = OPTS_EXIT_USAGE;
		} else if (o->ro.nkeys < REPORT_MAX_KEYS) {
			o->ro.keys[o->ro.nkeys++] = key;
		}
	}
	o->run_csv = o->ro.nkeys > 0;
	free(buf);
	free(items);
	return rc;
}

static int parse_percent(const char *opt, const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*v) || *v < 0 || *v > 100)
		return bad_value(opt, "a percentage from 0 to 100", arg);
	return 0;
}

static int parse_format(const char *arg, enum fmt *f)
{
	static const char *const names[] = {"text", "json", "csv", "html"};

	for (int i = 0; i < 4; i++)
		if (!strcmp(arg, names[i])) {
			*f = (enum fmt)i;
			return 0;
		}
	fprintf(stderr, "profil report: unknown format '%s' (text, json, csv or html)\n", arg);
	return OPTS_EXIT_USAGE;
}

static void free_lists(struct lists *l)
{
	free(l->pids);
	free(l->tids);
	free(l->comms);
	free(l->dsos);
	free(l->comm_buf);
	free(l->dso_buf);
	free(l->cgroups);
	free(l->cgroup_buf);
}

/* ---- command --------------------------------------------------------------------- */

static int parse_opt(int c, struct opts *o)
{
	struct report_filter *f = &o->ro.filter;
	char *end, why[256];
	int rc;

	switch (c) {
	case 'i':
		o->input = optarg;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case 'f':
		return parse_format(optarg, &o->format);
	case 's':
		return parse_sort(optarg, o);
	case 't':
		o->ro.threads = 1;
		return 0;
	case 'l':
		o->ro.lines = 1;
		return 0;
	case 'I':
		o->images = 1;
		return 0;
	case 'n':
		errno = 0;
		o->ro.top = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || o->ro.top < 0)
			return bad_value("--top", "a whole number, 0 (all) or more", optarg);
		return 0;
	case 'P':
		return parse_percent("--percent-limit", optarg, &o->ro.percent_limit);
	case 'p':
		rc = parse_ids("--pid", "process ids separated by commas", optarg, &o->l.pids,
			       &f->npids);
		f->pids = o->l.pids;
		return rc;
	case 'T':
		rc = parse_ids("--tid", "thread ids separated by commas", optarg, &o->l.tids,
			       &f->ntids);
		f->tids = o->l.tids;
		return rc;
	case 'c':
		rc = split("--comm", optarg, &o->l.comm_buf, &o->l.comms, &f->ncomms);
		f->comms = (const char *const *)o->l.comms;
		return rc;
	case 'd':
		rc = split("--dso", optarg, &o->l.dso_buf, &o->l.dsos, &f->ndsos);
		f->dsos = (const char *const *)o->l.dsos;
		return rc;
	case 'G':
		rc = split("--cgroup", optarg, &o->l.cgroup_buf, &o->l.cgroups, &f->ncgroups);
		f->cgroups = (const char *const *)o->l.cgroups;
		return rc;
	case 'C':
		o->cg.children = 1;
		o->ro.children = 1;
		return 0;
	case 'g':
		if (cgreport__parse_call_graph(optarg, &o->cg, why, sizeof(why)) < 0) {
			fprintf(stderr, "profil report: %s\n", why);
			return OPTS_EXIT_USAGE;
		}
		return 0;
	case 'R':
		o->cg.callers = optarg;
		return 0;
	case 'E':
		o->cg.callees = optarg;
		return 0;
	case 'h':
		usage(stdout);
		return -1;
	default: /* opts__next said what is wrong */
		return OPTS_EXIT_USAGE;
	}
}

static int check_opts(int argc, char **argv, const struct opts *o)
{
	if (optind < argc) {
		fprintf(stderr,
			"profil report: unexpected argument '%s' (the profile is given with -i)\n",
			argv[optind]);
		return OPTS_EXIT_USAGE;
	}
	if (o->format == FMT_HTML && !o->output) {
		fprintf(stderr,
			"profil report: --format html needs -o FILE (or -o - for stdout)\n");
		return OPTS_EXIT_USAGE;
	}
	if (o->format != FMT_HTML && o->output) {
		fprintf(stderr, "profil report: -o is for --format html; text, json and csv go to "
				"stdout\n");
		return OPTS_EXIT_USAGE;
	}
	if ((o->format == FMT_HTML && cgreport__wanted(&o->cg)) ||
	    (o->format == FMT_CSV && (o->cg.call_graph || o->cg.callers || o->cg.callees))) {
		fprintf(stderr,
			"profil report: --children, --call-graph, --callers and --callees are "
			"for text and json (csv: --children); the html page shows totals and "
			"stacks itself\n");
		return OPTS_EXIT_USAGE;
	}
	if (o->format == FMT_CSV && o->run_csv && o->ro.threads) {
		fprintf(stderr, "profil report: csv: --threads splits the per-image table, --sort "
				"KEYS makes the whole run's table (add the tid key to split it)\n");
		return OPTS_EXIT_USAGE;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"sort", required_argument, NULL, 's'},
		{"threads", no_argument, NULL, 't'},
		{"lines", no_argument, NULL, 'l'},
		{"images", no_argument, NULL, 'I'},
		{"top", required_argument, NULL, 'n'},
		{"percent-limit", required_argument, NULL, 'P'},
		{"pid", required_argument, NULL, 'p'},
		{"tid", required_argument, NULL, 'T'},
		{"comm", required_argument, NULL, 'c'},
		{"dso", required_argument, NULL, 'd'},
		{"cgroup", required_argument, NULL, 'G'},
		{"children", no_argument, NULL, 'C'},
		{"call-graph", required_argument, NULL, 'g'},
		{"callers", required_argument, NULL, 'R'},
		{"callees", required_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int c, rc = 0;

	o->input = "profil.data";
	o->cg.threshold = CGREPORT_DEFAULT_THRESHOLD; /* of every tree; --call-graph may set it */
	while (!rc && (c = opts__next("report", argc, argv, "i:o:g:h", longopts)) != -1)
		rc = parse_opt(c, o);
	return rc ? rc : check_opts(argc, argv, o);
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

	if (rc) {
		free_lists(&o.l);
		return rc < 0 ? 0 : rc;
	}
	rc = report__load(&m, o.input, &o.ro, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s\n", why);
		free_lists(&o.l);
		return 1;
	}
	rc = cgreport__new(&cr, m, &o.cg, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s: %s\n", o.input, why);
		report__free(m);
		free_lists(&o.l);
		return 1;
	}
	rc = write_report(m, cr, &o, why, sizeof(why));
	cgreport__free(cr);
	report__free(m);
	free_lists(&o.l);
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
