// SPDX-License-Identifier: MIT
/* `profil record --off-cpu`, user half of bpf/offcpu.bpf.c.  See offcpu.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "record/offcpu.h"
#include "record/procacct.h"
#include "record/perf_session.h"
#include "record/stacks.h"

#ifdef PROFIL_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/kunwind.h"
#include "bpf/offcpu.h"
#include "offcpu.skel.h"
#include "record/bpfload.h"
#include "record/kstacks.h"
#include "record/ksyms.h"
#include "utils/array.h"
#include "utils/htab.h"

#define PROFIL_PIDFD_THREAD O_EXCL /* PIDFD_THREAD (Linux 6.9): a pidfd of one thread */

/* The programs of the other counts map may still be running for this long after a flip. */
#define FLIP_SETTLE_NS 2000000ull

/* A count read from the kernel, applied once the session has handled its time. */
struct count {
	struct offcpu_key key;
	struct offcpu_val val;
	uint64_t stamp; /* CLOCK_MONOTONIC when it was read (its intervals closed before) */
};

/*
 * PCs (leaf first) under a u64 key, in one of two tables: `stacks`, a stack
 * map entry read back, key (map << 32 | id) + 1 (the kernel's frames
 * without the scheduler's own); `walks`, a user stack unwound from its
 * copy or walked in the kernel, key its walk id (>= 1).
 */
struct pcs_ent {
	uint64_t key; /* never 0 */
	uint64_t *pcs;
	uint32_t n;
	int truncated;
};

static const struct htab_type pcs_type = HTAB_U64_TYPE(struct pcs_ent);

/* The images of one process by gen, as met (bpf/offcpu.h: execs since tracked). */
#define GENS_KEPT 4
struct gen_ent {
	uint64_t pid; /* + 1: never 0 */
	uint32_t maxgen;
	uint32_t next;
	struct {
		uint32_t gen, id; /* id 0: empty */
	} img[GENS_KEPT];
};

static const struct htab_type gen_type = HTAB_U64_TYPE(struct gen_ent);

struct offcpu {
	struct offcpu_bpf *skel;
	struct ring_buffer *rb;
	struct pdata *pd;
	struct perf_session *s; /* for offcpu__forgetting */
	struct offcpu_opts o;
	int settling;	  /* the map before the last flip waits to be read */
	uint64_t flip_ns; /* when */
	struct count *counts;
	size_t ncounts, capcounts;
	struct offcpu_end *ends;
	size_t nends, capends;
	struct htab *stacks;
	struct htab *gens;
	struct htab *walks;
	struct offcpu_copy **copies; /* read, not yet unwound */
	size_t ncopies, capcopies;
	uint64_t ksched_lo, ksched_hi; /* the scheduler's own frames (.sched.text), stripped */
	uint64_t unwound, unwound_complete;
	/* what was done */
	uint64_t intervals, ns, ns_unplaced, open_closed;
	uint64_t stats[OFFCPU_STAT_NR];
	uint64_t alive_unread;		    /* threads gone before their state was read */
	uint64_t seeded_waits;		    /* attach: threads waiting when it began */
	uint64_t kwalked, kwalked_complete; /* user stacks walked in the kernel */
	struct perf_session_observer obs;   /* own_ks: the session's mappings to ks */
	int attached;
	int finished;
};

/*
 * n PCs under key in h (what the key held before is replaced); the entry,
 * valid until the next insert into h; NULL when out of memory.
 */
static struct pcs_ent *pcs_put(struct htab *h, uint64_t key, const uint64_t *pcs, uint32_t n,
			       int truncated)
{
	struct pcs_ent *e;
	bool fresh;

	e = htab__insert(h, &pcs_type, &key, &fresh);
	if (!e)
		return NULL;
	if (!fresh)
		free(e->pcs);
	e->key = key;
	e->pcs = malloc((n ? n : 1) * sizeof(*e->pcs));
	e->n = e->pcs ? n : 0;
	e->truncated = truncated;
	if (e->pcs)
		memcpy(e->pcs, pcs, n * sizeof(*e->pcs));
	return e;
}

static int on_copy(void *ctx, void *data, size_t size)
{
	struct offcpu *oc = ctx;
	const struct offcpu_copy *c = data;
	struct offcpu_copy *keep;
	size_t bytes;

	if (size < OFFCPU_COPY_HEAD || c->size > OFFCPU_COPY_BYTES ||
	    array__reserve(&oc->copies, &oc->capcopies, oc->ncopies + 1, sizeof(*oc->copies)))
		return 0;
	bytes = OFFCPU_COPY_HEAD + (size_t)c->size;
	if (bytes > size)
		return 0;
	keep = malloc(bytes);
	if (!keep)
		return 0;
	memcpy(keep, c, bytes);
	oc->copies[oc->ncopies++] = keep;
	return 0;
}

