// SPDX-License-Identifier: MIT
/*
 * callgraph: stacks of function rows, their totals and trees (see
 * callgraph.h).  Distinct stacks are interned with utils/htab; totals and
 * trees give every function and every tree node a dense index, so a pass
 * over the stacks is a few array updates per frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "utils/array.h"
#include "report/callgraph.h"
#include "utils/htab.h"
#include "utils/search.h"
#include "utils/sat.h"
#include "utils/cmp.h"

/* ---- the PCs of a sample ----------------------------------------------------- */

unsigned callgraph__lookup_pcs(const struct pview *v, const struct pv_sample *s, uint64_t *pcs,
			       int *truncated)
{
	const struct pv_stack *st = pview__stack(v, s->stack);
	uint64_t stack[PDATA_MAX_DEPTH];
	unsigned n = 1, k = pview__stack_pcs(v, st, stack, PDATA_MAX_DEPTH);

	/* the leaf is the sample's own PC (the flat report's row), whatever the stack says */
	pcs[0] = s->pc;
	for (uint32_t i = 1; i < k && n < PDATA_MAX_DEPTH; i++) {
		uint64_t ret = stack[i];

		/* a return address of 0 (a damaged file) stays in no mapping: [unknown] */
		pcs[n++] = ret ? ret - 1 : 0;
	}
	*truncated = st->truncated || st->n > PDATA_MAX_DEPTH;
	if (*truncated)
		pcs[n++] = PDATA_PC_TRUNCATED;
	return n;
}

int callgraph__sample_frames(const struct pview *v, struct resolver *r, const struct pv_proc *p,
			     const struct pv_sample *s, const struct func **frames, int *truncated)
{
	uint64_t pcs[CALLGRAPH_MAX_PCS];
	unsigned n = callgraph__lookup_pcs(v, s, pcs, truncated), used = 0;

	for (unsigned i = 0; i < n; i++) {
		/* each PC after this one needs a frame at least */
		unsigned room = CALLGRAPH_MAX_FRAMES - used - (n - 1 - i);
		/* count 0: the flat report counted the sample for the notes already */
		int k = resolver__frames(r, p, s->gen, pcs[i], 0, frames + used, room);

		if (k < 0)
			return -ENOMEM;
		used += (unsigned)k;
	}
	return (int)used;
}

/* ---- distinct stacks ------------------------------------------------------------- */

/*
 * Stacks are a tree of (parent, function) nodes, interned from the outermost
 * frame inwards, so that stacks sharing their callers share their nodes: a
 * stack costs its distinct nodes, not its depth (600,000 stacks under one
 * 250-deep chain are 600,000 nodes, not 150 million frames).  A stack is
 * then (thread, innermost node, truncated).
 */
struct cg_tnode {
	const struct func *f; /* NULL only for node 0, the root above every outermost frame */
	uint32_t parent;
	uint32_t depth; /* frames from the outermost to this one */
};

/* (parent, function) -> node; also the tree builder's index of kids below. */
struct kid_ent {
	uint64_t parent1; /* parent node + 1: never 0 */
	const struct func *f;
	uint32_t node;
	uint32_t pad;
};

/* The key a kid_ent starts with: two words. */
struct kid_key {
	uint64_t parent1;
	const struct func *f;
};

_Static_assert(sizeof(struct kid_key) == 2 * sizeof(uint64_t) &&
		       offsetof(struct kid_ent, f) == offsetof(struct kid_key, f),
	       "a kid_ent starts with its kid_key");

static const struct htab_type kid_type = {
	.entry_size = sizeof(struct kid_ent),
	.hash = htab_2words_hash,
	.eq = htab_2words_eq, /* an entry starts with its key: hash(entry) is its hash */
};

struct cg_entry {
	uint32_t node; /* the innermost frame's node */
	uint32_t n;
	int tid;
	int truncated;
	uint64_t count;
	uint64_t off; /* off-CPU ns */
};

/* Index entry: (tid, node, truncated) and the stack's index in entries (+ 1, so never all zero). */
struct index_ent {
	uint32_t node;
	int tid;
	uint32_t truncated;
	uint32_t idx1;
};

struct callgraph {
	struct cg_tnode *nodes; /* [0] is the root */
	size_t nnodes, nodes_cap;
	struct htab *kids; /* of struct kid_ent */
	struct cg_entry *entries;
	size_t nentries, entries_cap;
	struct htab *index; /* of struct index_ent */
	uint64_t total;
	uint64_t per_sample, per_off_ns; /* callgraph__set_weights */
};

/* The key an index_ent starts with. */
struct stack_key {
	uint32_t node;
	int tid;
	uint32_t truncated;
};

