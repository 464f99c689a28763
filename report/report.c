// SPDX-License-Identifier: MIT
/*
 * The report's model: every piece of CPU time of the run as an item of one
 * process image and thread (samples, accounted kernel time, unsampled time),
 * summed into rows by keys with hash tables (report/report_rows.c), every
 * unique (object, address) symbolised once by the resolver, so big profiles
 * load in seconds.  With --children, each sample's stack (report/callgraph.h
 * names its frames) adds to the totals of the rows it passes through.  See
 * report.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"
#include "utils/array.h"
#include "report/report.h"
#include "report/report_rows.h"
#include "utils/cgroup.h"
#include "symbols/symfile.h"
#include "utils/why.h"
#include "utils/sat.h"

/* The rows that are not code: their function is their object. */
static const struct func kernel_accounted = {"[kernel]", "[kernel]", "[kernel]", NULL, 0};
static const struct func unsampled_func = {"[unsampled]", "[unsampled]", "[unsampled]", NULL, 0};

static const int default_keys[] = {REPORT_KEY_COMM, REPORT_KEY_DSO, REPORT_KEY_SYM};
/* --sort name without keys: by function name first, as before there were keys */
static const int default_name_order[] = {REPORT_KEY_SYM, REPORT_KEY_DSO, REPORT_KEY_COMM};
static const int image_keys[] = {REPORT_KEY_SYM};
static const int thread_keys[] = {REPORT_KEY_TID, REPORT_KEY_SYM};

/* Where this profile says the kernel's time is. */
static enum report_kernel kernel_mode(const struct pdata_header *h)
{
	if (h->flags & PDATA_F_KERNEL)
		return REPORT_KERNEL_SAMPLED;
	switch (h->clock) {
	case PDATA_CLOCK_PERF:
	case PDATA_CLOCK_BPF:
		return REPORT_KERNEL_ACCOUNTED;
	case PDATA_CLOCK_THREAD:
	case PDATA_CLOCK_ITIMER:
		return REPORT_KERNEL_INVISIBLE;
	default:
		return REPORT_KERNEL_UNKNOWN;
	}
}

/* Clocks whose samples are CPU time (a manual clock's ticks are not). */
static bool clock_is_cpu_time(uint32_t clock)
{
	return clock == PDATA_CLOCK_THREAD || clock == PDATA_CLOCK_ITIMER ||
	       clock == PDATA_CLOCK_PERF || clock == PDATA_CLOCK_BPF;
}

static double period_ns(const struct report *rep)
{
	return rep->period_s * 1e9;
}

/* ns as an integer, bounded (a damaged count times the period can exceed 2^64). */
static uint64_t to_ns(double ns)
{
	if (!(ns > 0))
		return 0;
	return ns >= 1.8e19 ? UINT64_MAX : (uint64_t)(ns + 0.5);
}

double report__row_seconds(const struct report *rep, const struct report_row *row)
{
	return report_rows__ns(row, period_ns(rep)) / 1e9;
}

double report__row_total_seconds(const struct report *rep, const struct report_row *row)
{
	return report_rows__total_ns(row, period_ns(rep)) / 1e9;
}

const char *report__kind_name(int kind)
{
	static const char *const names[] = {
		[REPORT_SAMPLED] = "sampled",
		[REPORT_ACCOUNTED] = "accounted",
		[REPORT_UNSAMPLED] = "unsampled",
		[REPORT_OFFCPU] = "off-cpu",
	};

	return ARRAY_NAME(names, kind, "sampled");
}

static const char *const value_names[REPORT_VALUE_NR] = {
	[REPORT_VALUE_CPU] = "cpu",	    [REPORT_VALUE_WALL] = "wall",
	[REPORT_VALUE_OFFCPU] = "off-cpu",  [REPORT_VALUE_SLEEP] = "sleep",
	[REPORT_VALUE_BLOCKED] = "blocked", [REPORT_VALUE_PREEMPTED] = "preempted",
	[REPORT_VALUE_STOPPED] = "stopped",
};

const char *report__value_name(int value)
{
	return ARRAY_NAME(value_names, value, "cpu"); /* REPORT_VALUE_AUTO: a hole */
}

int report__value_parse(const char *name)
{
	if (!strcmp(name, "offcpu"))
		return REPORT_VALUE_OFFCPU;
	for (int v = REPORT_VALUE_CPU; v < REPORT_VALUE_NR; v++)
		if (!strcmp(name, value_names[v]))
			return v;
	return 0;
}

