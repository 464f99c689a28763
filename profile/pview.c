// SPDX-License-Identifier: MIT
/* pview: validated in-memory view of a profile for the readers.  See pview.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/array.h"
#include "profile/pview.h"
#include "utils/htab.h"
#include "utils/why.h"
#include "utils/search.h"
#include "utils/sat.h"
#include "utils/cmp.h"

#define MAX_PARENT_DEPTH 64

struct loader {
	struct pview *v;
	size_t cap_procs;
	size_t cap_gens;
	size_t nrecs; /* records the first pass visited */
	size_t seen;  /* records the second pass visited */
	int err;
};

/* Copy a string field of at most max bytes; NULL when it is not NUL-terminated. */
static char *copy_str(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == max)
		return NULL;
	return strndup(s, n);
}

static struct pv_proc *add_proc(struct loader *l, uint32_t id)
{
	struct pview *v = l->v;
	struct pv_proc *p;

	p = array__push(&v->procs, &v->nprocs, &l->cap_procs, sizeof(*v->procs));
	if (p)
		p->id = id;
	return p;
}

static int on_proc(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_proc *r = (const struct pdata_proc *)rec;
	struct pv_proc *p;
	char *exe;

	if (rec->size <= sizeof(*r) || r->id == 0)
		return -EBADMSG;
	exe = copy_str(r->exe, rec->size - sizeof(*r));
	if (!exe)
		return -EBADMSG;
	p = add_proc(l, r->id);
	if (!p) {
		free(exe);
		return -ENOMEM;
	}
	p->order = l->v->nprocs;
	p->parent = r->parent;
	p->pid = r->pid;
	p->ppid = r->ppid;
	p->exe = exe;
	p->start_ns = r->start_ns;
	p->end_ns = r->end_ns;
	p->cpu = r->cpu;
	p->end_kind = __atomic_load_n(&r->end_kind, __ATOMIC_ACQUIRE);
	p->end_code = r->end_code;
	if (p->end_kind < PDATA_END_UNKNOWN || p->end_kind > PDATA_END_DETACHED)
		p->end_kind = PDATA_END_UNKNOWN;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pv_proc *x = a, *y = b;

	return CMP(x->id, y->id) ?: CMP(x->order, y->order);
}

static struct pv_proc *find_proc(struct pv_proc *procs, size_t n, uint32_t id);

struct pv_proc *pview__proc(const struct pview *v, uint32_t id)
{
	return find_proc(v->procs, v->nprocs, id);
}

/* A generation record, checked once every proc is known (settle_gens). */
static int on_gen(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_gen *r = (const struct pdata_gen *)rec;
	struct pview *v = l->v;

	if (rec->size < sizeof(*r) || r->id == 0 || r->proc == 0 || r->gen == 0)
		return -EBADMSG;
	if (array__reserve(&v->gens, &l->cap_gens, v->ngens + 1, sizeof(*v->gens)))
		return -ENOMEM;
	v->gens[v->ngens++] = (struct pv_gen){r->id, r->proc, r->gen};
	return 0;
}

static int cmp_gen(const void *a, const void *b)
{
	const struct pv_gen *x = a, *y = b;

	return CMP(x->id, y->id);
}

/*
 * Keep the generations of known images whose ids are their own (not a
 * proc's, not another generation's: only in a damaged file); each image
 * learns how many it has.
 */
static void settle_gens(struct pview *v)
{
	size_t k = 0;

	if (v->ngens > 1)
		qsort(v->gens, v->ngens, sizeof(*v->gens), cmp_gen);
	for (size_t i = 0; i < v->ngens; i++) {
		const struct pv_gen *g = &v->gens[i];
		struct pv_proc *p = pview__proc(v, g->proc);

		if (!p || pview__proc(v, g->id) || (k && v->gens[k - 1].id == g->id)) {
			v->bad_records++;
			continue;
		}
		if (g->gen > p->gens)
			p->gens = g->gen;
		v->gens[k++] = *g;
	}
	v->ngens = k;
}

/* The image that id (a proc's or a generation's) belongs to, and its generation; or NULL. */
static struct pv_proc *image_of(const struct pview *v, uint32_t id, uint32_t *gen)
{
	struct pv_proc *p = pview__proc(v, id);
	size_t at;

	*gen = 0;
	if (p || !v->ngens)
		return p;
	at = SEARCH_UPPER(v->gens, v->ngens, id, id);
	if (!at || v->gens[at - 1].id != id)
		return NULL;
	*gen = v->gens[at - 1].gen;
	return pview__proc(v, v->gens[at - 1].proc);
}

