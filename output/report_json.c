// SPDX-License-Identifier: MIT
/*
 * The report as JSON (doc/report-json.md) and CSV.  The JSON is streamed:
 * the top-level fields, the whole run's rows one by one, then each process
 * image built (report__proc), written and released in turn, so memory
 * follows one image, not the number of images.  Values are made and escaped
 * by json-c.  The call-stack fields (the stacks, the trees, their frames)
 * are report/cgreport.h's, streamed in the same way: the whole run's after
 * its rows, each image's in its object.  See report.h.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/array.h"
#include "utils/json.h"
#include "report/cgreport.h"
#include "output/output.h"
#include "utils/cgroup.h"

#define JSON_VERSION 2
/* One line per top-level field, as json-c's pretty printer: "key":value, values on one line. */
#define JFLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ---- values ----------------------------------------------------------------------- */

static double pct(double part, double of)
{
	return of > 0 ? 100.0 * part / of : 0.0;
}

static const char *const end_kind_names[] = {
	[PDATA_END_EXITED] = "exited",
	[PDATA_END_SIGNALED] = "signaled",
	[PDATA_END_EXEC] = "exec",
	[PDATA_END_DETACHED] = "detached",
};

static struct json_object *exit_json(int kind, int code)
{
	const char *name = ARRAY_NAME(end_kind_names, kind, "unknown");
	struct json_object *e = json_object_new_object();
	int rc = e ? 0 : -ENOMEM;

	rc |= e ? json__set(e, "kind", json_object_new_string(name)) : 0;
	rc |= e ? json__set(e, "code", json_object_new_int(code)) : 0;
	return json__finish(e, rc);
}

static struct json_object *cpu_json(const struct pdata_cpu *c)
{
	struct json_object *o = json_object_new_object();
	int rc = o ? 0 : -ENOMEM;

	rc |= o ? json__set(o, "user_seconds", json__double((double)c->user_ns / 1e9)) : 0;
	rc |= o ? json__set(o, "system_seconds", json__double((double)c->sys_ns / 1e9)) : 0;
	return json__finish(o, rc);
}

static const char *kernel_name(enum report_kernel k)
{
	static const char *const names[] = {
		[REPORT_KERNEL_SAMPLED] = "sampled",
		[REPORT_KERNEL_ACCOUNTED] = "accounted",
		[REPORT_KERNEL_INVISIBLE] = "invisible",
	};

	return ARRAY_NAME(names, k, "unknown");
}

/* A row's off-CPU seconds by reason (self or total). */
static struct json_object *reasons_json(const uint64_t *off)
{
	struct json_object *o = json_object_new_object();
	int rc = o ? 0 : -ENOMEM;

	for (int k = PDATA_KIND_SLEEP; !rc && k < PDATA_KIND_NR; k++)
		rc = json__set(o, pdata__kind_name((uint32_t)k),
			       json__double((double)off[k] / 1e9));
	return json__finish(o, rc);
}

/*
 * A profile with off-CPU time: a row's off-CPU and wall seconds, their
 * shares of the whole's (off_of: its off-CPU ns by reason; of_seconds: its
 * CPU seconds), and the seconds by reason.
 */
static int offcpu_fields(const struct report *rep, struct json_object *o,
			 const struct report_row *r, double of_seconds, const uint64_t *off_of)
{
	double off = report__row_offcpu_seconds(r, 0, 0), cpu = report__row_seconds(rep, r);
	double off_all = (double)off_of[0] / 1e9;
	int rc = 0;

	rc |= json__set(o, "offcpu_seconds", json__double(off));
	rc |= json__set(o, "offcpu_percent", json__double(pct(off, off_all)));
	rc |= json__set(o, "wall_seconds", json__double(cpu + off));
	rc |= json__set(o, "wall_percent", json__double(pct(cpu + off, of_seconds + off_all)));
	rc |= json__set(o, "offcpu", reasons_json(r->off_ns));
	if (rep->o.children) {
		double t = report__row_offcpu_seconds(r, 0, 1);

		rc |= json__set(o, "total_offcpu_seconds", json__double(t));
		rc |= json__set(o, "total_wall_seconds",
				json__double(report__row_total_seconds(rep, r) + t));
		rc |= json__set(o, "total_offcpu", reasons_json(r->off_total));
	}
	return rc;
}