double report__row_offcpu_seconds(const struct report_row *row, int reason, int total)
{
	if (reason < 0 || reason >= PDATA_KIND_NR)
		return 0;
	return (double)(total ? row->off_total[reason] : row->off_ns[reason]) / 1e9;
}

double report__row_value(const struct report *rep, const struct report_row *row, int value,
			 int total)
{
	return report_rows__value_ns(row, period_ns(rep), value, total) / 1e9;
}

double report__value_of(int value, double cpu_s, const uint64_t *off)
{
	return report_rows__value_of(value, cpu_s * 1e9, off) / 1e9;
}

double report__run_value(const struct report *rep)
{
	return report__value_of(rep->value, rep->totals.seconds, rep->totals.offcpu_ns);
}

static const char *const key_names[] = {
	[REPORT_KEY_COMM] = "comm", [REPORT_KEY_DSO] = "dso", [REPORT_KEY_SYM] = "sym",
	[REPORT_KEY_PID] = "pid",   [REPORT_KEY_TID] = "tid", [REPORT_KEY_CGROUP] = "cgroup",
};

const char *report__key_name(int key)
{
	return key >= REPORT_KEY_COMM && key <= REPORT_KEY_CGROUP ? key_names[key] : NULL;
}

int report__key_parse(const char *name)
{
	if (!strcmp(name, "symbol"))
		return REPORT_KEY_SYM;
	for (int k = REPORT_KEY_COMM; k <= REPORT_KEY_CGROUP; k++)
		if (!strcmp(name, key_names[k]))
			return k;
	return 0;
}

int report__has_key(const struct report *rep, int key)
{
	for (size_t i = 0; i < rep->nkeys; i++)
		if (rep->keys[i] == key)
			return 1;
	return 0;
}

const struct pv_proc *report__parent(const struct report *rep, const struct pv_proc *p)
{
	return p->parent && p->parent != p->id ? pview__proc(rep->v, p->parent) : NULL;
}

/* ---- the images' names and CPU time ---------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * The name of an image: its main thread's, else its first named thread's;
 * without thread names, a fork child has its parent's name, and an exec'd
 * image the name the kernel gives it (the executable's base name, 15 bytes).
 */
static void image_comm(struct report *rep, size_t i, int depth)
{
	struct report_image *img = &rep->images[i];
	const struct pv_proc *p = img->p, *parent;
	const struct pv_thread *t = pv_proc__thread(p, p->pid);

	if (img->comm)
		return;
	if (!(t && t->comm[0]))
		for (size_t k = 0; k < p->nthreads && !(t && t->comm[0]); k++)
			t = &p->threads[k];
	if (t && t->comm[0]) {
		img->comm = t->comm;
		return;
	}
	parent = report__parent(rep, p);
	if (parent && parent->pid != p->pid && depth < 64) {
		size_t pi = (size_t)(parent - rep->v->procs);

		image_comm(rep, pi, depth + 1);
		img->comm = rep->images[pi].comm;
		return;
	}
	/* the kernel's name of an exec'd program: its file's base name, cut at 15 bytes */
	snprintf(img->comm_buf, sizeof(img->comm_buf), "%s",
		 p->exe[0] ? base_name(p->exe) : "[unknown]");
	img->comm = img->comm_buf;
}

/* The image's CPU time: its own record, else the sum of its threads'. */
static struct pdata_cpu image_cpu(const struct pv_proc *p)
{
	struct pdata_cpu c = p->cpu;

	if (!c.cpu_ns && !c.user_ns && !c.sys_ns)
		for (size_t k = 0; k < p->nthreads; k++) {
			c.cpu_ns = sat_add(c.cpu_ns, p->threads[k].cpu.cpu_ns);
			c.user_ns = sat_add(c.user_ns, p->threads[k].cpu.user_ns);
			c.sys_ns = sat_add(c.sys_ns, p->threads[k].cpu.sys_ns);
		}
	if (!c.cpu_ns)
		c.cpu_ns = sat_add(c.user_ns, c.sys_ns);
	return c;
}

/*
 * The kernel's accounting of an image stands for the recorded time only
 * when the image was recorded from its start: not for the process a
 * recorder attached to (its CPU time includes the time before).
 */
static bool accounting_applies(const struct report *rep, const struct pv_proc *p)
{
	if (p->placeholder)
		return false;
	return !((rep->v->hdr.flags & PDATA_F_ATTACH) && !p->parent);
}

/* ---- items ------------------------------------------------------------------------- */

typedef int (*item_fn)(void *arg, const struct report_item *it);

/* Samples per thread of one image (its samples are sorted by tid). */
struct tid_count {
	int tid;
	uint64_t samples;
};