_Static_assert(offsetof(struct index_ent, truncated) == offsetof(struct stack_key, truncated),
	       "an index_ent starts with its stack_key");

static uint64_t key_hash(const void *key)
{
	const struct stack_key *k = key;

	return htab_hash_combine(htab_hash_combine(htab_hash_u64(k->node), (uint32_t)k->tid),
				 k->truncated);
}

static bool key_eq(const void *entry, const void *key)
{
	const struct index_ent *e = entry;
	const struct stack_key *k = key;

	return e->node == k->node && e->tid == k->tid && e->truncated == k->truncated;
}

static const struct htab_type index_type = {
	.entry_size = sizeof(struct index_ent),
	.hash = key_hash,
	.eq = key_eq, /* an entry starts with its key: hash(entry) is its hash */
};

struct callgraph *callgraph__new(void)
{
	struct callgraph *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return NULL;
	cg->index = htab__new(&index_type, 255);
	cg->kids = htab__new(&kid_type, 255);
	if (!cg->index || !cg->kids ||
	    array__reserve((void **)&cg->nodes, &cg->nodes_cap, 1, sizeof(*cg->nodes))) {
		callgraph__free(cg);
		return NULL;
	}
	cg->nodes[cg->nnodes++] = (struct cg_tnode){0};
	cg->per_sample = 1;
	return cg;
}

void callgraph__set_weights(struct callgraph *cg, uint64_t per_sample, uint64_t per_off_ns)
{
	cg->per_sample = per_sample;
	cg->per_off_ns = per_off_ns;
}

uint64_t callgraph__weight_of(uint64_t per_sample, uint64_t per_off_ns, uint64_t samples,
			      uint64_t off_ns)
{
	return sat_add(sat_mul(samples, per_sample), sat_mul(off_ns, per_off_ns));
}

uint64_t callgraph__weigh(const struct callgraph *cg, uint64_t samples, uint64_t off_ns)
{
	return callgraph__weight_of(cg->per_sample, cg->per_off_ns, samples, off_ns);
}

void callgraph__free(struct callgraph *cg)
{
	if (!cg)
		return;
	htab__free(cg->index);
	htab__free(cg->kids);
	free(cg->nodes);
	free(cg->entries);
	free(cg);
}

/*
 * The number of f's node below parent in kids (the index of both trees), n
 * the number of nodes.  A new node (*fresh) is numbered n: room for it is
 * made in *nodes (cap of them, size bytes each), and the caller fills it
 * and counts it.  -ENOMEM.
 */
static long kid_node(struct htab *kids, uint32_t parent, const struct func *f, void *nodes,
		     size_t *cap, size_t n, size_t size, bool *fresh)
{
	struct kid_key k = {(uint64_t)parent + 1, f};
	struct kid_ent *e;

	e = htab__insert(kids, &kid_type, &k, fresh);
	if (!e)
		return -ENOMEM;
	if (!*fresh)
		return e->node;
	if (n >= UINT32_MAX - 1 || array__reserve(nodes, cap, n + 1, size)) {
		htab__cancel_fresh(kids);
		return -ENOMEM;
	}
	*e = (struct kid_ent){k.parent1, f, (uint32_t)n, 0};
	return (long)n;
}

/* The node of f below parent, made when new.  Its number, or -ENOMEM. */
static long node_of(struct callgraph *cg, uint32_t parent, const struct func *f)
{
	bool fresh;
	long i = kid_node(cg->kids, parent, f, &cg->nodes, &cg->nodes_cap, cg->nnodes,
			  sizeof(*cg->nodes), &fresh);

	if (i < 0 || !fresh)
		return i;
	cg->nodes[i] = (struct cg_tnode){f, parent, cg->nodes[parent].depth + 1};
	cg->nnodes++;
	return i;
}

/* Add count samples and off off-CPU ns under the stack frames[0..n) of thread tid. */
static int add_stack_weights(struct callgraph *cg, int tid, const struct func *const *frames,
			     uint32_t n, int truncated, uint64_t count, uint64_t off)
{
	struct stack_key k = {0, tid, !!truncated};
	struct index_ent *e;
	struct cg_entry *s;
	bool fresh;

	if (!n || n > CALLGRAPH_MAX_FRAMES)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!frames[i])
			return -EINVAL;
	for (uint32_t i = n; i-- > 0;) { /* from the outermost inwards */
		long node = node_of(cg, k.node, frames[i]);

		if (node < 0)
			return (int)node;
		k.node = (uint32_t)node;
	}
	e = htab__insert(cg->index, &index_type, &k, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh) {
		s = &cg->entries[e->idx1 - 1];
		s->count = sat_add(s->count, count);
		s->off = sat_add(s->off, off);
		cg->total = sat_add(cg->total, count);
		return 0;
	}
	if (cg->nentries >= UINT32_MAX - 1 ||
	    array__reserve((void **)&cg->entries, &cg->entries_cap, cg->nentries + 1,
			   sizeof(*cg->entries))) {
		htab__cancel_fresh(cg->index);
		return -ENOMEM;
	}
	cg->entries[cg->nentries] = (struct cg_entry){k.node, n, tid, (int)k.truncated, count, off};
	*e = (struct index_ent){k.node, tid, k.truncated, (uint32_t)++cg->nentries};
	cg->total = sat_add(cg->total, count);
	return 0;
}

