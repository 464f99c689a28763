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
	int err;
	size_t nrecs; /* records the first pass visited */
	size_t seen;  /* records the second pass visited */
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
	p->cpu_ns = r->cpu_ns;
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
	m->path = path;
	m->aux = NULL;
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

/* ---- samples: merge duplicated keys with an open-addressing table ---- */

/*
 * The set grows as it fills (load <= 1/2), so it never depends on a count
 * taken earlier: a profile being written gains samples between any two
 * looks at it.
 */
struct sample_set {
	struct pv_sample *slots;
	size_t mask, n;
	int err;
};

static uint64_t sample_hash(uint32_t proc, int tid, uint64_t pc)
{
	uint64_t h = (pc ^ ((((uint64_t)proc << 32) | (uint32_t)tid) * 0x9e3779b97f4a7c15ull)) *
		     0xff51afd7ed558ccdull;

	return h ^ (h >> 29);
}

/* The slot of (proc, tid, pc): its entry, or the empty slot where it goes. */
static struct pv_sample *set_slot(struct pv_sample *slots, size_t mask, uint32_t proc, int tid,
				  uint64_t pc)
{
	size_t i = sample_hash(proc, tid, pc) & mask;

	/* terminates: the load is at most 1/2, so there is an empty slot */
	for (;; i = (i + 1) & mask) {
		struct pv_sample *e = &slots[i];

		if (!e->count || (e->proc == proc && e->tid == tid && e->pc == pc))
			return e;
	}
}

static int set_grow(struct sample_set *s)
{
	size_t nmask = s->mask * 2 + 1;
	struct pv_sample *n;

	if (nmask + 1 > SIZE_MAX / 2 / sizeof(*n))
		return -ENOMEM;
	n = calloc(nmask + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= s->mask; i++)
		if (s->slots[i].count)
			*set_slot(n, nmask, s->slots[i].proc, s->slots[i].tid, s->slots[i].pc) =
				s->slots[i];
	free(s->slots);
	s->slots = n;
	s->mask = nmask;
	return 0;
}

static int merge_sample(void *arg, uint32_t proc, int tid, uint64_t pc, uint64_t count)
{
	struct sample_set *s = arg;
	struct pv_sample *e;

	if ((s->n + 1) * 2 > s->mask + 1 && (s->err = set_grow(s)) < 0)
		return 1;
	e = set_slot(s->slots, s->mask, proc, tid, pc);
	if (!e->count) {
		*e = (struct pv_sample){proc, tid, pc, count};
		s->n++;
		return 0;
	}
	/* saturate rather than wrap on absurd (corrupt) counts */
	e->count = e->count + count < e->count ? UINT64_MAX : e->count + count;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pv_sample *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int load_samples(struct pview *v, struct pdata *pd)
{
	struct sample_set set = {.mask = 63};
	size_t k = 0;
	int rc;

	set.slots = calloc(set.mask + 1, sizeof(*set.slots));
	if (!set.slots)
		return -ENOMEM;
	rc = pdata__foreach_sample(pd, merge_sample, &set);
	if (set.err < 0 || rc < 0) {
		free(set.slots);
		return set.err < 0 ? set.err : rc;
	}
	for (size_t i = 0; i <= set.mask; i++)
		if (set.slots[i].count)
			set.slots[k++] = set.slots[i];
	if (k > 1)
		qsort(set.slots, k, sizeof(*set.slots), cmp_sample);
	v->samples = set.slots;
	v->nsamples = k;
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

	return x->tid < y->tid ? -1 : x->tid > y->tid;
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
		if (p->nthreads > 1)
			qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
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

		for (size_t k = 0; k < p->nmaps; k++)
			free(p->maps[k].path);
		free(p->maps);
		free(p->threads);
		free(p->exe);
	}
	free(v->procs);
	free(v->samples);
	free(v);
}

const struct pv_thread *pv_proc__thread(const struct pv_proc *p, int tid)
{
	/* several records of one tid (it renamed itself): the last in sorted order */
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