/* A sample's row: its function, or with --inline the innermost function inlined at its PC. */
static const struct func *sample_row(struct report *rep, const struct pv_proc *p,
				     const struct pv_sample *s, uint64_t count)
{
	const struct func *frames[RESOLVE_MAX_INLINE + 1];

	if (!rep->o.inline_rows)
		return resolver__pc(rep->r, p, s->gen, s->pc, count);
	return resolver__frames(rep->r, p, s->gen, s->pc, count, frames, RESOLVE_MAX_INLINE + 1) >
			       0 ?
		       frames[0] :
		       NULL;
}

/* What a walk of an image's items gives its callback. */
enum items_mode {
	ITEMS_FIRST, /* every item; the first walk: the resolver counts the samples for its notes */
	ITEMS_ALL,   /* every item */
	ITEMS_TIMED, /* the time without samples only: the samples are only counted per thread */
	ITEMS_OFFCPU, /* the off-CPU items only */
};

struct item_walk {
	struct report *rep;
	size_t i;
	enum items_mode mode;
	item_fn cb;
	void *arg;
	struct tid_count *tids;
	size_t ntids, cap;
};

static const char *thread_comm(const struct report_image *img, int tid)
{
	const struct pv_thread *t = pv_proc__thread(img->p, tid);

	return t && t->comm[0] ? t->comm : img->comm;
}

static int push_tid(struct item_walk *w, int tid)
{
	if (array__reserve(&w->tids, &w->cap, w->ntids + 1, sizeof(*w->tids)))
		return -ENOMEM;
	w->tids[w->ntids++] = (struct tid_count){tid, 0};
	return 0;
}

static uint64_t tid_samples(const struct item_walk *w, int tid)
{
	for (size_t k = 0; k < w->ntids; k++)
		if (w->tids[k].tid == tid)
			return w->tids[k].samples;
	return 0;
}

static int emit(struct item_walk *w, int tid, const char *comm, const struct func *f, int kind,
		uint64_t ns)
{
	struct report_item it = {w->rep->images[w->i].p, tid, comm, f, NULL, kind, 0, ns};

	return ns ? w->cb(w->arg, &it) : 0;
}

static int sample_items(struct item_walk *w)
{
	struct report *rep = w->rep;
	const struct report_image *img = &rep->images[w->i];
	const struct pview *v = rep->v;
	const char *comm = NULL;
	int rc = 0;

	w->ntids = 0;
	if (w->mode == ITEMS_OFFCPU)
		return 0;
	for (size_t at = rep->sample_start[w->i];
	     !rc && at < v->nsamples && v->samples[at].proc == img->p->id; at++) {
		const struct pv_sample *s = &v->samples[at];
		struct report_item it = {img->p, s->tid,	 NULL,	   NULL,
					 s,	 REPORT_SAMPLED, s->count, 0};

		if (!w->ntids || w->tids[w->ntids - 1].tid != s->tid) {
			rc = push_tid(w, s->tid);
			comm = thread_comm(img, s->tid);
		}
		if (rc)
			return rc;
		w->tids[w->ntids - 1].samples = sat_add(w->tids[w->ntids - 1].samples, s->count);
		if (w->mode == ITEMS_TIMED || !s->count)
			continue;
		it.comm = comm;
		it.f = sample_row(rep, img->p, s, w->mode == ITEMS_FIRST ? s->count : 0);
		if (!it.f)
			return -ENOMEM;
		rc = w->cb(w->arg, &it);
	}
	return rc;
}

/* The image's off-CPU slots, as items (their ns; their stacks in it->s). */
static int offcpu_items(struct item_walk *w)
{
	struct report *rep = w->rep;
	const struct report_image *img = &rep->images[w->i];
	const struct pview *v = rep->v;
	int rc = 0, tid = 0;
	const char *comm = NULL;

	for (size_t at = rep->offcpu_start[w->i];
	     !rc && at < v->noffcpu && v->offcpu[at].proc == img->p->id; at++) {
		const struct pv_sample *s = &v->offcpu[at];
		struct report_item it = {img->p,	s->tid, NULL,	  NULL,	  s,
					 REPORT_OFFCPU, 0,	s->count, s->kind};

		if (!comm || s->tid != tid) {
			tid = s->tid;
			comm = thread_comm(img, s->tid);
		}
		if (!s->count)
			continue;
		it.comm = comm;
		it.f = resolver__pc(rep->r, img->p, s->gen, s->pc, 0);
		if (!it.f)
			return -ENOMEM;
		rc = w->cb(w->arg, &it);
	}
	return rc;
}

