// SPDX-License-Identifier: MIT
/*
 * profil report: the flat profile of a recorded profile, per process image
 * (and per thread with --threads), as text, JSON (doc/report-json.md),
 * CSV or an HTML page (profile/html.h).  The model (rows, threads, notes) comes from profile/report.h; this
 * file holds the options and the printers.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "profile/profile.h"
#include "utils/opts.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

struct opts {
	const char *input;
	const char *output; /* --format html: the page's file, "-" for stdout */
	enum fmt format;
	int sort_name;
	int threads;
	int lines;
	long top;		 /* 0 = all */
	struct cgreport_opts cg; /* --children, --call-graph, --callers, --callees */
};

/* What the printers work from: the options and the model. */
struct out {
	struct opts o;
	struct report *m;
	struct cgreport *cr; /* the call-stack parts (profile/cgreport.h) */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil report [-i FILE] [--format text|json|csv] [--sort self|name]\n"
		"                     [--threads] [--lines] [--top N] [--children]\n"
		"                     [-g|--call-graph caller|callee[,PERCENT]]\n"
		"                     [--callers FUNC] [--callees FUNC]\n"
		"       profil report --format html -o OUT [-i FILE] [--lines]\n"
		"  -i, --input FILE  profile to read (default profil.data)\n"
		"  --format FMT      text (default), json (doc/report-json.md), csv, or html:\n"
		"                    one self-contained page (flame graph, sortable table)\n"
		"  -o, --output OUT  html: the file to write (replaced atomically; never through\n"
		"                    a symbolic link, over another user's file, a profile or\n"
		"                    a program), - for stdout\n"
		"  --sort KEY        self: most samples first (default); name: by function name\n"
		"  --threads         split each process by thread\n"
		"  --lines           split by source line (file:line from DWARF)\n"
		"  --top N           at most N functions per process (or thread)\n"
		"call stacks (profiles recorded with -g; a flat profile has its leaves only):\n"
		"  --children        total (inclusive: the function and its callees) beside\n"
		"                    self, every function on a stack, most total first\n"
		"  -g, --call-graph ORDER[,PERCENT]\n"
		"                    after each table, the tree of the stacks: caller (top-down,\n"
		"                    from the outermost callers) or callee (bottom-up, from where\n"
		"                    the samples hit); nodes of at least PERCENT of the process's\n"
		"                    samples (default 0.5)\n"
		"  --callers FUNC    the tree of FUNC's callers instead of the table\n"
		"  --callees FUNC    the tree of FUNC's callees instead of the table\n"
		"  (text and json; csv with --children)\n");
}

/* ---- shared formatting helpers -------------------------------------------- */

static const char *end_kind_name(int kind)
{
	switch (kind) {
	case PDATA_END_EXITED:
		return "exited";
	case PDATA_END_SIGNALED:
		return "signaled";
	case PDATA_END_EXEC:
		return "exec";
	case PDATA_END_DETACHED:
		return "detached";
	default:
		return "unknown";
	}
}

static void describe_end(char *buf, size_t len, int kind, int code)
{
	const char *sig;

	switch (kind) {
	case PDATA_END_EXITED:
		snprintf(buf, len, "exited with code %d", code);
		break;
	case PDATA_END_SIGNALED:
		sig = code > 0 && code < 65 ? sigabbrev_np(code) : NULL;
		if (sig)
			snprintf(buf, len, "killed by signal %d (SIG%s)", code, sig);
		else
			snprintf(buf, len, "killed by signal %d", code);
		break;
	case PDATA_END_EXEC:
		snprintf(buf, len, "replaced by exec");
		break;
	case PDATA_END_DETACHED:
		snprintf(buf, len, "still running when the profiler detached");
		break;
	default:
		snprintf(buf, len, "end not seen");
	}
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

static size_t shown(const struct out *rep, size_t n)
{
	return rep->o.top > 0 && (size_t)rep->o.top < n ? (size_t)rep->o.top : n;
}

static size_t procs_with_samples(const struct out *rep)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->m->v->nprocs; i++)
		n += rep->m->v->procs[i].samples > 0;
	return n;
}

/* ---- text ------------------------------------------------------------------ */

