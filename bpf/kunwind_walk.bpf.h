/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The in-kernel walk of a user stack through the CFI tables of
 * bpf/kunwind.h, for any BPF program that runs in the context of the task
 * whose stack it wants (a perf_event tick: bpf/kunwind.bpf.c; a
 * sched_switch of the task switching out, for off-CPU stacks; a uprobe).
 *
 * To use it from another program: include this header (after vmlinux.h
 * and the libbpf headers) and call
 *
 *     struct kunw_walk_res res = {.max = KUNW_USER_FRAMES};
 *     int n = kunw_walk_user(&regs, tgid, (struct kunw_pcs *)pcs, &res);
 *
 * with the task's user registers (kunw_user_regs() finds them: the
 * interrupted ones when the task was in user mode, else those saved at its
 * entry into the kernel).  It returns the number of user PCs written to
 * pcs (leaf first: pcs[0] = the user PC, then return addresses), or -R
 * for a kunw_stat reason R why this stack cannot be walked in the kernel
 * now (the caller then takes it another way, e.g. the perf ring's copy,
 * or counts it as lost).  res.flags gets KUNW_F_COMPLETE or one
 * KUNW_F_TRUNC_* reason (same meanings as unwind/unwind.h), res.image the
 * profile's id of the task's process image.
 *
 * The tables are maps defined here: a second BPF object that includes
 * this header has its own copies, which user space must replace by the
 * recorder's before loading that object: bpf_map__reuse_fd() on rows,
 * rules, objects, procs and pstate with the fds of record/kstacks.c's
 * object (kstacks__table_fds()), and set kunw_synced_until the same way
 * the recorder does (it is a global of this header: share the .bss map, or
 * write the value in both).  The mapping-change tracepoints of
 * bpf/kunwind.bpf.c must be attached (one object is enough: they write
 * pstate).
 *
 * Verifier: the frame loop is bpf_loop (Linux 5.17+), the searches bounded
 * loops (KUNW_MAP_STEPS, KUNW_ROW_STEPS); user memory is read with
 * bpf_probe_read_user only (a fault ends the walk, KUNW_F_TRUNC_STACK).
 */
#ifndef PROFIL_KUNWIND_WALK_BPF_H
#define PROFIL_KUNWIND_WALK_BPF_H

#include "kunwind.h"

/* CLOCK_MONOTONIC ns up to which user space has applied the perf rings' records to procs. */
volatile __u64 kunw_synced_until;
/*
 * Bumped by user space whenever an object or a process's mappings change
 * in the tables: the PC cache's entries of an older generation are stale.
 */
volatile __u32 kunw_generation;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_ROWS);
	__type(key, __u32);
	__type(value, struct kunw_row);
} rows SEC(".maps");

/* Two page entries per element (an array's elements are 8-byte aligned): user space sees u32s. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_PAGES / 2);
	__type(key, __u32);
	__type(value, __u64);
} pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_RULES);
	__type(key, __u32);
	__type(value, struct kunw_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_OBJECTS);
	__type(key, __u32);
	__type(value, struct kunw_object);
} objects SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KUNW_PROCS);
	__type(key, __u32);
	__type(value, struct kunw_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KUNW_PROCS);
	__type(key, __u32);
	__type(value, struct kunw_pstate);
} pstate SEC(".maps");

/*
 * The PC cache (per CPU): the rule found for a lookup address of a
 * process, so that a return address seen before costs one lookup instead
 * of the mapping, object, page index and row search (the walk's per-frame
 * cost was ~145 ns, mostly cache misses in the 16 MiB of rows).
 */
struct kunw_pc_ent {
	__u64 pc;
	__u32 tgid;
	__u32 generation;
	__u32 rule; /* index in rules */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KUNW_PC_CACHE);
	__type(key, __u32);
	__type(value, struct kunw_pc_ent);
} kunw_pc_cache SEC(".maps");

struct kunw_regs {
	__u64 ip, sp, bp;
	__u64 di; /* the leaf's RDI: glibc's __vfork keeps its return address there */
};