/* The main thread of an image, for time no thread record accounts for. */
static int main_tid(const struct pv_proc *p)
{
	if (p->pid || !p->nthreads)
		return p->pid;
	return p->threads[0].tid;
}

/* Per thread, its system time; the image's beyond its threads' goes to the main thread. */
static int accounted_items(struct item_walk *w, uint64_t *total)
{
	const struct report_image *img = &w->rep->images[w->i];
	const struct pv_proc *p = img->p;
	int rc = 0;

	*total = 0;
	for (size_t k = 0; !rc && k < p->nthreads; k++) {
		const struct pv_thread *t = &p->threads[k];

		rc = emit(w, t->tid, thread_comm(img, t->tid), &kernel_accounted, REPORT_ACCOUNTED,
			  t->cpu.sys_ns);
		*total = sat_add(*total, t->cpu.sys_ns);
	}
	if (!rc && p->cpu.sys_ns > *total) {
		rc = emit(w, main_tid(p), img->comm, &kernel_accounted, REPORT_ACCOUNTED,
			  p->cpu.sys_ns - *total);
		*total = p->cpu.sys_ns;
	}
	return rc;
}

/*
 * The image's CPU time that its samples and accounted rows do not cover:
 * per thread where the thread's CPU time is known (scaled down when the
 * threads claim more than the image has), the rest to the main thread.
 */
static int unsampled_items(struct item_walk *w, uint64_t accounted)
{
	struct report *rep = w->rep;
	const struct report_image *img = &rep->images[w->i];
	const struct pv_proc *p = img->p;
	double per = period_ns(rep), left, claimed = 0, scale = 1;
	int acc = rep->kernel == REPORT_KERNEL_ACCOUNTED, rc = 0;

	left = (double)img->cpu.cpu_ns - (double)p->samples * per - (double)accounted;
	if (!(left > 0))
		return 0;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (size_t k = 0; !rc && k < p->nthreads; k++) {
			const struct pv_thread *t = &p->threads[k];
			double u = (double)t->cpu.cpu_ns - (double)tid_samples(w, t->tid) * per -
				   (acc ? (double)t->cpu.sys_ns : 0);

			if (!t->cpu.cpu_ns || !(u > 0))
				continue;
			if (!pass) {
				claimed += u;
				continue;
			}
			rc = emit(w, t->tid, thread_comm(img, t->tid), &unsampled_func,
				  REPORT_UNSAMPLED, to_ns(u * scale));
		}
		if (!pass && claimed > left)
			scale = left / claimed;
	}
	if (!rc && left - claimed * scale >= 0.5)
		rc = emit(w, main_tid(p), img->comm, &unsampled_func, REPORT_UNSAMPLED,
			  to_ns(left - claimed * scale));
	return rc;
}

/* Every item of image i, to cb. */
static int image_items(struct report *rep, size_t i, enum items_mode mode, item_fn cb, void *arg)
{
	struct item_walk w = {rep, i, mode, cb, arg, NULL, 0, 0};
	const struct pv_proc *p = rep->images[i].p;
	uint64_t accounted = 0;
	int rc = sample_items(&w);

	if (!rc && mode != ITEMS_TIMED)
		rc = offcpu_items(&w);
	if (!rc && accounting_applies(rep, p)) {
		if (rep->kernel == REPORT_KERNEL_ACCOUNTED)
			rc = accounted_items(&w, &accounted);
		if (!rc && clock_is_cpu_time(rep->v->hdr.clock))
			rc = unsampled_items(&w, accounted);
	}
	free(w.tids);
	return rc;
}

/* ---- filters ---------------------------------------------------------------------- */

static bool has_int(const int *list, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == x)
			return true;
	return false;
}

static bool has_str(const char *const *list, size_t n, const char *a, const char *b)
{
	for (size_t i = 0; i < n; i++)
		if ((a && !strcmp(list[i], a)) || (b && !strcmp(list[i], b)))
			return true;
	return false;
}

/* path is want or below it */
static bool path_under(const char *path, const char *want)
{
	size_t n = strlen(want);

	while (n > 1 && want[n - 1] == '/')
		n--;
	return !strncmp(path, want, n) && (path[n] == 0 || path[n] == '/' || want[n - 1] == '/');
}