/* A user stack walked in the kernel: its PCs under its walk id, as an unwound copy's. */
static int on_uwalk(void *ctx, void *data, size_t size)
{
	struct offcpu *oc = ctx;
	const struct offcpu_uwalk *u = data;
	int truncated;

	if (size < OFFCPU_UWALK_HEAD || !u->walk || !u->n || u->n > OFFCPU_UWALK_FRAMES ||
	    OFFCPU_UWALK_HEAD + (size_t)u->n * sizeof(uint64_t) > size)
		return 0;
	truncated = (u->flags & KUNW_F_TRUNCATED) != 0;
	if (!pcs_put(oc->walks, u->walk, (const uint64_t *)u->pcs, u->n, truncated))
		return 0;
	oc->kwalked++;
	oc->kwalked_complete += !truncated;
	return 0;
}

static int on_end(void *ctx, void *data, size_t size)
{
	struct offcpu *oc = ctx;

	if (size < sizeof(struct offcpu_end) ||
	    array__reserve(&oc->ends, &oc->capends, oc->nends + 1, sizeof(*oc->ends)))
		return 0;
	oc->ends[oc->nends++] = *(const struct offcpu_end *)data;
	return 0;
}

/*
 * The scheduler's own frames lead every kernel stack (the tracepoint's
 * glue, __schedule, schedule, schedule_timeout...): the kernel keeps them
 * in .sched.text, which it skips itself to name where a task waits
 * (wchan).  Its range, from /proc/kallsyms, and the frames before it are
 * cut: a stack's innermost frame is the function that waited.
 */
static void find_sched_text(struct offcpu *oc)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !(oc->ksched_lo && oc->ksched_hi)) {
		struct ksym_entry e;

		if (!ksyms__parse_line(line, &e) || !e.addr || e.module)
			continue;
		if (!strcmp(e.name, "__sched_text_start"))
			oc->ksched_lo = e.addr;
		else if (!strcmp(e.name, "__sched_text_end"))
			oc->ksched_hi = e.addr;
	}
	fclose(f);
	if (oc->ksched_hi <= oc->ksched_lo)
		oc->ksched_lo = oc->ksched_hi = 0;
}

/*
 * The kernel walk's tables: the recorder's (ks), or, without it, maps of one
 * entry (the walk's code is loaded but never runs: its 24 MiB of tables are
 * not allocated for nothing).
 */
static int walk_tables(struct offcpu_bpf *skel, struct kstacks *ks)
{
	struct bpf_map *m[] = {skel->maps.rows,	   skel->maps.pages, skel->maps.rules,
			       skel->maps.objects, skel->maps.procs, skel->maps.pstate};
	struct kstacks_fds f;
	int err = 0;

	if (!ks) {
		for (size_t i = 0; !err && i < sizeof(m) / sizeof(*m); i++)
			err = bpf_map__set_max_entries(m[i], 1);
		return err;
	}
	kstacks__table_fds(ks, &f);
	{
		int fds[] = {f.rows, f.pages, f.rules, f.objects, f.procs, f.pstate};

		for (size_t i = 0; !err && i < sizeof(m) / sizeof(*m); i++)
			err = bpf_map__reuse_fd(m[i], fds[i]);
	}
	skel->rodata->kernel_walk = 1;
	return err;
}

/* The accounting's maps shared (bpf/procacct_switch.bpf.h): its last-switch work is ours. */
static int share_acct(struct offcpu_bpf *skel, struct procacct *acct)
{
	struct bpf_map *m[PROCACCT_SWITCH_MAPS] = {skel->maps.acct_tracked, skel->maps.acct_base,
						   skel->maps.acct_exiting, skel->maps.acct_events,
						   skel->maps.drops};
	int fds[PROCACCT_SWITCH_MAPS], err;

	if (!acct)
		return 0;
	err = procacct__switch_maps(acct, fds);
	for (int i = 0; !err && i < PROCACCT_SWITCH_MAPS; i++)
		err = bpf_map__reuse_fd(m[i], fds[i]);
	if (!err)
		skel->rodata->acct_switch = 1;
	return err;
}