/* The fields of a row that says what and how much: a function object of version 1, and kind. */
static int row_fields(const struct report *rep, struct json_object *o, const struct report_row *r,
		      int sym, int dso, double of_seconds, const uint64_t *off_of)
{
	double s = report__row_seconds(rep, r);
	int rc = 0;

	if (sym && r->f)
		rc |= json__set(o, "name", json_object_new_string(r->f->name));
	if ((sym || dso) && r->objpath)
		rc |= json__set(o, "object", json_object_new_string(r->objpath));
	rc |= json__set(o, "kind", json_object_new_string(report__kind_name(r->kind)));
	rc |= json__set(o, "samples", json__uint(r->count));
	rc |= json__set(o, "percent", json__double(pct(s, of_seconds)));
	rc |= json__set(o, "self_seconds", json__double(s));
	if (rep->o.children) {
		double t = report__row_total_seconds(rep, r);

		rc |= json__set(o, "total_samples", json__uint(r->total));
		rc |= json__set(o, "total_percent", json__double(pct(t, of_seconds)));
		rc |= json__set(o, "total_seconds", json__double(t));
	}
	if (rep->offcpu)
		rc |= offcpu_fields(rep, o, r, of_seconds, off_of);
	if (sym && rep->o.lines && r->f) {
		if (r->f->file)
			rc |= json__set(o, "file", json_object_new_string(r->f->file));
		else
			json_object_object_add(o, "file", NULL); /* JSON null */
		rc |= json__set(o, "line", json_object_new_int(r->f->line));
	}
	return rc;
}

static struct json_object *rows_json(const struct report *rep, const struct report_list *l,
				     double of_seconds, const uint64_t *off_of)
{
	struct json_object *arr = json_object_new_array();
	int rc = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < l->nrows; i++) {
		struct json_object *f = json_object_new_object();

		rc = f ? row_fields(rep, f, &l->rows[i], 1, 1, of_seconds, off_of) : -ENOMEM;
		if (!rc)
			rc = json__push(arr, f);
		else
			json_object_put(f);
	}
	return json__finish(arr, rc);
}

/* ---- streaming ------------------------------------------------------------------------ */

#define I2 "    "
#define I3 "      "

/* Write v (taking it) as "key":v on a line of its own at indent, a comma before it unless first. */
static int put_field_at(FILE *out, int *first, const char *indent, const char *key,
			struct json_object *v)
{
	struct json_object *k = json_object_new_string(key);
	int rc = v && k ? 0 : -ENOMEM;

	if (!rc)
		fprintf(out, "%s%s%s:%s", *first ? "" : ",\n", indent,
			json_object_to_json_string_ext(k, JFLAGS),
			json_object_to_json_string_ext(v, JFLAGS));
	*first = 0;
	json_object_put(k);
	json_object_put(v);
	return rc;
}

static int put_field(FILE *out, int *first, const char *key, struct json_object *v)
{
	return put_field_at(out, first, "  ", key, v);
}

static struct json_object *strs_json(const char *const *s, size_t n)
{
	struct json_object *a = json_object_new_array();
	int rc = a ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++)
		rc = json__push(a, json_object_new_string(s[i]));
	return json__finish(a, rc);
}

static struct json_object *ints_json(const int *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	int rc = a ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++)
		rc = json__push(a, json_object_new_int(v[i]));
	return json__finish(a, rc);
}

