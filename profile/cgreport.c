// SPDX-License-Identifier: MIT
/*
 * cgreport: --call-graph, --callers, --callees and the JSON stacks of
 * `profil report` (see cgreport.h).  The whole run's graph is built once,
 * from every image's samples the filters keep; an image's (and its
 * threads') while a writer shows it, from the same samples.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/cgreport.h"
#include "utils/htab.h"
#include "utils/why.h"

/* What is shown of one scope: the whole run, a process image or one of its threads. */
struct cg_scope {
	struct callgraph *cg;
	struct cg_tree *tree;	 /* --call-graph */
	struct cg_tree *callers; /* --callers */
	struct cg_tree *callees; /* --callees */
};

struct cgreport_image {
	const struct report_proc *pr;
	uint64_t of; /* the image's samples: what percentages are a share of */
	struct cg_scope all;
	struct cg_scope *threads; /* with --threads and trees: parallel to pr->threads */
	size_t nthreads;
};

struct cgreport {
	struct report *m;
	struct cgreport_opts o;
	int has_stacks;
	int trees;	      /* o asks for trees */
	struct cg_scope *run; /* the whole run's, when o asks for trees */
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
	o->threshold_given = comma != NULL;
	return 0;
}

int cgreport__wanted(const struct cgreport_opts *o)
{
	return o->children || o->call_graph || o->callers || o->callees;
}

static int trees_wanted(const struct cgreport_opts *o)
{
	return o->call_graph || o->callers || o->callees;
}

int cgreport__has_stacks(const struct report *m)
{
	return m->v->hdr.callgraph != PDATA_CG_NONE || m->v->nstacks > 1;
}

/* ---- building ------------------------------------------------------------------------ */

static void scope_free(struct cg_scope *sc)
{
	callgraph__free(sc->cg);
	cg_tree__free(sc->tree);
	cg_tree__free(sc->callers);
	cg_tree__free(sc->callees);
	memset(sc, 0, sizeof(*sc));
}

static int scope_finish(const struct cgreport *cr, struct cg_scope *sc)
{
	const struct cgreport_opts *o = &cr->o;
	int rc = 0;

	if (o->call_graph)
		rc = callgraph__tree(sc->cg, o->order, NULL, &sc->tree);
	if (!rc && o->callers)
		rc = callgraph__tree(sc->cg, CG_CALLEE, o->callers, &sc->callers);
	if (!rc && o->callees)
		rc = callgraph__tree(sc->cg, CG_CALLER, o->callees, &sc->callees);
	return rc;
}

/* Where a sample item goes: a graph (the run's merges the threads: tid 0), and a thread's. */
struct fill {
	const struct cgreport *cr;
	struct callgraph *cg;
	int keep_tid;
	struct cgreport_image *ci; /* an image's threads, or NULL */
};

/* The index of thread tid in pr->threads (in tid order), or pr->nthreads. */
static size_t thread_index(const struct report_proc *pr, int tid)
{
	size_t lo = 0, hi = pr->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pr->nthreads && pr->threads[lo].tid == tid ? lo : pr->nthreads;
}

static int fill_item(void *arg, const struct report_item *it)
{
	struct fill *fl = arg;
	const struct report *m = fl->cr->m;
	const struct func *frames[CALLGRAPH_MAX_FRAMES];
	int truncated, n, rc;
	size_t t;

	n = callgraph__sample_frames(m->v, m->r, it->p, it->s, frames, &truncated);
	if (n < 0)
		return n;
	rc = callgraph__add(fl->cg, fl->keep_tid ? it->tid : 0, frames, (uint32_t)n, truncated,
			    it->count);
	if (rc < 0 || !fl->ci || !fl->ci->threads)
		return rc;
	t = thread_index(fl->ci->pr, it->tid);
	if (t == fl->ci->nthreads)
		return 0; /* cannot happen: the image's rows have the thread of every item */
	return callgraph__add(fl->ci->threads[t].cg, it->tid, frames, (uint32_t)n, truncated,
			      it->count);
}

static int build_run(struct cgreport *cr)
{
	struct fill fl = {cr, NULL, 0, NULL};
	int rc = 0;

	cr->run = calloc(1, sizeof(*cr->run));
	if (!cr->run || !(cr->run->cg = callgraph__new()))
		return -ENOMEM;
	fl.cg = cr->run->cg;
	for (size_t i = 0; !rc && i < cr->m->v->nprocs; i++)
		rc = report__sampled_items(cr->m, i, fill_item, &fl);
	return rc ? rc : scope_finish(cr, cr->run);
}

static int filtered(const struct report *m)
{
	const struct report_filter *f = &m->o.filter;

	return f->npids || f->ntids || f->ncomms || f->ndsos;
}