int offcpu__open(struct offcpu **out, struct pdata *pd, const struct offcpu_opts *o, char *why,
		 size_t whylen)
{
	struct offcpu *oc = calloc(1, sizeof(*oc));
	int err;

	if (!oc)
		return -ENOMEM;
	oc->pd = pd;
	oc->o = *o;
	oc->stacks = htab__new(&pcs_type, 256);
	oc->gens = htab__new(&gen_type, 64);
	oc->walks = htab__new(&pcs_type, 256);
	if (!oc->stacks || !oc->gens || !oc->walks) {
		err = -ENOMEM;
		goto fail;
	}
	bpfload__quiet();
	oc->skel = offcpu_bpf__open();
	if (!oc->skel) {
		err = -errno;
		goto fail;
	}
	oc->skel->rodata->follow_children = o->follow_children ? 1 : 0;
	oc->skel->rodata->kernel_stacks = o->stacks ? 1 : 0;
	oc->skel->rodata->user_stacks = o->stacks ? 1 : 0;
	oc->skel->rodata->reuse_stacks = o->no_reuse ? 0 : 1;
	oc->skel->rodata->user_copies = o->stacks && o->copies ? 1 : 0;
	err = walk_tables(oc->skel, o->stacks && o->copies ? o->ks : NULL);
	if (!err)
		err = share_acct(oc->skel, o->acct);
	if (!err)
		err = offcpu_bpf__load(oc->skel);
	if (!err)
		err = offcpu_bpf__attach(oc->skel);
	if (err)
		goto fail;
	if (o->acct) /* ours runs at every switch: the accounting's own is not needed */
		procacct__switch_taken(o->acct);
	oc->rb = ring_buffer__new(bpf_map__fd(oc->skel->maps.ends), on_end, oc, NULL);
	if (!oc->rb ||
	    ring_buffer__add(oc->rb, bpf_map__fd(oc->skel->maps.copies), on_copy, oc) < 0 ||
	    ring_buffer__add(oc->rb, bpf_map__fd(oc->skel->maps.uwalks), on_uwalk, oc) < 0) {
		err = -errno;
		goto fail;
	}
	if (o->stacks)
		find_sched_text(oc);
	*out = oc;
	return 0;
fail:
	err = bpfload__failed(err, "off-CPU programs", why, whylen);
	oc->o.own_ks = 0; /* the caller keeps its kernel-walk tables when the open fails */
	offcpu__close(oc);
	return err;
}

int offcpu__track(struct offcpu *oc, pid_t pid)
{
	struct offcpu_proc p = {.gen = 0, .armed = 0};
	__u32 key = (__u32)pid;

	if (bpf_map_update_elem(bpf_map__fd(oc->skel->maps.tracked), &key, &p, BPF_ANY) < 0)
		return -errno;
	return 0;
}

static __u32 seed_reason(char state)
{
	switch (state) {
	case 'S':
		return OFFCPU_SLEEP;
	case 'D':
		return OFFCPU_BLOCKED;
	case 'T':
	case 't':
		return OFFCPU_STOPPED;
	default:
		return 0; /* R: on a CPU, or runnable (its wait, if any, is not seen) */
	}
}

int offcpu__attach(struct offcpu *oc, pid_t pid, const struct offcpu_seed *threads, size_t n,
		   uint64_t now)
{
	struct offcpu_proc p = {.gen = 1, .armed = 1};
	int fd = bpf_map__fd(oc->skel->maps.threads);
	__u32 key = (__u32)pid;

	if (bpf_map_update_elem(bpf_map__fd(oc->skel->maps.tracked), &key, &p, BPF_ANY) < 0)
		return -errno;
	/* the programs look entries up in `threads` from now on (offcpu.h, "Threads") */
	__atomic_store_n(&oc->skel->bss->seeded, key, __ATOMIC_RELEASE);
	for (size_t i = 0; i < n; i++) {
		/* task_start 0: the program adopts the task that has this tid (offcpu.h) */
		struct offcpu_thread th = {.born_ns = now};
		__u32 tid = (__u32)threads[i].tid, reason = seed_reason(threads[i].state);

		th.key = (struct offcpu_key){.tgid = key,
					     .tid = tid,
					     .gen = 1,
					     .kstack = OFFCPU_NO_STACK,
					     .ustack = OFFCPU_NO_STACK};
		if (reason) {
			th.out_ns = now;
			th.out_runtime = threads[i].runtime_ns;
			th.key.reason = reason;
			th.key.upc = threads[i].upc;
			oc->seeded_waits++;
		}
		/* a thread the programs met already (it switched since) keeps its entry */
		bpf_map_update_elem(fd, &tid, &th, BPF_NOEXIST);
	}
	oc->attached = 1;
	return 0;
}

/* ---- reading the kernel's counts ------------------------------------------------ */

static void keep_count(struct offcpu *oc, const struct offcpu_key *k, const struct offcpu_val *v,
		       uint64_t stamp)
{
	if (!v->ns && !v->count)
		return;
	if (array__reserve(&oc->counts, &oc->capcounts, oc->ncounts + 1, sizeof(*oc->counts))) {
		oc->ns_unplaced += v->ns;
		return;
	}
	oc->counts[oc->ncounts++] = (struct count){*k, *v, stamp};
}

/*
 * Read and empty counts map fd (no program adds into it any more).  Bounded
 * by the map's size all the same: a program still adding (a flip that did
 * not settle) cannot keep the reader here.
 */