static bool cgroup_matches(const char *path, const char *want)
{
	struct cgroup_owner own;
	char label[96];
	size_t n = strlen(want);

	if (want[0] == '/')
		return path_under(path, want);
	if (!cgroup__owner(path, &own))
		return false;
	cgroup__label(path, label, sizeof(label));
	if (strchr(want, ':'))
		return !strncmp(label, want, n) ||
		       (!strncmp(want, own.kind, strlen(own.kind)) &&
			want[strlen(own.kind)] == ':' &&
			!strncmp(own.id, want + strlen(own.kind) + 1, n - strlen(own.kind) - 1));
	return n >= 4 && !strncmp(own.id, want, n);
}

int report__cgroup_passes(const struct report_filter *fl, const char *path)
{
	for (size_t i = 0; i < fl->ncgroups; i++)
		if (cgroup_matches(path ? path : "", fl->cgroups[i]))
			return 1;
	return !fl->ncgroups;
}

static bool item_passes(const struct report *rep, const struct report_item *it)
{
	const struct report_filter *fl = &rep->o.filter;

	if (it->kind == REPORT_OFFCPU && rep->o.reasons && !(rep->o.reasons & (1u << it->reason)))
		return false;
	return !rep->images[it->p - rep->v->procs].cgroup_out &&
	       (!fl->npids || has_int(fl->pids, fl->npids, it->p->pid)) &&
	       (!fl->ntids || has_int(fl->tids, fl->ntids, it->tid)) &&
	       (!fl->ncomms || has_str(fl->comms, fl->ncomms, it->comm, NULL)) &&
	       (!fl->ndsos || has_str(fl->dsos, fl->ndsos, it->f->objpath, it->f->object));
}

/* Each sample item of image i that passes the filters, to cb. */
struct passing_walk {
	struct report *rep;
	item_fn cb;
	void *arg;
};

static int passing_item(void *arg, const struct report_item *it)
{
	struct passing_walk *pw = arg;

	return item_passes(pw->rep, it) ? pw->cb(pw->arg, it) : 0;
}

int report__sampled_items(struct report *rep, size_t i, item_fn cb, void *arg)
{
	struct passing_walk pw = {rep, cb, arg};
	struct item_walk w = {rep, i, ITEMS_ALL, passing_item, &pw, NULL, 0, 0};
	int rc = sample_items(&w);

	free(w.tids);
	return rc;
}

int report__timed_items(struct report *rep, size_t i, item_fn cb, void *arg)
{
	return image_items(rep, i, ITEMS_TIMED, cb, arg);
}

int report__offcpu_items(struct report *rep, size_t i, item_fn cb, void *arg)
{
	struct passing_walk pw = {rep, cb, arg};
	struct item_walk w = {rep, i, ITEMS_OFFCPU, passing_item, &pw, NULL, 0, 0};

	return offcpu_items(&w);
}

/* ---- totals (--children) ------------------------------------------------------------- */

/*
 * The frames of a sample item's stack whose rows pass the filters (the
 * dso filter picks frames; the others pass or fail the whole sample),
 * into frames.  Returns their number, or -ENOMEM.
 */
static int passing_frames(struct report *rep, const struct report_item *it,
			  const struct func **frames)
{
	struct report_item fi = *it;
	int truncated, kept = 0;
	int n = callgraph__sample_frames(rep->v, rep->r, it->p, it->s, frames, &truncated);

	for (int k = 0; k < n; k++) {
		fi.f = frames[k];
		if (item_passes(rep, &fi))
			frames[kept++] = frames[k];
	}
	return n < 0 ? n : kept;
}

/* Add a sample item to the totals of the rows of its stack, in t and (if not NULL) t2. */
static int add_totals(struct report *rep, const struct report_item *it, struct rowtab *t,
		      struct rowtab *t2)
{
	const struct func *frames[CALLGRAPH_MAX_FRAMES];
	int n, rc;

	if (!rep->o.children || (it->kind != REPORT_SAMPLED && it->kind != REPORT_OFFCPU) || !it->s)
		return 0;
	n = passing_frames(rep, it, frames);
	if (n <= 0)
		return n;
	rc = rowtab__add_total(t, it, frames, (size_t)n);
	if (!rc && t2)
		rc = rowtab__add_total(t2, it, frames, (size_t)n);
	return rc ? rc : n;
}

/* ---- the whole run ------------------------------------------------------------------ */

struct run_walk {
	struct report *rep;
	struct report_image *img;
	struct rowtab *t;
};

static double item_ns(const struct report *rep, const struct report_item *it)
{
	return (double)it->count * period_ns(rep) + (double)it->ns;
}

