// SPDX-License-Identifier: MIT
/* pview: validated in-memory view of a profile for the readers.  See pview.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "why.h"
#include "pview.h"

#define MAX_PARENT_DEPTH 64

struct loader {
	struct pview *v;
	size_t cap_procs;
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

	if (v->nprocs == l->cap_procs) {
		size_t ncap = l->cap_procs ? l->cap_procs * 2 : 16;
		struct pv_proc *n = realloc(v->procs, ncap * sizeof(*n));

		if (!n)
			return NULL;
		v->procs = n;
		l->cap_procs = ncap;
	}
	p = &v->procs[v->nprocs++];
	memset(p, 0, sizeof(*p));
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

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct pv_proc *find_proc(struct pv_proc *procs, size_t n, uint32_t id);

struct pv_proc *pview__proc(const struct pview *v, uint32_t id)
{
	return find_proc(v->procs, v->nprocs, id);
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
	(*n)++;
	return 0;
}

static int on_thread(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_thread *r = (const struct pdata_thread *)rec;
	struct pv_thread *t;
	struct pv_proc *p;

	if (rec->size < sizeof(*r) || r->proc == 0)
		return -EBADMSG;
	p = pview__proc(l->v, r->proc);
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
	return 0;
}

static int on_map(struct loader *l, const struct pdata_rec *rec)
{
	const struct pdata_map *r = (const struct pdata_map *)rec;
	struct pv_proc *p;
	struct pv_map *m;
	char *path;

	if (rec->size <= sizeof(*r) || r->proc == 0 || r->end <= r->start)
		return -EBADMSG;
	path = copy_str(r->path, rec->size - sizeof(*r));
	if (!path)
		return -EBADMSG;
	p = pview__proc(l->v, r->proc);
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
		rc = 1;
		break;
	case PDATA_REC_KSYM:
		rc = on_ksym(l, rec);
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
	return settle(l, rc);
}

/* ---- samples and stacks ------------------------------------------------------
 *
 * The sample table is read in one pass into growing hash tables, so a
 * profile that gains samples while it is read cannot overflow them.  Each
 * stack node id met is read back into a PC list once (node ids of a live
 * file may change meaning only by being added, never rewritten); equal PC
 * lists (duplicate nodes made by racing writers) share one stack index.
 */

struct sample_set {
	struct pv_sample *slots;
	size_t mask, n;
};

struct stack_set {
	uint32_t *slots; /* stack index + 1, 0 = empty */
	size_t mask;
	uint64_t *pcs; /* every stack's PCs, one after another */
	size_t npcs, cap_pcs;
	struct pv_stack *stacks; /* .pcs holds an offset into pcs until the end */
	size_t nstacks, cap_stacks;
};

struct node_cache {
	uint64_t *slots; /* (node id << 32) | (stack index + 1), 0 = empty */
	size_t mask, n;
};

struct sample_loader {
	struct pdata *pd;
	struct sample_set set;
	struct stack_set stacks;
	struct node_cache nodes;
	uint64_t pcs[PDATA_MAX_DEPTH];
	int err;
};

static uint64_t hash64(uint64_t h)
{
	h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
	h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static uint64_t sample_hash(const struct pv_sample *e)
{
	return hash64(e->pc ^ hash64(((uint64_t)e->proc << 32) | (uint32_t)e->tid) ^
		      ((uint64_t)e->stack << 17));
}

/* Grow an open-addressing table of elem-sized slots to twice its size. */
static void *grow_table(void *old, size_t *mask, size_t elem, int (*empty)(const void *),
			size_t (*hash)(const void *))
{
	size_t nmask = *mask ? *mask * 2 + 1 : 63;
	char *n = calloc(nmask + 1, elem);

	if (!n)
		return NULL;
	for (size_t i = 0; old && i <= *mask; i++) {
		const char *e = (const char *)old + i * elem;
		size_t k;

		if (empty(e))
			continue;
		for (k = hash(e) & nmask; !empty(n + k * elem); k = (k + 1) & nmask)
			;
		memcpy(n + k * elem, e, elem);
	}
	free(old);
	*mask = nmask;
	return n;
}

static int sample_empty(const void *e)
{
	return ((const struct pv_sample *)e)->count == 0;
}

static size_t sample_slot_hash(const void *e)
{
	return (size_t)sample_hash(e);
}

static int merge_sample(struct sample_set *s, const struct pv_sample *in)
{
	size_t i;

	if ((s->n + 1) * 2 > s->mask) {
		struct pv_sample *n =
			grow_table(s->slots, &s->mask, sizeof(*n), sample_empty, sample_slot_hash);

		if (!n)
			return -ENOMEM;
		s->slots = n;
	}
	for (i = sample_hash(in) & s->mask;; i = (i + 1) & s->mask) {
		struct pv_sample *e = &s->slots[i];

		if (!e->count) {
			*e = *in;
			s->n++;
			return 0;
		}
		if (e->proc == in->proc && e->tid == in->tid && e->pc == in->pc &&
		    e->stack == in->stack) {
			/* saturate rather than wrap on absurd (corrupt) counts */
			e->count =
				e->count + in->count < e->count ? UINT64_MAX : e->count + in->count;
			return 0;
		}
	}
}

static uint64_t pcs_hash(const uint64_t *pcs, uint32_t n, int truncated)
{
	uint64_t h = hash64(n * 2 + (uint64_t)truncated);

	for (uint32_t i = 0; i < n; i++)
		h = hash64(h ^ pcs[i]);
	return h;
}

static int stack_set_grow(struct stack_set *ss)
{
	size_t nmask = ss->mask ? ss->mask * 2 + 1 : 63;
	uint32_t *n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; ss->slots && i <= ss->mask; i++) {
		const struct pv_stack *st;
		size_t k;

		if (!ss->slots[i])
			continue;
		st = &ss->stacks[ss->slots[i] - 1];
		k = pcs_hash(ss->pcs + (uintptr_t)st->pcs, st->n, st->truncated) & nmask;
		while (n[k])
			k = (k + 1) & nmask;
		n[k] = ss->slots[i];
	}
	free(ss->slots);
	ss->slots = n;
	ss->mask = nmask;
	return 0;
}

