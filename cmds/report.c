// SPDX-License-Identifier: MIT
/*
 * profil report: the flat profile of a recorded profile, per process image
 * (and per thread with --threads), as text, JSON (doc/report-json.md),
 * CSV or an HTML page (profile/html.h).  Samples are aggregated with hash
 * tables and every unique (object, address) is symbolised once, so big
 * profiles print in seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "gmon.h"
#include "html.h"
#include "pview.h"
#include "resolve.h"
#include "why.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

struct opts {
	const char *input;
	const char *output; /* --format html: the page's file, "-" for stdout */
	enum fmt format;
	int sort_name;
	int threads;
	int lines;
	long top; /* 0 = all */
};

struct row {
	const struct func *f;
	uint64_t count;
};

/* Pointer-keyed counting table of rows. */
struct rowtab {
	struct row *slots;
	size_t mask, n;
};

struct out_thread {
	int tid;
	const char *comm;
	uint64_t samples;
	struct row *rows;
	size_t nrows;
};

struct out_proc {
	const struct pv_proc *p;
	struct row *rows;
	size_t nrows;
	struct out_thread *threads;
	size_t nthreads;
};

struct report {
	struct opts o;
	struct pview *v;
	struct resolver *r;
	struct html_report *html; /* --format html */
	struct out_proc *procs;	  /* one per pview proc, same order */
	double period_s;	  /* seconds per sample */
	char **notes;
	size_t nnotes;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil report [-i FILE] [--format text|json|csv] [--sort self|name]\n"
		"                     [--threads] [--lines] [--top N]\n"
		"       profil report --format html -o OUT [-i FILE] [--lines]\n"
		"  -i, --input FILE  profile to read (default profil.data)\n"
		"  --format FMT      text (default), json (doc/report-json.md), csv, or html:\n"
		"                    one self-contained page (flame graph, sortable table)\n"
		"  -o, --output OUT  html: the file to write (replaced atomically), - for stdout\n"
		"  --sort KEY        self: most samples first (default); name: by function name\n"
		"  --threads         split each process by thread\n"
		"  --lines           split by source line (file:line from DWARF)\n"
		"  --top N           at most N functions per process (or thread)\n");
}

/* ---- aggregation ---------------------------------------------------------- */

static int rowtab_init(struct rowtab *t)
{
	t->mask = 63;
	t->n = 0;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	return t->slots ? 0 : -ENOMEM;
}

static size_t ptr_hash(const void *p)
{
	uint64_t h = (uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 32));
}

static int rowtab_add(struct rowtab *t, const struct func *f, uint64_t count)
{
	size_t k;

	if ((t->n + 1) * 2 > t->mask) {
		size_t nmask = t->mask * 2 + 1;
		struct row *n = calloc(nmask + 1, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i <= t->mask; i++) {
			if (!t->slots[i].f)
				continue;
			for (k = ptr_hash(t->slots[i].f) & nmask; n[k].f; k = (k + 1) & nmask)
				;
			n[k] = t->slots[i];
		}
		free(t->slots);
		t->slots = n;
		t->mask = nmask;
	}
	for (k = ptr_hash(f) & t->mask; t->slots[k].f; k = (k + 1) & t->mask)
		if (t->slots[k].f == f)
			break;
	if (!t->slots[k].f) {
		t->slots[k].f = f;
		t->n++;
	}
	t->slots[k].count += count;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_name(const struct row *x, const struct row *y)
{
	int c = cmp_str(x->f->name, y->f->name);

	if (!c)
		c = cmp_str(x->f->objpath, y->f->objpath);
	if (!c)
		c = cmp_str(x->f->file, y->f->file);
	if (!c)
		c = x->f->line - y->f->line;
	return c;
}

static int cmp_row_self(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_name(x, y);
}

static int cmp_row_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = cmp_name(x, y);

	if (c)
		return c;
	return x->count > y->count ? -1 : x->count < y->count;
}