int cgreport__new(struct cgreport **out, struct report *m, const struct cgreport_opts *o, char *why,
		  size_t whylen)
{
	struct cgreport *cr = calloc(1, sizeof(*cr));
	const char *missing = NULL;
	int rc = 0;

	*out = NULL;
	if (!cr)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	cr->m = m;
	cr->o = *o;
	/* --percent-limit is the trees' threshold too, unless --call-graph gave one (perf) */
	if (!o->threshold_given && m->o.percent_limit > 0)
		cr->o.threshold = m->o.percent_limit;
	cr->has_stacks = cgreport__has_stacks(m);
	cr->trees = trees_wanted(o);
	if (cr->trees)
		rc = build_run(cr);
	if (rc < 0) {
		cgreport__free(cr);
		return why_fail(why, whylen, rc, "out of memory");
	}
	if (o->callers && !cg_tree__root(cr->run->callers)->total)
		missing = o->callers;
	else if (o->callees && !cg_tree__root(cr->run->callees)->total)
		missing = o->callees;
	if (missing) {
		cgreport__free(cr);
		return why_fail(why, whylen, -ENOENT, "no function named '%s' in the %s", missing,
				filtered(m) ? "samples the filters keep" : "profile");
	}
	*out = cr;
	return 0;
}

void cgreport__free(struct cgreport *cr)
{
	if (!cr)
		return;
	if (cr->run)
		scope_free(cr->run);
	free(cr->run);
	free(cr);
}

int cgreport__image(const struct cgreport *cr, const struct report_proc *pr, int json,
		    struct cgreport_image **out)
{
	struct cgreport_image *ci;
	struct fill fl = {cr, NULL, 1, NULL};
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!cr || !(cr->trees || (json && cr->has_stacks)))
		return 0;
	ci = calloc(1, sizeof(*ci));
	if (!ci || !(ci->all.cg = callgraph__new())) {
		free(ci);
		return -ENOMEM;
	}
	ci->pr = pr;
	ci->of = pr->img->p->samples;
	if (cr->trees && cr->m->o.threads && pr->nthreads) {
		ci->threads = calloc(pr->nthreads, sizeof(*ci->threads));
		rc = ci->threads ? 0 : -ENOMEM;
		ci->nthreads = ci->threads ? pr->nthreads : 0;
		for (size_t t = 0; !rc && t < ci->nthreads; t++)
			if (!(ci->threads[t].cg = callgraph__new()))
				rc = -ENOMEM;
	}
	fl.cg = ci->all.cg;
	fl.ci = ci;
	i = (size_t)(pr->img - cr->m->images);
	if (!rc)
		rc = report__sampled_items(cr->m, i, fill_item, &fl);
	if (!rc && cr->trees)
		rc = scope_finish(cr, &ci->all);
	for (size_t t = 0; !rc && t < ci->nthreads; t++)
		rc = scope_finish(cr, &ci->threads[t]);
	if (rc) {
		cgreport_image__free(ci);
		return rc;
	}
	*out = ci;
	return 0;
}

void cgreport_image__free(struct cgreport_image *ci)
{
	if (!ci)
		return;
	scope_free(&ci->all);
	for (size_t t = 0; t < ci->nthreads; t++)
		scope_free(&ci->threads[t]);
	free(ci->threads);
	free(ci);
}

/* The scope of (ci, thread): the run's when ci is NULL; NULL when nothing was built. */
static const struct cg_scope *scope_of(const struct cgreport *cr, const struct cgreport_image *ci,
				       size_t thread)
{
	if (!ci)
		return cr->run;
	if (thread == CGREPORT_PROCESS)
		return &ci->all;
	return thread < ci->nthreads ? &ci->threads[thread] : NULL;
}

/* ---- text ------------------------------------------------------------------------- */

void cgreport__text_header(const struct cgreport *cr, FILE *out)
{
	const struct pdata_header *h;

	if (!cr)
		return;
	h = &cr->m->v->hdr;
	if (!cr->has_stacks) {
		if (cgreport__wanted(&cr->o))
			fprintf(out, "# call stacks: none (a flat profile: each sample is its leaf "
				     "alone, so total equals self)\n");
		return;
	}
	fprintf(out,
		"# call stacks: %s; %llu sample%s cut short (their outer callers are "
		"[truncated]), %llu counted without their stack (frame table full)\n",
		pdata__callgraph_name(h->callgraph), (unsigned long long)h->truncated,
		h->truncated == 1 ? "" : "s", (unsigned long long)h->stacks_dropped);
	if (h->agent_refused || h->agent_unwalked || h->agent_no_room)
		fprintf(out,
			"# call stacks cut short by the agent: %llu at unwind information it "
			"refused "
			"(a looping DWARF expression or over a bound: see doc/stacks.md), %llu not "
			"walked (no stack free for the walk, a sandbox, a fork in progress), %llu "
			"at "
			"objects past the %u its unwinder holds at once\n",
			(unsigned long long)h->agent_refused, (unsigned long long)h->agent_unwalked,
			(unsigned long long)h->agent_no_room, PDATA_AGENT_MAX_OBJECTS);
}