static int reserve_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *a;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	a = realloc(*arr, ncap * elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = ncap;
	return 0;
}

/* The stack index of a PC list (added when new); index 0 is the empty stack. */
static int stack_index(struct stack_set *ss, const uint64_t *pcs, uint32_t n, int truncated,
		       uint32_t *index)
{
	uint64_t h = pcs_hash(pcs, n, truncated);
	size_t i;

	if (ss->nstacks * 2 > ss->mask && stack_set_grow(ss) < 0)
		return -ENOMEM;
	for (i = h & ss->mask; ss->slots[i]; i = (i + 1) & ss->mask) {
		const struct pv_stack *st = &ss->stacks[ss->slots[i] - 1];

		if (st->n == n && st->truncated == truncated &&
		    !memcmp(ss->pcs + (uintptr_t)st->pcs, pcs, n * sizeof(*pcs))) {
			*index = ss->slots[i] - 1;
			return 0;
		}
	}
	if (reserve_array((void **)&ss->stacks, &ss->cap_stacks, ss->nstacks + 1,
			  sizeof(*ss->stacks)) ||
	    reserve_array((void **)&ss->pcs, &ss->cap_pcs, ss->npcs + n, sizeof(*ss->pcs)))
		return -ENOMEM;
	memcpy(ss->pcs + ss->npcs, pcs, n * sizeof(*pcs));
	ss->stacks[ss->nstacks] = (struct pv_stack){
		.pcs = (const uint64_t *)(uintptr_t)ss->npcs, .n = n, .truncated = truncated};
	ss->npcs += n;
	ss->slots[i] = (uint32_t)++ss->nstacks;
	*index = (uint32_t)(ss->nstacks - 1);
	return 0;
}

static int node_empty(const void *e)
{
	return *(const uint64_t *)e == 0;
}

static size_t node_hash(const void *e)
{
	return (size_t)hash64(*(const uint64_t *)e >> 32);
}

/*
 * The stack index of a file's stack node id, read back once per id.  A
 * node chain that cannot be read (damaged, or a loop) gives the empty
 * stack: the sample still counts, flat.
 */
static int node_stack(struct sample_loader *sl, uint32_t node, uint32_t *index)
{
	struct node_cache *c = &sl->nodes;
	size_t i;
	int n, truncated, rc;

	if ((c->n + 1) * 2 > c->mask) {
		uint64_t *t = grow_table(c->slots, &c->mask, sizeof(*t), node_empty, node_hash);

		if (!t)
			return -ENOMEM;
		c->slots = t;
	}
	for (i = hash64(node) & c->mask; c->slots[i]; i = (i + 1) & c->mask) {
		if (c->slots[i] >> 32 == node) {
			*index = (uint32_t)c->slots[i] - 1;
			return 0;
		}
	}
	n = pdata__stack(sl->pd, node, sl->pcs, PDATA_MAX_DEPTH);
	*index = 0;
	if (n > 0) {
		truncated = sl->pcs[n - 1] == PDATA_PC_TRUNCATED;
		rc = stack_index(&sl->stacks, sl->pcs, (uint32_t)(n - truncated), truncated, index);
		if (rc < 0)
			return rc;
	}
	c->slots[i] = ((uint64_t)node << 32) | (*index + 1);
	c->n++;
	return 0;
}

