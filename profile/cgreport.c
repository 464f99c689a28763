// SPDX-License-Identifier: MIT
/*
 * cgreport: --children, --call-graph, --callers, --callees and the JSON
 * stacks of `profil report` (see cgreport.h).  One pass over each process's
 * samples names every frame once and feeds the process's call graph and,
 * with --threads, its thread's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/cgreport.h"
#include "utils/htab.h"
#include "utils/why.h"

/* What is shown of one scope: a process image or one of its threads. */
struct cg_scope {
	struct callgraph *cg;
	struct cg_total *totals; /* --children */
	size_t ntotals;
	struct cg_tree *tree;	 /* --call-graph */
	struct cg_tree *callers; /* --callers */
	struct cg_tree *callees; /* --callees */
};

struct proc_part {
	struct cg_scope all;
	struct cg_scope *threads; /* with --threads: parallel to report_proc.threads */
	size_t nthreads;
};

struct cgreport {
	const struct report *m;
	struct cgreport_opts o;
	int has_stacks;
	struct proc_part *procs; /* parallel to m->procs, NULL when nothing is built */
};

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* ---- options ------------------------------------------------------------------- */

int cgreport__parse_call_graph(const char *arg, struct cgreport_opts *o, char *why, size_t whylen)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	double t = CGREPORT_DEFAULT_THRESHOLD;
	char *end;

	if (len == 6 && !strncmp(arg, "caller", 6))
		o->order = CG_CALLER;
	else if (len == 6 && !strncmp(arg, "callee", 6))
		o->order = CG_CALLEE;
	else
		return why_fail(why, whylen, -EINVAL,
				"--call-graph wants caller or callee, optionally with ,PERCENT "
				"(e.g. caller,0.5), not '%s'",
				arg);
	if (comma) {
		errno = 0;
		t = strtod(comma + 1, &end);
		if (errno || end == comma + 1 || *end || !(t >= 0 && t <= 100))
			return why_fail(why, whylen, -EINVAL,
					"--call-graph: the threshold must be a percentage from 0 "
					"to 100, not '%s'",
					comma + 1);
	}
	o->call_graph = 1;
	o->threshold = t;
	return 0;
}

int cgreport__wanted(const struct cgreport_opts *o)
{
	return o->children || o->call_graph || o->callers || o->callees;
}

int cgreport__has_stacks(const struct report *m)
{
	return m->v->hdr.callgraph != PDATA_CG_NONE || m->v->nstacks > 1;
}

/* ---- building ------------------------------------------------------------------------ */

static void scope_free(struct cg_scope *sc)
{
	callgraph__free(sc->cg);
	free(sc->totals);
	cg_tree__free(sc->tree);
	cg_tree__free(sc->callers);
	cg_tree__free(sc->callees);
}

static int scope_finish(const struct cgreport *cr, struct cg_scope *sc)
{
	const struct cgreport_opts *o = &cr->o;
	int rc = 0;

	if (o->children)
		rc = callgraph__totals(sc->cg, cr->m->o.sort_name, &sc->totals, &sc->ntotals);
	if (!rc && o->call_graph)
		rc = callgraph__tree(sc->cg, o->order, NULL, &sc->tree);
	if (!rc && o->callers)
		rc = callgraph__tree(sc->cg, CG_CALLEE, o->callers, &sc->callers);
	if (!rc && o->callees)
		rc = callgraph__tree(sc->cg, CG_CALLER, o->callees, &sc->callees);
	return rc;
}