int cgreport__replaces_table(const struct cgreport *cr)
{
	return cr && (cr->o.callers || cr->o.callees);
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

/* What a tree's percentages are of, for its title. */
struct tree_scope {
	uint64_t of;
	const char *whole; /* "run's", "process's" */
};

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
		      const char *title, const struct tree_scope *ts, FILE *out)
{
	const struct cg_node *root = cg_tree__root(t);
	uint64_t of = ts->of;

	fprintf(out, "\n %s", title);
	if (focus)
		fprintf(out, " %s", focus);
	fprintf(out, ", nodes of at least %g%% of the %s samples:\n", cr->o.threshold, ts->whole);
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

void cgreport__text_trees(const struct cgreport *cr, const struct cgreport_image *ci, size_t thread,
			  FILE *out)
{
	const struct cg_scope *sc = cr ? scope_of(cr, ci, thread) : NULL;
	struct tree_scope ts;

	if (!sc)
		return;
	ts = ci ? (struct tree_scope){ci->of, "process's"} :
		  (struct tree_scope){cr->m->totals.samples, "run's"};
	if (sc->tree)
		text_tree(cr, sc->tree, NULL,
			  cr->o.order == CG_CALLER ?
				  "call graph, caller order (top-down: from the outermost callers "
				  "inwards)" :
				  "call graph, callee order (bottom-up: from where the samples hit "
				  "outwards, through the callers)",
			  &ts, out);
	if (sc->callers)
		text_tree(cr, sc->callers, cr->o.callers, "callers (outwards) of", &ts, out);
	if (sc->callees)
		text_tree(cr, sc->callees, cr->o.callees, "callees (inwards) of", &ts, out);
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

int cgreport__json_top(const struct report *m, struct json_object *top)
{
	const struct pdata_header *h = &m->v->hdr;
	int rc =
		jadd(top, "callgraph", json_object_new_string(pdata__callgraph_name(h->callgraph)));

	if (!rc)
		rc = jadd(top, "truncated_samples", jint(h->truncated));
	if (!rc)
		rc = jadd(top, "stacks_dropped", jint(h->stacks_dropped));
	if (!rc)
		rc = jadd(top, "agent_refused_samples", jint(h->agent_refused));
	if (!rc)
		rc = jadd(top, "agent_unwalked_samples", jint(h->agent_unwalked));
	if (!rc)
		rc = jadd(top, "agent_no_room_samples", jint(h->agent_no_room));
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

/* What one scope adds to its object o: the trees. */
static int json_scope(const struct jtree *jt, const struct cg_scope *sc, struct json_object *o)
{
	const struct cgreport_opts *op = &jt->cr->o;
	int rc = 0;

	if (sc->tree)
		rc = jadd(o, "call_graph", json_graph(jt, sc->tree));
	if (!rc && sc->callers)
		rc = jadd(o, "callers", json_focus(jt, sc->callers, op->callers));
	if (!rc && sc->callees)
		rc = jadd(o, "callees", json_focus(jt, sc->callees, op->callees));
	return rc;
}

static int frames_init(const struct cgreport *cr, struct frames *fr)
{
	fr->ids = htab__new(&frame_type, 255);
	fr->arr = json_object_new_array();
	fr->lines = cr->m->o.lines;
	return fr->ids && fr->arr ? 0 : -ENOMEM;
}

/* Last: every frame a tree or stack refers to is numbered by now. */
static int frames_finish(struct frames *fr, struct json_object *o, int rc)
{
	if (!rc) {
		rc = jadd(o, "frames", fr->arr);
		fr->arr = NULL;
	}
	json_object_put(fr->arr);
	htab__free(fr->ids);
	return rc;
}

int cgreport__json_run(const struct cgreport *cr, struct json_object *o)
{
	struct frames fr = {0};
	struct jtree jt = {cr, &fr, 0};
	int rc;

	if (!cr || !cr->run)
		return 0;
	jt.of = cr->m->totals.samples;
	rc = frames_init(cr, &fr);
	if (!rc)
		rc = json_scope(&jt, cr->run, o);
	return frames_finish(&fr, o, rc);
}

int cgreport__json_image(const struct cgreport *cr, const struct cgreport_image *ci,
			 struct json_object *o)
{
	struct frames fr = {0};
	struct jtree jt = {cr, &fr, 0};
	struct json_object *threads = NULL;
	int rc;

	if (!cr || !ci)
		return 0;
	jt.of = ci->of;
	rc = frames_init(cr, &fr);
	if (!rc)
		rc = jadd(o, "stacks", json_stacks(ci->all.cg, &fr));
	if (!rc)
		rc = json_scope(&jt, &ci->all, o);
	json_object_object_get_ex(o, "threads", &threads);
	for (size_t t = 0; !rc && t < ci->nthreads; t++) {
		struct json_object *to = json_object_array_get_idx(threads, t), *tid;

		/* the report's thread objects are in the same (tid) order */
		if (!to || !json_object_object_get_ex(to, "tid", &tid) ||
		    json_object_get_int(tid) != ci->pr->threads[t].tid)
			continue;
		rc = json_scope(&jt, &ci->threads[t], to);
	}
	return frames_finish(&fr, o, rc);
}
