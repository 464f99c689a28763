// SPDX-License-Identifier: MIT
/* Call stacks walked in the kernel, user-space half: see kstacks.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/kstacks.h"
#include "utils/array.h"

#ifdef PROFIL_HAVE_BPF
#include <limits.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile/pdata.h"
#include "record/bpfload.h"
#include "unwind/unwind.h"
#include "unwind/unwind_bpf.h"
#include "utils/htab.h"
#include "kunwind.skel.h"

/* PERF_CONTEXT_MAX: callchain entries from here on are context markers, not PCs */
#define KSTACKS_CONTEXT_MARK ((uint64_t)-4095)

enum kobj_state { KOBJ_QUEUED, KOBJ_READY, KOBJ_NO_TABLE };

/* An ELF object with (or waiting for) tables in the kernel. */
struct kobj {
	struct unw_object *uo; /* the unwinder's object (file, CFI, compiled table) */
	uint32_t id;	       /* index in objects */
	enum kobj_state state;
	uint32_t refs; /* processes mapping it */
	uint32_t first, n;
	uint64_t build_ns;
	uint32_t pages, npages;
	struct kobj *next; /* the build queue */
};

struct kproc {
	pid_t pid;
	uint32_t image;
	struct unw_maps maps; /* obj: struct kobj *, NULL for code without a file */
	int dirty;	      /* to be written to the kernel */
};

static const struct htab_type ptr_type = HTAB_U64_TYPE(struct htab_obj);

/* A stack the kernel sent: its PCs, for the counts that name it by hash. */
struct kstack {
	uint32_t n, nkernel, flags;
	uint32_t node; /* its innermost node in the profile's frame table, once interned */
	uint64_t pcs[];
};

/* Cross-check: the kernel's walk of one tick, waiting for the recorder's. */
struct kcheck {
	uint64_t key; /* check_key(tid, time): a thread has one tick per 65 us at most */
	uint64_t time, sp;
	uint32_t n, flags;
	uint64_t pcs[KUNW_USER_FRAMES];
};

static uint64_t check_key(uint32_t tid, uint64_t time)
{
	return htab_hash_u64((uint64_t)tid << 40 ^ time >> 16) | 1;
}

static const struct htab_type check_type = HTAB_U64_TYPE(struct kcheck);

struct extent {
	uint32_t start, len;
	uint64_t round; /* quarantine: free from this round on */
};

/* Entries of one of the kernel's arrays (rows, pages): free extents, and freed ones in quarantine. */
struct pool {
	struct extent *free, *quarantine; /* free: sorted by start */
	size_t nfree, nquar, capfree, capquar;
	uint64_t used, peak;
};

struct kstacks {
	struct kunwind *skel;
	struct pdata *pd;
	struct unwinder *u; /* object cache and CFI compiler */
	struct unwind_bpf_rules *rules;
	struct kunw_row *rows_map;
	struct kunw_rule *rules_map;
	struct kunw_object *objects_map;
	size_t rows_len, rules_len, objects_len;
	struct ring_buffer *ring;
	struct htab *objs, *procs, *stacks, *checks;
	struct htab *last_image; /* pid -> its latest image (a count of an exec tick has none) */
	struct kobj *queue, *queue_tail;
	struct pool rows, pages;
	uint32_t *pages_map;
	size_t pages_len;
	uint32_t free_ids[KUNW_OBJECTS], nfree_ids;
	struct {
		uint32_t id;
		uint64_t round;
	} quar_ids[KUNW_OBJECTS];
	uint32_t nquar_ids;
	uint64_t round;
	struct kunw_tally *tally; /* the per-CPU tallies, mapped */
	uint64_t *tally_pos;
	size_t tally_len, tally_pos_len;
	uint32_t ncpus;
	int crosscheck;
	struct kunw_proc *procbuf;
	struct kstacks_stats st;
};

int kstacks__built(void)
{
	return 1;
}

/* Silent, unless PROFIL_BPF_VERBOSE is set (the verifier's log, to debug a refusal). */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return getenv("PROFIL_BPF_VERBOSE") ? vfprintf(stderr, fmt, ap) : 0;
}

/* ---- rows and object ids ---------------------------------------------------- */