int callgraph__add(struct callgraph *cg, int tid, const struct func *const *frames, uint32_t n,
		   int truncated, uint64_t count)
{
	return add_stack_weights(cg, tid, frames, n, truncated, count, 0);
}

int callgraph__add_off(struct callgraph *cg, int tid, const struct func *const *frames, uint32_t n,
		       int truncated, uint64_t ns)
{
	return add_stack_weights(cg, tid, frames, n, truncated, 0, ns);
}

/* The first of the n slots of all (sorted by proc: a binary search) of image id. */
static size_t first_of(const struct pv_sample *all, size_t n, uint32_t id)
{
	size_t lo = SEARCH_LOWER(all, n, proc, id);

	return lo;
}

/* The slots of image p in all[0..n) (thread tid's, when not NULL), each count times mul. */
static int add_slots(struct callgraph *cg, const struct pview *v, struct resolver *r,
		     const struct pv_proc *p, const int *tid, const struct pv_sample *all,
		     size_t nall, uint64_t mul)
{
	const struct func *frames[CALLGRAPH_MAX_FRAMES];

	for (size_t i = first_of(all, nall, p->id); i < nall && all[i].proc == p->id; i++) {
		const struct pv_sample *s = &all[i];
		int truncated, n, rc;

		if (!s->count || (tid && s->tid != *tid))
			continue;
		n = callgraph__sample_frames(v, r, p, s, frames, &truncated);
		if (n < 0)
			return n;
		rc = callgraph__add(cg, s->tid, frames, (uint32_t)n, truncated,
				    sat_mul(s->count, mul));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int callgraph__add_samples(struct callgraph *cg, const struct pview *v, struct resolver *r,
			   const struct pv_proc *p, const int *tid)
{
	return add_slots(cg, v, r, p, tid, v->samples, v->nsamples, 1);
}

int callgraph__add_weighted(struct callgraph *cg, const struct pview *v, struct resolver *r,
			    const struct pv_proc *p, const int *tid, uint64_t cpu_ns, int offcpu)
{
	int rc = cpu_ns ? add_slots(cg, v, r, p, tid, v->samples, v->nsamples, cpu_ns) : 0;

	if (!rc && offcpu)
		rc = add_slots(cg, v, r, p, tid, v->offcpu, v->noffcpu, 1);
	return rc;
}

uint64_t callgraph__total(const struct callgraph *cg)
{
	return cg->total;
}

size_t callgraph__nstacks(const struct callgraph *cg)
{
	return cg->nentries;
}

void callgraph__stack(const struct callgraph *cg, size_t i, struct cg_stack *out)
{
	const struct cg_entry *s = &cg->entries[i];

	*out = (struct cg_stack){s->node, s->n, s->truncated, s->tid, s->count, s->off};
}

unsigned callgraph__frames(const struct callgraph *cg, const struct cg_stack *s,
			   const struct func **frames)
{
	unsigned n = 0;

	for (uint32_t node = s->node; node && n < CALLGRAPH_MAX_FRAMES;
	     node = cg->nodes[node].parent)
		frames[n++] = cg->nodes[node].f;
	return n;
}

/* ---- dense function indexes ---------------------------------------------------- */

/* Every distinct function of cg, numbered: of_node[node] is its function's number. */
struct findex {
	uint32_t *of_node;	   /* per node */
	const struct func **funcs; /* per number */
	size_t n;
};

static void findex_free(struct findex *fi)
{
	free(fi->of_node);
	free(fi->funcs);
}

static int findex_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct findex *)ctx)->funcs[idx] == key;
}