/*
 * The state of one walk.  It lives in a per-CPU map, not on the BPF
 * stack: every value the steps read from it is unknown to the verifier,
 * so the states of the frame loop and of the binary searches converge at
 * once (scalars kept in registers would be tracked precisely, path by
 * path: 2^9 paths for a search of 256 mappings).
 */
struct kunw_walk_state {
	__u64 pc, sp, bp, di;
	__u32 bp_valid;
	__u32 di_valid; /* the leaf only: no CFI says where a caller's RDI is */
	__u32 exact;	/* look the PC up as is (leaf, after a signal frame), else PC - 1 */
	__u32 n;	/* PCs written */
	__u32 max;
	__u32 flags;
	__u32 signals;
	__u32 fallback; /* a kunw_stat reason: the walk cannot be done in the kernel now */
	__u32 lo, hi;	/* a binary search */
	__u32 last_map; /* the mapping of the previous frame: tried first */
	__u32 reads;	/* bpf_probe_read_user calls */
	__u32 tgid;
	__u32 generation; /* kunw_generation when the walk started */
	__u32 win_len;	  /* bytes of win valid, copied from the user stack at win_base */
	__u64 win_base;
	__u8 win[KUNW_WINDOW];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kunw_walk_state);
} kunw_state SEC(".maps");

/* What each step needs besides the state: pointers, which stay on the BPF stack. */
struct kunw_walk_ctx {
	struct kunw_walk_state *w;
	struct kunw_proc *proc;
	__u64 *pcs;
};

enum kunw_step {
	KUNW_STEP_OK,
	KUNW_STEP_OUTERMOST,
	KUNW_STEP_STACK,
	KUNW_STEP_UNSUPPORTED,
	KUNW_STEP_NO_FRAME,
};

/*
 * Copy the user stack at addr into the window: KUNW_WINDOW bytes, or up
 * to the end of addr's page when the rest is not mapped (the top of the
 * stack).  Each bpf_probe_read_user costs ~100 ns here, a few frames'
 * worth of bytes hardly more: one copy serves several frames.
 */
static __always_inline int kunw_fill(struct kunw_walk_state *w, __u64 addr)
{
	__u64 len = 4096 - (addr & 4095);

	w->win_len = 0;
	w->win_base = addr;
	w->reads++;
	if (!bpf_probe_read_user(w->win, KUNW_WINDOW, (const void *)addr)) {
		w->win_len = KUNW_WINDOW;
		return 0;
	}
	if (len >= KUNW_WINDOW || len < 8)
		return -1;
	if (bpf_probe_read_user(w->win, len & (KUNW_WINDOW - 1), (const void *)addr))
		return -1;
	w->win_len = (__u32)len;
	return 0;
}

static __always_inline int kunw_read(struct kunw_walk_state *w, __u64 addr, __u64 *v)
{
	__u64 off = addr - w->win_base;

	if (addr < w->win_base || off + 8 > w->win_len) {
		if (kunw_fill(w, addr))
			return bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
		off = 0;
	}
	if (off > KUNW_WINDOW - 8)
		return -1;
	*v = *(__u64 *)&w->win[off];
	return 0;
}

static __always_inline struct kunw_map *kunw_find_map(struct kunw_walk_state *w,
						      struct kunw_proc *p, __u64 pc)
{
	struct kunw_map *m;
	__u32 lo, hi;

	lo = w->last_map;
	if (lo < KUNW_MAX_MAPS && lo < p->nmaps) {
		m = &p->maps[lo];
		if (pc >= m->start && pc < m->end)
			return m;
	}
	w->lo = 0;
	w->hi = p->nmaps;
	for (int i = 0; i < KUNW_MAP_STEPS; i++) {
		__u32 mid;

		lo = w->lo;
		hi = w->hi;
		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		if (mid >= KUNW_MAX_MAPS)
			return NULL;
		if (p->maps[mid].start <= pc)
			w->lo = mid + 1;
		else
			w->hi = mid;
	}
	lo = w->lo;
	if (lo == 0 || lo > KUNW_MAX_MAPS)
		return NULL;
	w->last_map = lo - 1;
	m = &p->maps[lo - 1];
	return pc < m->end ? m : NULL;
}