static int load_sample(void *arg, const struct pdata_sample *s)
{
	struct sample_loader *sl = arg;
	struct pv_sample e = {.proc = s->proc, .tid = s->tid, .pc = s->pc, .count = s->count};
	int rc = 0;

	if (s->stack)
		rc = node_stack(sl, s->stack, &e.stack);
	if (!rc)
		rc = merge_sample(&sl->set, &e);
	if (rc < 0) {
		sl->err = rc;
		return 1;
	}
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pv_sample *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int load_samples(struct pview *v, struct pdata *pd)
{
	struct sample_loader sl = {.pd = pd};
	struct stack_set *ss = &sl.stacks;
	size_t k = 0;
	int rc;

	/* index 0: the empty stack (not in the hash: no PC list maps to it) */
	if (reserve_array((void **)&ss->stacks, &ss->cap_stacks, 1, sizeof(*ss->stacks)))
		return -ENOMEM;
	ss->stacks[ss->nstacks++] = (struct pv_stack){0};
	rc = pdata__foreach_sample(pd, load_sample, &sl);
	if (!sl.err && rc < 0)
		sl.err = rc;
	free(sl.nodes.slots);
	free(ss->slots);
	if (sl.err) {
		free(sl.set.slots);
		free(ss->pcs);
		free(ss->stacks);
		return sl.err;
	}
	for (size_t i = 0; sl.set.slots && i <= sl.set.mask; i++)
		if (sl.set.slots[i].count)
			sl.set.slots[k++] = sl.set.slots[i];
	if (k > 1)
		qsort(sl.set.slots, k, sizeof(*sl.set.slots), cmp_sample);
	for (size_t i = 0; i < ss->nstacks; i++)
		ss->stacks[i].pcs = ss->pcs + (uintptr_t)ss->stacks[i].pcs;
	v->samples = sl.set.slots;
	v->nsamples = k;
	v->stacks = ss->stacks;
	v->nstacks = ss->nstacks;
	v->stack_pcs = ss->pcs;
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct pv_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct pv_thread *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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
			p->threads[k - 1] = t;
		} else {
			p->threads[k++] = t;
		}
	}
	p->nthreads = k;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct pv_ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Per-proc totals; a placeholder for every proc id only samples name.
 * Samples are sorted by proc id, so each unknown id is met in one run:
 * placeholders are appended, then the array is sorted once.
 */
static int attach_samples(struct loader *l)
{
	struct pview *v = l->v;
	size_t known = v->nprocs;

	for (size_t i = 0; i < v->nsamples; i++) {
		uint32_t id = v->samples[i].proc;
		struct pv_proc *p;

		if ((i && v->samples[i - 1].proc == id) || find_proc(v->procs, known, id))
			continue;
		p = add_proc(l, id);
		if (!p || !(p->exe = strdup("")))
			return -ENOMEM;
		p->placeholder = 1;
		p->order = v->nprocs;
	}
	if (v->nprocs > known)
		qsort(v->procs, v->nprocs, sizeof(*v->procs), cmp_proc);
	for (size_t i = 0; i < v->nsamples; i++) {
		struct pv_proc *p = pview__proc(v, v->samples[i].proc);

		p->samples += v->samples[i].count;
		v->total += v->samples[i].count;
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
		merge_threads(p);
	}
	if (v->nksyms > 1)
		qsort(v->ksyms, v->nksyms, sizeof(*v->ksyms), cmp_ksym);
	*out = v;
	return 0;
}

void pview__free(struct pview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nprocs; i++) {
		struct pv_proc *p = &v->procs[i];

		for (size_t k = 0; k < p->nmaps; k++)
			free(p->maps[k].path);
		free(p->maps);
		free(p->threads);
		free(p->exe);
	}
	for (size_t i = 0; i < v->nksyms; i++)
		free(v->ksyms[i].name);
	free(v->ksyms);
	free(v->procs);
	free(v->samples);
	free(v->stacks);
	free(v->stack_pcs);
	free(v);
}

const struct pv_thread *pv_proc__thread(const struct pv_proc *p, int tid)
{
	/* one entry per tid (merge_threads) */
	size_t lo = 0, hi = p->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->threads[mid].tid <= tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p->threads[lo - 1].tid == tid)
		return &p->threads[lo - 1];
	return NULL;
}

static const struct pv_map *own_map(const struct pv_proc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* overlapping maps (a region re-mapped): the latest start at or below pc that covers it */
	for (size_t k = lo; k > 0 && k + 8 > lo; k--)
		if (pc < p->maps[k - 1].end)
			return &p->maps[k - 1];
	return NULL;
}

const struct pv_map *pview__map_of(const struct pview *v, const struct pv_proc *p, uint64_t pc)
{
	for (int depth = 0; p && depth < MAX_PARENT_DEPTH; depth++) {
		const struct pv_map *m = own_map(p, pc);
		const struct pv_proc *parent;

		if (m)
			return m;
		if (!p->parent || p->parent == p->id)
			return NULL;
		parent = pview__proc(v, p->parent);
		/* an exec image does not inherit the previous image's mappings */
		if (!parent || (parent->end_kind == PDATA_END_EXEC && parent->pid == p->pid))
			return NULL;
		p = parent;
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

const struct pv_ksym *pview__ksym(const struct pview *v, uint64_t pc)
{
	size_t lo = 0, hi = v->nksyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->ksyms[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (v->ksyms[lo - 1].size && pc - v->ksyms[lo - 1].start >= v->ksyms[lo - 1].size)
		return NULL;
	return &v->ksyms[lo - 1];
}