static void text_rows(const struct out *rep, const struct report_row *rows, size_t n, uint64_t of)
{
	int w = 8;

	n = shown(rep, n);
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(rows[i].f->name);

		if (l > w)
			w = l > 60 ? 60 : l;
	}
	printf("   %%time   seconds    samples  %-*s  object%s\n", w, "function",
	       rep->o.lines ? "  source" : "");
	for (size_t i = 0; i < n; i++) {
		const struct func *f = rows[i].f;

		printf("  %6.2f %9.3f %10llu  %-*s  %s", pct(rows[i].count, of),
		       (double)rows[i].count * rep->m->period_s, (unsigned long long)rows[i].count,
		       w, f->name, f->object);
		if (rep->o.lines) {
			if (f->file)
				printf("  %s:%d", f->file, f->line);
			else
				printf("  ??");
		}
		putchar('\n');
	}
}

static void text_header(const struct out *rep)
{
	const struct pdata_header *h = &rep->m->v->hdr;
	char end[96];

	printf("# profile: %s\n", rep->o.input);
	printf("# command: %s\n", h->command[0] ? h->command : "(unknown)");
	printf("# clock: %s%s%s%s, nominal %u Hz, ", pdata__clock_name(h->clock),
	       h->clock_note[0] ? " (" : "", h->clock_note, h->clock_note[0] ? ")" : "",
	       h->nominal_hz);
	if (h->period_ns)
		printf("effective %.1f Hz (%.3f ms of CPU time per sample)\n",
		       pview__rate_hz(rep->m->v), (double)h->period_ns / 1e6);
	else if (h->nominal_hz)
		printf("effective rate unknown (seconds use the nominal rate)\n");
	else
		printf("effective rate unknown (seconds are unknown)\n");
	printf("# samples: %llu, lost %llu, dropped %llu\n", (unsigned long long)h->samples,
	       (unsigned long long)h->lost, (unsigned long long)h->dropped);
	describe_end(end, sizeof(end), h->end_kind, h->end_code);
	if (h->state != PDATA_COMPLETE)
		printf("# ended: profile incomplete: the recorder did not finish (program: %s)\n",
		       end);
	else
		printf("# ended: %s\n", end);
	printf("# total: %llu samples, %.3f s of CPU time, %zu process image(s) with samples",
	       (unsigned long long)rep->m->v->total, (double)rep->m->v->total * rep->m->period_s,
	       procs_with_samples(rep));
	if (h->cpu_ns)
		printf(" (CPU time measured by the recorder: %.3f s)", (double)h->cpu_ns / 1e9);
	putchar('\n');
	for (size_t i = 0; i < rep->m->nnotes; i++)
		printf("# note: %s\n", rep->m->notes[i]);
	cgreport__text_header(rep->cr, stdout);
	printf("# %%time is the share of each process's own samples\n");
}

static void print_text(const struct out *rep)
{
	size_t quiet = 0;

	text_header(rep);
	for (size_t i = 0; i < rep->m->v->nprocs; i++) {
		const struct report_proc *op = &rep->m->procs[i];
		const struct pv_proc *p = op->p;
		const struct pv_proc *parent = p->parent ? pview__proc(rep->m->v, p->parent) : NULL;
		char end[96];

		if (!p->samples) {
			quiet++;
			continue;
		}
		describe_end(end, sizeof(end), p->end_kind, p->end_code);
		printf("\nprocess %d", p->pid);
		if (parent && parent->pid == p->pid)
			printf(" (after exec from %s)", parent->exe[0] ? parent->exe : "?");
		else if (parent)
			printf(" (parent %d)", parent->pid);
		printf(": %s: %s: %llu samples, %.3f s\n",
		       p->exe[0] ? p->exe : "(unknown executable)", end,
		       (unsigned long long)p->samples, (double)p->samples * rep->m->period_s);
		if (!rep->o.threads) {
			if (!cgreport__text_table(rep->cr, i, CGREPORT_PROCESS, stdout))
				text_rows(rep, op->rows, op->nrows, p->samples);
			cgreport__text_trees(rep->cr, i, CGREPORT_PROCESS, stdout);
			continue;
		}
		for (size_t t = 0; t < op->nthreads; t++) {
			const struct report_thread *th = &op->threads[t];

			printf("\n thread %d (%s): %llu samples, %.3f s\n", th->tid,
			       th->comm[0] ? th->comm : "?", (unsigned long long)th->samples,
			       (double)th->samples * rep->m->period_s);
			if (!cgreport__text_table(rep->cr, i, t, stdout))
				text_rows(rep, th->rows, th->nrows, p->samples);
			cgreport__text_trees(rep->cr, i, t, stdout);
		}
	}
	if (quiet)
		printf("\n%zu process image(s) without samples (see --format json)\n", quiet);
}