static struct json_object *filters_json(const struct report *rep)
{
	const struct report_filter *f = &rep->o.filter;
	struct json_object *o = json_object_new_object();
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(o, "pid", ints_json(f->pids, f->npids));
		rc |= json__set(o, "tid", ints_json(f->tids, f->ntids));
		rc |= json__set(o, "comm", strs_json(f->comms, f->ncomms));
		rc |= json__set(o, "dso", strs_json(f->dsos, f->ndsos));
		rc |= json__set(o, "cgroup", strs_json(f->cgroups, f->ncgroups));
	}
	return json__finish(o, rc);
}

/* The fields of o (taken), each as put_field_at would write it. */
static int put_fields(FILE *out, int *first, const char *indent, struct json_object *o)
{
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		json_object_object_foreach(o, key, v)
		{
			if (!rc)
				rc = put_field_at(out, first, indent, key, json_object_get(v));
		}
	}
	json_object_put(o);
	return rc;
}

/* The threads' lifetimes and how much of them each clock attributed. */
static struct json_object *lifetimes_json(const struct report *rep)
{
	struct json_object *o = json_object_new_object();
	uint64_t life = 0, cpu = 0, off = 0, threads = 0, known = 0;
	int rc = o ? 0 : -ENOMEM;

	for (size_t i = 0; i < rep->v->nprocs; i++)
		for (size_t k = 0; k < rep->v->procs[i].nthreads; k++) {
			const struct pv_thread *t = &rep->v->procs[i].threads[k];

			threads++;
			if (!t->life_ns)
				continue;
			known++;
			life += t->life_ns;
			cpu += t->cpu.cpu_ns;
			off += t->offcpu_ns;
		}
	rc |= json__set(o, "threads", json__uint(threads));
	rc |= json__set(o, "known", json__uint(known));
	rc |= json__set(o, "seconds", json__double((double)life / 1e9));
	rc |= json__set(o, "cpu_seconds", json__double((double)cpu / 1e9));
	rc |= json__set(o, "offcpu_seconds", json__double((double)off / 1e9));
	return json__finish(o, rc);
}

/* What the profile says about its off-CPU time (profiles recorded with --off-cpu). */
static struct json_object *offcpu_json(const struct report *rep)
{
	struct json_object *o = json_object_new_object();
	const struct pdata_header *h = &rep->v->hdr;
	int rc = o ? 0 : -ENOMEM;

	rc |= json__set(o, "source", json_object_new_string(pdata__offcpu_name(h->offcpu)));
	rc |= json__set(o, "note",
			json_object_new_string(rep->v->offcpu_note ? rep->v->offcpu_note : ""));
	rc |= json__set(o, "seconds", json__double((double)rep->totals.offcpu_ns[0] / 1e9));
	rc |= json__set(o, "reasons", reasons_json(rep->totals.offcpu_ns));
	rc |= json__set(o, "lost_seconds", json__double((double)h->offcpu_lost / 1e9));
	rc |= json__set(o, "value", json_object_new_string(report__value_name(rep->value)));
	rc |= json__set(o, "lifetimes", lifetimes_json(rep));
	return json__finish(o, rc);
}