/* The process's samples, once: into its call graph, and its thread's with --threads. */
static int fill_proc(const struct cgreport *cr, const struct report_proc *op, struct proc_part *pp)
{
	const struct pview *v = cr->m->v;
	const struct func *frames[CALLGRAPH_MAX_FRAMES];
	size_t t = 0;

	for (size_t i = callgraph__first_sample(v, op->p->id);
	     i < v->nsamples && v->samples[i].proc == op->p->id; i++) {
		const struct pv_sample *s = &v->samples[i];
		int truncated, n, rc;

		if (!s->count)
			continue;
		n = callgraph__sample_frames(v, cr->m->r, op->p, s, frames, &truncated);
		if (n < 0)
			return n;
		rc = callgraph__add(pp->all.cg, s->tid, frames, (uint32_t)n, truncated, s->count);
		if (rc < 0)
			return rc;
		if (!pp->threads)
			continue;
		while (t < pp->nthreads && op->threads[t].tid != s->tid)
			t++; /* both in tid order */
		if (t == pp->nthreads)
			return -EINVAL; /* cannot happen: the report has every thread */
		rc = callgraph__add(pp->threads[t].cg, s->tid, frames, (uint32_t)n, truncated,
				    s->count);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int build_proc(struct cgreport *cr, size_t i)
{
	const struct report_proc *op = &cr->m->procs[i];
	struct proc_part *pp = &cr->procs[i];
	int rc;

	pp->all.cg = callgraph__new();
	if (!pp->all.cg)
		return -ENOMEM;
	if (cr->m->o.threads && op->nthreads) {
		pp->threads = calloc(op->nthreads, sizeof(*pp->threads));
		if (!pp->threads)
			return -ENOMEM;
		pp->nthreads = op->nthreads;
		for (size_t t = 0; t < pp->nthreads; t++)
			if (!(pp->threads[t].cg = callgraph__new()))
				return -ENOMEM;
	}
	rc = fill_proc(cr, op, pp);
	if (!rc)
		rc = scope_finish(cr, &pp->all);
	for (size_t t = 0; !rc && t < pp->nthreads; t++)
		rc = scope_finish(cr, &pp->threads[t]);
	return rc;
}

/* Is the function of a --callers/--callees tree on a stack of some process? */
static int focus_found(const struct cgreport *cr, int callers)
{
	for (size_t i = 0; i < cr->m->v->nprocs; i++) {
		const struct cg_tree *t =
			callers ? cr->procs[i].all.callers : cr->procs[i].all.callees;

		if (t && cg_tree__root(t)->total)
			return 1;
	}
	return 0;
}

int cgreport__new(struct cgreport **out, const struct report *m, const struct cgreport_opts *o,
		  char *why, size_t whylen)
{
	struct cgreport *cr = calloc(1, sizeof(*cr));
	int rc = 0;

	*out = NULL;
	if (!cr)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	cr->m = m;
	cr->o = *o;
	cr->has_stacks = cgreport__has_stacks(m);
	if (cgreport__wanted(o) || (o->json && cr->has_stacks)) {
		cr->procs = calloc(m->v->nprocs ? m->v->nprocs : 1, sizeof(*cr->procs));
		rc = cr->procs ? 0 : -ENOMEM;
		for (size_t i = 0; !rc && i < m->v->nprocs; i++)
			rc = build_proc(cr, i);
	}
	if (rc < 0) {
		cgreport__free(cr);
		return why_fail(why, whylen, rc, "out of memory");
	}
	if ((o->callers && !focus_found(cr, 1)) || (o->callees && !focus_found(cr, 0))) {
		const char *f = o->callers && !focus_found(cr, 1) ? o->callers : o->callees;

		cgreport__free(cr);
		return why_fail(why, whylen, -ENOENT, "no function named '%s' in the profile", f);
	}
	*out = cr;
	return 0;
}

void cgreport__free(struct cgreport *cr)
{
	if (!cr)
		return;
	for (size_t i = 0; cr->procs && i < cr->m->v->nprocs; i++) {
		scope_free(&cr->procs[i].all);
		for (size_t t = 0; t < cr->procs[i].nthreads; t++)
			scope_free(&cr->procs[i].threads[t]);
		free(cr->procs[i].threads);
	}
	free(cr->procs);
	free(cr);
}

/* The scope of (proc, thread), or NULL when nothing was built for it. */
static const struct cg_scope *scope_of(const struct cgreport *cr, size_t proc, size_t thread)
{
	const struct proc_part *pp;

	if (!cr->procs || proc >= cr->m->v->nprocs)
		return NULL;
	pp = &cr->procs[proc];
	if (thread == CGREPORT_PROCESS)
		return &pp->all;
	return thread < pp->nthreads ? &pp->threads[thread] : NULL;
}

/* ---- text ------------------------------------------------------------------------- */

void cgreport__text_header(const struct cgreport *cr, FILE *out)
{
	const struct pdata_header *h = &cr->m->v->hdr;

	if (!cr->has_stacks) {
		if (cgreport__wanted(&cr->o))
			fprintf(out, "# call stacks: none (a flat profile: each sample is its leaf "
				     "alone, so total equals self)\n");
		return;
	}
	fprintf(out,
		"# call stacks: %s; %llu sample(s) cut short (their outer callers are "
		"[truncated]), %llu counted without their stack (frame table full)\n",
		pdata__callgraph_name(h->callgraph), (unsigned long long)h->truncated,
		(unsigned long long)h->stacks_dropped);
}

static size_t shown(const struct cgreport *cr, size_t n)
{
	return cr->o.top > 0 && (size_t)cr->o.top < n ? (size_t)cr->o.top : n;
}

static void text_source(const struct cgreport *cr, const struct func *f, FILE *out)
{
	if (!cr->m->o.lines)
		return;
	if (f->file)
		fprintf(out, "  %s:%d", f->file, f->line);
	else
		fputs("  ??", out);
}

static void text_totals(const struct cgreport *cr, const struct cg_scope *sc, uint64_t of,
			FILE *out)
{
	size_t n = shown(cr, sc->ntotals);
	double per = cr->m->period_s;
	int w = 8;

	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(sc->totals[i].f->name);

		if (l > w)
			w = l > 60 ? 60 : l;
	}
	fprintf(out,
		"  %%total   %%self    total s     self s      total       self  %-*s  object%s\n",
		w, "function", cr->m->o.lines ? "  source" : "");
	for (size_t i = 0; i < n; i++) {
		const struct cg_total *t = &sc->totals[i];

		fprintf(out, "  %6.2f  %6.2f  %9.3f  %9.3f  %9llu  %9llu  %-*s  %s",
			pct(t->total, of), pct(t->self, of), (double)t->total * per,
			(double)t->self * per, (unsigned long long)t->total,
			(unsigned long long)t->self, w, t->f->name, t->f->object);
		text_source(cr, t->f, out);
		fputc('\n', out);
	}
}

int cgreport__text_table(const struct cgreport *cr, size_t proc, size_t thread, FILE *out)
{
	const struct cg_scope *sc = scope_of(cr, proc, thread);

	if (!sc)
		return 0;
	if (cr->o.callers || cr->o.callees)
		return 1; /* only the trees */
	if (!cr->o.children)
		return 0;
	text_totals(cr, sc, cr->m->procs[proc].p->samples, out);
	return 1;
}

/* A node and, most samples first, its children down to the threshold. */
static void text_node(const struct cgreport *cr, const struct cg_node *nd, int depth, uint64_t of,
		      FILE *out)
{
	fprintf(out, "  %6.2f%%  %9llu  %*s%s", pct(nd->total, of), (unsigned long long)nd->total,
		2 * depth, "", nd->f->name);
	text_source(cr, nd->f, out);
	fputc('\n', out);
	for (size_t k = 0; k < nd->nkids; k++) {
		if ((double)nd->kids[k]->total * 100.0 < cr->o.threshold * (double)of)
			break; /* sorted: the rest are smaller */
		text_node(cr, nd->kids[k], depth + 1, of, out);
	}
}

static void text_tree(const struct cgreport *cr, const struct cg_tree *t, const char *focus,
		      const char *title, uint64_t of, FILE *out)
{
	const struct cg_node *root = cg_tree__root(t);

	fprintf(out, "\n %s", title);
	if (focus)
		fprintf(out, " %s", focus);
	fprintf(out, ", nodes of at least %g%% of the process's samples:\n", cr->o.threshold);
	if (focus && !root->total) {
		fprintf(out, "  (%s is on no stack here)\n", focus);
		return;
	}
	fprintf(out, "   %%total    samples  function\n");
	if (focus) {
		fprintf(out, "  %6.2f%%  %9llu  %s (self %llu)\n", pct(root->total, of),
			(unsigned long long)root->total, focus, (unsigned long long)root->self);
		for (size_t k = 0; k < root->nkids; k++)
			if ((double)root->kids[k]->total * 100.0 >= cr->o.threshold * (double)of)
				text_node(cr, root->kids[k], 1, of, out);
		return;
	}
	for (size_t k = 0; k < root->nkids; k++)
		if ((double)root->kids[k]->total * 100.0 >= cr->o.threshold * (double)of)
			text_node(cr, root->kids[k], 0, of, out);
}

void cgreport__text_trees(const struct cgreport *cr, size_t proc, size_t thread, FILE *out)
{
	const struct cg_scope *sc = scope_of(cr, proc, thread);
	uint64_t of;

	if (!sc)
		return;
	of = cr->m->procs[proc].p->samples;
	if (sc->tree)
		text_tree(cr, sc->tree, NULL,
			  cr->o.order == CG_CALLER ?
				  "call graph, caller order (top-down: from the outermost callers "
				  "inwards)" :
				  "call graph, callee order (bottom-up: from where the samples hit "
				  "outwards, through the callers)",
			  of, out);
	if (sc->callers)
		text_tree(cr, sc->callers, cr->o.callers, "callers (outwards) of", of, out);
	if (sc->callees)
		text_tree(cr, sc->callees, cr->o.callees, "callees (inwards) of", of, out);
}

/* ---- JSON -------------------------------------------------------------------------- */

/* A double printed with 9 significant digits (as the rest of the report). */
static struct json_object *jdouble(double d)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.9g", d);
	if (!strpbrk(buf, ".en"))
		strcat(buf, ".0");
	return json_object_new_double_s(d, buf);
}