static void read_map(struct offcpu *oc, int fd, uint64_t stamp)
{
	struct offcpu_key keys[256], next;
	struct offcpu_val vals[256];
	size_t left = OFFCPU_MAX_KEYS;
	void *in = NULL;
	__u32 outb;

	while (left) {
		__u32 n = 256;
		int rc = bpf_map_lookup_and_delete_batch(fd, in, &outb, keys, vals, &n, NULL);

		for (__u32 i = 0; i < n && i < 256 && left; i++, left--)
			keep_count(oc, &keys[i], &vals[i], stamp);
		if (rc < 0 || !n)
			break; /* ENOENT: the map is empty now */
		in = &outb;
	}
	/* without batch operations (or what a batch left): one key at a time */
	while (left && bpf_map_get_next_key(fd, NULL, &next) == 0) {
		struct offcpu_val v;

		left--;
		if (bpf_map_lookup_and_delete_elem(fd, &next, &v) == 0)
			keep_count(oc, &next, &v, stamp);
		else if (bpf_map_delete_elem(fd, &next) < 0)
			break;
	}
}

static int counts_fd(struct offcpu *oc, int which)
{
	return bpf_map__fd(which ? oc->skel->maps.counts1 : oc->skel->maps.counts0);
}

/*
 * Read the map the programs left at the last flip (once it has settled),
 * then flip again: BPF adds into one map while the other is read.
 */
static void read_counts(struct offcpu *oc, int force)
{
	uint64_t now = pdata__clock_ns(CLOCK_MONOTONIC);
	__u32 cur = oc->skel->bss->cur;

	if (oc->settling) {
		if (!force && now - oc->flip_ns < FLIP_SETTLE_NS)
			return;
		read_map(oc, counts_fd(oc, !cur), now);
		oc->settling = 0;
	}
	__atomic_store_n(&oc->skel->bss->cur, !cur, __ATOMIC_RELEASE);
	oc->flip_ns = pdata__clock_ns(CLOCK_MONOTONIC);
	oc->settling = 1;
}

/* ---- placing them in the profile ---------------------------------------------------- */

/*
 * The PCs of stack id in map (0: kstacks, 1: ustacks), read once; NULL when
 * unknown.  Valid until the next call (an insert into oc->stacks).
 *
 * The scheduler's own frames lead every kernel stack (the tracepoint's
 * glue and .sched.text: find_sched_text): cut here, once per stack, so
 * that a stack's innermost frame is the function that waited.
 */
static const struct pcs_ent *stack_of(struct offcpu *oc, int map, __s32 id)
{
	uint64_t key = ((uint64_t)map << 32 | (uint32_t)id) + 1;
	uint32_t depth = map ? OFFCPU_USER_DEPTH : OFFCPU_KERNEL_DEPTH;
	struct pcs_ent *e = htab__find(oc->stacks, &pcs_type, &key);
	uint64_t buf[OFFCPU_USER_DEPTH > OFFCPU_KERNEL_DEPTH ? OFFCPU_USER_DEPTH :
							       OFFCPU_KERNEL_DEPTH];
	uint32_t n = 0, at = 0;

	if (e)
		return e;
	if (id < 0)
		return NULL;
	memset(buf, 0, sizeof(buf));
	if (bpf_map_lookup_elem(bpf_map__fd(map ? oc->skel->maps.ustacks : oc->skel->maps.kstacks),
				&id, buf) < 0)
		return NULL;
	while (n < depth && buf[n])
		n++;
	for (uint32_t i = 0; !map && i < n && i < 16; i++)
		if (buf[i] >= oc->ksched_lo && buf[i] < oc->ksched_hi)
			at = i + 1;
	return pcs_put(oc->stacks, key, buf + at, n - at, 0);
}

/* Unwind a copy of a user stack (the session knows the process's mappings up to its time). */
static void unwind_copy(struct offcpu *oc, struct perf_session *s, const struct offcpu_copy *c)
{
	uint64_t pcs[OFFCPU_USER_DEPTH * 2], regs[3] = {c->bp, c->sp, c->ip};
	int truncated, n;

	n = stacks__unwind_copy(perf_session__stacks(s), (pid_t)c->tgid, regs, c->stack, c->size,
				pcs, (int)(sizeof(pcs) / sizeof(*pcs)), &truncated);
	if (n <= 0 || !pcs_put(oc->walks, c->walk, pcs, (uint32_t)n, truncated))
		return;
	oc->unwound++;
	oc->unwound_complete += !truncated;
}

/*
 * The PCs of a key: the kernel's frames (the scheduler's own cut), then the
 * user part: the unwound copy, else the frame-pointer walk, else the PC.
 * The kernel's are copied out before the user stack is looked up: that
 * lookup may insert into the same table, which moves its entries.
 */