/* ---- json ------------------------------------------------------------------ */

/* A double printed with 9 significant digits, not 17 (0.835, not 0.83499999999999996). */
static struct json_object *jdouble(double d)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.9g", d);
	if (!strpbrk(buf, ".en")) /* keep it a JSON number with a fraction: 1000.0 */
		strcat(buf, ".0");
	return json_object_new_double_s(d, buf);
}

static int jadd(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, k, v) ? -ENOMEM : 0;
}

static struct json_object *json_rows(const struct out *rep, const struct report_row *rows, size_t n,
				     uint64_t of)
{
	struct json_object *arr = json_object_new_array();
	int rc = 0;

	n = shown(rep, n);
	for (size_t i = 0; arr && !rc && i < n; i++) {
		struct json_object *f = json_object_new_object();
		const struct func *fn = rows[i].f;

		if (!f)
			break;
		rc |= jadd(f, "name", json_object_new_string(fn->name));
		rc |= jadd(f, "object", json_object_new_string(fn->objpath));
		rc |= jadd(f, "samples", json_object_new_int64((int64_t)rows[i].count));
		rc |= jadd(f, "percent", jdouble(pct(rows[i].count, of)));
		rc |= jadd(f, "self_seconds", jdouble((double)rows[i].count * rep->m->period_s));
		if (rep->o.lines) {
			if (fn->file)
				rc |= jadd(f, "file", json_object_new_string(fn->file));
			else
				json_object_object_add(f, "file", NULL); /* JSON null */
			rc |= jadd(f, "line", json_object_new_int(fn->line));
		}
		json_object_array_add(arr, f);
	}
	return arr;
}

static struct json_object *exit_json(int kind, int code)
{
	struct json_object *e = json_object_new_object();

	if (!e)
		return NULL;
	json_object_object_add(e, "kind", json_object_new_string(end_kind_name(kind)));
	json_object_object_add(e, "code", json_object_new_int(code));
	return e;
}