/*
 * The rows to search for offset off of object o: those of its KiB, by the
 * page index ([lo, hi) relative to the object's first row).
 */
static __always_inline int kunw_page(__u32 at, __u32 *v)
{
	__u32 key = at >> 1;
	__u64 *e = bpf_map_lookup_elem(&pages, &key);

	if (!e)
		return -1;
	*v = at & 1 ? (__u32)(*e >> 32) : (__u32)*e;
	return 0;
}

static __always_inline void kunw_page_rows(struct kunw_walk_state *w, struct kunw_object *o,
					   __u64 off, __u32 n)
{
	__u64 page = off >> KUNW_PAGE_SHIFT;
	__u32 at, lo, hi;

	w->lo = n - 1; /* past the last KiB: the last row */
	w->hi = n;
	if (page >= o->npages)
		return;
	at = o->pages + (__u32)page;
	if (kunw_page(at, &lo))
		return;
	w->lo = lo;
	if (page + 1 < o->npages && !kunw_page(at + 1, &hi))
		w->hi = hi + 1 < n ? hi + 1 : n;
}

/* The rule for a link-time address of an object: rule 0 (no CFI) where no row covers it. */
static __always_inline struct kunw_rule *kunw_find_rule(struct kunw_walk_state *w,
							struct kunw_object *o, __u64 range,
							__u64 addr, __u32 *rule)
{
	__u32 first = (__u32)(range >> 32) & 0x3fffffff, n = (__u32)range, key = 0, lo;
	__u64 off = addr - o->base;
	struct kunw_row *row;

	*rule = 0;
	if (addr < o->base || off > 0xffffffffull || !n)
		return bpf_map_lookup_elem(&rules, &key);
	kunw_page_rows(w, o, off, n); /* row 0 is at addr 0: some row covers off */
	for (int i = 0; i < KUNW_ROW_STEPS; i++) {
		__u32 mid, at;

		lo = w->lo;
		if (lo >= w->hi)
			break;
		mid = (lo + w->hi) / 2;
		at = first + mid;
		row = bpf_map_lookup_elem(&rows, &at);
		if (!row)
			return NULL;
		if (row->addr <= (__u32)off)
			w->lo = mid + 1;
		else
			w->hi = mid;
	}
	lo = w->lo;
	if (lo) {
		__u32 at = first + lo - 1;

		row = bpf_map_lookup_elem(&rows, &at);
		if (!row)
			return NULL;
		key = row->rule;
	}
	*rule = key;
	return bpf_map_lookup_elem(&rules, &key);
}

static __always_inline int kunw_reg(const struct kunw_walk_state *w, __u32 reg, __u64 *v)
{
	if (reg == KUNW_REG_RSP)
		*v = w->sp;
	else if (reg == KUNW_REG_RIP)
		*v = w->pc;
	else if (reg == KUNW_REG_RBP && w->bp_valid)
		*v = w->bp;
	else if (reg == KUNW_REG_RDI && w->di_valid)
		*v = w->di;
	else
		return -1;
	return 0;
}

/* Where a saved register is (LOC_CFA, LOC_REG). */
static __always_inline int kunw_saved_at(const struct kunw_walk_state *w, __u8 kind, __u8 reg,
					 __s64 off, __u64 cfa, __u64 *addr)
{
	__u64 base;

	if (kind == KUNW_LOC_CFA) {
		*addr = cfa + off;
		return 0;
	}
	if (kind == KUNW_LOC_REG && !kunw_reg(w, reg, &base)) {
		*addr = base + off;
		return 0;
	}
	return -1;
}