/* Binary search among the first n procs (sorted by id). */
static struct pv_proc *find_proc(struct pv_proc *procs, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (procs[mid].id == id)
			return &procs[mid];
		if (procs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Append one element, all zero bytes (a field an older format does not have
 * reads as 0).  Not array__push: capacity from 4 elements, not 64, and none
 * stored, for the few maps, threads and JIT symbols of each of a profile's
 * thousands of images (tests/e2e/report_view.sh many_memory).
 */
static int push(void **arr, size_t *n, size_t elem)
{
	/* grow by doubling when n is a power of two (or zero) */
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		size_t ncap = *n ? *n * 2 : 4;
		void *a = realloc(*arr, ncap * elem);

		if (!a)
			return -ENOMEM;
		*arr = a;
	}
	memset((char *)*arr + *n * elem, 0, elem);
	(*n)++;
	return 0;
}

static int on_thread(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_thread *r = (const struct pdata_thread *)rec;
	struct pv_thread *t;
	struct pv_proc *p;

	uint32_t gen;

	if (rec->size < PDATA_THREAD_V2_SIZE || r->proc == 0)
		return -EBADMSG;
	p = image_of(l->v, r->proc, &gen);
	if (!p)
		return -EBADMSG; /* the recorder publishes a proc record before its threads */
	if (push((void **)&p->threads, &p->nthreads, sizeof(*t)) < 0)
		return -ENOMEM;
	t = &p->threads[p->nthreads - 1];
	t->tid = r->tid;
	memcpy(t->comm, r->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = 0;
	t->cpu = r->cpu;
	t->seq = (uint32_t)l->seen;
	if (rec->size >= sizeof(*r)) { /* format 3 (a format 2 record ends before) */
		t->life_ns = r->life_ns;
		t->offcpu_ns = r->offcpu_ns;
	}
	return 0;
}

static int on_map(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_map *r = (const struct pdata_map *)rec;
	struct pv_proc *p;
	struct pv_map *m;
	uint32_t gen;
	char *path;

	if (rec->size <= sizeof(*r) || r->proc == 0 || r->end <= r->start)
		return -EBADMSG;
	path = copy_str(r->path, rec->size - sizeof(*r));
	if (!path)
		return -EBADMSG;
	p = image_of(l->v, r->proc, &gen);
	if (!p) {
		free(path);
		return -EBADMSG; /* the recorder publishes a proc record before its maps */
	}
	if (push((void **)&p->maps, &p->nmaps, sizeof(*m)) < 0) {
		free(path);
		return -ENOMEM;
	}
	m = &p->maps[p->nmaps - 1];
	m->start = r->start;
	m->end = r->end;
	m->pgoff = r->pgoff;
	m->prot = r->prot;
	m->build_id_len = r->build_id_len <= sizeof(m->build_id) ? r->build_id_len : 0;
	memcpy(m->build_id, r->build_id, m->build_id_len);
	m->path = path;
	m->aux = NULL;
	m->gen = gen;
	m->seq = (uint32_t)l->seen;
	return 0;
}

/* Where a proc ran: the first such record of a proc counts. */
static int on_ctx(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_proc_ctx *r = (const struct pdata_proc_ctx *)rec;
	struct pv_proc *p;
	char *cg;

	if (rec->size <= sizeof(*r) || r->proc == 0)
		return -EBADMSG;
	p = pview__proc(l->v, r->proc);
	if (!p || p->cgroup)
		return -EBADMSG;
	cg = copy_str(r->cgroup, rec->size - sizeof(*r));
	if (!cg)
		return -EBADMSG;
	p->cgroup = cg;
	p->nspid = r->nspid;
	p->ctx_flags = r->flags & (PDATA_CTX_MNTNS | PDATA_CTX_KTHREAD);
	return 0;
}

static int on_ksym(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_ksym *r = (const struct pdata_ksym *)rec;
	struct pview *v = l->v;
	struct pv_ksym *k;
	char *name;

	if (rec->size <= sizeof(*r) || r->start < PDATA_KERNEL_START)
		return -EBADMSG;
	name = copy_str(r->name, rec->size - sizeof(*r));
	if (!name)
		return -EBADMSG;
	if (push((void **)&v->ksyms, &v->nksyms, sizeof(*k)) < 0) {
		free(name);
		return -ENOMEM;
	}
	k = &v->ksyms[v->nksyms - 1];
	k->start = r->start;
	k->size = r->size;
	k->name = name;
	return 0;
}

/* What the recorder says about its off-CPU time (the last note of the topic wins). */
static int on_note(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_note *r = (const struct pdata_note *)rec;
	char *text;

	if (rec->size <= sizeof(*r) || l->v->hdr.version < PDATA_VERSION_OFFCPU)
		return -EBADMSG;
	if (strncmp(r->topic, "off-cpu", sizeof(r->topic)))
		return 0; /* a topic this reader does not show */
	if (strnlen(r->text, rec->size - sizeof(*r)) == rec->size - sizeof(*r))
		return -EBADMSG;
	text = copy_str(r->text, rec->size - sizeof(*r));
	if (!text)
		return -ENOMEM;
	free(l->v->offcpu_note);
	l->v->offcpu_note = text;
	return 0;
}

static int on_jitsym(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_jitsym *r = (const struct pdata_jitsym *)rec;
	struct pv_proc *p;
	struct pv_jitsym *j;
	uint32_t gen;
	char *name;

	if (rec->size <= sizeof(*r) || !r->size || r->start + r->size < r->start ||
	    r->start >= PDATA_KERNEL_START)
		return -EBADMSG;
	p = image_of(l->v, r->proc, &gen);
	if (!p)
		return -EBADMSG;
	name = copy_str(r->name, rec->size - sizeof(*r));
	if (!name)
		return -EBADMSG;
	if (push((void **)&p->jit, &p->njit, sizeof(*j)) < 0) {
		free(name);
		return -ENOMEM;
	}
	j = &p->jit[p->njit - 1];
	j->start = r->start;
	j->size = r->size;
	j->name = name;
	j->kind = r->kind;
	j->seq = (uint32_t)l->seen;
	return 0;
}

/* A damaged record is counted and skipped; any other error stops the walk. */
static int settle(struct loader *l, int rc)
{
	if (rc == -EBADMSG) {
		l->v->bad_records++;
		return 0;
	}
	if (rc < 0) {
		l->err = rc;
		return 1;
	}
	return 0;
}

static int on_rec(void *arg, const struct pdata_rec *rec)
{
	struct loader *l = arg;
	int rc = 0;

	l->nrecs++;
	switch (rec->type) {
	case PDATA_REC_PROC:
		rc = on_proc(l, rec);
		break;
	case PDATA_REC_THREAD:
		rc = 1; /* second pass */
		break;
	case PDATA_REC_MAP:
	case PDATA_REC_JITSYM:
	case PDATA_REC_PROC_CTX:
		rc = 1; /* second pass */
		break;
	case PDATA_REC_KSYM:
		rc = on_ksym(l, rec);
		break;
	case PDATA_REC_NOTE:
		rc = on_note(l, rec);
		break;
	case PDATA_REC_GEN:
		rc = on_gen(l, rec);
		break;
	default:
		rc = -EBADMSG;
	}
	return settle(l, rc);
}

/* Second pass: threads and maps, once every proc record is known. */
static int on_rec2(void *arg, const struct pdata_rec *rec)
{
	struct loader *l = arg;
	int rc = 0;

	/* the records the first pass saw, not those published since (a live profile) */
	if (l->seen++ == l->nrecs)
		return 1;
	if (rec->type == PDATA_REC_THREAD)
		rc = on_thread(l, rec);
	else if (rec->type == PDATA_REC_MAP)
		rc = on_map(l, rec);
	else if (rec->type == PDATA_REC_JITSYM)
		rc = on_jitsym(l, rec);
	else if (rec->type == PDATA_REC_PROC_CTX)
		rc = on_ctx(l, rec);
	return settle(l, rc);
}

/* ---- samples and stacks ------------------------------------------------------
 *
 * The sample table is read in one pass into hash tables that grow, so a
 * profile that gains samples while it is read cannot overflow them.  Each
 * stack node id met is read back into a PC list once (node ids of a live
 * file may change meaning only by being added, never rewritten); equal PC
 * lists (duplicate nodes made by racing writers) share one stack index.
 */

/* The key a pv_sample starts with. */
struct sample_key {
	uint32_t proc;
	int tid;
	uint64_t pc;
	uint32_t stack;
	uint32_t kind;
	uint32_t gen;
};

_Static_assert(offsetof(struct pv_sample, gen) == offsetof(struct sample_key, gen),
	       "a pv_sample starts with its sample_key");

static uint64_t sample_hash(const void *key)
{
	const struct sample_key *k = key;

	return htab_hash_u64(k->pc ^ htab_hash_u64(((uint64_t)k->proc << 32) | (uint32_t)k->tid) ^
			     ((uint64_t)k->stack << 17) ^ ((uint64_t)k->kind << 49) ^
			     ((uint64_t)k->gen << 53));
}

static bool sample_eq(const void *entry, const void *key)
{
	const struct pv_sample *e = entry;
	const struct sample_key *k = key;

	return e->proc == k->proc && e->tid == k->tid && e->pc == k->pc && e->stack == k->stack &&
	       e->kind == k->kind && e->gen == k->gen;
}

static const struct htab_type sample_type = {
	.entry_size = sizeof(struct pv_sample),
	.hash = sample_hash,
	.eq = sample_eq, /* an entry starts with its key: hash(entry) is its hash */
};

/*
 * The view's call stacks: a tree of (pc, parent) nodes, as in the file,
 * interned so that equal paths from the outermost frame are one node.  A
 * stack is its innermost node, so distinct stacks cost their distinct
 * nodes, not stacks x depth (600,000 stacks under one 250-deep chain are
 * 600,000 nodes, not 150 million PCs).
 */
struct frame_entry { /* (pc, parent) -> node */
	uint64_t pc;
	uint32_t parent;
	uint32_t node; /* >= 1: never all zero */
};

struct frame_key {
	uint64_t pc;
	uint32_t parent;
};

static uint64_t frame_key_hash(const void *key)
{
	const struct frame_key *k = key;

	return htab_hash_u64(k->pc ^ htab_hash_u64(k->parent));
}

static bool frame_eq(const void *entry, const void *key)
{
	const struct frame_entry *e = entry;
	const struct frame_key *k = key;

	return e->pc == k->pc && e->parent == k->parent;
}

static const struct htab_type frame_type = {
	.entry_size = sizeof(struct frame_entry),
	.hash = frame_key_hash,
	.eq = frame_eq, /* an entry starts with its key: hash(entry) is its hash */
};

/* A file's stack node id: its view node, and the stack index when a sample named it. */
struct node_entry {
	uint64_t node;	/* >= 1 */
	uint32_t vnode; /* the view node; 0: the file's chain is unreadable (the empty stack) */
	uint32_t index; /* the stack index + 1, 0 while no sample had it as its stack */
};

static const struct htab_type node_type = HTAB_U64_TYPE(struct node_entry);

struct stack_store {
	struct pv_frame *frames; /* [0] unused: node 0 is "no parent" */
	size_t nframes, cap_frames;
	struct htab *index; /* of struct frame_entry */
	struct pv_stack *stacks;
	size_t nstacks, cap_stacks;
};

struct sample_loader {
	struct pdata *pd;
	const struct pview *v;
	struct htab *samples; /* of struct pv_sample */
	struct htab *offcpu;  /* of struct pv_sample, off-CPU kinds */
	struct htab *nodes;   /* of struct node_entry */
	struct stack_store st;
	uint32_t chain[PDATA_MAX_DEPTH + 1]; /* file node ids, innermost first */
	uint64_t pcs[PDATA_MAX_DEPTH + 1];
	size_t bad_kinds; /* slots of a kind this reader does not know */
	int err;
};

/* The view node of (pc, parent), made when new.  0 (never a node) when out of memory. */
static uint32_t frame_node(struct stack_store *st, uint64_t pc, uint32_t parent)
{
	struct frame_key k = {pc, parent};
	const struct pv_frame *up = parent ? &st->frames[parent] : NULL;
	struct frame_entry *e;
	bool fresh;

	e = htab__insert(st->index, &frame_type, &k, &fresh);
	if (!e)
		return 0;
	if (!fresh)
		return e->node;
	if (st->nframes >= UINT32_MAX - 1 || array__reserve((void **)&st->frames, &st->cap_frames,
							    st->nframes + 1, sizeof(*st->frames))) {
		htab__cancel_fresh(st->index);
		return 0;
	}
	up = parent ? &st->frames[parent] : NULL; /* the array may have moved */
	st->frames[st->nframes] = (struct pv_frame){
		.pc = pc,
		.parent = parent,
		.depth = up ? up->depth + 1 : 1,
		.truncated = up ? up->truncated : pc == PDATA_PC_TRUNCATED,
	};
	*e = (struct frame_entry){pc, parent, (uint32_t)st->nframes};
	return (uint32_t)st->nframes++;
}

/*
 * The node_entry of a file's stack node id, its view node made once per
 * id: the chain is walked up to the first node already made (or the
 * outermost), then made downwards.  A chain that cannot be read (damaged,
 * a loop, longer than PDATA_MAX_DEPTH) gives view node 0: its samples
 * still count, flat, as pdata__stack's readers did.
 */
static int node_of(struct sample_loader *sl, uint32_t node, struct node_entry **out)
{
	uint32_t id = node, above = 0, vnode;
	unsigned n = 0, depth = 0;
	struct node_entry *e = NULL;
	bool fresh;
	int rc = 0;

	while (id && !(e = htab__find(sl->nodes, &node_type, &(uint64_t){id}))) {
		uint32_t parent;

		if (n >= PDATA_MAX_DEPTH) { /* a loop, or longer than any stack */
			rc = -EBADMSG;
			break;
		}
		rc = pdata__frame(sl->pd, id, &sl->pcs[n], &parent);
		if (rc < 0)
			break;
		sl->chain[n++] = id;
		id = parent;
	}
	if (rc == -ENOMEM)
		return rc;
	if (!rc && id) { /* met a node already made */
		above = e->vnode;
		depth = above ? sl->st.frames[above].depth : 0;
		if (!above) /* ... whose chain is unreadable: so is this one */
			rc = -EBADMSG;
	}
	if (!rc && depth + n > PDATA_MAX_DEPTH)
		rc = -EBADMSG;
	vnode = above;
	for (unsigned i = n; !rc && i-- > 0;) {
		vnode = frame_node(&sl->st, sl->pcs[i], vnode);
		if (!vnode)
			return -ENOMEM;
		/* each file node on the way: made once */
		e = htab__insert(sl->nodes, &node_type, &(uint64_t){sl->chain[i]}, &fresh);
		if (!e)
			return -ENOMEM;
		*e = (struct node_entry){sl->chain[i], vnode, 0};
	}
	if (rc) { /* unreadable: the innermost id gives the empty stack */
		e = htab__insert(sl->nodes, &node_type, &(uint64_t){node}, &fresh);
		if (!e)
			return -ENOMEM;
		if (fresh)
			*e = (struct node_entry){node, 0, 0};
	} else {
		e = htab__find(sl->nodes, &node_type, &(uint64_t){node});
	}
	*out = e;
	return 0;
}

/* The stack index of a file's stack node id; 0 (the empty stack) when unreadable. */
static int node_stack(struct sample_loader *sl, uint32_t node, uint32_t *index)
{
	struct stack_store *st = &sl->st;
	struct node_entry *e;
	const struct pv_frame *f;
	int rc = node_of(sl, node, &e);

	*index = 0;
	if (rc < 0)
		return rc;
	if (e->index) {
		*index = e->index - 1;
		return 0;
	}
	if (!e->vnode)
		return 0;
	if (st->nstacks >= UINT32_MAX - 1 || array__reserve((void **)&st->stacks, &st->cap_stacks,
							    st->nstacks + 1, sizeof(*st->stacks)))
		return -ENOMEM;
	f = &st->frames[e->vnode];
	st->stacks[st->nstacks] = (struct pv_stack){
		.node = e->vnode, .n = f->depth - f->truncated, .truncated = f->truncated};
	*index = (uint32_t)st->nstacks++;
	e->index = *index + 1;
	return 0;
}

static int load_sample(void *arg, const struct pdata_sample *s)
{
	struct sample_loader *sl = arg;
	struct sample_key k = {s->proc, s->tid, s->pc, 0, s->kind, 0};
	struct htab *into = s->kind == PDATA_KIND_CPU ? sl->samples : sl->offcpu;
	const struct pv_proc *p = image_of(sl->v, s->proc, &k.gen);
	struct pv_sample *e;
	bool fresh;
	int rc = 0;

	if (s->kind >= PDATA_KIND_NR) {
		sl->bad_kinds++; /* not a kind this reader knows: left out, and said */
		return 0;
	}
	if (p) /* a generation's samples are its image's */
		k.proc = p->id;
	if (s->stack)
		rc = node_stack(sl, s->stack, &k.stack);
	if (rc < 0)
		goto fail;
	e = htab__insert(into, &sample_type, &k, &fresh);
	if (!e) {
		rc = -ENOMEM;
		goto fail;
	}
	if (fresh) {
		*e = (struct pv_sample){k.proc, k.tid, k.pc, k.stack, k.kind, k.gen, s->count};
		return 0;
	}
	/* saturate rather than wrap on absurd (corrupt) counts */
	e->count = sat_add(e->count, s->count);
	return 0;
fail:
	sl->err = rc;
	return 1;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pv_sample *x = a, *y = b;

	return CMP(x->proc, y->proc)	       ?:
		       CMP(x->tid, y->tid)     ?:
		       CMP(x->pc, y->pc)       ?:
		       CMP(x->stack, y->stack) ?:
		       CMP(x->kind, y->kind)   ?:
						 CMP(x->gen, y->gen);
}

static int load_samples(struct pview *v, struct pdata *pd)
{
	struct sample_loader sl = {.pd = pd, .v = v};
	struct stack_store *st = &sl.st;
	int rc = -ENOMEM;

	sl.samples = htab__new(&sample_type, 1024);
	sl.offcpu = htab__new(&sample_type, 64);
	sl.nodes = htab__new(&node_type, 1024);
	st->index = htab__new(&frame_type, 1024);
	/* stack 0: the empty stack; node 0: no node (the outermost's parent) */
	if (!sl.samples || !sl.offcpu || !sl.nodes || !st->index ||
	    array__reserve((void **)&st->stacks, &st->cap_stacks, 1, sizeof(*st->stacks)) ||
	    array__reserve((void **)&st->frames, &st->cap_frames, 1, sizeof(*st->frames)))
		goto out;
	st->stacks[st->nstacks++] = (struct pv_stack){0};
	st->frames[st->nframes++] = (struct pv_frame){0};
	rc = pdata__foreach_sample(pd, load_sample, &sl);
	if (sl.err < 0)
		rc = sl.err;
	if (rc < 0)
		goto out;
	v->samples = htab__take(sl.samples, &v->nsamples);
	if (v->nsamples > 1)
		qsort(v->samples, v->nsamples, sizeof(*v->samples), cmp_sample);
	v->offcpu = htab__take(sl.offcpu, &v->noffcpu);
	if (v->noffcpu > 1)
		qsort(v->offcpu, v->noffcpu, sizeof(*v->offcpu), cmp_sample);
	v->bad_records += sl.bad_kinds;
	v->stacks = st->stacks;
	v->nstacks = st->nstacks;
	v->frames = st->frames;
	v->nframes = st->nframes;
	st->stacks = NULL;
	st->frames = NULL;
	rc = 0;
out:
	htab__free(sl.samples);
	htab__free(sl.offcpu);
	htab__free(sl.nodes);
	htab__free(st->index);
	free(st->stacks);
	free(st->frames);
	return rc;
}

/* By start, then generation, then record order: own_map's order. */
static int cmp_map(const void *a, const void *b)
{
	const struct pv_map *x = a, *y = b;

	return CMP(x->start, y->start) ?: CMP(x->gen, y->gen) ?: CMP(x->seq, y->seq);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct pv_thread *x = a, *y = b;

	return CMP(x->tid, y->tid) ?: CMP(x->seq, y->seq);
}

/* One entry per tid: the last name it had, the largest CPU time recorded. */
static void merge_threads(struct pv_proc *p)
{
	size_t k = 0;

	if (p->nthreads > 1)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
	for (size_t i = 0; i < p->nthreads; i++) {
		struct pv_thread t = p->threads[i];

		if (k && p->threads[k - 1].tid == t.tid) {
			if (p->threads[k - 1].cpu.cpu_ns > t.cpu.cpu_ns)
				t.cpu = p->threads[k - 1].cpu;
			if (p->threads[k - 1].life_ns > t.life_ns) {
				t.life_ns = p->threads[k - 1].life_ns;
				t.offcpu_ns = p->threads[k - 1].offcpu_ns;
			}
			p->threads[k - 1] = t;
		} else {
			p->threads[k++] = t;
		}
	}
	p->nthreads = k;
}

static int cmp_jitsym(const void *a, const void *b)
{
	const struct pv_jitsym *x = a, *y = b;

	return CMP(x->start, y->start) ?: CMP(x->seq, y->seq);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct pv_ksym *x = a, *y = b;

	return CMP(x->start, y->start);
}

/*
 * A placeholder image for each proc id of samples s (sorted by proc) that no
 * record named; the procs sorted again after (one binary search per new id).
 */
static int add_placeholders(struct loader *l, const struct pv_sample *s, size_t n)
{
	struct pview *v = l->v;
	size_t known = v->nprocs;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = s[i].proc;
		struct pv_proc *p;

		if ((i && s[i - 1].proc == id) || find_proc(v->procs, known, id))
			continue;
		p = add_proc(l, id);
		if (!p || !(p->exe = strdup("")))
			return -ENOMEM;
		p->placeholder = 1;
		p->order = v->nprocs;
	}
	if (v->nprocs > known)
		qsort(v->procs, v->nprocs, sizeof(*v->procs), cmp_proc);
	return 0;
}

/* Per-proc totals; a placeholder for every proc id only samples name. */
static int attach_samples(struct loader *l)
{
	struct pview *v = l->v;

	if (add_placeholders(l, v->samples, v->nsamples) < 0 ||
	    add_placeholders(l, v->offcpu, v->noffcpu) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < v->nsamples; i++) {
		struct pv_proc *p = pview__proc(v, v->samples[i].proc);

		/* saturate rather than wrap on absurd (corrupt) counts */
		p->samples = sat_add(p->samples, v->samples[i].count);
		v->total = sat_add(v->total, v->samples[i].count);
	}
	for (size_t i = 0; i < v->noffcpu; i++) {
		struct pv_proc *p = pview__proc(v, v->offcpu[i].proc);

		p->offcpu_ns = sat_add(p->offcpu_ns, v->offcpu[i].count);
		v->offcpu_total = sat_add(v->offcpu_total, v->offcpu[i].count);
	}
	return 0;
}

static void dedupe_procs(struct pview *v)
{
	size_t k = 0;

	/* duplicated proc ids (only in a damaged file): keep the first record */
	for (size_t i = 0; i < v->nprocs; i++) {
		if (k && v->procs[k - 1].id == v->procs[i].id) {
			free(v->procs[i].exe);
			v->bad_records++;
			continue;
		}
		v->procs[k++] = v->procs[i];
	}
	v->nprocs = k;
}

int pview__load(struct pview **out, const char *path, char *why, size_t whylen)
{
	struct loader l = {0};
	struct pdata *pd = NULL;
	struct pview *v;
	int rc;

	rc = pdata__open(&pd, path, 0, why, whylen);
	if (rc < 0)
		return rc;
	v = calloc(1, sizeof(*v));
	if (!v) {
		pdata__close(pd);
		return why_fail(why, whylen, -ENOMEM, "%s: out of memory", path);
	}
	l.v = v;
	memcpy(&v->hdr, pdata__header(pd), sizeof(v->hdr));
	v->hdr.command[sizeof(v->hdr.command) - 1] = 0;
	v->hdr.clock_note[sizeof(v->hdr.clock_note) - 1] = 0;
	v->hdr.hostname[sizeof(v->hdr.hostname) - 1] = 0;

	rc = pdata__foreach_rec(pd, on_rec, &l);
	if (!l.err && rc < 0)
		l.err = rc;
	if (!l.err) {
		if (v->nprocs > 1)
			qsort(v->procs, v->nprocs, sizeof(*v->procs), cmp_proc);
		dedupe_procs(v);
		settle_gens(v);
		rc = pdata__foreach_rec(pd, on_rec2, &l);
		if (!l.err && rc < 0)
			l.err = rc;
	}
	if (!l.err)
		l.err = load_samples(v, pd);
	if (!l.err)
		l.err = attach_samples(&l);
	pdata__close(pd);
	if (l.err) {
		pview__free(v);
		if (l.err == -ENOMEM)
			return why_fail(why, whylen, l.err, "%s: out of memory", path);
		if (l.err == -EBADMSG)
			return why_fail(why, whylen, l.err,
					"%s: the file shrank while it was being read", path);
		return why_fail(why, whylen, l.err, "%s: cannot read it: %s", path,
				strerror(-l.err));
	}
	for (size_t i = 0; i < v->nprocs; i++) {
		struct pv_proc *p = &v->procs[i];

		if (p->nmaps > 1)
			qsort(p->maps, p->nmaps, sizeof(*p->maps), cmp_map);
		if (p->njit > 1)
			qsort(p->jit, p->njit, sizeof(*p->jit), cmp_jitsym);
		merge_threads(p);
	}
	if (v->nksyms > 1)
		qsort(v->ksyms, v->nksyms, sizeof(*v->ksyms), cmp_ksym);
	for (size_t i = 0; i < v->nprocs; i++) {
		if (!v->procs[i].cgroup && !(v->procs[i].cgroup = strdup(""))) {
			pview__free(v);
			return why_fail(why, whylen, -ENOMEM, "%s: out of memory", path);
		}
	}
	*out = v;
	return 0;
}

void pview__free(struct pview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nprocs; i++) {
		struct pv_proc *p = &v->procs[i];

		ARRAY_FREE_FIELD(p->maps, p->nmaps, path);
		ARRAY_FREE_FIELD(p->jit, p->njit, name);
		free(p->threads);
		free(p->exe);
		free(p->cgroup);
	}
	ARRAY_FREE_FIELD(v->ksyms, v->nksyms, name);
	free(v->procs);
	free(v->samples);
	free(v->offcpu);
	free(v->offcpu_note);
	free(v->stacks);
	free(v->frames);
	free(v->gens);
	free(v);
}