static int put_head(const struct report *rep, FILE *out, int *first)
{
	const struct pdata_header *h = &rep->v->hdr;
	const struct report_totals *t = &rep->totals;
	struct pdata_cpu cpu = {h->cpu_ns, h->user_ns, h->sys_ns};
	int rc = 0;

	rc |= put_field(out, first, "version", json_object_new_int(JSON_VERSION));
	rc |= put_field(out, first, "command", json_object_new_string(h->command));
	rc |= put_field(out, first, "clock", json_object_new_string(pdata__clock_name(h->clock)));
	rc |= put_field(out, first, "clock_note", json_object_new_string(h->clock_note));
	rc |= put_field(out, first, "rate_hz", json__double(pview__rate_hz(rep->v)));
	rc |= put_field(out, first, "nominal_hz", json__uint(h->nominal_hz));
	rc |= put_field(out, first, "period_ns", json__uint(h->period_ns));
	rc |= put_field(out, first, "samples", json__uint(h->samples));
	rc |= put_field(out, first, "lost", json__uint(h->lost));
	rc |= put_field(out, first, "dropped", json__uint(h->dropped));
	rc |= put_field(out, first, "throttled", json__uint(h->throttled));
	rc |= put_field(out, first, "complete",
			json_object_new_boolean(h->state == PDATA_COMPLETE));
	rc |= put_field(out, first, "exit", exit_json(h->end_kind, h->end_code));
	rc |= put_field(out, first, "kernel", json_object_new_string(kernel_name(rep->kernel)));
	rc |= put_field(out, first, "total_samples", json__uint(t->samples));
	rc |= put_field(out, first, "total_seconds",
			json__double((double)t->samples * rep->period_s));
	rc |= put_field(out, first, "accounted_seconds",
			json__double((double)t->accounted_ns / 1e9));
	rc |= put_field(out, first, "unsampled_seconds",
			json__double((double)t->unsampled_ns / 1e9));
	rc |= put_field(out, first, "seconds", json__double(t->seconds));
	rc |= put_field(out, first, "cpu_seconds", json__double((double)h->cpu_ns / 1e9));
	rc |= put_field(out, first, "cpu", cpu_json(&cpu));
	rc |= put_field(out, first, "percent_of", json_object_new_string("process"));
	if (rep->offcpu)
		rc |= put_field(out, first, "offcpu", offcpu_json(rep));
	if (!rc) {
		struct json_object *stacks = json_object_new_object();

		rc = stacks ? cgreport__json_top(rep, stacks) : -ENOMEM;
		rc |= put_fields(out, first, "  ", stacks);
	}
	rc |= put_field(out, first, "notes",
			strs_json((const char *const *)rep->notes, rep->nnotes));
	rc |= put_field(out, first, "filters", filters_json(rep));
	return rc;
}

/* "cgroup": the path, "container": its owner's label (utils/cgroup.h), "" when none. */
static int add_cgroup(struct json_object *o, const char *path)
{
	char label[96];
	int rc;

	path = path ? path : "";
	cgroup__label(path, label, sizeof(label));
	rc = json__set(o, "cgroup", json_object_new_string(path));
	if (!rc)
		rc = json__set(o, "container", json_object_new_string(label));
	return rc;
}

static struct json_object *run_row_json(const struct report *rep, const struct report_row *r)
{
	struct json_object *o = json_object_new_object();
	int sym = report__has_key(rep, REPORT_KEY_SYM), dso = report__has_key(rep, REPORT_KEY_DSO);
	int rc = o ? 0 : -ENOMEM;

	if (!rc && report__has_key(rep, REPORT_KEY_COMM))
		rc |= json__set(o, "comm", json_object_new_string(r->comm ? r->comm : ""));
	if (!rc && report__has_key(rep, REPORT_KEY_PID))
		rc |= json__set(o, "pid", json_object_new_int(r->pid));
	if (!rc && report__has_key(rep, REPORT_KEY_TID))
		rc |= json__set(o, "tid", json_object_new_int(r->tid));
	if (!rc && report__has_key(rep, REPORT_KEY_CGROUP))
		rc |= add_cgroup(o, r->cgroup);
	if (!rc)
		rc = row_fields(rep, o, r, sym, dso, rep->totals.seconds, rep->totals.offcpu_ns);
	return json__finish(o, rc);
}