static int push_extent(struct extent **v, size_t *n, size_t *cap, struct extent e)
{
	if (array__reserve(v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = e;
	return 0;
}

/* First fit; -1 when no extent is large enough. */
static int64_t pool_alloc(struct pool *pl, uint32_t len)
{
	for (size_t i = 0; i < pl->nfree; i++) {
		struct extent *e = &pl->free[i];
		uint32_t at = e->start;

		if (e->len < len)
			continue;
		e->start += len;
		e->len -= len;
		if (!e->len)
			memmove(e, e + 1, (--pl->nfree - i) * sizeof(*e));
		pl->used += len;
		if (pl->used > pl->peak)
			pl->peak = pl->used;
		return at;
	}
	return -1;
}

/* Give extent e back to the free list, merged with its neighbours. */
static void pool_release(struct pool *pl, struct extent e)
{
	size_t i = 0;

	while (i < pl->nfree && pl->free[i].start < e.start)
		i++;
	if (i > 0 && pl->free[i - 1].start + pl->free[i - 1].len == e.start) {
		pl->free[i - 1].len += e.len;
		if (i < pl->nfree &&
		    pl->free[i - 1].start + pl->free[i - 1].len == pl->free[i].start) {
			pl->free[i - 1].len += pl->free[i].len;
			memmove(&pl->free[i], &pl->free[i + 1], (--pl->nfree - i) * sizeof(e));
		}
		return;
	}
	if (i < pl->nfree && e.start + e.len == pl->free[i].start) {
		pl->free[i].start = e.start;
		pl->free[i].len += e.len;
		return;
	}
	if (push_extent(&pl->free, &pl->nfree, &pl->capfree, e) < 0)
		return; /* out of memory: those entries are lost to the run */
	memmove(&pl->free[i + 1], &pl->free[i], (pl->nfree - 1 - i) * sizeof(e));
	pl->free[i] = e;
}

/* Freed entries wait until round before reuse (see release_quarantine). */
static void pool_free(struct pool *pl, uint32_t start, uint32_t len, uint64_t round)
{
	if (!len)
		return;
	pl->used -= len;
	push_extent(&pl->quarantine, &pl->nquar, &pl->capquar, (struct extent){start, len, round});
}

static void pool_release_due(struct pool *pl, uint64_t round)
{
	size_t keep = 0;

	for (size_t i = 0; i < pl->nquar; i++) {
		if (pl->quarantine[i].round <= round)
			pool_release(pl, pl->quarantine[i]);
		else
			pl->quarantine[keep++] = pl->quarantine[i];
	}
	pl->nquar = keep;
}

/*
 * Entries and ids of evicted objects wait two poll rounds before reuse: a
 * BPF program that read the object's entry just before it went may still
 * be reading its rows (for microseconds).
 */
static void release_quarantine(struct kstacks *k)
{
	size_t keep = 0;

	pool_release_due(&k->rows, k->round);
	pool_release_due(&k->pages, k->round);
	for (uint32_t i = 0; i < k->nquar_ids; i++) {
		if (k->quar_ids[i].round <= k->round)
			k->free_ids[k->nfree_ids++] = k->quar_ids[i].id;
		else
			k->quar_ids[keep++] = k->quar_ids[i];
	}
	k->nquar_ids = (uint32_t)keep;
}

static void pool_fini(struct pool *pl)
{
	free(pl->free);
	free(pl->quarantine);
}

/* ---- objects ---------------------------------------------------------------- */

/* The tables changed (after the change is written): the PC caches' entries are stale. */
static void bump_generation(struct kstacks *k)
{
	__atomic_add_fetch(&k->skel->bss->kunw_generation, 1, __ATOMIC_RELEASE);
}

static void publish(struct kstacks *k, struct kobj *o, uint64_t base, uint64_t range)
{
	struct kunw_object *e = &k->objects_map[o->id];

	__atomic_store_n(&e->range, 0, __ATOMIC_RELEASE);
	e->base = base;
	e->pages = o->pages;
	e->npages = o->npages;
	__atomic_store_n(&e->range, range, __ATOMIC_RELEASE);
	bump_generation(k);
}

/* The page index of rows (unwind/unwind_bpf.h). */
static int load_pages(struct kstacks *k, struct kobj *o, const struct unwind_bpf_rows *rows)
{
	uint32_t n = unwind_bpf__npages(rows);
	int64_t at = pool_alloc(&k->pages, n);

	if (at < 0)
		return -ENOSPC;
	unwind_bpf__pages(rows, &k->pages_map[at]);
	o->pages = (uint32_t)at;
	o->npages = n;
	return 0;
}

static struct kobj *object_for(struct kstacks *k, const char *path, uint64_t dev, uint64_t ino)
{
	struct unw_object *uo = unwinder__object(k->u, path, dev, ino);
	uint64_t key = (uintptr_t)uo;
	struct htab_obj *e;
	struct kobj *o;
	bool fresh;

	if (!uo)
		return NULL;
	e = htab__insert(k->objs, &ptr_type, &key, &fresh);
	if (!e)
		return NULL;
	if (!fresh)
		return e->p;
	o = calloc(1, sizeof(*o));
	if (!o || !k->nfree_ids) {
		free(o);
		htab__cancel_fresh(k->objs);
		e->key = 0;
		return NULL;
	}
	o->uo = uo;
	o->id = k->free_ids[--k->nfree_ids];
	o->state = KOBJ_QUEUED;
	publish(k, o, 0, 0); /* being built: its ticks go through the ring */
	if (k->queue_tail)
		k->queue_tail->next = o;
	else
		k->queue = o;
	k->queue_tail = o;
	e->key = key;
	e->p = o;
	k->st.objects++;
	return o;
}

/* Every process mapping o is written again (its biases are known now). */
static void mark_users_dirty(struct kstacks *k, const struct kobj *o)
{
	size_t pos = 0;
	struct htab_obj *e;

	while ((e = htab__next(k->procs, &pos))) {
		struct kproc *p = e->p;

		for (size_t i = 0; i < p->maps.n && !p->dirty; i++)
			p->dirty = p->maps.v[i].obj == o;
	}
}

static void write_dirty_procs(struct kstacks *k);

/* Encode o's compiled table into the kernel's rows and publish it. */
static void load_table(struct kstacks *k, struct kobj *o)
{
	struct unwind_bpf_rows rows = {0};
	uint64_t entry, entry_end;
	const char *why;
	const struct unw_table *t = unwinder__object_table(o->uo, &entry, &entry_end, &why);
	int64_t at;
	int rc;

	if (!t) { /* no CFI: frame-pointer steps, as the recorder's unwinder does */
		k->st.objects_no_cfi++;
		o->state = KOBJ_READY;
		publish(k, o, 0, KUNW_OBJ_READY);
		return;
	}
	rc = unwind_bpf__encode(t, entry, entry_end, k->rules, &rows, KSTACKS_OBJECT_ROWS);
	at = rc == 0 && rows.n ? pool_alloc(&k->rows, (uint32_t)rows.n) : -1;
	if (at >= 0 && load_pages(k, o, &rows) < 0) {
		pool_free(&k->rows, (uint32_t)at, (uint32_t)rows.n, 0);
		at = -1;
	}
	if (at < 0) {
		o->state = KOBJ_NO_TABLE;
		k->st.objects_too_big++;
		publish(k, o, 0, KUNW_OBJ_NO_TABLE);
		unwind_bpf_rows__free(&rows);
		return;
	}
	memcpy(&k->rows_map[at], rows.v, rows.n * sizeof(*rows.v));
	o->first = (uint32_t)at;
	o->n = (uint32_t)rows.n;
	o->state = KOBJ_READY;
	/* the processes' biases first: a ready object with a bias of 0 would give wrong rows */
	mark_users_dirty(k, o);
	write_dirty_procs(k);
	publish(k, o, rows.base, KUNW_OBJ_READY | (uint64_t)o->first << 32 | o->n);
	unwind_bpf_rows__free(&rows);
}

/* Build queued objects for about KSTACKS_BUILD_NS. */
static void build_some(struct kstacks *k)
{
	uint64_t t0 = pdata__clock_ns(CLOCK_MONOTONIC), spent = 0;

	while (k->queue && spent < KSTACKS_BUILD_NS) {
		struct kobj *o = k->queue;
		uint64_t t1 = pdata__clock_ns(CLOCK_MONOTONIC);
		int rc = unwinder__object_compile(k->u, o->uo, KSTACKS_BUILD_NS - spent);

		o->build_ns += pdata__clock_ns(CLOCK_MONOTONIC) - t1;
		spent = pdata__clock_ns(CLOCK_MONOTONIC) - t0;
		if (rc == -EAGAIN)
			break;
		k->queue = o->next;
		if (!k->queue)
			k->queue_tail = NULL;
		o->next = NULL;
		if (rc < 0) {
			o->state = KOBJ_NO_TABLE;
			publish(k, o, 0, KUNW_OBJ_NO_TABLE);
		} else {
			load_table(k, o);
		}
		if (o->build_ns > k->st.build_max_ns)
			k->st.build_max_ns = o->build_ns;
		mark_users_dirty(k, o);
	}
	k->st.build_ns += pdata__clock_ns(CLOCK_MONOTONIC) - t0;
}

/*
 * Take key's entry out of *t (htab has no delete: the others are re-inserted
 * into a new table).  0, or -ENOMEM (*t unchanged).
 */
static int ptr_table_drop(struct htab **t, uint64_t key)
{
	struct htab *n = htab__new(&ptr_type, htab__count(*t));
	size_t pos = 0;
	struct htab_obj *x;

	if (!n)
		return -ENOMEM;
	while ((x = htab__next(*t, &pos))) {
		bool fresh;
		struct htab_obj *y;

		if (x->key == key)
			continue;
		y = htab__insert(n, &ptr_type, &x->key, &fresh);
		if (y)
			*y = *x;
	}
	htab__free(*t);
	*t = n;
	return 0;
}

/* Nobody maps o any more: its rows and id go back (after the quarantine), its table is freed. */
static void evict(struct kstacks *k, struct kobj *o)
{
	uint64_t key = (uintptr_t)o->uo;
	struct htab_obj *e = htab__find(k->objs, &ptr_type, &key);

	if (o->state == KOBJ_QUEUED) {
		struct kobj **pp = &k->queue;

		while (*pp && *pp != o)
			pp = &(*pp)->next;
		if (*pp)
			*pp = o->next;
		k->queue_tail = NULL;
		for (struct kobj *q = k->queue; q; q = q->next)
			k->queue_tail = q;
	}
	publish(k, o, 0, 0);
	pool_free(&k->rows, o->first, o->n, k->round + 2);
	pool_free(&k->pages, o->pages, o->npages, k->round + 2);
	k->quar_ids[k->nquar_ids].id = o->id;
	k->quar_ids[k->nquar_ids++].round = k->round + 2;
	unwinder__object_release(k->u, o->uo);
	if (e)
		ptr_table_drop(&k->objs, key);
	k->st.evicted++;
	free(o);
}

static void ref_objects(struct kstacks *k, const struct unw_maps *m, int delta)
{
	for (size_t i = 0; i < m->n; i++) {
		struct kobj *o = m->v[i].obj;
		int seen = 0;

		if (!o)
			continue;
		for (size_t j = 0; j < i && !seen; j++) /* once per process */
			seen = m->v[j].obj == o;
		if (seen)
			continue;
		o->refs += delta;
		if (!o->refs)
			evict(k, o);
	}
}

/* ---- processes ---------------------------------------------------------------- */

static struct kproc *find_proc(struct kstacks *k, pid_t pid)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;
	struct htab_obj *e = htab__find(k->procs, &ptr_type, &key);

	return e ? e->p : NULL;
}

/* Remember pid's latest image (bounded: forgotten all at once past 64 Ki processes). */
static void note_image(struct kstacks *k, pid_t pid, uint32_t image)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;
	struct htab_obj *e;
	bool fresh;

	if (!image || !k->last_image)
		return;
	if (htab__count(k->last_image) >= 65536) {
		htab__free(k->last_image);
		k->last_image = htab__new(&ptr_type, 256);
		if (!k->last_image)
			return;
	}
	e = htab__insert(k->last_image, &ptr_type, &key, &fresh);
	if (e) {
		e->key = key;
		e->p = (void *)(uintptr_t)image;
	}
}