/* One step through a CFI rule: unwind/unwind_table.c's unw_step_cfi, reading user memory. */
static __always_inline int kunw_step_cfi(const struct kunw_rule *r, struct kunw_walk_state *w)
{
	__u64 cfa, base, addr, pc, bp = 0;
	__u32 bp_valid = 0;

	if (r->ra_kind == KUNW_LOC_UNDEFINED)
		return KUNW_STEP_OUTERMOST;
	switch (r->cfa_kind) {
	case KUNW_CFA_REG:
		if (kunw_reg(w, r->cfa_reg, &base))
			return KUNW_STEP_UNSUPPORTED;
		cfa = base + (__s64)r->cfa_off;
		break;
	case KUNW_CFA_DEREF:
		if (kunw_reg(w, r->cfa_reg, &base))
			return KUNW_STEP_UNSUPPORTED;
		if (kunw_read(w, base + (__s64)r->cfa_off, &cfa))
			return KUNW_STEP_STACK;
		break;
	case KUNW_CFA_PLT:
		cfa = w->sp + (__s64)r->cfa_off + ((w->pc & 15) >= r->plt_threshold ? 8 : 0);
		break;
	default:
		return KUNW_STEP_UNSUPPORTED;
	}
	if (r->ra_kind == KUNW_LOC_IN_REG) {
		if (kunw_reg(w, r->ra_reg, &pc))
			return KUNW_STEP_UNSUPPORTED;
	} else if (kunw_saved_at(w, r->ra_kind, r->ra_reg, r->ra_off, cfa, &addr)) {
		return KUNW_STEP_UNSUPPORTED;
	} else if (kunw_read(w, addr, &pc)) {
		return KUNW_STEP_STACK;
	}
	if (r->rbp_kind == KUNW_LOC_SAME) {
		bp = w->bp;
		bp_valid = w->bp_valid;
	} else if (r->rbp_kind == KUNW_LOC_IN_REG) {
		bp_valid = !kunw_reg(w, r->rbp_reg, &bp);
	} else if (!kunw_saved_at(w, r->rbp_kind, r->rbp_reg, r->rbp_off, cfa, &addr) &&
		   !kunw_read(w, addr, &bp)) {
		bp_valid = 1;
	}
	w->pc = pc;
	w->sp = cfa;
	w->bp = bp;
	w->bp_valid = bp_valid;
	w->di_valid = 0;
	return KUNW_STEP_OK;
}

/* One frame-pointer step: RIP = *(RBP + 8), RSP = RBP + 16, RBP = *RBP. */
static __always_inline int kunw_step_fp(struct kunw_walk_state *w)
{
	__u64 fp = w->bp, bp, pc;

	if (!w->bp_valid || !fp || fp < w->sp || (fp & 7))
		return KUNW_STEP_NO_FRAME;
	if (kunw_read(w, fp, &bp) || kunw_read(w, fp + 8, &pc))
		return KUNW_STEP_STACK;
	w->pc = pc;
	w->sp = fp + 16;
	w->bp = bp;
	w->bp_valid = 1;
	w->di_valid = 0;
	return KUNW_STEP_OK;
}

static __always_inline __u32 kunw_stop_reason(int res)
{
	if (res == KUNW_STEP_STACK)
		return KUNW_F_TRUNC_STACK;
	if (res == KUNW_STEP_NO_FRAME)
		return KUNW_F_TRUNC_NO_CFI;
	return KUNW_F_TRUNC_UNSUPPORTED;
}

static __always_inline struct kunw_pc_ent *kunw_pc_slot(__u64 lookup)
{
	__u32 key = (__u32)((lookup * 0x9e3779b97f4a7c15ull) >> 54) & (KUNW_PC_CACHE - 1);

	return bpf_map_lookup_elem(&kunw_pc_cache, &key);
}

/* The rule of this frame's PC, or NULL with w->flags or w->fallback set (stop). */
static __always_inline struct kunw_rule *kunw_frame_rule(struct kunw_walk_state *w,
							 struct kunw_proc *p)
{
	__u64 lookup = w->exact ? w->pc : w->pc - 1, range;
	struct kunw_pc_ent *ce = kunw_pc_slot(lookup);
	struct kunw_object *o;
	struct kunw_rule *r;
	struct kunw_map *m;
	__u32 key = 0;