const struct pv_thread *pv_proc__thread(const struct pv_proc *p, int tid)
{
	/* one entry per tid (merge_threads) */
	size_t lo = SEARCH_UPPER(p->threads, p->nthreads, tid, tid);

	if (lo && p->threads[lo - 1].tid == tid)
		return &p->threads[lo - 1];
	return NULL;
}

/* Runs of mappings with one start looked at below pc, at most (overlaps: re-mapped regions). */
#define MAP_RUNS_SCAN 8

/*
 * In the run maps[lo, hi) of one start (sorted by generation, then record
 * order), the newest mapping of generation gen or earlier that covers pc,
 * or NULL: a binary search for the generation, then a few older ones.
 */
static const struct pv_map *run_map(const struct pv_map *maps, size_t lo, size_t hi, uint32_t gen,
				    uint64_t pc)
{
	size_t at = lo + SEARCH_UPPER(maps + lo, hi - lo, gen, gen);

	for (size_t k = at; k > lo && k + MAP_RUNS_SCAN > at; k--)
		if (pc < maps[k - 1].end)
			return &maps[k - 1];
	return NULL;
}

/*
 * The mapping of generation gen (or earlier) holding pc: of those covering
 * it, the newest generation, then the latest start (a region re-mapped in
 * one generation: the later mapping inside the earlier one).
 */