static unsigned int key_pcs(struct offcpu *oc, const struct offcpu_key *k, uint64_t *pcs,
			    unsigned int max, int *truncated)
{
	const struct pcs_ent *ks = oc->o.stacks ? stack_of(oc, 0, k->kstack) : NULL, *us;
	uint64_t wkey = k->walk;
	const struct pcs_ent *w = k->walk ? htab__find(oc->walks, &pcs_type, &wkey) : NULL;
	unsigned int n = 0;

	*truncated = 0;
	for (unsigned int i = 0; ks && i < ks->n && n < max; i++)
		pcs[n++] = ks->pcs[i];
	if (w && w->n) {
		for (unsigned int i = 0; i < w->n && n < max; i++)
			pcs[n++] = w->pcs[i];
		*truncated = w->truncated;
	} else if (oc->o.stacks && (us = stack_of(oc, 1, k->ustack)) && us->n) {
		for (unsigned int i = 0; i < us->n && n < max; i++)
			pcs[n++] = us->pcs[i];
	} else if (k->upc && n < max) {
		pcs[n++] = k->upc;
	}
	return n;
}

/* Remember that gen of process e is image id. */
static void gen_remember(struct gen_ent *e, uint32_t gen, uint32_t id)
{
	unsigned int i = e->next++ % GENS_KEPT;

	e->img[i].gen = gen;
	e->img[i].id = id;
}

/*
 * The proc id of the image of process pid that gen names (see offcpu.h),
 * and thread tid's record there when it is the current image.  0: unknown.
 */
static uint32_t image_of(struct offcpu *oc, struct perf_session *s, uint32_t pid, uint32_t tid,
			 uint32_t gen, struct pdata_thread **thread)
{
	uint64_t key = (uint64_t)pid + 1;
	struct pdata_proc *cur;
	struct gen_ent *e;
	uint32_t id;
	bool fresh;

	*thread = NULL;
	cur = perf_session__image(s, (pid_t)pid, (pid_t)tid, thread);
	if (!cur)
		return 0;
	e = htab__insert(oc->gens, &gen_type, &key, &fresh);
	if (!e)
		return cur->id;
	if (fresh) {
		e->pid = key;
		e->maxgen = gen;
	}
	for (unsigned int i = 0; i < GENS_KEPT; i++)
		if (e->img[i].id && e->img[i].gen == gen) {
			if (e->img[i].id != cur->id)
				*thread = NULL;
			return e->img[i].id;
		}
	if (gen >= e->maxgen) {
		e->maxgen = gen;
		id = cur->id;
	} else {
		id = cur->parent ? cur->parent : cur->id; /* the image before the current one */
		*thread = NULL;
	}
	gen_remember(e, gen, id);
	return id;
}

static void apply_count(struct offcpu *oc, struct perf_session *s, const struct count *c)
{
	uint64_t pcs[OFFCPU_KERNEL_DEPTH + 2 * OFFCPU_USER_DEPTH];
	struct pdata_thread *th;
	uint32_t id = image_of(oc, s, c->key.tgid, c->key.tid, c->key.gen, &th);
	int truncated;
	unsigned int n = key_pcs(oc, &c->key, pcs, sizeof(pcs) / sizeof(*pcs), &truncated);

	oc->intervals += c->val.count;
	oc->ns += c->val.ns;
	if (!id || !n || !PDATA_KIND_OFFCPU(c->key.reason)) {
		oc->ns_unplaced += c->val.ns;
		__atomic_add_fetch(&pdata__header(oc->pd)->offcpu_ns, c->val.ns, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pdata__header(oc->pd)->offcpu_lost, c->val.ns,
				   __ATOMIC_RELAXED);
		return;
	}
	/* in the image's newest mapping generation (mappings replaced since the interval: rare) */
	id = perf_session__counting_id(s, (pid_t)c->key.tgid, id);
	pdata__count_offcpu(oc->pd, id, (int)c->key.tid, pcs, n, truncated, c->key.reason,
			    c->val.ns);
}

static void apply_end(struct offcpu *oc, struct perf_session *s, const struct offcpu_end *e)
{
	struct pdata_thread *th;

	image_of(oc, s, e->tgid, e->tid, e->gen, &th);
	if (th)
		pdata__thread_life(th, e->died_ns > e->born_ns ? e->died_ns - e->born_ns : 0,
				   e->offcpu_ns);
}

/* By process, the newest image first (offcpu.h: the newest gen is the current image). */
static int by_gen(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->key.tgid != y->key.tgid)
		return x->key.tgid < y->key.tgid ? -1 : 1;
	return x->key.gen > y->key.gen ? -1 : x->key.gen < y->key.gen;
}

/* Unwind the copies taken up to until (of process pid; 0: of every process). */
static void unwind_copies(struct offcpu *oc, struct perf_session *s, uint32_t pid, uint64_t until)
{
	size_t m = 0;

	for (size_t i = 0; i < oc->ncopies; i++) {
		struct offcpu_copy *c = oc->copies[i];

		if (c->time <= until && (!pid || c->tgid == pid)) {
			unwind_copy(oc, s, c);
			free(c);
		} else {
			oc->copies[m++] = c;
		}
	}
	oc->ncopies = m;
}