static int run_item(void *arg, const struct report_item *it)
{
	struct run_walk *w = arg;
	struct report_totals *tot = &w->rep->totals;
	double s = it->kind == REPORT_OFFCPU ? 0 : item_ns(w->rep, it) / 1e9;
	int rc;

	w->img->seconds += s;
	tot->seconds += s;
	if (it->kind == REPORT_OFFCPU) {
		report_rows__add_off(w->img->offcpu_ns, it);
		report_rows__add_off(tot->offcpu_ns, it);
	} else if (it->kind == REPORT_ACCOUNTED) {
		w->img->accounted_ns = sat_add(w->img->accounted_ns, it->ns);
		tot->accounted_ns = sat_add(tot->accounted_ns, it->ns);
	} else if (it->kind == REPORT_UNSAMPLED) {
		w->img->unsampled_ns = sat_add(w->img->unsampled_ns, it->ns);
		tot->unsampled_ns = sat_add(tot->unsampled_ns, it->ns);
	}
	rc = add_totals(w->rep, it, w->t, NULL);
	if (rc < 0)
		return rc;
	if (rc > 0)
		w->img->shown = 1; /* a row of its stack passes */
	if (!item_passes(w->rep, it))
		return 0;
	w->img->shown = 1;
	tot->shown_seconds += s;
	if (it->kind == REPORT_OFFCPU)
		report_rows__add_off(tot->shown_offcpu_ns, it);
	return rowtab__add(w->t, it);
}

static int index_samples(struct report *rep)
{
	const struct pview *v = rep->v;
	size_t at = 0;

	size_t off = 0;

	rep->sample_start = calloc(v->nprocs ? v->nprocs : 1, sizeof(*rep->sample_start));
	rep->offcpu_start = calloc(v->nprocs ? v->nprocs : 1, sizeof(*rep->offcpu_start));
	if (!rep->sample_start || !rep->offcpu_start)
		return -ENOMEM;
	for (size_t i = 0; i < v->nprocs; i++) {
		/* all sorted by proc id */
		while (at < v->nsamples && v->samples[at].proc < v->procs[i].id)
			at++;
		rep->sample_start[i] = at;
		while (off < v->noffcpu && v->offcpu[off].proc < v->procs[i].id)
			off++;
		rep->offcpu_start[i] = off;
	}
	return 0;
}

static void run_order(const struct report *rep, struct row_order *ord)
{
	memset(ord, 0, sizeof(*ord));
	ord->sort_name = rep->o.sort_name;
	ord->children = rep->o.children;
	ord->period_ns = period_ns(rep);
	ord->value = rep->value;
	if (rep->o.nkeys) {
		memcpy(ord->keys, rep->keys, rep->nkeys * sizeof(*ord->keys));
		ord->nkeys = rep->nkeys;
	} else {
		memcpy(ord->keys, default_name_order, sizeof(default_name_order));
		ord->nkeys = ARRAY_SIZE(default_name_order);
	}
}

static struct row_limits limits(const struct report *rep, double of_seconds)
{
	return (struct row_limits){rep->o.top,	   rep->o.percent_limit, of_seconds,
				   period_ns(rep), rep->o.children,	 rep->value};
}

static int build_run(struct report *rep)
{
	struct rowtab *t = rowtab__new(rep->keys, rep->nkeys);
	struct report_row *rows = NULL;
	struct row_order ord;
	struct row_limits lim;
	size_t n = 0;
	int rc = t ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < rep->v->nprocs; i++) {
		struct run_walk w = {rep, &rep->images[i], t};

		rc = image_items(rep, i, ITEMS_FIRST, run_item, &w);
		rep->totals.images_with_time += rep->images[i].seconds > 0;
		rep->totals.images_shown += rep->images[i].shown;
	}
	if (!rc) {
		rows = rowtab__take(t, &n);
		run_order(rep, &ord);
		report_rows__sort(rows, n, &ord);
		lim = limits(rep, report__run_value(rep));
		rc = report_rows__list(rows, n, &lim, &rep->run);
	}
	free(rows);
	rowtab__free(t);
	return rc;
}

static int build_images(struct report *rep)
{
	const struct pview *v = rep->v;

	rep->images = calloc(v->nprocs ? v->nprocs : 1, sizeof(*rep->images));
	if (!rep->images)
		return -ENOMEM;
	for (size_t i = 0; i < v->nprocs; i++) {
		rep->images[i].p = &v->procs[i];
		rep->images[i].cpu = image_cpu(&v->procs[i]);
		/* once per image: the filter parses the path, and items are many */
		rep->images[i].cgroup_out =
			!report__cgroup_passes(&rep->o.filter, v->procs[i].cgroup);
	}
	for (size_t i = 0; i < v->nprocs; i++)
		image_comm(rep, i, 0);
	rep->totals.images = v->nprocs;
	rep->totals.samples = v->total;
	return index_samples(rep);
}