static uint32_t latest_image(struct kstacks *k, uint32_t pid)
{
	uint64_t key = (uint64_t)pid + 1;
	struct htab_obj *e = k->last_image ? htab__find(k->last_image, &ptr_type, &key) : NULL;

	return e ? (uint32_t)(uintptr_t)e->p : 0;
}

static struct kproc *get_proc(struct kstacks *k, pid_t pid, uint32_t image)
{
	struct kproc *p;
	bool fresh;

	note_image(k, pid, image);
	p = htab__obj_get(k->procs, &ptr_type, (uint64_t)(uint32_t)pid + 1, sizeof(*p), &fresh);
	if (!p)
		return NULL;
	if (fresh)
		p->pid = pid;
	if (fresh || image)
		p->image = image;
	return p;
}

/* Drop pid's mappings here and in the kernel. */
static void drop_proc(struct kstacks *k, pid_t pid)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;
	struct htab_obj *e = htab__find(k->procs, &ptr_type, &key);
	uint32_t tgid = (uint32_t)pid;
	struct kproc *p;

	bpf_map_delete_elem(bpf_map__fd(k->skel->maps.procs), &tgid);
	bump_generation(k);
	if (!e)
		return;
	p = e->p;
	if (ptr_table_drop(&k->procs, key) < 0)
		return;
	ref_objects(k, &p->maps, -1);
	unw_maps_free(&p->maps);
	free(p);
}

/* Mappings whose name is not a file: anonymous (JIT) code, or pseudo-files. */
static int is_anon(const char *path)
{
	return strcmp(path, "[vdso]") && (path[0] != '/' || !strncmp(path, "//anon", 6));
}

void kstacks__map(struct kstacks *k, pid_t pid, uint32_t image, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path)
{
	struct kproc *p = get_proc(k, pid, image);
	struct kobj *o = NULL;
	struct unw_maps old;

	if (!p || start >= end)
		return;
	if (!path)
		path = "";
	if (!is_anon(path) && !(o = object_for(k, path, dev, ino)))
		return;
	if (unw_maps_copy(&old, &p->maps) < 0)
		return;
	if (unw_maps_insert(&p->maps, start, end, pgoff, o) == 0) {
		ref_objects(k, &p->maps, 1);
		ref_objects(k, &old, -1);
		p->dirty = 1;
	} else if (o && !o->refs) {
		evict(k, o);
	}
	unw_maps_free(&old);
}