/* Count what the session can place now (all of it when until is UINT64_MAX). */
static void apply(struct offcpu *oc, struct perf_session *s, uint64_t until)
{
	size_t k = 0, n = 0;

	unwind_copies(oc, s, 0, until); /* the copies first: the counts name them */
	if (oc->ncounts > 1)
		qsort(oc->counts, oc->ncounts, sizeof(*oc->counts), by_gen);
	for (size_t i = 0; i < oc->ncounts; i++) {
		if (oc->counts[i].stamp <= until)
			apply_count(oc, s, &oc->counts[i]);
		else
			oc->counts[k++] = oc->counts[i];
	}
	oc->ncounts = k;
	for (size_t i = 0; i < oc->nends; i++) {
		if (oc->ends[i].died_ns <= until)
			apply_end(oc, s, &oc->ends[i]);
		else
			oc->ends[n++] = oc->ends[i];
	}
	oc->nends = n;
}

void offcpu__session(struct offcpu *oc, struct perf_session *s)
{
	if (oc)
		oc->s = s;
}

static void obs_map(void *arg, pid_t pid, uint32_t proc, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path)
{
	kstacks__map(((struct offcpu *)arg)->o.ks, pid, proc, start, end, pgoff, dev, ino, path);
}

static void obs_fork(void *arg, pid_t ppid, pid_t pid, uint32_t proc)
{
	kstacks__fork(((struct offcpu *)arg)->o.ks, ppid, pid, proc);
}

static void obs_proc_maps(void *arg, pid_t pid, uint32_t proc)
{
	kstacks__proc_maps(((struct offcpu *)arg)->o.ks, pid, proc);
}

static void obs_image_end(void *arg, pid_t pid)
{
	kstacks__forget(((struct offcpu *)arg)->o.ks, pid);
}

static void obs_exited(void *arg, pid_t pid)
{
	kstacks__exited(((struct offcpu *)arg)->o.ks, pid);
}

const struct perf_session_observer *offcpu__observer(struct offcpu *oc)
{
	if (!oc || !oc->o.ks || !oc->o.own_ks || !oc->skel->rodata->kernel_walk)
		return NULL;
	oc->obs = (struct perf_session_observer){.arg = oc,
						 .map = obs_map,
						 .fork = obs_fork,
						 .proc_maps = obs_proc_maps,
						 .image_end = obs_image_end,
						 .exited = obs_exited};
	return &oc->obs;
}

void offcpu__walk_track(struct offcpu *oc, pid_t pid)
{
	if (oc && oc->o.ks && oc->skel->rodata->kernel_walk)
		kstacks__track(oc->o.ks, pid);
}

/*
 * The session is about to drop process pid's mappings (its exit or exec at
 * time): its copies taken before are unwound now, with the mappings they
 * were taken under, not after (when the unwinder would know none, or the
 * next image's).
 */
void offcpu__forgetting(void *arg, pid_t pid, uint64_t time)
{
	struct offcpu *oc = arg;

	if (!oc || !oc->s)
		return;
	ring_buffer__consume(oc->rb);
	unwind_copies(oc, oc->s, (uint32_t)pid, time);
}

/* The kernel walk's tables flushed (ours) and their sync time written in our .bss. */
static void walk_sync(struct offcpu *oc, uint64_t synced_until)
{
	if (!oc->skel->rodata->kernel_walk || !oc->o.ks)
		return;
	if (oc->o.own_ks)
		kstacks__flush(oc->o.ks, synced_until);
	oc->skel->bss->kunw_generation = kstacks__generation(oc->o.ks);
	oc->skel->bss->kunw_synced_until = kstacks__synced_until(oc->o.ks);
}

void offcpu__poll(struct offcpu *oc, struct perf_session *s)
{
	if (!oc || !s)
		return;
	walk_sync(oc, perf_session__handled_until(s));
	read_counts(oc, 0);
	ring_buffer__consume(oc->rb);
	apply(oc, s, perf_session__handled_until(s));
}

/*
 * The state of thread tid (its entry in `threads`: reg) into th: on its
 * task (tstate, looked up by a pidfd of the thread), else, where the
 * programs never met it (a thread of an attached process blocked since),
 * the entry as user space made it.  -1: the task is gone before its last
 * switch was seen (the switch program detached first); its entry taken.
 */
static int alive_state(struct offcpu *oc, __u32 tid, const struct offcpu_thread *reg,
		       struct offcpu_thread *th)
{
	int pfd = (int)syscall(SYS_pidfd_open, (pid_t)tid, PROFIL_PIDFD_THREAD), got = -1;

	if (pfd >= 0) {
		got = bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.tstate), &pfd, th);
		close(pfd);
	}
	if (got == 0)
		return 0;
	*th = *reg;
	return reg->task_start ? -1 : 0;
}

/*
 * The threads still alive: their open intervals closed now, their lifetimes
 * so far.  At most the map's size of entries: the fork and exec programs
 * still run, and a key deleted meanwhile starts the kernel's walk over.
 */