static int findex_build(const struct callgraph *cg, struct findex *fi)
{
	struct htab *t = NULL; /* index table: function -> its number (htab__index_slot) */
	size_t cap = 0;
	int rc = 0;

	memset(fi, 0, sizeof(*fi));
	fi->of_node = calloc(cg->nnodes, sizeof(*fi->of_node));
	if (!fi->of_node) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 1; i < cg->nnodes; i++) {
		const struct func *f = cg->nodes[i].f;
		uint64_t hash = htab_hash_u64((uintptr_t)f);
		struct htab_islot *e = htab__index_slot(&t, hash, findex_eq, fi, f);

		if (!e || (!e->idx1 && array__reserve((void **)&fi->funcs, &cap, fi->n + 1,
						      sizeof(*fi->funcs)))) {
			rc = -ENOMEM;
			goto out;
		}
		if (!e->idx1) {
			fi->funcs[fi->n] = f;
			*e = (struct htab_islot){hash, ++fi->n};
		}
		fi->of_node[i] = (uint32_t)(e->idx1 - 1);
	}
out:
	htab__free(t);
	if (rc)
		findex_free(fi);
	return rc;
}

/* ---- totals -------------------------------------------------------------------------- */

static int cmp_total(const void *a, const void *b)
{
	const struct cg_total *x = a, *y = b;

	return CMP(y->total, x->total) ?: CMP(y->self, x->self) ?: func__cmp(x->f, y->f);
}

static int cmp_total_name(const void *a, const void *b)
{
	const struct cg_total *x = a, *y = b;
	int c = func__cmp(x->f, y->f);

	return c ? c : cmp_total(a, b);
}

int callgraph__totals(const struct callgraph *cg, int sort_name, struct cg_total **out, size_t *n)
{
	struct findex fi;
	struct cg_total *t;
	uint32_t *seen; /* the last stack (+ 1) that counted each function */
	int rc = findex_build(cg, &fi);

	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	t = calloc(fi.n ? fi.n : 1, sizeof(*t));
	seen = calloc(fi.n ? fi.n : 1, sizeof(*seen));
	if (!t || !seen) {
		free(t);
		free(seen);
		findex_free(&fi);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fi.n; i++)
		t[i].f = fi.funcs[i];
	for (size_t s = 0; s < cg->nentries; s++) {
		const struct cg_entry *e = &cg->entries[s];

		t[fi.of_node[e->node]].self = sat_add(t[fi.of_node[e->node]].self, e->count);
		for (uint32_t node = e->node; node; node = cg->nodes[node].parent) {
			uint32_t f = fi.of_node[node];

			if (seen[f] == s + 1)
				continue; /* recursion: once per sample */
			seen[f] = (uint32_t)(s + 1);
			t[f].total = sat_add(t[f].total, e->count);
		}
	}
	if (fi.n > 1)
		qsort(t, fi.n, sizeof(*t), sort_name ? cmp_total_name : cmp_total);
	free(seen);
	*out = t;
	*n = fi.n;
	findex_free(&fi);
	return 0;
}

/* ---- trees -------------------------------------------------------------------------- */

/* A node while the tree is built; node 0 is the root. */
struct tnode {
	const struct func *f;
	uint64_t total, self;
	uint64_t off_total, off_self;
	uint32_t first_kid, next_sib; /* node numbers, 0 = none */
	uint32_t nkids;
};

struct builder {
	struct tnode *nodes;
	size_t n, cap;
	struct htab *kids;
};

struct cg_tree {
	struct cg_node *nodes; /* [0] is the root */
	struct cg_node **kid_ptrs;
	size_t n;
};

/* The child of parent for f, made when new.  Returns its number, or -ENOMEM. */
static long kid_of(struct builder *b, uint32_t parent, const struct func *f)
{
	bool fresh;
	long i = kid_node(b->kids, parent, f, &b->nodes, &b->cap, b->n, sizeof(*b->nodes), &fresh);

	if (i < 0 || !fresh)
		return i;
	b->nodes[i] = (struct tnode){f, 0, 0, 0, 0, 0, b->nodes[parent].first_kid, 0};
	b->nodes[parent].first_kid = (uint32_t)i;
	b->nodes[parent].nkids++;
	b->n++;
	return i;
}

/* What a stack adds to the nodes of its path. */
struct weights {
	uint64_t count, off;
};

static void add_total(struct tnode *nd, struct weights w)
{
	nd->total = sat_add(nd->total, w.count);
	nd->off_total = sat_add(nd->off_total, w.off);
}

static void add_self(struct tnode *nd, struct weights w)
{
	nd->self = sat_add(nd->self, w.count);
	nd->off_self = sat_add(nd->off_self, w.off);
}

/*
 * Add w along frames[from], frames[from + step], ... (nframes frames) below
 * the root: each node on the path gains w, the last also as self.
 */