static struct json_object *json_proc(const struct out *rep, const struct report_proc *op,
				     size_t index)
{
	const struct pv_proc *p = op->p;
	const struct pv_proc *parent = p->parent ? pview__proc(rep->m->v, p->parent) : NULL;
	struct json_object *o = json_object_new_object(), *threads;
	int rc = 0;

	if (!o)
		return NULL;
	rc |= jadd(o, "pid", json_object_new_int(p->pid));
	rc |= jadd(o, "parent_pid", json_object_new_int(parent ? parent->pid : p->ppid));
	rc |= jadd(o, "exe", json_object_new_string(p->exe));
	rc |= jadd(o, "exit", exit_json(p->end_kind, p->end_code));
	rc |= jadd(o, "samples", json_object_new_int64((int64_t)p->samples));
	rc |= jadd(o, "self_seconds", jdouble((double)p->samples * rep->m->period_s));
	rc |= jadd(o, "cpu_seconds", jdouble((double)p->cpu.cpu_ns / 1e9));
	rc |= jadd(o, "functions", json_rows(rep, op->rows, op->nrows, p->samples));
	threads = json_object_new_array();
	for (size_t t = 0; threads && t < op->nthreads; t++) {
		const struct report_thread *th = &op->threads[t];
		struct json_object *to = json_object_new_object();

		if (!to)
			break;
		rc |= jadd(to, "tid", json_object_new_int(th->tid));
		rc |= jadd(to, "comm", json_object_new_string(th->comm));
		rc |= jadd(to, "samples", json_object_new_int64((int64_t)th->samples));
		if (rep->o.threads)
			rc |= jadd(to, "functions",
				   json_rows(rep, th->rows, th->nrows, p->samples));
		json_object_array_add(threads, to);
	}
	rc |= jadd(o, "threads", threads);
	if (!rc)
		rc = cgreport__json_proc(rep->cr, index, o);
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int print_json(const struct out *rep)
{
	const struct pdata_header *h = &rep->m->v->hdr;
	struct json_object *top = json_object_new_object(), *procs, *notes;
	int rc = 0;

	if (!top)
		return -ENOMEM;
	rc |= jadd(top, "command", json_object_new_string(h->command));
	rc |= jadd(top, "clock", json_object_new_string(pdata__clock_name(h->clock)));
	rc |= jadd(top, "clock_note", json_object_new_string(h->clock_note));
	rc |= jadd(top, "rate_hz", jdouble(pview__rate_hz(rep->m->v)));
	rc |= jadd(top, "nominal_hz", json_object_new_int64(h->nominal_hz));
	rc |= jadd(top, "period_ns", json_object_new_int64((int64_t)h->period_ns));
	rc |= jadd(top, "samples", json_object_new_int64((int64_t)h->samples));
	rc |= jadd(top, "lost", json_object_new_int64((int64_t)h->lost));
	rc |= jadd(top, "dropped", json_object_new_int64((int64_t)h->dropped));
	rc |= jadd(top, "complete", json_object_new_boolean(h->state == PDATA_COMPLETE));
	rc |= jadd(top, "exit", exit_json(h->end_kind, h->end_code));
	rc |= jadd(top, "total_samples", json_object_new_int64((int64_t)rep->m->v->total));
	rc |= jadd(top, "total_seconds", jdouble((double)rep->m->v->total * rep->m->period_s));
	rc |= jadd(top, "cpu_seconds", jdouble((double)h->cpu_ns / 1e9));
	rc |= jadd(top, "percent_of", json_object_new_string("process"));
	if (!rc)
		rc = cgreport__json_top(rep->cr, top);
	notes = json_object_new_array();
	for (size_t i = 0; notes && i < rep->m->nnotes; i++)
		json_object_array_add(notes, json_object_new_string(rep->m->notes[i]));
	rc |= jadd(top, "notes", notes);
	procs = json_object_new_array();
	for (size_t i = 0; procs && !rc && i < rep->m->v->nprocs; i++) {
		struct json_object *po = json_proc(rep, &rep->m->procs[i], i);

		if (!po)
			rc = -ENOMEM;
		else
			json_object_array_add(procs, po);
	}
	rc |= jadd(top, "processes", procs);
	if (!rc)
		printf("%s\n",
		       json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	return rc ? -ENOMEM : 0;
}

/* ---- csv ------------------------------------------------------------------- */

static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void csv_rows(const struct out *rep, const struct pv_proc *p, const struct report_thread *th,
		     const struct report_row *rows, size_t n)
{
	n = shown(rep, n);
	for (size_t i = 0; i < n; i++) {
		const struct func *f = rows[i].f;

		printf("%d,", p->pid);
		csv_str(p->exe);
		if (th) {
			printf(",%d,", th->tid);
			csv_str(th->comm);
		}
		putchar(',');
		csv_str(f->name);
		putchar(',');
		csv_str(f->objpath);
		if (rep->o.lines) {
			putchar(',');
			csv_str(f->file ? f->file : "");
			printf(",%d", f->line);
		}
		printf(",%llu,%.4f,%.6f\n", (unsigned long long)rows[i].count,
		       pct(rows[i].count, p->samples), (double)rows[i].count * rep->m->period_s);
	}
}

static void print_csv(const struct out *rep)
{
	if (cgreport__csv_wanted(rep->cr)) {
		cgreport__csv(rep->cr, stdout);
		return;
	}
	printf("pid,exe,%sfunction,object,%ssamples,percent,self_seconds\n",
	       rep->o.threads ? "tid,comm," : "", rep->o.lines ? "file,line," : "");
	for (size_t i = 0; i < rep->m->v->nprocs; i++) {
		const struct report_proc *op = &rep->m->procs[i];

		if (!rep->o.threads) {
			csv_rows(rep, op->p, NULL, op->rows, op->nrows);
			continue;
		}
		for (size_t t = 0; t < op->nthreads; t++)
			csv_rows(rep, op->p, &op->threads[t], op->threads[t].rows,
				 op->threads[t].nrows);
	}
}

/* ---- command --------------------------------------------------------------- */

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"sort", required_argument, NULL, 's'},
		{"threads", no_argument, NULL, 't'},
		{"lines", no_argument, NULL, 'l'},
		{"top", required_argument, NULL, 'n'},
		{"children", no_argument, NULL, 'C'},
		{"call-graph", required_argument, NULL, 'g'},
		{"callers", required_argument, NULL, 'R'},
		{"callees", required_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end, why[256];
	int c;

	o->input = "profil.data";
	o->cg.threshold = CGREPORT_DEFAULT_THRESHOLD; /* of every tree; --call-graph may set it */
	while ((c = opts__next("report", argc, argv, "i:o:g:h", longopts)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = FMT_JSON;
			else if (!strcmp(optarg, "csv"))
				o->format = FMT_CSV;
			else if (!strcmp(optarg, "html"))
				o->format = FMT_HTML;
			else {
				fprintf(stderr,
					"profil report: unknown format '%s' (text, json, csv or "
					"html)\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (strcmp(optarg, "self") && strcmp(optarg, "name")) {
				fprintf(stderr,
					"profil report: unknown sort key '%s' (self or name)\n",
					optarg);
				return 2;
			}
			o->sort_name = !strcmp(optarg, "name");
			break;
		case 't':
			o->threads = 1;
			break;
		case 'l':
			o->lines = 1;
			break;
		case 'n':
			errno = 0;
			o->top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->top < 1) {
				fprintf(stderr,
					"profil report: --top needs a positive number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'C':
			o->cg.children = 1;
			break;
		case 'g':
			if (cgreport__parse_call_graph(optarg, &o->cg, why, sizeof(why)) < 0) {
				fprintf(stderr, "profil report: %s\n", why);
				return 2;
			}
			break;
		case 'R':
			o->cg.callers = optarg;
			break;
		case 'E':
			o->cg.callees = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"profil report: unexpected argument '%s' (the profile is given with -i)\n",
			argv[optind]);
		return 2;
	}
	if (o->format == FMT_HTML && !o->output) {
		fprintf(stderr,
			"profil report: --format html needs -o FILE (or -o - for stdout)\n");
		return 2;
	}
	if ((o->format == FMT_HTML && cgreport__wanted(&o->cg)) ||
	    (o->format == FMT_CSV && (o->cg.call_graph || o->cg.callers || o->cg.callees))) {
		fprintf(stderr,
			"profil report: --children, --call-graph, --callers and --callees are "
			"for text and json (csv: --children); the html page shows totals and "
			"stacks itself\n");
		return 2;
	}
	o->cg.top = o->top;
	o->cg.json = o->format == FMT_JSON;
	if (o->format != FMT_HTML && o->output) {
		fprintf(stderr, "profil report: -o is for --format html; text, json and csv go to "
				"stdout\n");
		return 2;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct out rep = {0};
	struct report_opts ro;
	char why[512];
	int rc;

	rc = parse_opts(argc, argv, &rep.o);
	if (rc)
		return rc < 0 ? 0 : rc;
	ro = (struct report_opts){rep.o.threads, rep.o.lines, rep.o.sort_name};
	rc = report__load(&rep.m, rep.o.input, &ro, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s\n", why);
		return 1;
	}
	if (rep.o.format == FMT_HTML) {
		rc = html__write_report(rep.m, rep.o.output, why, sizeof(why));
		report__free(rep.m);
		if (rc < 0)
			fprintf(stderr, "profil report: %s\n", why);
		return rc < 0;
	}
	rc = cgreport__new(&rep.cr, rep.m, &rep.o.cg, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s: %s\n", rep.o.input, why);
		report__free(rep.m);
		return 1;
	}
	if (rep.o.format == FMT_JSON)
		rc = print_json(&rep);
	else if (rep.o.format == FMT_CSV)
		print_csv(&rep);
	else
		print_text(&rep);
	cgreport__free(rep.cr);
	report__free(rep.m);
	if (rc < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "profil report: cannot write the report: %s\n",
			rc < 0 ? "out of memory" : strerror(errno));
		return 1;
	}
	return 0;
}