/* Compact, sort and hand over the rows of t (t is consumed). */
static void rowtab_finish(struct rowtab *t, int sort_name, struct row **rows, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i <= t->mask; i++)
		if (t->slots[i].f)
			t->slots[k++] = t->slots[i];
	if (k > 1)
		qsort(t->slots, k, sizeof(*t->slots), sort_name ? cmp_row_name : cmp_row_self);
	*rows = t->slots;
	*n = k;
	t->slots = NULL;
}

static int add_thread(struct report *rep, struct out_proc *op, struct rowtab *tt, int tid,
		      uint64_t samples)
{
	const struct pv_thread *th = pv_proc__thread(op->p, tid);
	struct out_thread *n = realloc(op->threads, (op->nthreads + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	op->threads = n;
	n = &op->threads[op->nthreads++];
	n->tid = tid;
	n->comm = th ? th->comm : "";
	n->samples = samples;
	n->rows = NULL;
	n->nrows = 0;
	if (rep->o.threads)
		rowtab_finish(tt, rep->o.sort_name, &n->rows, &n->nrows);
	return 0;
}

/* Samples are sorted by (proc, tid, pc): one pass builds process and thread tables. */
static int aggregate_proc(struct report *rep, struct out_proc *op, size_t *at)
{
	struct pview *v = rep->v;
	struct rowtab pt = {0}, tt = {0};
	int rc = rowtab_init(&pt);

	while (!rc && *at < v->nsamples && v->samples[*at].proc == op->p->id) {
		int tid = v->samples[*at].tid;
		uint64_t tsamples = 0;

		rc = rep->o.threads ? rowtab_init(&tt) : 0;
		for (; !rc && *at < v->nsamples && v->samples[*at].proc == op->p->id &&
		       v->samples[*at].tid == tid;
		     (*at)++) {
			const struct pv_sample *s = &v->samples[*at];
			const struct func *f = resolver__pc(rep->r, op->p, s->pc, s->count);

			if (!f) {
				rc = -ENOMEM;
				break;
			}
			tsamples += s->count;
			rc = rowtab_add(&pt, f, s->count);
			if (!rc && rep->o.threads)
				rc = rowtab_add(&tt, f, s->count);
		}
		if (!rc)
			rc = add_thread(rep, op, &tt, tid, tsamples);
		free(tt.slots);
		tt.slots = NULL;
	}
	if (!rc)
		rowtab_finish(&pt, rep->o.sort_name, &op->rows, &op->nrows);
	free(pt.slots);
	return rc;
}

static int aggregate(struct report *rep)
{
	struct pview *v = rep->v;
	size_t at = 0;

	rep->procs = calloc(v->nprocs ? v->nprocs : 1, sizeof(*rep->procs));
	if (!rep->procs)
		return -ENOMEM;
	for (size_t i = 0; i < v->nprocs; i++) {
		int rc;

		rep->procs[i].p = &v->procs[i];
		/* samples of this proc start at 'at' (both sorted by proc id) */
		while (at < v->nsamples && v->samples[at].proc < v->procs[i].id)
			at++;
		rc = aggregate_proc(rep, &rep->procs[i], &at);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- notes about objects -------------------------------------------------- */

static void add_note(struct report *rep, const char *fmt, const char *a, const char *b)
{
	char buf[512];
	char **n;

	snprintf(buf, sizeof(buf), fmt, a, b);
	n = realloc(rep->notes, (rep->nnotes + 1) * sizeof(*n));
	if (!n)
		return;
	rep->notes = n;
	rep->notes[rep->nnotes] = strdup(buf);
	if (rep->notes[rep->nnotes])
		rep->nnotes++;
}

static void collect_notes(struct report *rep)
{
	const struct resolve_note *notes;
	size_t n = resolver__notes(rep->r, &notes);

	if (rep->v->bad_records)
		add_note(rep, "%s malformed record(s) in the profile were ignored%s",
			 rep->v->bad_records == 1 ? "one" : "some", "");
	for (size_t i = 0; i < n; i++) {
		struct sym_object *o = notes[i].obj;
		unsigned fl = symobj__flags(o);
		const char *path = symobj__path(o);

		if (fl & SYMOBJ_PSEUDO)
			continue;
		if (fl & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF)) {
			add_note(rep, "%s: %s; its code is shown as file offsets", path,
				 (fl & SYMOBJ_MISSING) ? "binary is gone or unreadable" :
							 "not a readable ELF file");
			continue;
		}
		if (notes[i].first_start_ns != UINT64_MAX &&
		    (uint64_t)symobj__mtime(o) > notes[i].first_start_ns / 1000000000ull + 1)
			add_note(rep, "%s: %s", path,
				 "modified after it was recorded; names may be wrong");
		else if (notes[i].no_vaddr)
			add_note(rep, "%s: %s", path,
				 "some addresses are outside its segments (binary changed?)");
		/* only where it matters: some samples could not be named */
		if ((fl & SYMOBJ_NOSYMS) && notes[i].unnamed)
			add_note(rep, "%s: %s", path,
				 "no symbols; its code is shown as address ranges");
		else if ((fl & SYMOBJ_DYNSYM) && notes[i].unnamed)
			add_note(rep, "%s: %s", path,
				 "stripped; names from .dynsym, other code as address ranges");
		if (fl & SYMOBJ_STATIC)
			add_note(rep, "%s: %s", path,
				 "statically linked; library code is part of the executable");
		if (rep->o.lines && !(fl & SYMOBJ_HAS_DWARF) && symobj__nsyms(o) &&
		    !(fl & SYMOBJ_DYNSYM))
			add_note(rep, "%s: %s", path, "no DWARF line information");
	}
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

static size_t shown(const struct report *rep, size_t n)
{
	return rep->o.top > 0 && (size_t)rep->o.top < n ? (size_t)rep->o.top : n;
}

static size_t procs_with_samples(const struct report *rep)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->v->nprocs; i++)
		n += rep->v->procs[i].samples > 0;
	return n;
}

/* ---- text ------------------------------------------------------------------ */

static void text_rows(const struct report *rep, const struct row *rows, size_t n, uint64_t of)
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
		       (double)rows[i].count * rep->period_s, (unsigned long long)rows[i].count, w,
		       f->name, f->object);
		if (rep->o.lines) {
			if (f->file)
				printf("  %s:%d", f->file, f->line);
			else
				printf("  ??");
		}
		putchar('\n');
	}
}