void kstacks__fork(struct kstacks *k, pid_t ppid, pid_t pid, uint32_t image)
{
	struct kproc *parent = find_proc(k, ppid), *child;

	drop_proc(k, pid);
	if (!parent)
		return;
	child = get_proc(k, pid, image);
	if (!child || unw_maps_copy(&child->maps, &parent->maps) < 0)
		return;
	ref_objects(k, &child->maps, 1);
	child->dirty = 1;
}

void kstacks__proc_maps(struct kstacks *k, pid_t pid, uint32_t image)
{
	char name[64], line[PATH_MAX + 256];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], path[PATH_MAX] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, path) < 7 ||
		    perms[2] != 'x')
			continue;
		kstacks__map(k, pid, image, start, end, off, makedev(maj, min), ino, path);
	}
	fclose(f);
}

void kstacks__forget(struct kstacks *k, pid_t pid)
{
	drop_proc(k, pid);
}

void kstacks__exited(struct kstacks *k, pid_t pid)
{
	uint32_t tgid = (uint32_t)pid;

	drop_proc(k, pid);
	bpf_map_delete_elem(bpf_map__fd(k->skel->maps.pstate), &tgid);
}

int kstacks__track(struct kstacks *k, pid_t pid)
{
	struct kunw_pstate st = {0};
	uint32_t tgid = (uint32_t)pid;

	return bpf_map_update_elem(bpf_map__fd(k->skel->maps.pstate), &tgid, &st, BPF_ANY) < 0 ?
		       -errno :
		       0;
}

/* The kernel's entry of p: its mappings with their objects' ids and biases. */
static void write_proc(struct kstacks *k, struct kproc *p)
{
	struct kunw_proc *e = k->procbuf;
	uint32_t tgid = (uint32_t)p->pid;
	int fd = bpf_map__fd(k->skel->maps.procs);

	p->dirty = 0;
	if (p->maps.n > KUNW_MAX_MAPS) { /* too many: its ticks go through the ring */
		bpf_map_delete_elem(fd, &tgid);
		bump_generation(k);
		return;
	}
	e->image = p->image;
	e->nmaps = (uint32_t)p->maps.n;
	for (size_t i = 0; i < p->maps.n; i++) {
		const struct unw_map *m = &p->maps.v[i];
		const struct kobj *o = m->obj;
		int64_t bias = 0;

		if (o) /* known once the object is open (its PT_LOADs) */
			unwinder__object_bias(o->uo, m->start, m->pgoff, &bias);
		e->maps[i] = (struct kunw_map){.start = m->start,
					       .end = m->end,
					       .bias = bias,
					       .obj = o ? o->id : KUNW_OBJ_ANON};
	}
	bpf_map_update_elem(fd, &tgid, e, BPF_ANY);
	bump_generation(k);
}

static void write_dirty_procs(struct kstacks *k)
{
	size_t pos = 0;
	struct htab_obj *e;

	while ((e = htab__next(k->procs, &pos)))
		if (((struct kproc *)e->p)->dirty)
			write_proc(k, e->p);
}

/* ---- stacks and counts -------------------------------------------------------- */

static void on_check(struct kstacks *k, const struct kunw_check *c)
{
	uint64_t key = check_key(c->tid, c->time);
	struct kcheck *e;
	bool fresh;

	if (htab__count(k->checks) > 65536) { /* ticks the ring lost: forget them */
		htab__free(k->checks);
		k->checks = htab__new(&check_type, 4096);
		if (!k->checks)
			return;
	}
	e = htab__insert(k->checks, &check_type, &key, &fresh);
	if (!e)
		return;
	e->key = key;
	e->time = c->time;
	e->sp = c->sp;
	e->n = c->nuser < KUNW_USER_FRAMES ? c->nuser : KUNW_USER_FRAMES;
	e->flags = c->flags;
	memcpy(e->pcs, c->pcs, e->n * sizeof(c->pcs[0]));
}

static int on_ring(void *arg, void *data, size_t size)
{
	struct kstacks *k = arg;
	const struct kunw_stack *s = data;
	struct kstack *st;
	struct htab_obj *e;
	uint32_t n, skip;
	bool fresh;

	if (size >= sizeof(struct kunw_check) && !s->hash) {
		on_check(k, data);
		return 0;
	}
	if (size < KUNW_STACK_HEAD)
		return 0;
	n = s->nkernel + s->nuser;
	if (n > KUNW_FRAMES || size < KUNW_STACK_HEAD + 8ull * n)
		return 0;
	e = htab__insert(k->stacks, &ptr_type, &s->hash, &fresh);
	if (!e || !fresh)
		return 0;
	st = malloc(sizeof(*st) + 8ull * n);
	if (!st) {
		htab__cancel_fresh(k->stacks);
		e->key = 0;
		return 0;
	}
	skip = s->nkernel && s->pcs[0] >= KSTACKS_CONTEXT_MARK; /* the callchain's context marker */
	st->n = n - skip;
	st->nkernel = s->nkernel - skip;
	st->flags = s->flags;
	st->node = 0;
	memcpy(st->pcs, s->pcs + skip, 8ull * st->n);
	e->key = s->hash;
	e->p = st;
	k->st.stacks++;
	return 0;
}

static void count_reason(struct kstacks *k, uint32_t flags, uint64_t n)
{
	if (flags & KUNW_F_TRUNC_STACK)
		k->st.trunc_stack += n;
	else if (flags & KUNW_F_TRUNC_NO_MAP)
		k->st.trunc_no_map += n;
	else if (flags & KUNW_F_TRUNC_NO_CFI)
		k->st.trunc_no_cfi += n;
	else if (flags & KUNW_F_TRUNC_DEPTH)
		k->st.trunc_depth += n;
	else
		k->st.trunc_other += n;
}