static struct json_object *jint(uint64_t n)
{
	return json_object_new_int64(n > INT64_MAX ? INT64_MAX : (int64_t)n);
}

static int jadd(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, k, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int jpush(struct json_object *arr, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int cgreport__json_top(const struct cgreport *cr, struct json_object *top)
{
	const struct pdata_header *h = &cr->m->v->hdr;
	int rc =
		jadd(top, "callgraph", json_object_new_string(pdata__callgraph_name(h->callgraph)));

	if (!rc)
		rc = jadd(top, "truncated_samples", jint(h->truncated));
	if (!rc)
		rc = jadd(top, "stacks_dropped", jint(h->stacks_dropped));
	return rc;
}

/* The frames of one process: every function row of its stacks, numbered as met. */
struct frame_ent {
	const struct func *f; /* the key */
	uint64_t idx;
};

static uint64_t frame_hash(const void *key)
{
	return htab_hash_u64((uintptr_t) * (const struct func *const *)key);
}

static bool frame_eq(const void *entry, const void *key)
{
	return ((const struct frame_ent *)entry)->f == *(const struct func *const *)key;
}

static const struct htab_type frame_type = {
	.entry_size = sizeof(struct frame_ent),
	.hash = frame_hash,
	.eq = frame_eq,
};

struct frames {
	struct htab *ids;
	struct json_object *arr; /* the frame objects, in number order */
	int lines;
};

/* The number of f in fr, added (with its frame object) when new; -ENOMEM. */
static int64_t frame_id(struct frames *fr, const struct func *f)
{
	struct frame_ent *e;
	struct json_object *o;
	bool fresh;
	int rc = 0;

	e = htab__insert(fr->ids, &frame_type, &f, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh)
		return (int64_t)e->idx;
	o = json_object_new_object();
	if (o) {
		rc |= jadd(o, "name", json_object_new_string(f->name));
		rc |= jadd(o, "object", json_object_new_string(f->objpath));
		if (fr->lines) {
			if (f->file)
				rc |= jadd(o, "file", json_object_new_string(f->file));
			else
				json_object_object_add(o, "file", NULL); /* JSON null */
			rc |= jadd(o, "line", json_object_new_int(f->line));
		}
	}
	if (!o || rc || jpush(fr->arr, o)) {
		if (o && rc)
			json_object_put(o);
		htab__cancel_fresh(fr->ids);
		return -ENOMEM;
	}
	e->f = f;
	e->idx = htab__count(fr->ids) - 1;
	return (int64_t)e->idx;
}

/* A stack and its place in the call graph (ties keep that order). */
struct stack_at {
	struct cg_stack s;
	size_t i;
};

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_at *x = a, *y = b;

	if (x->s.tid != y->s.tid)
		return x->s.tid < y->s.tid ? -1 : 1;
	if (x->s.count != y->s.count)
		return x->s.count > y->s.count ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* "stacks": every distinct (thread, stack) of the process, by thread, most samples first. */
static struct json_object *json_stacks(const struct callgraph *cg, struct frames *fr)
{
	size_t n = callgraph__nstacks(cg);
	struct stack_at *st = malloc((n ? n : 1) * sizeof(*st));
	struct json_object *arr = json_object_new_array();
	int rc = st && arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		callgraph__stack(cg, i, &st[i].s);
		st[i].i = i;
	}
	if (!rc && n > 1)
		qsort(st, n, sizeof(*st), cmp_stack);
	for (size_t i = 0; !rc && i < n; i++) {
		struct json_object *o = json_object_new_object(), *fa = json_object_new_array();

		rc = o && fa ? 0 : -ENOMEM;
		for (uint32_t k = 0; !rc && k < st[i].s.n; k++) {
			int64_t id = frame_id(fr, st[i].s.frames[k]);

			rc = id < 0 ? -ENOMEM : jpush(fa, json_object_new_int64(id));
		}
		if (!rc) {
			rc |= jadd(o, "tid", json_object_new_int(st[i].s.tid));
			rc |= jadd(o, "samples", jint(st[i].s.count));
			rc |= jadd(o, "truncated", json_object_new_boolean(st[i].s.truncated));
			rc |= jadd(o, "frames", fa);
			fa = NULL;
		}
		json_object_put(fa);
		if (rc || jpush(arr, o)) {
			if (rc)
				json_object_put(o);
			rc = -ENOMEM;
		}
	}
	free(st);
	if (rc) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

struct jtree {
	const struct cgreport *cr;
	struct frames *fr;
	uint64_t of;
};

static int json_node_fields(const struct jtree *jt, struct json_object *o,
			    const struct cg_node *nd);

/* The children of nd at or above the threshold, as node objects. */
static struct json_object *json_kids(const struct jtree *jt, const struct cg_node *nd)
{
	struct json_object *arr = json_object_new_array();
	int rc = arr ? 0 : -ENOMEM;

	for (size_t k = 0; !rc && k < nd->nkids; k++) {
		const struct cg_node *kid = nd->kids[k];
		struct json_object *o;
		int64_t id;

		if ((double)kid->total * 100.0 < jt->cr->o.threshold * (double)jt->of)
			break;
		id = frame_id(jt->fr, kid->f);
		o = json_object_new_object();
		rc = o && id >= 0 ? 0 : -ENOMEM;
		if (!rc)
			rc = jadd(o, "frame", json_object_new_int64(id));
		if (!rc)
			rc = json_node_fields(jt, o, kid);
		if (rc || jpush(arr, o)) {
			if (rc)
				json_object_put(o);
			rc = -ENOMEM;
		}
	}
	if (rc) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

static int json_node_fields(const struct jtree *jt, struct json_object *o, const struct cg_node *nd)
{
	int rc = 0;

	rc |= jadd(o, "samples", jint(nd->total));
	rc |= jadd(o, "self_samples", jint(nd->self));
	rc |= jadd(o, "percent", jdouble(pct(nd->total, jt->of)));
	if (!rc)
		rc = jadd(o, "children", json_kids(jt, nd));
	return rc;
}

/* A whole-graph tree: {order, threshold_percent, samples, children}. */
static struct json_object *json_graph(const struct jtree *jt, const struct cg_tree *t)
{
	struct json_object *o = json_object_new_object();
	const struct cg_node *root = cg_tree__root(t);
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		rc |= jadd(
			o, "order",
			json_object_new_string(jt->cr->o.order == CG_CALLER ? "caller" : "callee"));
		rc |= jadd(o, "threshold_percent", jdouble(jt->cr->o.threshold));
		rc |= jadd(o, "samples", jint(root->total));
	}
	if (!rc)
		rc = jadd(o, "children", json_kids(jt, root));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A tree around one function: {function, threshold_percent, samples, self_samples, percent, children}. */
static struct json_object *json_focus(const struct jtree *jt, const struct cg_tree *t,
				      const char *focus)
{
	struct json_object *o = json_object_new_object();
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		rc |= jadd(o, "function", json_object_new_string(focus));
		rc |= jadd(o, "threshold_percent", jdouble(jt->cr->o.threshold));
	}
	if (!rc)
		rc = json_node_fields(jt, o, cg_tree__root(t));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The --children table as function objects: the flat fields and the totals. */
static struct json_object *json_totals(const struct cgreport *cr, const struct cg_scope *sc,
				       uint64_t of)
{
	struct json_object *arr = json_object_new_array();
	size_t n = shown(cr, sc->ntotals);
	double per = cr->m->period_s;
	int rc = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		const struct cg_total *t = &sc->totals[i];
		struct json_object *f = json_object_new_object();

		rc = f ? 0 : -ENOMEM;
		if (!rc) {
			rc |= jadd(f, "name", json_object_new_string(t->f->name));
			rc |= jadd(f, "object", json_object_new_string(t->f->objpath));
			rc |= jadd(f, "samples", jint(t->self));
			rc |= jadd(f, "percent", jdouble(pct(t->self, of)));
			rc |= jadd(f, "self_seconds", jdouble((double)t->self * per));
			rc |= jadd(f, "total_samples", jint(t->total));
			rc |= jadd(f, "total_percent", jdouble(pct(t->total, of)));
			rc |= jadd(f, "total_seconds", jdouble((double)t->total * per));
			if (cr->m->o.lines) {
				if (t->f->file)
					rc |= jadd(f, "file", json_object_new_string(t->f->file));
				else
					json_object_object_add(f, "file", NULL);
				rc |= jadd(f, "line", json_object_new_int(t->f->line));
			}
		}
		if (rc || jpush(arr, f)) {
			if (rc)
				json_object_put(f);
			rc = -ENOMEM;
		}
	}
	if (rc) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

/* What one scope adds to its object o: totals as "functions", and the trees. */
static int json_scope(const struct jtree *jt, const struct cg_scope *sc, struct json_object *o)
{
	const struct cgreport_opts *op = &jt->cr->o;
	int rc = 0;

	if (op->children)
		rc = jadd(o, "functions", json_totals(jt->cr, sc, jt->of));
	if (!rc && sc->tree)
		rc = jadd(o, "call_graph", json_graph(jt, sc->tree));
	if (!rc && sc->callers)
		rc = jadd(o, "callers", json_focus(jt, sc->callers, op->callers));
	if (!rc && sc->callees)
		rc = jadd(o, "callees", json_focus(jt, sc->callees, op->callees));
	return rc;
}

int cgreport__json_proc(const struct cgreport *cr, size_t proc, struct json_object *o)
{
	const struct proc_part *pp;
	struct frames fr = {0};
	struct jtree jt;
	struct json_object *threads = NULL;
	int rc;

	if (!cr->procs || proc >= cr->m->v->nprocs)
		return 0;
	pp = &cr->procs[proc];
	fr.ids = htab__new(&frame_type, 255);
	fr.arr = json_object_new_array();
	fr.lines = cr->m->o.lines;
	jt = (struct jtree){cr, &fr, cr->m->procs[proc].p->samples};
	rc = fr.ids && fr.arr ? 0 : -ENOMEM;
	if (!rc)
		rc = jadd(o, "stacks", json_stacks(pp->all.cg, &fr));
	if (!rc)
		rc = json_scope(&jt, &pp->all, o);
	json_object_object_get_ex(o, "threads", &threads);
	for (size_t t = 0; !rc && t < pp->nthreads; t++) {
		struct json_object *to = json_object_array_get_idx(threads, t), *tid;

		/* the report's thread objects are in the same (tid) order */
		if (!to || !json_object_object_get_ex(to, "tid", &tid) ||
		    json_object_get_int(tid) != cr->m->procs[proc].threads[t].tid)
			continue;
		rc = json_scope(&jt, &pp->threads[t], to);
	}
	/* last: every frame a tree or stack refers to is numbered by now */
	if (!rc) {
		rc = jadd(o, "frames", fr.arr);
		fr.arr = NULL;
	}
	json_object_put(fr.arr);
	htab__free(fr.ids);
	return rc;
}

/* ---- CSV ---------------------------------------------------------------------------- */

int cgreport__csv_wanted(const struct cgreport *cr)
{
	return cr->o.children && cr->procs;
}

static void csv_str(const char *s, FILE *out)
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

static void csv_scope(const struct cgreport *cr, const struct pv_proc *p,
		      const struct report_thread *th, const struct cg_scope *sc, FILE *out)
{
	size_t n = shown(cr, sc->ntotals);
	double per = cr->m->period_s;

	for (size_t i = 0; i < n; i++) {
		const struct cg_total *t = &sc->totals[i];

		fprintf(out, "%d,", p->pid);
		csv_str(p->exe, out);
		if (th) {
			fprintf(out, ",%d,", th->tid);
			csv_str(th->comm, out);
		}
		fputc(',', out);
		csv_str(t->f->name, out);
		fputc(',', out);
		csv_str(t->f->objpath, out);
		if (cr->m->o.lines) {
			fputc(',', out);
			csv_str(t->f->file ? t->f->file : "", out);
			fprintf(out, ",%d", t->f->line);
		}
		fprintf(out, ",%llu,%.4f,%.6f,%llu,%.4f,%.6f\n", (unsigned long long)t->self,
			pct(t->self, p->samples), (double)t->self * per,
			(unsigned long long)t->total, pct(t->total, p->samples),
			(double)t->total * per);
	}
}

void cgreport__csv(const struct cgreport *cr, FILE *out)
{
	const struct report *m = cr->m;

	fprintf(out,
		"pid,exe,%sfunction,object,%ssamples,percent,self_seconds,total_samples,"
		"total_percent,total_seconds\n",
		m->o.threads ? "tid,comm," : "", m->o.lines ? "file,line," : "");
	for (size_t i = 0; i < m->v->nprocs; i++) {
		const struct proc_part *pp = &cr->procs[i];

		if (!m->o.threads) {
			csv_scope(cr, m->procs[i].p, NULL, &pp->all, out);
			continue;
		}
		for (size_t t = 0; t < pp->nthreads; t++)
			csv_scope(cr, m->procs[i].p, &m->procs[i].threads[t], &pp->threads[t], out);
	}
}