/* ---- one image's rows ---------------------------------------------------------------- */

struct proc_walk {
	struct report *rep;
	struct rowtab *funcs, *threads;
};

static int proc_item(void *arg, const struct report_item *it)
{
	struct proc_walk *w = arg;
	int rc = add_totals(w->rep, it, w->funcs, w->rep->o.threads ? w->threads : NULL);

	if (rc < 0)
		return rc;
	if (!item_passes(w->rep, it))
		return 0;
	rc = rowtab__add(w->funcs, it);
	if (!rc && w->threads)
		rc = rowtab__add(w->threads, it);
	return rc;
}

static int list_rows(struct report *rep, struct rowtab *t, int by_tid, double of_seconds,
		     struct report_row **rows, size_t *n, struct report_list *out)
{
	struct row_order ord = {.sort_name = rep->o.sort_name,
				.keys = {REPORT_KEY_SYM},
				.nkeys = 1,
				.by_tid = by_tid,
				.children = rep->o.children,
				.period_ns = period_ns(rep),
				.value = rep->value};
	struct row_limits lim = limits(rep, of_seconds);

	*rows = rowtab__take(t, n);
	report_rows__sort(*rows, *n, &ord);
	return out ? report_rows__list(*rows, *n, &lim, out) : 0;
}

/*
 * One thread per tid of the rows (sorted by tid): its samples and time, and
 * with report_opts.threads its rows, listed on their own.
 */
static int split_threads(struct report *rep, const struct report_image *img,
			 const struct report_row *rows, size_t n, struct report_proc *out)
{
	struct row_limits lim =
		limits(rep, report__value_of(rep->value, img->seconds, img->offcpu_ns));

	out->threads = calloc(n ? n : 1, sizeof(*out->threads));
	if (!out->threads)
		return -ENOMEM;
	for (size_t at = 0; at < n;) {
		struct report_thread *th = &out->threads[out->nthreads++];
		const struct pv_thread *t = pv_proc__thread(img->p, rows[at].tid);
		size_t end = at;
		int rc;

		for (; end < n && rows[end].tid == rows[at].tid; end++) {
			th->samples = sat_add(th->samples, rows[end].count);
			th->seconds += report__row_seconds(rep, &rows[end]);
			for (int k = 0; k < PDATA_KIND_NR; k++)
				th->offcpu_ns[k] = sat_add(th->offcpu_ns[k], rows[end].off_ns[k]);
		}
		th->tid = rows[at].tid;
		th->comm = t ? t->comm : "";
		if (t) {
			th->cpu = t->cpu;
			th->life_ns = t->life_ns;
			th->offcpu_rec_ns = t->offcpu_ns;
		}
		if (rep->o.threads) {
			rc = report_rows__list(rows + at, end - at, &lim, &th->list);
			if (rc)
				return rc;
		}
		at = end;
	}
	return 0;
}

int report__proc(struct report *rep, size_t i, struct report_proc *out)
{
	struct proc_walk w = {rep, rowtab__new(image_keys, 1), NULL};
	const struct report_image *img = &rep->images[i];
	struct report_row *rows = NULL, *trows = NULL;
	double img_value = report__value_of(rep->value, img->seconds, img->offcpu_ns);
	size_t n = 0, tn = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->img = img;
	/* the threads' time always; their rows by function with report_opts.threads */
	w.threads = rowtab__new(thread_keys, rep->o.threads ? 2 : 1);
	if (!w.funcs || !w.threads)
		rc = -ENOMEM;
	if (!rc)
		rc = image_items(rep, i, ITEMS_ALL, proc_item, &w);
	if (!rc)
		rc = list_rows(rep, w.funcs, 0, img_value, &rows, &n, &out->list);
	if (!rc) {
		rc = list_rows(rep, w.threads, 1, img_value, &trows, &tn, NULL);
		if (!rc)
			rc = split_threads(rep, img, trows, tn, out);
	}
	free(rows);
	free(trows);
	rowtab__free(w.funcs);
	rowtab__free(w.threads);
	if (rc)
		report_proc__release(out);
	return rc;
}