static void apply_count(struct kstacks *k, const struct kunw_tally *key, uint64_t count)
{
	struct htab_obj *e = htab__find(k->stacks, &ptr_type, &key->stack);
	const struct kstack *s;
	uint32_t image;
	int truncated;

	if (!e) {
		k->st.lost_unknown += count;
		__atomic_add_fetch(&pdata__header(k->pd)->dropped, count, __ATOMIC_RELAXED);
		return;
	}
	s = e->p;
	/* an exec tick of a process the kernel did not know yet: the thread's (its pid's) image */
	image = key->image ? key->image : latest_image(k, key->tid);
	truncated = (s->flags & KUNW_F_TRUNCATED) != 0 || s->n > PDATA_MAX_DEPTH - 1;
	if (!s->node) /* once per stack: a count is then one slot of the sample table */
		((struct kstack *)s)->node = pdata__intern_stack(k->pd, s->pcs, s->n, truncated);
	pdata__count_interned(k->pd, image, (int)key->tid, s->pcs[0], s->node, truncated, count);
	k->st.samples += count;
	if (truncated) {
		k->st.truncated += count;
		count_reason(k, s->flags, count);
	}
}

/*
 * Move the ticks of every CPU's tally into the profile (consecutive ticks
 * of one thread in one stack at once).  The heads are read first, then the
 * new stacks: every stack a record names was on the BPF ring before it.
 */
static void drain_tally(struct kstacks *k)
{
	uint64_t heads[KSTACKS_MAX_CPUS];

	for (uint32_t c = 0; c < k->ncpus; c++)
		heads[c] = __atomic_load_n(&k->tally_pos[c * KUNW_TALLY_POS], __ATOMIC_ACQUIRE);
	ring_buffer__consume(k->ring);
	for (uint32_t c = 0; c < k->ncpus; c++) {
		uint64_t *tailp = &k->tally_pos[c * KUNW_TALLY_POS + KUNW_TALLY_TAIL];
		uint64_t tail = *tailp, n = 1;
		const struct kunw_tally *t = &k->tally[(size_t)c * KUNW_TALLY_SLOTS], *run = NULL;

		if (heads[c] - tail > KUNW_TALLY_SLOTS) /* not BPF's doing: skip, never read past */
			tail = heads[c];
		for (; tail != heads[c]; tail++) {
			const struct kunw_tally *r = &t[tail & (KUNW_TALLY_SLOTS - 1)];

			if (run && r->stack == run->stack && r->tid == run->tid &&
			    r->image == run->image) {
				n++;
				continue;
			}
			if (run)
				apply_count(k, run, n);
			run = r;
			n = 1;
		}
		if (run)
			apply_count(k, run, n);
		__atomic_store_n(tailp, heads[c], __ATOMIC_RELEASE);
	}
}

/* The known set is cleared when 3/4 full: the kernel sends those stacks again, if they recur. */
static void trim_known(struct kstacks *k)
{
	int fd = bpf_map__fd(k->skel->maps.known);
	uint64_t key, next;
	int n = 0;

	if (htab__count(k->stacks) < KUNW_KNOWN / 4 * 3 || k->st.stacks % 1024)
		return;
	while (bpf_map_get_next_key(fd, n ? &key : NULL, &next) == 0) {
		bpf_map_delete_elem(fd, &next);
		key = next;
		n = 1;
	}
}

void kstacks__flush(struct kstacks *k, uint64_t synced_until)
{
	int final = synced_until == UINT64_MAX;

	release_quarantine(k);
	ring_buffer__consume(k->ring); /* new stacks, and the wakeups (their epoll fd is polled) */
	build_some(k);
	write_dirty_procs(k);
	k->skel->bss->kunw_synced_until = final ? pdata__clock_ns(CLOCK_MONOTONIC) : synced_until;
	if (final)
		usleep(2000); /* a tick in flight on another CPU */
	drain_tally(k);
	trim_known(k);
	k->round++;
}

void kstacks__table_fds(const struct kstacks *k, struct kstacks_fds *out)
{
	*out = (struct kstacks_fds){
		.rows = bpf_map__fd(k->skel->maps.rows),
		.pages = bpf_map__fd(k->skel->maps.pages),
		.rules = bpf_map__fd(k->skel->maps.rules),
		.objects = bpf_map__fd(k->skel->maps.objects),
		.procs = bpf_map__fd(k->skel->maps.procs),
		.pstate = bpf_map__fd(k->skel->maps.pstate),
	};
}

uint64_t kstacks__synced_until(const struct kstacks *k)
{
	return k->skel->bss->kunw_synced_until;
}

uint32_t kstacks__generation(const struct kstacks *k)
{
	return k->skel->bss->kunw_generation;
}

int kstacks__wake_fd(struct kstacks *k)
{
	return k && k->ring ? ring_buffer__epoll_fd(k->ring) : -1;
}

/* ---- cross-check ---------------------------------------------------------------- */

/*
 * Two walks of one tick agree when they give the same frames, or when one
 * stops where the other cannot go on: the ring's copy of the stack ended
 * (16 KiB), or the kernel's depth limit (KUNW_USER_FRAMES).
 */
static int walks_agree(unsigned int kn, const uint64_t *kpcs, unsigned int kflags,
		       const uint64_t *pcs, unsigned int n, unsigned int flags)
{
	unsigned int common = kn < n ? kn : n;

	for (unsigned int i = 0; i < common; i++)
		if (kpcs[i] != pcs[i])
			return 0;
	if (kn == n)
		return (kflags & (KUNW_F_COMPLETE | KUNW_F_TRUNCATED)) ==
		       (flags & (KUNW_F_COMPLETE | KUNW_F_TRUNCATED));
	if (n < kn)
		return (flags & KUNW_F_TRUNC_STACK) || (flags & KUNW_F_TRUNC_DEPTH);
	return (kflags & KUNW_F_TRUNC_DEPTH) != 0;
}

static void print_mismatch(uint32_t tid, unsigned int kn, const uint64_t *kpcs, unsigned int kflags,
			   const uint64_t *pcs, unsigned int n, unsigned int flags)
{
	fprintf(stderr,
		"kunwind cross-check: tid %u: kernel %u frames flags %#x, recorder %u "
		"frames flags %#x\n",
		tid, kn, kflags, n, flags);
	for (unsigned int i = 0; i < kn || i < n; i++)
		fprintf(stderr, "  %2u %#18llx %#18llx\n", i,
			i < kn ? (unsigned long long)kpcs[i] : 0ull,
			i < n ? (unsigned long long)pcs[i] : 0ull);
}