static int put_run(const struct report *rep, const struct cgreport *cr, FILE *out, int *first)
{
	struct json_object *keys = json_object_new_array();
	int rc = keys ? 0 : -ENOMEM, f = 1;

	for (size_t i = 0; !rc && i < rep->nkeys; i++)
		rc = json__push(keys, json_object_new_string(report__key_name(rep->keys[i])));
	fprintf(out, ",\n  \"whole_run\":{\n");
	*first = 0;
	rc |= put_field_at(out, &f, I2, "sort", keys);
	rc |= put_field_at(out, &f, I2, "order",
			   json_object_new_string(rep->o.sort_name ? "name" :
						  rep->o.children  ? "total" :
								     "self"));
	rc |= put_field_at(out, &f, I2, "percent_of", json_object_new_string("run"));
	rc |= put_field_at(out, &f, I2, "seconds", json__double(rep->totals.seconds));
	rc |= put_field_at(out, &f, I2, "shown_seconds", json__double(rep->totals.shown_seconds));
	rc |= put_field_at(out, &f, I2, "hidden_rows", json__uint(rep->run.hidden));
	rc |= put_field_at(out, &f, I2, "hidden_seconds", json__double(rep->run.hidden_seconds));
	fprintf(out, ",\n" I2 "\"rows\":[");
	for (size_t i = 0; !rc && i < rep->run.nrows; i++) {
		struct json_object *o = run_row_json(rep, &rep->run.rows[i]);

		if (!o)
			rc = -ENOMEM;
		else
			fprintf(out, "%s\n" I3 "%s", i ? "," : "",
				json_object_to_json_string_ext(o, JFLAGS));
		json_object_put(o);
	}
	fprintf(out, "%s]", rep->run.nrows ? "\n" I2 : "");
	if (!rc) {
		struct json_object *trees = json_object_new_object();

		rc = trees ? cgreport__json_run(cr, trees) : -ENOMEM;
		rc |= put_fields(out, &f, I2, trees);
	}
	fprintf(out, "\n  }");
	return rc;
}

/* The times of an image or a thread: its seconds, its CPU time, its time off the CPU. */
static int set_times(const struct report *rep, struct json_object *o, double seconds,
		     const struct pdata_cpu *cpu, const uint64_t *offcpu_ns)
{
	int rc = json__set(o, "seconds", json__double(seconds));

	rc |= json__set(o, "cpu_seconds", json__double((double)cpu->cpu_ns / 1e9));
	rc |= json__set(o, "cpu", cpu_json(cpu));
	if (rep->offcpu) {
		rc |= json__set(o, "offcpu_seconds", json__double((double)offcpu_ns[0] / 1e9));
		rc |= json__set(o, "offcpu", reasons_json(offcpu_ns));
	}
	return rc;
}

static int add_thread(const struct report *rep, struct json_object *arr,
		      const struct report_thread *th, double of_seconds, const uint64_t *off_of)
{
	struct json_object *to = json_object_new_object();
	int rc = to ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(to, "tid", json_object_new_int(th->tid));
		rc |= json__set(to, "comm", json_object_new_string(th->comm));
		rc |= json__set(to, "samples", json__uint(th->samples));
		rc |= set_times(rep, to, th->seconds, &th->cpu, th->offcpu_ns);
		if (rep->offcpu) {
			rc |= json__set(to, "life_seconds",
					json__double((double)th->life_ns / 1e9));
			rc |= json__set(to, "recorded_offcpu_seconds",
					json__double((double)th->offcpu_rec_ns / 1e9));
		}
		if (rep->o.threads)
			rc |= json__set(to, "functions",
					rows_json(rep, &th->list, of_seconds, off_of));
	}
	if (rc) {
		json_object_put(to);
		return rc;
	}
	return json__push(arr, to);
}