static const struct pv_map *own_map(const struct pv_proc *p, uint32_t gen, uint64_t pc)
{
	size_t hi = SEARCH_UPPER(p->maps, p->nmaps, start, pc);
	const struct pv_map *best = NULL;

	for (int runs = 0; hi > 0 && runs < MAP_RUNS_SCAN; runs++) {
		size_t lo = SEARCH_LOWER(p->maps, hi, start, p->maps[hi - 1].start);
		const struct pv_map *m = run_map(p->maps, lo, hi, gen, pc);

		if (m && (!best || m->gen > best->gen))
			best = m;
		if (best && best->gen == gen)
			break; /* nothing newer than its generation can follow */
		hi = lo;
	}
	return best;
}

/*
 * The image whose mappings p inherited: its fork parent, or NULL (none, or
 * p is an exec image: an exec does not inherit the previous image's mappings).
 */
static const struct pv_proc *fork_parent(const struct pview *v, const struct pv_proc *p)
{
	const struct pv_proc *parent;

	if (!p->parent || p->parent == p->id)
		return NULL;
	parent = pview__proc(v, p->parent);
	if (!parent || (parent->end_kind == PDATA_END_EXEC && parent->pid == p->pid))
		return NULL;
	return parent;
}

const struct pv_map *pview__map_of(const struct pview *v, const struct pv_proc *p, uint32_t gen,
				   uint64_t pc)
{
	for (int depth = 0; p && depth < MAX_PARENT_DEPTH; depth++, p = fork_parent(v, p)) {
		const struct pv_map *m = own_map(p, gen, pc);

		if (m)
			return m;
		gen = UINT32_MAX; /* a parent's mappings as they were last (its generation at the
				     fork is not recorded: the recorder gives a child its own) */
	}
	return NULL;
}