/* The kernel's walk of the same tick: same thread, time within 50 us, same SP and PC. */
void kstacks__check(struct kstacks *k, pid_t tid, uint64_t time, uint64_t sp, const uint64_t *pcs,
		    unsigned int n, unsigned int flags)
{
	const char *env = getenv(KSTACKS_ENV_CROSSCHECK);

	if (!k->crosscheck || !n || !k->checks)
		return;
	ring_buffer__consume(k->ring);
	for (int b = -1; b <= 1; b++) {
		uint64_t key = check_key((uint32_t)tid, time + (uint64_t)((int64_t)b * 65536));
		struct kcheck *c = htab__find(k->checks, &check_type, &key);
		uint64_t d;

		if (!c || !c->n)
			continue;
		d = c->time > time ? c->time - time : time - c->time;
		if (d > 50000 || c->sp != sp || c->pcs[0] != pcs[0])
			continue;
		k->st.checked++;
		if (walks_agree(c->n, c->pcs, c->flags, pcs, n, flags))
			k->st.agreed++;
		else if (env && env[0] == 'v')
			print_mismatch((uint32_t)tid, c->n, c->pcs, c->flags, pcs, n, flags);
		c->n = 0; /* used */
		return;
	}
}

/* ---- open, stats, close ---------------------------------------------------------- */

static void *map_array(struct bpf_map *m, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);

	return p == MAP_FAILED ? NULL : p;
}

/* This kernel's release is at least major.minor (uname). */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static int open_skel(struct kstacks *k, int prepare_exec)
{
	k->skel = kunwind__open();
	if (!k->skel)
		return -errno;
	k->skel->rodata->hash_seed =
		((uint64_t)rand() << 32 ^ (uint64_t)pdata__clock_ns(CLOCK_MONOTONIC)) | 1;
	k->skel->rodata->crosscheck = k->crosscheck;
	k->skel->rodata->tally_cpus = k->ncpus;
	if (bpf_map__set_max_entries(k->skel->maps.tally, k->ncpus * KUNW_TALLY_SLOTS) < 0 ||
	    bpf_map__set_max_entries(k->skel->maps.tally_pos, k->ncpus * KUNW_TALLY_POS) < 0)
		return -EINVAL;
	bpf_program__set_autoload(k->skel->progs.kunwind_prepare_exec, prepare_exec);
	return 0;
}

static int load_skel(struct kstacks *k)
{
	int err = kunwind__load(k->skel);

	if (!err)
		err = kunwind__attach(k->skel);
	return err ? (errno ? -errno : err) : 0;
}

static int load_failed(int err, char *why, size_t whylen)
{
	if ((err == -EACCES || err == -EPERM) && geteuid() == 0) {
		snprintf(why, whylen,
			 "the kernel's verifier refused the in-kernel unwinder (it needs Linux 6.1 "
			 "or later with BTF: bpf_loop, tp_btf, hash maps allocated as used)");
		return -ENOTSUP;
	}
	snprintf(why, whylen, "cannot load the in-kernel unwinder: %s%s", strerror(-err),
		 err == -EPERM || err == -EACCES ?
			 " (needs root or CAP_BPF+CAP_PERFMON)" :
			 " (it needs Linux 6.1 or later with BTF: bpf_loop, tp_btf)");
	return err == -EACCES ? -EPERM : err == -EPERM ? err : -ENOTSUP;
}

/*
 * Load and attach the program.  sched_prepare_exec (Linux 6.10) is used
 * where the release says it exists, and left out when loading with it
 * fails; no parse of the kernel's BTF of our own to ask (libbpf parses it
 * once for the load: ~10 ms each here).
 */
static int load(struct kstacks *k, char *why, size_t whylen)
{
	int prepare_exec = kernel_at_least(6, 10), err;

	err = open_skel(k, prepare_exec);
	if (!err)
		err = load_skel(k);
	if (err && prepare_exec && k->skel && err != -EPERM) {
		kunwind__destroy(k->skel);
		err = open_skel(k, 0);
		if (!err)
			err = load_skel(k);
	}
	return err ? load_failed(err, why, whylen) : 0;
}

static int setup(struct kstacks *k)
{
	k->rows_len = (size_t)KUNW_ROWS * sizeof(struct kunw_row);
	k->rules_len = (size_t)KUNW_RULES * sizeof(struct kunw_rule);
	k->objects_len = (size_t)KUNW_OBJECTS * sizeof(struct kunw_object);
	k->pages_len = (size_t)KUNW_PAGES * sizeof(uint32_t);
	k->rows_map = map_array(k->skel->maps.rows, k->rows_len);
	k->pages_map = map_array(k->skel->maps.pages, k->pages_len);
	k->rules_map = map_array(k->skel->maps.rules, k->rules_len);
	k->objects_map = map_array(k->skel->maps.objects, k->objects_len);
	k->tally_len = (size_t)k->ncpus * KUNW_TALLY_SLOTS * sizeof(struct kunw_tally);
	k->tally_pos_len = (size_t)k->ncpus * KUNW_TALLY_POS * sizeof(uint64_t);
	k->tally = map_array(k->skel->maps.tally, k->tally_len);
	k->tally_pos = map_array(k->skel->maps.tally_pos, k->tally_pos_len);
	k->ring = ring_buffer__new(bpf_map__fd(k->skel->maps.stacks), on_ring, k, NULL);
	k->u = unwinder__new();
	k->objs = htab__new(&ptr_type, 256);
	k->procs = htab__new(&ptr_type, 256);
	k->stacks = htab__new(&ptr_type, 4096);
	k->checks = htab__new(&check_type, 4096);
	k->last_image = htab__new(&ptr_type, 256);
	k->procbuf = calloc(1, sizeof(*k->procbuf));
	if (!k->rows_map || !k->pages_map || !k->rules_map || !k->objects_map || !k->tally ||
	    !k->tally_pos || !k->ring || !k->u || !k->objs || !k->procs || !k->stacks ||
	    !k->checks || !k->procbuf ||
	    unwind_bpf_rules__new(&k->rules, k->rules_map, KUNW_RULES) < 0 ||
	    push_extent(&k->rows.free, &k->rows.nfree, &k->rows.capfree,
			(struct extent){0, KUNW_ROWS, 0}) < 0 ||
	    push_extent(&k->pages.free, &k->pages.nfree, &k->pages.capfree,
			(struct extent){0, KUNW_PAGES, 0}) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < KUNW_OBJECTS; i++)
		k->free_ids[k->nfree_ids++] = KUNW_OBJECTS - 1 - i;
	k->st.rows_max = KUNW_ROWS;
	return 0;
}

