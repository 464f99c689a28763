// SPDX-License-Identifier: MIT
/*
 * The call-stack parts of `profil report` (report/cgreport.h) written out:
 * the text trees after each table and the JSON stacks and trees of the
 * report's stream (output/report_json.c).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "utils/json.h"
#include "utils/cmp.h"

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
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
			"refused (a looping DWARF expression or over a bound: see doc/stacks.md), "
			"%llu not walked (no stack free for the walk, a sandbox, a fork in "
			"progress), %llu at objects past the %u its unwinder holds at once\n",
			(unsigned long long)h->agent_refused, (unsigned long long)h->agent_unwalked,
			(unsigned long long)h->agent_no_room, PDATA_AGENT_MAX_OBJECTS);
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

/* Whether node nd is shown: at least the threshold of of (its scope's weight). */
static int shown(const struct cgreport *cr, const struct cg_node *nd, uint64_t of)
{
	return (double)nd->weight * 100.0 >= cr->o.threshold * (double)of;
}

/* A node's numbers: its share and samples, or with off-CPU time its CPU and off-CPU seconds. */
static void text_numbers(const struct cgreport *cr, const struct cg_node *nd, uint64_t of,
			 FILE *out)
{
	if (cr->offcpu)
		fprintf(out, "  %9.2f%%  %9.3f  %9.3f  ", pct(nd->weight, of),
			cgreport__sample_seconds(cr, nd->total), (double)nd->off_total / 1e9);
	else
		fprintf(out, "  %6.2f%%  %9llu  ", pct(nd->weight, of),
			(unsigned long long)nd->total);
}

/* A node and, heaviest first, its children down to the threshold. */
static void text_node(const struct cgreport *cr, const struct cg_node *nd, int depth, uint64_t of,
		      FILE *out)
{
	text_numbers(cr, nd, of, out);
	fprintf(out, "%*s%s", 2 * depth, "", nd->f->name);
	text_source(cr, nd->f, out);
	fputc('\n', out);
	for (size_t k = 0; k < nd->nkids; k++) {
		if (!shown(cr, nd->kids[k], of))
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
	fprintf(out, ", nodes of at least %g%% of the %s %s:\n", cr->o.threshold, ts->whole,
		cgreport__weight_name(cr));
	if (focus && !root->weight) {
		fprintf(out, "  (%s is on no stack here)\n", focus);
		return;
	}
	if (cr->offcpu) {
		char head[16];

		snprintf(head, sizeof(head), "%%%s", report__value_name(cr->m->value));
		fprintf(out, "  %10s  %9s  %9s  function\n", head, "cpu s", "off-cpu s");
	} else
		fprintf(out, "   %%total    samples  function\n");
	if (focus) {
		text_numbers(cr, root, of, out);
		if (cr->offcpu)
			fprintf(out, "%s (self: cpu %.3f s, off-cpu %.3f s)\n", focus,
				cgreport__sample_seconds(cr, root->self),
				(double)root->off_self / 1e9);
		else
			fprintf(out, "%s (self %llu)\n", focus, (unsigned long long)root->self);
		for (size_t k = 0; k < root->nkids; k++)
			if (shown(cr, root->kids[k], of))
				text_node(cr, root->kids[k], 1, of, out);
		return;
	}
	for (size_t k = 0; k < root->nkids; k++)
		if (shown(cr, root->kids[k], of))
			text_node(cr, root->kids[k], 0, of, out);
}

void cgreport__text_trees(const struct cgreport *cr, const struct cgreport_image *ci, size_t thread,
			  FILE *out)
{
	const struct cg_scope *sc = cr ? cgreport__scope(cr, ci, thread) : NULL;
	struct tree_scope ts;

	if (!sc)
		return;
	ts = ci ? (struct tree_scope){ci->of, "process's"} :
		  (struct tree_scope){cr->run_of, "run's"};
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

int cgreport__json_top(const struct report *m, struct json_object *top)
{
	const struct pdata_header *h = &m->v->hdr;
	int rc = json__set(top, "callgraph",
			   json_object_new_string(pdata__callgraph_name(h->callgraph)));

	if (!rc)
		rc = json__set(top, "truncated_samples", json__uint(h->truncated));
	if (!rc)
		rc = json__set(top, "stacks_dropped", json__uint(h->stacks_dropped));
	if (!rc)
		rc = json__set(top, "agent_refused_samples", json__uint(h->agent_refused));
	if (!rc)
		rc = json__set(top, "agent_unwalked_samples", json__uint(h->agent_unwalked));
	if (!rc)
		rc = json__set(top, "agent_no_room_samples", json__uint(h->agent_no_room));
	return rc;
}

/* The frames of one process: every function row of its stacks, numbered as met. */
struct frames {
	struct htab *ids;	   /* index table: function -> its number (htab__index_slot) */
	const struct func **funcs; /* by number */
	size_t n, cap;
	struct json_object *arr; /* the frame objects, in number order */
	int lines;
};

static int frame_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct frames *)ctx)->funcs[idx] == key;
}