	if (ce && ce->pc == lookup && ce->tgid == w->tgid && ce->generation == w->generation) {
		key = ce->rule;
		return bpf_map_lookup_elem(&rules, &key);
	}
	m = kunw_find_map(w, p, lookup);

	if (!m) {
		w->flags |= KUNW_F_TRUNC_NO_MAP;
		return NULL;
	}
	if (m->obj == KUNW_OBJ_ANON)
		return bpf_map_lookup_elem(&rules, &key);
	key = m->obj;
	o = bpf_map_lookup_elem(&objects, &key);
	if (!o) {
		w->fallback = KUNW_STAT_NO_TABLE;
		return NULL;
	}
	range = o->range;
	if (range & KUNW_OBJ_NO_TABLE) {
		w->fallback = KUNW_STAT_NO_TABLE;
		return NULL;
	}
	if (!(range & KUNW_OBJ_READY)) {
		w->fallback = KUNW_STAT_NOT_READY;
		return NULL;
	}
	r = kunw_find_rule(w, o, range, lookup - (__u64)m->bias, &key);
	if (r && ce) {
		ce->pc = lookup;
		ce->tgid = w->tgid;
		ce->generation = w->generation;
		ce->rule = key;
	}
	return r;
}

/* One frame (bpf_loop callback): unwind/unwind_table.c's unw_walk, one iteration. */
static long kunw_step(__u64 index, void *arg)
{
	struct kunw_walk_ctx *c = arg;
	struct kunw_walk_state *w = c->w;
	struct kunw_rule *r;
	int res, signal = 0, in_reg = 0;
	__u64 sp;
	__u32 n;

	(void)index;
	if (!w || !c->proc || !c->pcs)
		return 1;
	sp = w->sp;
	r = kunw_frame_rule(w, c->proc);
	if (!r) {
		if (!w->flags && !w->fallback)
			w->fallback = KUNW_STAT_NO_TABLE;
		return 1;
	}
	if (r->cfa_kind == KUNW_CFA_BOUND) {
		w->flags |= KUNW_F_TRUNC_BOUND;
		return 1;
	}
	if (r->cfa_kind != KUNW_CFA_NONE) {
		signal = r->flags & KUNW_RULE_SIGNAL;
		in_reg = r->ra_kind == KUNW_LOC_IN_REG;
		res = kunw_step_cfi(r, w);
	} else {
		w->flags |= KUNW_F_FP_FALLBACK;
		res = kunw_step_fp(w);
	}
	if (res == KUNW_STEP_OUTERMOST) {
		w->flags |= KUNW_F_COMPLETE;
		return 1;
	}
	if (res != KUNW_STEP_OK) {
		w->flags |= kunw_stop_reason(res);
		return 1;
	}
	/*
	 * the caller's frame is above ours, except across a signal frame
	 * (sigaltstack), or at the same SP when the return address came from a
	 * register (the leaf's only: it cannot repeat)
	 */
	if (signal ? ++w->signals > KUNW_SIGNAL_FRAMES : w->sp < sp || (w->sp == sp && !in_reg)) {
		w->flags |= KUNW_F_TRUNC_LOOP;
		return 1;
	}
	if (!w->pc) { /* a zero return address ends a chain CFI did not mark */
		w->flags |= KUNW_F_TRUNC_NO_MAP;
		return 1;
	}
	n = w->n;
	if (n >= w->max || n >= KUNW_USER_FRAMES) {
		w->flags |= KUNW_F_TRUNC_DEPTH;
		return 1;
	}
	if (signal)
		w->flags |= KUNW_F_SIGNAL_FRAME;
	w->exact = signal;
	c->pcs[n] = w->pc;
	w->n = n + 1;
	return 0;
}

/*
 * Is this tgid's table in the kernel and up to date?  Returns its procs
 * entry, or NULL with *why a kunw_stat reason.
 */