void report_proc__release(struct report_proc *pr)
{
	free(pr->list.rows);
	for (size_t t = 0; t < pr->nthreads; t++)
		free(pr->threads[t].list.rows);
	free(pr->threads);
	memset(pr, 0, sizeof(*pr));
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

/* Images whose code was replaced at an address while they ran (mapping generations). */
static void note_generations(struct report *rep)
{
	size_t images = 0, gens = 0;
	char what[128];

	for (size_t i = 0; i < rep->v->nprocs; i++) {
		images += rep->v->procs[i].gens != 0;
		gens += rep->v->procs[i].gens;
	}
	if (!images)
		return;
	snprintf(what, sizeof(what), "%zu process image%s had code replaced at an address", images,
		 images == 1 ? "" : "s");
	add_note(rep,
		 "%s while running (%s after the first): each sample is named by the mappings in "
		 "effect when it was taken",
		 what, gens == 1 ? "one mapping generation" : "mapping generations");
}

static void collect_notes(struct report *rep)
{
	const struct resolve_note *notes;
	size_t n = resolver__notes(rep->r, &notes);

	if (rep->v->bad_records)
		add_note(rep, "%s malformed record(s) in the profile were ignored%s",
			 rep->v->bad_records == 1 ? "one" : "some", "");
	note_generations(rep);
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
		if (fl & SYMOBJ_BY_BUILD_ID)
			add_note(rep, "%s: gone or rebuilt since it was recorded; %s", path,
				 symobj__why(o));
		else if (fl & SYMOBJ_BUILD_ID_DIFFERS)
			add_note(rep, "%s: %s", path,
				 "rebuilt after it was recorded (its build id differs); names may "
				 "be wrong");
		else if (!(fl & SYMOBJ_BUILD_ID_MATCH) && notes[i].first_start_ns != UINT64_MAX &&
			 (uint64_t)symobj__mtime(o) > notes[i].first_start_ns / 1000000000ull + 1)
			add_note(rep, "%s: %s", path,
				 "modified after it was recorded; names may be wrong");
		else if (notes[i].no_vaddr)
			add_note(rep, "%s: %s", path,
				 "some addresses are outside its segments (binary changed?)");
		if (fl & SYMOBJ_DEBUGDATA_TOO_BIG)
			add_note(rep,
				 "%s: its MiniDebugInfo (.gnu_debugdata) decompresses to more "
				 "than %s; not read",
				 path, SYMFILE_DEBUGDATA_MAX_TEXT);
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

static void choose_keys(struct report *rep)
{
	if (rep->o.nkeys) {
		/* each key once, in the order first given */
		for (size_t i = 0; i < rep->o.nkeys && i < REPORT_MAX_KEYS; i++) {
			if (!report__key_name(rep->o.keys[i]) ||
			    has_int(rep->keys, rep->nkeys, rep->o.keys[i]))
				continue;
			rep->keys[rep->nkeys++] = rep->o.keys[i];
		}
	}
	if (!rep->nkeys) {
		memcpy(rep->keys, default_keys, sizeof(default_keys));
		rep->nkeys = ARRAY_SIZE(default_keys);
		rep->o.nkeys = 0;
	}
}

int report__load(struct report **out, const char *path, const struct report_opts *o, char *why,
		 size_t whylen)
{
	struct report *rep = calloc(1, sizeof(*rep));
	int rc;

	if (!rep)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	rep->o = *o;
	choose_keys(rep);
	rc = pview__load(&rep->v, path, why, whylen);
	if (rc < 0) {
		free(rep);
		return rc;
	}
	if (rep->v->hdr.period_ns)
		rep->period_s = (double)rep->v->hdr.period_ns / 1e9;
	else if (rep->v->hdr.nominal_hz)
		rep->period_s = 1.0 / rep->v->hdr.nominal_hz;
	rep->kernel = kernel_mode(&rep->v->hdr);
	rep->offcpu = rep->v->noffcpu || rep->v->hdr.offcpu || rep->v->offcpu_note;
	rep->value = rep->o.value;
	if (rep->value <= REPORT_VALUE_AUTO || rep->value >= REPORT_VALUE_NR)
		rep->value = rep->v->noffcpu ? REPORT_VALUE_WALL : REPORT_VALUE_CPU;
	rep->r = resolver__new(rep->v, rep->o.lines);
	rc = rep->r ? build_images(rep) : -ENOMEM;
	if (!rc)
		rc = build_run(rep);
	if (rc < 0) {
		report__free(rep);
		return why_fail(why, whylen, rc, "out of memory");
	}
	collect_notes(rep);
	*out = rep;
	return 0;
}

void report__free(struct report *rep)
{
	if (!rep)
		return;
	free(rep->run.rows);
	free(rep->images);
	free(rep->sample_start);
	free(rep->offcpu_start);
	ARRAY_FREE_PTRS(rep->notes, rep->nnotes);
	resolver__free(rep->r);
	pview__free(rep->v);
	free(rep);
}