static struct json_object *proc_json(const struct report *rep, const struct report_proc *pr)
{
	const struct report_image *img = pr->img;
	const struct pv_proc *p = img->p, *parent = report__parent(rep, p);
	struct json_object *o = json_object_new_object(), *threads = json_object_new_array();
	int rc = o && threads ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(o, "pid", json_object_new_int(p->pid));
		rc |= json__set(o, "parent_pid",
				json_object_new_int(parent ? parent->pid : p->ppid));
		rc |= json__set(o, "exe", json_object_new_string(p->exe));
		rc |= json__set(o, "comm", json_object_new_string(img->comm));
		rc |= json__set(o, "exit", exit_json(p->end_kind, p->end_code));
		if (rep->v->hdr.flags & PDATA_F_SYSTEM) {
			rc |= add_cgroup(o, p->cgroup);
			rc |= json__set(o, "nspid", json_object_new_int(p->nspid));
		}
		rc |= json__set(o, "samples", json__uint(p->samples));
		rc |= json__set(o, "self_seconds",
				json__double((double)p->samples * rep->period_s));
		rc |= json__set(o, "accounted_seconds",
				json__double((double)img->accounted_ns / 1e9));
		rc |= json__set(o, "unsampled_seconds",
				json__double((double)img->unsampled_ns / 1e9));
		rc |= set_times(rep, o, img->seconds, &img->cpu, img->offcpu_ns);
		rc |= json__set(o, "functions",
				rows_json(rep, &pr->list, img->seconds, img->offcpu_ns));
	}
	for (size_t t = 0; !rc && t < pr->nthreads; t++)
		rc = add_thread(rep, threads, &pr->threads[t], img->seconds, img->offcpu_ns);
	if (!rc) {
		rc = json__set(o, "threads", threads);
		threads = NULL;
	}
	json_object_put(threads);
	return json__finish(o, rc);
}

static int filtered(const struct report *rep)
{
	const struct report_filter *f = &rep->o.filter;

	return f->npids || f->ntids || f->ncomms || f->ndsos;
}

static int put_procs(struct report *rep, const struct cgreport *cr, FILE *out)
{
	int rc = 0, n = 0;

	fprintf(out, ",\n  \"processes\":[");
	for (size_t i = 0; !rc && i < rep->v->nprocs; i++) {
		struct report_proc pr;
		struct cgreport_image *ci = NULL;
		struct json_object *o;

		/* every image, as in version 1; with a filter, those it lets through */
		if (filtered(rep) && !rep->images[i].shown)
			continue;
		rc = report__proc(rep, i, &pr);
		if (rc)
			break;
		o = proc_json(rep, &pr);
		rc = o ? cgreport__image(cr, &pr, 1, &ci) : -ENOMEM;
		if (!rc)
			rc = cgreport__json_image(cr, ci, o);
		cgreport_image__free(ci);
		if (!rc)
			fprintf(out, "%s\n" I2 "%s", n++ ? "," : "",
				json_object_to_json_string_ext(o, JFLAGS));
		json_object_put(o);
		report_proc__release(&pr);
	}
	fprintf(out, "%s]", n ? "\n  " : "");
	return rc;
}