static int add_path(struct builder *b, const struct func *const *frames, long from, long step,
		    long nframes, struct weights w)
{
	uint32_t at = 0;

	for (long i = 0; i < nframes; i++) {
		long k = kid_of(b, at, frames[from + i * step]);

		if (k < 0)
			return (int)k;
		at = (uint32_t)k;
		add_total(&b->nodes[at], w);
	}
	add_self(&b->nodes[at], w);
	return 0;
}

static int name_is(const struct func *f, const char *name)
{
	return f->name && !strcmp(f->name, name);
}

/* Add one stack to the tree being built (see callgraph__tree). */
static int add_stack(struct builder *b, const struct cg_stack *s, const struct func *const *frames,
		     enum cg_order order, const char *focus)
{
	long n = s->n, at = -1;
	struct weights w = {s->count, s->off};

	if (!focus) {
		add_total(&b->nodes[0], w);
		if (order == CG_CALLER)
			return add_path(b, frames, n - 1, -1, n, w);
		return add_path(b, frames, 0, 1, n, w);
	}
	if (order == CG_CALLER) { /* the outermost occurrence, then inwards */
		for (long i = n - 1; i >= 0 && at < 0; i--)
			at = name_is(frames[i], focus) ? i : -1;
	} else { /* the innermost occurrence, then outwards */
		for (long i = 0; i < n && at < 0; i++)
			at = name_is(frames[i], focus) ? i : -1;
	}
	if (at < 0)
		return 0;
	if (!b->nodes[0].f)
		b->nodes[0].f = frames[at];
	add_total(&b->nodes[0], w);
	if (name_is(frames[0], focus)) /* the root's self: the samples that hit it */
		add_self(&b->nodes[0], w);
	if (order == CG_CALLER)
		return at ? add_path(b, frames, at - 1, -1, at, w) : 0;
	return at < n - 1 ? add_path(b, frames, at + 1, 1, n - 1 - at, w) : 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct cg_node *x = *(const struct cg_node *const *)a;
	const struct cg_node *y = *(const struct cg_node *const *)b;

	return CMP(y->weight, x->weight) ?: func__cmp(x->f, y->f);
}

/* The built nodes as the final tree: each node's kids in one pointer array, sorted. */
static int tree_finish(const struct callgraph *cg, struct builder *b, struct cg_tree *t)
{
	size_t used = 0;

	t->nodes = calloc(b->n, sizeof(*t->nodes));
	t->kid_ptrs = calloc(b->n, sizeof(*t->kid_ptrs));
	if (!t->nodes || !t->kid_ptrs)
		return -ENOMEM;
	t->n = b->n;
	for (size_t i = 0; i < b->n; i++) {
		const struct tnode *bn = &b->nodes[i];

		t->nodes[i] = (struct cg_node){bn->f,
					       bn->total,
					       bn->self,
					       bn->off_total,
					       bn->off_self,
					       callgraph__weigh(cg, bn->total, bn->off_total),
					       t->kid_ptrs + used,
					       bn->nkids};
		for (uint32_t k = bn->first_kid; k; k = b->nodes[k].next_sib)
			t->kid_ptrs[used++] = &t->nodes[k];
	}
	/* once every node is filled in: the sort reads the kids' counts */
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].nkids > 1)
			qsort(t->nodes[i].kids, t->nodes[i].nkids, sizeof(*t->nodes[i].kids),
			      cmp_node);
	return 0;
}

int callgraph__tree(const struct callgraph *cg, enum cg_order order, const char *focus,
		    struct cg_tree **out)
{
	struct builder b = {0};
	struct cg_tree *t = calloc(1, sizeof(*t));
	int rc = -ENOMEM;

	*out = NULL;
	b.kids = htab__new(&kid_type, 255);
	if (!t || !b.kids || array__reserve((void **)&b.nodes, &b.cap, 1, sizeof(*b.nodes)))
		goto out;
	b.nodes[b.n++] = (struct tnode){0};
	rc = 0;
	for (size_t i = 0; !rc && i < cg->nentries; i++) {
		const struct func *frames[CALLGRAPH_MAX_FRAMES];
		struct cg_stack s;

		callgraph__stack(cg, i, &s);
		callgraph__frames(cg, &s, frames);
		rc = add_stack(&b, &s, frames, order, focus);
	}
	if (!rc)
		rc = tree_finish(cg, &b, t);
out:
	htab__free(b.kids);
	free(b.nodes);
	if (rc) {
		cg_tree__free(t);
		return rc;
	}
	*out = t;
	return 0;
}

const struct cg_node *cg_tree__root(const struct cg_tree *t)
{
	return &t->nodes[0];
}

void cg_tree__free(struct cg_tree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->kid_ptrs);
	free(t);
}