int kstacks__open(struct kstacks **out, struct pdata *pd, char *why, size_t whylen)
{
	struct kstacks *k = calloc(1, sizeof(*k));
	const char *cc = getenv(KSTACKS_ENV_CROSSCHECK);
	int rc, ncpus;

	if (!k)
		return -ENOMEM;
	k->pd = pd;
	k->crosscheck = cc && *cc && *cc != '0';
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > KSTACKS_MAX_CPUS) {
		snprintf(why, whylen, "the in-kernel unwinder supports at most %d CPUs",
			 KSTACKS_MAX_CPUS);
		free(k);
		return -ENOTSUP;
	}
	k->ncpus = (uint32_t)ncpus;
	libbpf_set_print(libbpf_log);
	rc = load(k, why, whylen);
	if (rc == 0 && setup(k) < 0) {
		snprintf(why, whylen, "out of memory for the in-kernel unwinder's tables");
		rc = -ENOMEM;
	}
	if (rc < 0) {
		kstacks__close(k);
		return rc;
	}
	*out = k;
	return 0;
}

int kstacks__attach(struct kstacks *k, int perf_fd)
{
	int prog = bpf_program__fd(k->skel->progs.kunwind_tick);

	return ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog) < 0 ? -errno : 0;
}

/* The walk's cost: quantiles of the per-CPU histogram (all depths). */
static void cost_quantiles(struct kstacks *k)
{
	static uint64_t h[KUNW_COST_ENTRIES];
	uint64_t by[KUNW_COST_BUCKETS] = {0}, n = 0, acc = 0;
	uint64_t *q[3] = {&k->st.cost_median_ns, &k->st.cost_p90_ns, &k->st.cost_p99_ns};
	const double at[3] = {0.5, 0.9, 0.99};
	int qi = 0;

	bpfload__sum_percpu(bpf_map__fd(k->skel->maps.cost), KUNW_COST_ENTRIES, h);
	for (int d = 0; d < KUNW_COST_DEPTHS; d++)
		for (int b = 0; b < KUNW_COST_BUCKETS; b++)
			by[b] += h[d * KUNW_COST_BUCKETS + b];
	for (int b = 0; b < KUNW_COST_BUCKETS; b++)
		n += by[b];
	k->st.cost_n = n;
	for (int b = 0; b < KUNW_COST_BUCKETS && n && qi < 3; b++) {
		acc += by[b];
		while (qi < 3 && (double)acc >= at[qi] * (double)n)
			*q[qi++] = (uint64_t)b * KUNW_COST_NS + KUNW_COST_NS / 2;
	}
}

void kstacks__stats(struct kstacks *k, struct kstacks_stats *st)
{
	uint64_t s[KUNW_STAT_NR];

	bpfload__sum_percpu(bpf_map__fd(k->skel->maps.stats), KUNW_STAT_NR, s);
	k->st.ticks = s[KUNW_STAT_TICKS];
	k->st.counted = s[KUNW_STAT_COUNTED];
	k->st.no_proc = s[KUNW_STAT_NO_PROC];
	k->st.not_synced = s[KUNW_STAT_NOT_SYNCED];
	k->st.not_ready = s[KUNW_STAT_NOT_READY];
	k->st.no_table = s[KUNW_STAT_NO_TABLE];
	k->st.ring_full = s[KUNW_STAT_RING_FULL];
	k->st.counts_full = s[KUNW_STAT_COUNTS_FULL];
	k->st.kthread = s[KUNW_STAT_KERNEL_THREAD];
	k->st.in_exec = s[KUNW_STAT_IN_EXEC];
	k->st.walk_frames = s[KUNW_STAT_FRAMES];
	k->st.walk_reads = s[KUNW_STAT_READS];
	k->st.via_ring = k->st.ticks - k->st.counted;
	k->st.rules = unwind_bpf_rules__count(k->rules);
	k->st.rows = k->rows.peak;
	cost_quantiles(k);
	*st = k->st;
}

void kstacks__describe(struct kstacks *k, char *buf, size_t len)
{
	struct kstacks_stats s;
	size_t at;

	kstacks__stats(k, &s);
	snprintf(buf, len, "stacks walked in the kernel (CFI): %llu of %llu ticks, %.2f%% complete",
		 (unsigned long long)s.counted, (unsigned long long)s.ticks,
		 s.samples ? 100.0 * (double)(s.samples - s.truncated) / (double)s.samples : 100.0);
	at = strlen(buf);
	if (s.in_exec && at < len)
		snprintf(buf + at, len - at,
			 " (%llu of them in an exec past its point of no return: the kernel's "
			 "frames alone, no user stack exists then)",
			 (unsigned long long)s.in_exec);
	at = strlen(buf);
	if (s.truncated && at < len)
		snprintf(
			buf + at, len - at,
			" (cut short: read %llu, no map %llu, no CFI %llu, depth %llu, other %llu)",
			(unsigned long long)s.trunc_stack, (unsigned long long)s.trunc_no_map,
			(unsigned long long)s.trunc_no_cfi, (unsigned long long)s.trunc_depth,
			(unsigned long long)s.trunc_other);
	at = strlen(buf);
	if (s.via_ring && at < len)
		snprintf(buf + at, len - at,
			 "; via the ring %llu (new process %llu, mappings changing %llu, table "
			 "building %llu, no table %llu, full %llu)",
			 (unsigned long long)s.via_ring, (unsigned long long)s.no_proc,
			 (unsigned long long)s.not_synced, (unsigned long long)s.not_ready,
			 (unsigned long long)s.no_table,
			 (unsigned long long)(s.ring_full + s.counts_full + s.kthread));
	at = strlen(buf);
	if (k->crosscheck && at < len)
		snprintf(buf + at, len - at, "; cross-check: %llu of %llu agree",
			 (unsigned long long)s.agreed, (unsigned long long)s.checked);
}

/*
 * PROFIL_KUNWIND_STATS=FILE (the benchmark): the walk's figures as one
 * JSON object, with the cost histogram (ns per tick, by user depth class).
 */