int report__write_json(struct report *rep, const struct cgreport *cr, FILE *out)
{
	int first = 1, rc;

	fprintf(out, "{\n");
	rc = put_head(rep, out, &first);
	if (!rc)
		rc = put_run(rep, cr, out, &first);
	if (!rc)
		rc = put_procs(rep, cr, out);
	fprintf(out, "\n}\n");
	if (!rc && (fflush(out) == EOF || ferror(out)))
		rc = errno ? -errno : -EIO;
	return rc;
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* samples,percent,self_seconds[,kind][,total_samples,total_percent,total_seconds] */
static void csv_tail(const struct report *rep, FILE *out, const struct report_row *r, double of,
		     int kind)
{
	double s = report__row_seconds(rep, r), t = report__row_total_seconds(rep, r);

	fprintf(out, ",%llu,%.4f,%.6f", (unsigned long long)r->count, pct(s, of), s);
	if (kind)
		fprintf(out, ",%s", report__kind_name(r->kind));
	if (rep->o.children)
		fprintf(out, ",%llu,%.4f,%.6f", (unsigned long long)r->total, pct(t, of), t);
	fputc('\n', out);
}

/* The columns --children adds at the end of a CSV header. */
static const char *csv_total_columns(const struct report *rep)
{
	return rep->o.children ? ",total_samples,total_percent,total_seconds" : "";
}

static void csv_lines(const struct report *rep, FILE *out, const struct report_row *r)
{
	if (!rep->o.lines)
		return;
	fputc(',', out);
	csv_str(out, r->f && r->f->file ? r->f->file : "");
	fprintf(out, ",%d", r->f ? r->f->line : 0);
}

/*
 * Rows of one image (and thread): the table of version 1, columns unchanged;
 * a row of 0 samples is accounted kernel time ([kernel]) or unsampled time
 * ([unsampled]).
 */
static void csv_image_rows(const struct report *rep, FILE *out, const struct report_image *img,
			   const struct report_thread *th, const struct report_list *l)
{
	for (size_t i = 0; i < l->nrows; i++) {
		const struct report_row *r = &l->rows[i];

		fprintf(out, "%d,", img->p->pid);
		csv_str(out, img->p->exe);
		if (th) {
			fprintf(out, ",%d,", th->tid);
			csv_str(out, th->comm);
		}
		fputc(',', out);
		csv_str(out, r->f->name);
		fputc(',', out);
		csv_str(out, r->f->objpath);
		csv_lines(rep, out, r);
		csv_tail(rep, out, r, img->seconds, 0);
	}
}

static int csv_images(struct report *rep, FILE *out)
{
	int rc = 0;

	fprintf(out, "pid,exe,%sfunction,object,%ssamples,percent,self_seconds%s\n",
		rep->o.threads ? "tid,comm," : "", rep->o.lines ? "file,line," : "",
		csv_total_columns(rep));
	for (size_t i = 0; !rc && i < rep->v->nprocs; i++) {
		struct report_proc pr;

		if (!rep->images[i].shown)
			continue;
		rc = report__proc(rep, i, &pr);
		if (rc)
			break;
		if (!rep->o.threads)
			csv_image_rows(rep, out, pr.img, NULL, &pr.list);
		for (size_t t = 0; rep->o.threads && t < pr.nthreads; t++)
			csv_image_rows(rep, out, pr.img, &pr.threads[t], &pr.threads[t].list);
		report_proc__release(&pr);
	}
	return rc;
}

static void csv_run(const struct report *rep, FILE *out)
{
	int dso = report__has_key(rep, REPORT_KEY_DSO), sym = report__has_key(rep, REPORT_KEY_SYM);
	char pidbuf[16];

	for (size_t k = 0; k < rep->nkeys; k++) {
		int key = rep->keys[k];

		fprintf(out, "%s%s", k ? "," : "",
			key == REPORT_KEY_COMM ? "comm" :
			key == REPORT_KEY_DSO  ? "object" :
			key == REPORT_KEY_PID  ? "pid" :
			key == REPORT_KEY_TID  ? "tid" :
			dso		       ? "function" :
						 "function,object");
	}
	fprintf(out, "%s,samples,percent,self_seconds,kind%s\n",
		sym && rep->o.lines ? ",file,line" : "", csv_total_columns(rep));
	for (size_t i = 0; i < rep->run.nrows; i++) {
		const struct report_row *r = &rep->run.rows[i];

		for (size_t k = 0; k < rep->nkeys; k++) {
			int key = rep->keys[k];

			if (k)
				fputc(',', out);
			if (key == REPORT_KEY_COMM) {
				csv_str(out, r->comm ? r->comm : "");
			} else if (key == REPORT_KEY_DSO) {
				csv_str(out, r->objpath ? r->objpath : "");
			} else if (key == REPORT_KEY_PID || key == REPORT_KEY_TID) {
				snprintf(pidbuf, sizeof(pidbuf), "%d",
					 key == REPORT_KEY_PID ? r->pid : r->tid);
				fputs(pidbuf, out);
			} else {
				csv_str(out, r->f ? r->f->name : "");
				if (!dso) {
					fputc(',', out);
					csv_str(out, r->objpath ? r->objpath : "");
				}
			}
		}
		if (sym)
			csv_lines(rep, out, r);
		csv_tail(rep, out, r, rep->totals.seconds, 1);
	}
}

int report__write_csv(struct report *rep, FILE *out, int run)
{
	int rc = 0;

	if (run)
		csv_run(rep, out);
	else
		rc = csv_images(rep, out);
	if (!rc && (fflush(out) == EOF || ferror(out)))
		rc = errno ? -errno : -EIO;
	return rc;
}