static void close_alive(struct offcpu *oc, struct perf_session *s, uint64_t now)
{
	int fd = bpf_map__fd(oc->skel->maps.threads);
	__u32 tid, *prev = NULL;

	for (size_t left = OFFCPU_MAX_THREADS; left && bpf_map_get_next_key(fd, prev, &tid) == 0;
	     left--) {
		struct offcpu_thread reg, th;
		struct offcpu_end e = {0};
		struct offcpu_proc pr = {0};

		prev = &tid;
		if (bpf_map_lookup_elem(fd, &tid, &reg) < 0)
			continue;
		if (alive_state(oc, tid, &reg, &th) < 0)
			oc->alive_unread++;
		if (!th.key.tgid)
			continue;
		/* the image it last ran, when its process has left the tree */
		if (bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.tracked), &th.key.tgid, &pr) < 0)
			pr.gen = th.key.gen;
		for (int i = 0; i < OFFCPU_RUNS; i++) { /* its last runs, not in counts yet */
			struct offcpu_val v = {th.runs[i].ns, th.runs[i].count};

			if (v.count)
				keep_count(oc, &th.runs[i].key, &v, 0);
		}
		if (th.out_ns && now > th.out_ns) {
			struct offcpu_val v = {now - th.out_ns, 1};

			th.offcpu_ns += v.ns;
			keep_count(oc, &th.key, &v, 0);
			oc->open_closed++;
		}
		e = (struct offcpu_end){th.key.tgid, tid, pr.gen, 0, th.born_ns, now, th.offcpu_ns};
		if (array__reserve(&oc->ends, &oc->capends, oc->nends + 1, sizeof(*oc->ends)) == 0)
			oc->ends[oc->nends++] = e;
	}
	apply(oc, s, UINT64_MAX);
}

void offcpu__finish(struct offcpu *oc, struct perf_session *s)
{
	uint64_t now;

	if (!oc || !s || oc->finished)
		return;
	oc->finished = 1;
	/* no more counting: the intervals still open are closed at this instant */
	bpf_link__destroy(oc->skel->links.offcpu_switch);
	oc->skel->links.offcpu_switch = NULL;
	now = pdata__clock_ns(CLOCK_MONOTONIC);
	read_counts(oc, 1);
	read_counts(oc, 1); /* both maps */
	ring_buffer__consume(oc->rb);
	offcpu__stats(oc, oc->stats, OFFCPU_STAT_NR);
	close_alive(oc, s, now);
}

void offcpu__stats(const struct offcpu *oc, uint64_t *out, size_t n)
{
	memset(out, 0, n * sizeof(*out));
	if (!oc)
		return;
	if (oc->finished && n <= OFFCPU_STAT_NR && oc->stats[OFFCPU_STAT_SWITCHES]) {
		memcpy(out, oc->stats, n * sizeof(*out));
		return;
	}
	bpfload__sum_percpu(bpf_map__fd(oc->skel->maps.stats),
			    n < OFFCPU_STAT_NR ? (uint32_t)n : OFFCPU_STAT_NR, out);
}