static void write_stats_file(struct kstacks *k)
{
	static uint64_t h[KUNW_COST_ENTRIES];
	const char *path = getenv(KSTACKS_ENV_STATS);
	struct kstacks_stats s;
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "we")))
		return;
	kstacks__stats(k, &s);
	bpfload__sum_percpu(bpf_map__fd(k->skel->maps.cost), KUNW_COST_ENTRIES, h);
	fprintf(f,
		"{\"ticks\": %llu, \"counted\": %llu, \"via_ring\": %llu, \"no_proc\": %llu, "
		"\"not_synced\": %llu, \"not_ready\": %llu, \"no_table\": %llu, \"samples\": %llu, "
		"\"truncated\": %llu, \"stacks\": %llu, \"objects\": %llu, \"rows\": %llu, "
		"\"rules\": %llu, \"build_ns\": %llu, \"build_max_ns\": %llu, \"checked\": %llu, "
		"\"agreed\": %llu, \"in_exec\": %llu, \"walk_frames\": %llu, \"walk_reads\": %llu, "
		"\"cost_bucket_ns\": %d, \"cost\": [",
		(unsigned long long)s.ticks, (unsigned long long)s.counted,
		(unsigned long long)s.via_ring, (unsigned long long)s.no_proc,
		(unsigned long long)s.not_synced, (unsigned long long)s.not_ready,
		(unsigned long long)s.no_table, (unsigned long long)s.samples,
		(unsigned long long)s.truncated, (unsigned long long)s.stacks,
		(unsigned long long)s.objects, (unsigned long long)s.rows,
		(unsigned long long)s.rules, (unsigned long long)s.build_ns,
		(unsigned long long)s.build_max_ns, (unsigned long long)s.checked,
		(unsigned long long)s.agreed, (unsigned long long)s.in_exec,
		(unsigned long long)s.walk_frames, (unsigned long long)s.walk_reads, KUNW_COST_NS);
	for (int kind = 0; kind < KUNW_COST_KINDS; kind++) {
		fprintf(f, "%s", kind ? "], \"tick_cost\": [" : "");
		for (int d = 0; d < KUNW_COST_DEPTHS; d++) {
			const uint64_t *row = &h[(kind * KUNW_COST_DEPTHS + d) * KUNW_COST_BUCKETS];

			fprintf(f, "%s[", d ? ", " : "");
			for (int b = 0; b < KUNW_COST_BUCKETS; b++)
				fprintf(f, "%s%llu", b ? ", " : "", (unsigned long long)row[b]);
			fprintf(f, "]");
		}
	}
	fprintf(f, "]}\n");
	fclose(f);
}

void kstacks__close(struct kstacks *k)
{
	size_t pos = 0;
	struct htab_obj *e;

	if (!k)
		return;
	if (k->skel && k->rules)
		write_stats_file(k);
	while (k->procs && (e = htab__next(k->procs, &pos)))
		unw_maps_free(&((struct kproc *)e->p)->maps);
	HTAB_FREE_OWNED(k->procs, struct htab_obj, p);
	HTAB_FREE_OWNED(k->objs, struct htab_obj, p);
	HTAB_FREE_OWNED(k->stacks, struct htab_obj, p);
	htab__free(k->checks);
	htab__free(k->last_image);
	ring_buffer__free(k->ring);
	if (k->rows_map)
		munmap(k->rows_map, k->rows_len);
	if (k->pages_map)
		munmap(k->pages_map, k->pages_len);
	if (k->rules_map)
		munmap(k->rules_map, k->rules_len);
	if (k->objects_map)
		munmap(k->objects_map, k->objects_len);
	if (k->tally)
		munmap(k->tally, k->tally_len);
	if (k->tally_pos)
		munmap(k->tally_pos, k->tally_pos_len);
	unwind_bpf_rules__free(k->rules);
	unwinder__free(k->u);
	kunwind__destroy(k->skel);
	pool_fini(&k->rows);
	pool_fini(&k->pages);
	free(k->procbuf);
	free(k);
}

#else /* !PROFIL_HAVE_BPF */

int kstacks__built(void)
{
	return 0;
}

int kstacks__open(struct kstacks **out, struct pdata *pd, char *why, size_t whylen)
{
	(void)out, (void)pd;
	snprintf(why, whylen, "this profil was built without BPF support");
	return -ENOTSUP;
}

int kstacks__attach(struct kstacks *k, int perf_fd)
{
	(void)k, (void)perf_fd;
	return -ENOTSUP;
}

int kstacks__track(struct kstacks *k, pid_t pid)
{
	(void)k, (void)pid;
	return -ENOTSUP;
}

void kstacks__map(struct kstacks *k, pid_t pid, uint32_t image, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path)
{
	(void)k, (void)pid, (void)image, (void)start, (void)end, (void)pgoff, (void)dev, (void)ino,
		(void)path;
}

void kstacks__fork(struct kstacks *k, pid_t ppid, pid_t pid, uint32_t image)
{
	(void)k, (void)ppid, (void)pid, (void)image;
}

void kstacks__proc_maps(struct kstacks *k, pid_t pid, uint32_t image)
{
	(void)k, (void)pid, (void)image;
}

void kstacks__forget(struct kstacks *k, pid_t pid)
{
	(void)k, (void)pid;
}

void kstacks__exited(struct kstacks *k, pid_t pid)
{
	(void)k, (void)pid;
}

void kstacks__flush(struct kstacks *k, uint64_t synced_until)
{
	(void)k, (void)synced_until;
}

void kstacks__table_fds(const struct kstacks *k, struct kstacks_fds *out)
{
	(void)k;
	*out = (struct kstacks_fds){-1, -1, -1, -1, -1, -1};
}

uint64_t kstacks__synced_until(const struct kstacks *k)
{
	(void)k;
	return 0;
}

uint32_t kstacks__generation(const struct kstacks *k)
{
	(void)k;
	return 0;
}

int kstacks__wake_fd(struct kstacks *k)
{
	(void)k;
	return -1;
}

void kstacks__check(struct kstacks *k, pid_t tid, uint64_t time, uint64_t sp, const uint64_t *pcs,
		    unsigned int n, unsigned int flags)
{
	(void)k, (void)tid, (void)time, (void)sp, (void)pcs, (void)n, (void)flags;
}

void kstacks__stats(struct kstacks *k, struct kstacks_stats *st)
{
	(void)k;
	memset(st, 0, sizeof(*st));
}

void kstacks__describe(struct kstacks *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "no in-kernel unwinding in this build");
}

void kstacks__close(struct kstacks *k)
{
	(void)k;
}
#endif