static void text_header(const struct report *rep)
{
	const struct pdata_header *h = &rep->v->hdr;
	char end[96];

	printf("# profile: %s\n", rep->o.input);
	printf("# command: %s\n", h->command[0] ? h->command : "(unknown)");
	printf("# clock: %s%s%s%s, nominal %u Hz, ", pdata__clock_name(h->clock),
	       h->clock_note[0] ? " (" : "", h->clock_note, h->clock_note[0] ? ")" : "",
	       h->nominal_hz);
	if (h->period_ns)
		printf("effective %.1f Hz (%.3f ms of CPU time per sample)\n",
		       pview__rate_hz(rep->v), (double)h->period_ns / 1e6);
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
	       (unsigned long long)rep->v->total, (double)rep->v->total * rep->period_s,
	       procs_with_samples(rep));
	if (h->cpu_ns)
		printf(" (CPU time measured by the recorder: %.3f s)", (double)h->cpu_ns / 1e9);
	putchar('\n');
	for (size_t i = 0; i < rep->nnotes; i++)
		printf("# note: %s\n", rep->notes[i]);
	printf("# %%time is the share of each process's own samples\n");
}

static void print_text(const struct report *rep)
{
	size_t quiet = 0;

	text_header(rep);
	for (size_t i = 0; i < rep->v->nprocs; i++) {
		const struct out_proc *op = &rep->procs[i];
		const struct pv_proc *p = op->p;
		const struct pv_proc *parent = p->parent ? pview__proc(rep->v, p->parent) : NULL;
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
		       (unsigned long long)p->samples, (double)p->samples * rep->period_s);
		if (!rep->o.threads) {
			text_rows(rep, op->rows, op->nrows, p->samples);
			continue;
		}
		for (size_t t = 0; t < op->nthreads; t++) {
			const struct out_thread *th = &op->threads[t];

			printf("\n thread %d (%s): %llu samples, %.3f s\n", th->tid,
			       th->comm[0] ? th->comm : "?", (unsigned long long)th->samples,
			       (double)th->samples * rep->period_s);
			text_rows(rep, th->rows, th->nrows, p->samples);
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

static struct json_object *json_rows(const struct report *rep, const struct row *rows, size_t n,
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
		rc |= jadd(f, "self_seconds", jdouble((double)rows[i].count * rep->period_s));
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

static struct json_object *json_proc(const struct report *rep, const struct out_proc *op)
{
	const struct pv_proc *p = op->p;
	const struct pv_proc *parent = p->parent ? pview__proc(rep->v, p->parent) : NULL;
	struct json_object *o = json_object_new_object(), *threads;
	int rc = 0;

	if (!o)
		return NULL;
	rc |= jadd(o, "pid", json_object_new_int(p->pid));
	rc |= jadd(o, "parent_pid", json_object_new_int(parent ? parent->pid : p->ppid));
	rc |= jadd(o, "exe", json_object_new_string(p->exe));
	rc |= jadd(o, "exit", exit_json(p->end_kind, p->end_code));
	rc |= jadd(o, "samples", json_object_new_int64((int64_t)p->samples));
	rc |= jadd(o, "self_seconds", jdouble((double)p->samples * rep->period_s));
	rc |= jadd(o, "cpu_seconds", jdouble((double)p->cpu_ns / 1e9));
	rc |= jadd(o, "functions", json_rows(rep, op->rows, op->nrows, p->samples));
	threads = json_object_new_array();
	for (size_t t = 0; threads && t < op->nthreads; t++) {
		const struct out_thread *th = &op->threads[t];
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
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int print_json(const struct report *rep)
{
	const struct pdata_header *h = &rep->v->hdr;
	struct json_object *top = json_object_new_object(), *procs, *notes;
	int rc = 0;

	if (!top)
		return -ENOMEM;
	rc |= jadd(top, "command", json_object_new_string(h->command));
	rc |= jadd(top, "clock", json_object_new_string(pdata__clock_name(h->clock)));
	rc |= jadd(top, "clock_note", json_object_new_string(h->clock_note));
	rc |= jadd(top, "rate_hz", jdouble(pview__rate_hz(rep->v)));
	rc |= jadd(top, "nominal_hz", json_object_new_int64(h->nominal_hz));
	rc |= jadd(top, "period_ns", json_object_new_int64((int64_t)h->period_ns));
	rc |= jadd(top, "samples", json_object_new_int64((int64_t)h->samples));
	rc |= jadd(top, "lost", json_object_new_int64((int64_t)h->lost));
	rc |= jadd(top, "dropped", json_object_new_int64((int64_t)h->dropped));
	rc |= jadd(top, "complete", json_object_new_boolean(h->state == PDATA_COMPLETE));
	rc |= jadd(top, "exit", exit_json(h->end_kind, h->end_code));
	rc |= jadd(top, "total_samples", json_object_new_int64((int64_t)rep->v->total));
	rc |= jadd(top, "total_seconds", jdouble((double)rep->v->total * rep->period_s));
	rc |= jadd(top, "cpu_seconds", jdouble((double)h->cpu_ns / 1e9));
	rc |= jadd(top, "percent_of", json_object_new_string("process"));
	notes = json_object_new_array();
	for (size_t i = 0; notes && i < rep->nnotes; i++)
		json_object_array_add(notes, json_object_new_string(rep->notes[i]));
	rc |= jadd(top, "notes", notes);
	procs = json_object_new_array();
	for (size_t i = 0; procs && !rc && i < rep->v->nprocs; i++) {
		struct json_object *po = json_proc(rep, &rep->procs[i]);

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

static void csv_rows(const struct report *rep, const struct pv_proc *p, const struct out_thread *th,
		     const struct row *rows, size_t n)
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
		       pct(rows[i].count, p->samples), (double)rows[i].count * rep->period_s);
	}
}

static void print_csv(const struct report *rep)
{
	printf("pid,exe,%sfunction,object,%ssamples,percent,self_seconds\n",
	       rep->o.threads ? "tid,comm," : "", rep->o.lines ? "file,line," : "");
	for (size_t i = 0; i < rep->v->nprocs; i++) {
		const struct out_proc *op = &rep->procs[i];

		if (!rep->o.threads) {
			csv_rows(rep, op->p, NULL, op->rows, op->nrows);
			continue;
		}
		for (size_t t = 0; t < op->nthreads; t++)
			csv_rows(rep, op->p, &op->threads[t], op->threads[t].rows,
				 op->threads[t].nrows);
	}
}

/* ---- html (profile/html.h) -------------------------------------------------- */

static int fill_html(FILE *f, void *arg)
{
	const struct report *rep = arg;

	return html__write(rep->html, f, (const char *const *)rep->notes, rep->nnotes, NULL, 0);
}

static int write_html(const struct report *rep, char *why, size_t whylen)
{
	int rc;

	if (strcmp(rep->o.output, "-"))
		return write_file_atomically(rep->o.output, fill_html, (void *)rep, why, whylen);
	rc = html__write(rep->html, stdout, (const char *const *)rep->notes, rep->nnotes, why,
			 whylen);
	if (!rc && fflush(stdout) == EOF)
		rc = why_fail(why, whylen, -errno, "cannot write the report: %s", strerror(errno));
	return rc;
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
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end;
	int c;

	o->input = "profil.data";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:h", longopts, NULL)) != -1) {
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
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			fprintf(stderr, "profil report: option '%s' needs an argument\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"profil report: unknown option '%s' (try 'profil report --help')\n",
				argv[optind - 1]);
			return 2;
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
	if (o->format != FMT_HTML && o->output) {
		fprintf(stderr, "profil report: -o is for --format html; text, json and csv go to "
				"stdout\n");
		return 2;
	}
	return 0;
}

static void report_free(struct report *rep)
{
	for (size_t i = 0; rep->procs && i < rep->v->nprocs; i++) {
		free(rep->procs[i].rows);
		for (size_t t = 0; t < rep->procs[i].nthreads; t++)
			free(rep->procs[i].threads[t].rows);
		free(rep->procs[i].threads);
	}
	free(rep->procs);
	for (size_t i = 0; i < rep->nnotes; i++)
		free(rep->notes[i]);
	free(rep->notes);
	html__free(rep->html);
	resolver__free(rep->r);
	pview__free(rep->v);
}

int cmd_report(int argc, char **argv)
{
	struct report rep = {0};
	char why[512];
	int rc;

	rc = parse_opts(argc, argv, &rep.o);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = pview__load(&rep.v, rep.o.input, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil report: %s\n", why);
		return 1;
	}
	if (rep.v->hdr.period_ns)
		rep.period_s = (double)rep.v->hdr.period_ns / 1e9;
	else if (rep.v->hdr.nominal_hz)
		rep.period_s = 1.0 / rep.v->hdr.nominal_hz;
	rep.r = resolver__new(rep.v, rep.o.lines);
	if (rep.o.format == FMT_HTML) {
		rep.html = rep.r ? html__new(rep.v, rep.r) : NULL;
		rc = rep.html ? html__add_flat(rep.html) : -ENOMEM;
	} else {
		rc = rep.r ? aggregate(&rep) : -ENOMEM;
	}
	if (rc < 0) {
		fprintf(stderr, "profil report: out of memory\n");
		report_free(&rep);
		return 1;
	}
	collect_notes(&rep);
	if (rep.o.format == FMT_HTML) {
		rc = write_html(&rep, why, sizeof(why));
		report_free(&rep);
		if (rc < 0)
			fprintf(stderr, "profil report: %s\n", why);
		return rc < 0;
	}
	if (rep.o.format == FMT_JSON)
		rc = print_json(&rep);
	else if (rep.o.format == FMT_CSV)
		print_csv(&rep);
	else
		print_text(&rep);
	report_free(&rep);
	if (rc < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "profil report: cannot write the report: %s\n",
			rc < 0 ? "out of memory" : strerror(errno));
		return 1;
	}
	return 0;
}