/* Pieces of code that cover pc looked at, at most (overlaps come from hostile files). */
#define JIT_OVERLAP_SCAN 16

static const struct pv_jitsym *own_jitsym(const struct pv_proc *p, uint64_t pc)
{
	const struct pv_jitsym *best = NULL;
	size_t lo = SEARCH_UPPER(p->jit, p->njit, start, pc);

	for (size_t k = lo; k > 0 && k + JIT_OVERLAP_SCAN > lo; k--) {
		const struct pv_jitsym *j = &p->jit[k - 1];

		if (pc - j->start < j->size && (!best || j->seq > best->seq))
			best = j;
	}
	return best;
}

const struct pv_jitsym *pview__jitsym(const struct pview *v, const struct pv_proc *p, uint64_t pc)
{
	for (int depth = 0; p && depth < MAX_PARENT_DEPTH; depth++, p = fork_parent(v, p)) {
		const struct pv_jitsym *j = p->njit ? own_jitsym(p, pc) : NULL;

		if (j)
			return j;
	}
	return NULL;
}

double pview__rate_hz(const struct pview *v)
{
	return v->hdr.period_ns ? 1e9 / (double)v->hdr.period_ns : 0.0;
}

const struct pv_stack *pview__stack(const struct pview *v, uint32_t stack)
{
	static const struct pv_stack empty;

	return stack < v->nstacks ? &v->stacks[stack] : &empty;
}

unsigned pview__stack_pcs(const struct pview *v, const struct pv_stack *st, uint64_t *pcs,
			  unsigned max)
{
	uint32_t node = st->node;
	unsigned n = 0;

	if (max > st->n) /* a stack cut short: its outermost node is the mark, not a PC */
		max = st->n;
	for (; node && node < v->nframes && n < max; node = v->frames[node].parent)
		pcs[n++] = v->frames[node].pc;
	return n;
}

const struct pv_ksym *pview__ksym(const struct pview *v, uint64_t pc)
{
	size_t lo = SEARCH_UPPER(v->ksyms, v->nksyms, start, pc);

	if (!lo)
		return NULL;
	if (v->ksyms[lo - 1].size && pc - v->ksyms[lo - 1].start >= v->ksyms[lo - 1].size)
		return NULL;
	return &v->ksyms[lo - 1];
}