/* The number of f in fr, added (with its frame object) when new; -ENOMEM. */
static int64_t frame_id(struct frames *fr, const struct func *f)
{
	uint64_t hash = htab_hash_u64((uintptr_t)f);
	struct htab_islot *e = htab__index_slot(&fr->ids, hash, frame_eq, fr, f);
	struct json_object *o;
	int rc = 0;

	if (!e || (!e->idx1 && array__reserve(&fr->funcs, &fr->cap, fr->n + 1, sizeof(*fr->funcs))))
		return -ENOMEM;
	if (e->idx1)
		return (int64_t)e->idx1 - 1;
	o = json_object_new_object();
	if (o) {
		rc |= json__set(o, "name", json_object_new_string(f->name));
		rc |= json__set(o, "object", json_object_new_string(f->objpath));
		if (fr->lines) {
			if (f->file)
				rc |= json__set(o, "file", json_object_new_string(f->file));
			else
				json_object_object_add(o, "file", NULL); /* JSON null */
			rc |= json__set(o, "line", json_object_new_int(f->line));
		}
	}
	if (!o || rc || json__push(fr->arr, o)) {
		if (o && rc)
			json_object_put(o);
		return -ENOMEM; /* the index's entry stays empty */
	}
	fr->funcs[fr->n] = f;
	*e = (struct htab_islot){hash, ++fr->n};
	return (int64_t)fr->n - 1;
}

/* A stack, its weight and its place in the call graph (ties keep that order). */
struct stack_at {
	struct cg_stack s;
	uint64_t weight;
	size_t i;
};

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_at *x = a, *y = b;

	return CMP(x->s.tid, y->s.tid) ?: CMP(y->weight, x->weight) ?: CMP(x->i, y->i);
}

/* A stack's numbers: its samples, and with off-CPU time its off-CPU seconds. */
static int json_stack_fields(const struct cgreport *cr, struct json_object *o,
			     const struct cg_stack *s)
{
	int rc = json__set(o, "tid", json_object_new_int(s->tid));

	rc |= json__set(o, "samples", json__uint(s->count));
	if (cr->offcpu)
		rc |= json__set(o, "offcpu_seconds", json__double((double)s->off / 1e9));
	rc |= json__set(o, "truncated", json_object_new_boolean(s->truncated));
	return rc;
}

/*
 * "stacks": every distinct (thread, stack) of the process, by thread, the
 * heaviest first (most samples; with off-CPU time, as the report's value).
 */
static struct json_object *json_stacks(const struct cgreport *cr, const struct callgraph *cg,
				       struct frames *fr)
{
	size_t n = callgraph__nstacks(cg);
	struct stack_at *st = malloc((n ? n : 1) * sizeof(*st));
	struct json_object *arr = json_object_new_array();
	int rc = st && arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		callgraph__stack(cg, i, &st[i].s);
		st[i].weight = callgraph__weigh(cg, st[i].s.count, st[i].s.off);
		st[i].i = i;
	}
	if (!rc && n > 1)
		qsort(st, n, sizeof(*st), cmp_stack);
	for (size_t i = 0; !rc && i < n; i++) {
		struct json_object *o = json_object_new_object(), *fa = json_object_new_array();
		const struct func *frames[CALLGRAPH_MAX_FRAMES];
		unsigned nf = callgraph__frames(cg, &st[i].s, frames);

		rc = o && fa ? 0 : -ENOMEM;
		for (uint32_t k = 0; !rc && k < nf; k++) {
			int64_t id = frame_id(fr, frames[k]);

			rc = id < 0 ? -ENOMEM : json__push(fa, json_object_new_int64(id));
		}
		if (!rc) {
			rc |= json_stack_fields(cr, o, &st[i].s);
			rc |= json__set(o, "frames", fa);
			fa = NULL;
		}
		json_object_put(fa);
		if (rc || json__push(arr, o)) {
			if (rc)
				json_object_put(o);
			rc = -ENOMEM;
		}
	}
	free(st);
	return json__finish(arr, rc);
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

		if (!shown(jt->cr, kid, jt->of))
			break;
		id = frame_id(jt->fr, kid->f);
		o = json_object_new_object();
		rc = o && id >= 0 ? 0 : -ENOMEM;
		if (!rc)
			rc = json__set(o, "frame", json_object_new_int64(id));
		if (!rc)
			rc = json_node_fields(jt, o, kid);
		if (rc || json__push(arr, o)) {
			if (rc)
				json_object_put(o);
			rc = -ENOMEM;
		}
	}
	return json__finish(arr, rc);
}