static __always_inline struct kunw_proc *kunw_proc_of(__u32 tgid, __u32 *why)
{
	struct kunw_pstate *st = bpf_map_lookup_elem(&pstate, &tgid);
	struct kunw_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (!p || !st) {
		*why = KUNW_STAT_NO_PROC;
		return NULL;
	}
	if (st->changing || st->changed_ns > kunw_synced_until) {
		*why = KUNW_STAT_NOT_SYNCED;
		return NULL;
	}
	return p;
}

/*
 * The user stack of the current task (tgid) from regs: up to max PCs
 * (<= KUNW_USER_FRAMES) into pcs.  See the top of this file.
 */
struct kunw_pcs {
	__u64 pcs[KUNW_USER_FRAMES];
};

/*
 * In: max PCs wanted (<= KUNW_USER_FRAMES).  Out: KUNW_F_* flags, the
 * process image's id, how many user memory reads the walk took.
 */
struct kunw_walk_res {
	__u32 max;
	__u32 flags;
	__u32 image;
	__u32 reads;
};

/*
 * A global function: the verifier checks it once, on its own (called from
 * several places, or with many states, a static one is checked again for
 * each: ~460,000 instructions and 0.7 s of load time, against a few
 * thousand).
 */
__noinline int kunw_walk_user(const struct kunw_regs *regs, __u32 tgid, struct kunw_pcs *out,
			      struct kunw_walk_res *res)
{
	struct kunw_walk_ctx c = {};
	struct kunw_walk_state *w;
	__u32 why = 0, zero = 0, max;
	__u64 *pcs;

	if (!regs || !out || !res)
		return -KUNW_STAT_NO_PROC;
	pcs = out->pcs;
	max = res->max;
	w = bpf_map_lookup_elem(&kunw_state, &zero);
	if (!w)
		return -KUNW_STAT_NO_TABLE;
	c.proc = kunw_proc_of(tgid, &why);
	if (!c.proc)
		return -(int)why;
	res->image = c.proc->image;
	if (!max) {
		res->flags = KUNW_F_TRUNC_DEPTH;
		return 0;
	}
	__builtin_memset(w, 0, offsetof(struct kunw_walk_state, win));
	w->pc = regs->ip;
	w->sp = regs->sp;
	w->bp = regs->bp;
	w->bp_valid = 1;
	w->di = regs->di;
	w->di_valid = 1;
	w->tgid = tgid;
	w->generation = kunw_generation;
	w->exact = 1;
	w->max = max;
	pcs[0] = regs->ip;
	w->n = 1;
	c.w = w;
	c.pcs = pcs;
	bpf_loop(KUNW_USER_FRAMES, kunw_step, &c, 0);
	if (w->fallback)
		return -(int)w->fallback;
	if (!(w->flags & (KUNW_F_COMPLETE | KUNW_F_TRUNCATED)))
		w->flags |= KUNW_F_TRUNC_DEPTH; /* the loop ran out */
	res->flags = w->flags;
	res->reads = w->reads;
	return (int)w->n;
}

/*
 * The user registers of task: the interrupted ones when it was in user
 * mode (ctx_regs, may be NULL), else those its entry into the kernel saved.
 * Returns -1 for a task without user context (a kernel thread).
 */
static __always_inline int kunw_user_regs(struct task_struct *task, struct pt_regs *ctx_regs,
					  struct kunw_regs *out)
{
	struct pt_regs *r;

	if (!task->mm)
		return -1;
	if (ctx_regs && ctx_regs->ip < 0xffff800000000000ull) {
		out->ip = ctx_regs->ip;
		out->sp = ctx_regs->sp;
		out->bp = ctx_regs->bp;
		out->di = ctx_regs->di;
		return 0;
	}
	r = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!r)
		return -1;
	out->ip = BPF_CORE_READ(r, ip);
	out->sp = BPF_CORE_READ(r, sp);
	out->bp = BPF_CORE_READ(r, bp);
	out->di = BPF_CORE_READ(r, di);
	return out->ip && out->ip < 0xffff800000000000ull ? 0 : -1;
}

#endif