void offcpu__describe(const struct offcpu *oc, char *buf, size_t len)
{
	const uint64_t *st = oc->stats;
	int at;

	at = snprintf(buf, len,
		      "off-CPU: BPF on sched_switch, %llu intervals (%.3f s) counted in the "
		      "kernel by (thread, %s, reason)",
		      (unsigned long long)oc->intervals, (double)oc->ns / 1e9,
		      !oc->o.stacks ? "user PC" :
		      oc->o.copies  ? "kernel stack, user stack" :
				      "kernel stack, frame-pointer user stack");
	if (at < 0 || (size_t)at >= len)
		return;
	at += snprintf(buf + at, len - at, ", added up by the thread in %llu runs of one key",
		       (unsigned long long)st[OFFCPU_STAT_RUNS]);
	if ((size_t)at >= len)
		return;
	if (oc->o.stacks)
		at += snprintf(buf + at, len - at,
			       "; stacks walked at %llu of %llu switch-outs, the others at the "
			       "place of an earlier walk of the thread (%llu re-walks disagreed)",
			       (unsigned long long)st[OFFCPU_STAT_WALKS],
			       (unsigned long long)st[OFFCPU_STAT_SWITCHES],
			       (unsigned long long)st[OFFCPU_STAT_STALE]);
	if ((size_t)at < len && oc->o.stacks && oc->o.copies && oc->skel->rodata->kernel_walk)
		at += snprintf(
			buf + at, len - at,
			"; user stacks walked through the CFI in the kernel at %llu new "
			"places (%llu complete; no stack copied), %llu copied where the walk "
			"could not go yet",
			(unsigned long long)oc->kwalked, (unsigned long long)oc->kwalked_complete,
			(unsigned long long)(st[OFFCPU_STAT_KWALK_COPIED] +
					     st[OFFCPU_STAT_KWALK_LOST]));
	if ((size_t)at < len && oc->o.stacks && oc->o.copies &&
	    (!oc->skel->rodata->kernel_walk || oc->unwound))
		at += snprintf(
			buf + at, len - at,
			"; user stacks through the CFI from %llu copies (%llu complete, %llu "
			"copies lost: frame pointers there)",
			(unsigned long long)oc->unwound, (unsigned long long)oc->unwound_complete,
			(unsigned long long)st[OFFCPU_STAT_COPIES_LOST]);
	if ((size_t)at < len && st[OFFCPU_STAT_UNCLOSED])
		at += snprintf(buf + at, len - at,
			       "; %llu intervals (%.6f s) whose switch-in missed the thread's "
			       "entry closed at its next switch, less the CPU time it had since",
			       (unsigned long long)st[OFFCPU_STAT_UNCLOSED],
			       (double)st[OFFCPU_STAT_UNCLOSED_NS] / 1e9);
	if ((size_t)at < len && oc->attached)
		at += snprintf(buf + at, len - at,
			       "; attached: %llu waits already under way counted from the attach, "
			       "at the user PC where they waited",
			       (unsigned long long)oc->seeded_waits);
	if ((size_t)at < len && oc->open_closed)
		at += snprintf(buf + at, len - at, "; %llu intervals still open closed at the end",
			       (unsigned long long)oc->open_closed);
	if ((size_t)at < len && oc->alive_unread)
		at += snprintf(buf + at, len - at,
			       "; %llu threads gone at the end before their last switch was seen: "
			       "their off-CPU total as of their first switch-out",
			       (unsigned long long)oc->alive_unread);
	if ((size_t)at < len &&
	    (oc->ns_unplaced || st[OFFCPU_STAT_KEYS_FULL_NS] || st[OFFCPU_STAT_THREADS_FULL] ||
	     st[OFFCPU_STAT_ENDS_LOST] || st[OFFCPU_STAT_PROCS_FULL]))
		snprintf(buf + at, len - at,
			 "; lost: %.3f s not placed, %.3f s without room for their key, %llu "
			 "threads without room (their entry or state), %llu thread ends, %llu "
			 "processes not followed (no room)",
			 (double)oc->ns_unplaced / 1e9, (double)st[OFFCPU_STAT_KEYS_FULL_NS] / 1e9,
			 (unsigned long long)st[OFFCPU_STAT_THREADS_FULL],
			 (unsigned long long)st[OFFCPU_STAT_ENDS_LOST],
			 (unsigned long long)st[OFFCPU_STAT_PROCS_FULL]);
}

void offcpu__close(struct offcpu *oc)
{
	if (!oc)
		return;
	ring_buffer__free(oc->rb);
	offcpu_bpf__destroy(oc->skel);
	if (oc->o.own_ks)
		kstacks__close(oc->o.ks);
	HTAB_FREE_OWNED(oc->stacks, struct pcs_ent, pcs);
	HTAB_FREE_OWNED(oc->walks, struct pcs_ent, pcs);
	ARRAY_FREE_PTRS(oc->copies, oc->ncopies);
	htab__free(oc->gens);
	free(oc->counts);
	free(oc->ends);
	free(oc);
}

#else /* !PROFIL_HAVE_BPF */

int offcpu__open(struct offcpu **out, struct pdata *pd, const struct offcpu_opts *o, char *why,
		 size_t whylen)
{
	(void)out, (void)pd, (void)o;
	snprintf(why, whylen, "this profil was built without BPF support");
	return -ENOTSUP;
}

int offcpu__track(struct offcpu *oc, pid_t pid)
{
	(void)oc, (void)pid;
	return -ENOTSUP;
}

void offcpu__session(struct offcpu *oc, struct perf_session *s)
{
	(void)oc, (void)s;
}

const struct perf_session_observer *offcpu__observer(struct offcpu *oc)
{
	(void)oc;
	return NULL;
}

void offcpu__walk_track(struct offcpu *oc, pid_t pid)
{
	(void)oc, (void)pid;
}

int offcpu__attach(struct offcpu *oc, pid_t pid, const struct offcpu_seed *threads, size_t n,
		   uint64_t now)
{
	(void)oc, (void)pid, (void)threads, (void)n, (void)now;
	return -ENOTSUP;
}

void offcpu__forgetting(void *arg, pid_t pid, uint64_t time)
{
	(void)arg, (void)pid, (void)time;
}

void offcpu__poll(struct offcpu *oc, struct perf_session *s)
{
	(void)oc, (void)s;
}

void offcpu__finish(struct offcpu *oc, struct perf_session *s)
{
	(void)oc, (void)s;
}

void offcpu__describe(const struct offcpu *oc, char *buf, size_t len)
{
	(void)oc;
	if (len)
		buf[0] = 0;
}

void offcpu__stats(const struct offcpu *oc, uint64_t *out, size_t n)
{
	(void)oc;
	memset(out, 0, n * sizeof(*out));
}

void offcpu__close(struct offcpu *oc)
{
	(void)oc;
}
#endif