static int json_node_fields(const struct jtree *jt, struct json_object *o, const struct cg_node *nd)
{
	int rc = 0;

	rc |= json__set(o, "samples", json__uint(nd->total));
	rc |= json__set(o, "self_samples", json__uint(nd->self));
	if (jt->cr->offcpu) {
		rc |= json__set(o, "offcpu_seconds", json__double((double)nd->off_total / 1e9));
		rc |= json__set(o, "self_offcpu_seconds", json__double((double)nd->off_self / 1e9));
	}
	rc |= json__set(o, "percent", json__double(pct(nd->weight, jt->of)));
	if (!rc)
		rc = json__set(o, "children", json_kids(jt, nd));
	return rc;
}

/* A whole-graph tree: {order, threshold_percent, samples, children}. */
static struct json_object *json_graph(const struct jtree *jt, const struct cg_tree *t)
{
	struct json_object *o = json_object_new_object();
	const struct cg_node *root = cg_tree__root(t);
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(
			o, "order",
			json_object_new_string(jt->cr->o.order == CG_CALLER ? "caller" : "callee"));
		rc |= json__set(o, "threshold_percent", json__double(jt->cr->o.threshold));
		rc |= json__set(o, "samples", json__uint(root->total));
		if (jt->cr->offcpu) {
			rc |= json__set(
				o, "value",
				json_object_new_string(report__value_name(jt->cr->m->value)));
			rc |= json__set(o, "offcpu_seconds",
					json__double((double)root->off_total / 1e9));
		}
	}
	if (!rc)
		rc = json__set(o, "children", json_kids(jt, root));
	return json__finish(o, rc);
}

/* A tree around one function: {function, threshold_percent, samples, self_samples, percent, children}. */
static struct json_object *json_focus(const struct jtree *jt, const struct cg_tree *t,
				      const char *focus)
{
	struct json_object *o = json_object_new_object();
	int rc = o ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(o, "function", json_object_new_string(focus));
		rc |= json__set(o, "threshold_percent", json__double(jt->cr->o.threshold));
		if (jt->cr->offcpu)
			rc |= json__set(
				o, "value",
				json_object_new_string(report__value_name(jt->cr->m->value)));
	}
	if (!rc)
		rc = json_node_fields(jt, o, cg_tree__root(t));
	return json__finish(o, rc);
}

/* What one scope adds to its object o: the trees. */
static int json_scope(const struct jtree *jt, const struct cg_scope *sc, struct json_object *o)
{
	const struct cgreport_opts *op = &jt->cr->o;
	int rc = 0;

	if (sc->tree)
		rc = json__set(o, "call_graph", json_graph(jt, sc->tree));
	if (!rc && sc->callers)
		rc = json__set(o, "callers", json_focus(jt, sc->callers, op->callers));
	if (!rc && sc->callees)
		rc = json__set(o, "callees", json_focus(jt, sc->callees, op->callees));
	return rc;
}

static int frames_init(const struct cgreport *cr, struct frames *fr)
{
	fr->arr = json_object_new_array();
	fr->lines = cr->m->o.lines;
	return fr->arr ? 0 : -ENOMEM;
}

/* Last: every frame a tree or stack refers to is numbered by now. */
static int frames_finish(struct frames *fr, struct json_object *o, int rc)
{
	if (!rc) {
		rc = json__set(o, "frames", fr->arr);
		fr->arr = NULL;
	}
	json_object_put(fr->arr);
	htab__free(fr->ids);
	free(fr->funcs);
	return rc;
}

int cgreport__json_run(const struct cgreport *cr, struct json_object *o)
{
	struct frames fr = {0};
	struct jtree jt = {cr, &fr, 0};
	int rc;

	if (!cr || !cr->run)
		return 0;
	jt.of = cr->run_of;
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
		rc = json__set(o, "stacks", json_stacks(cr, ci->all.cg, &fr));
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
