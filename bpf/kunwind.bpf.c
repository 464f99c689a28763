// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kunwind: at every task-clock tick, the whole call stack (the kernel's
 * frames, then the user stack walked through the CFI tables of
 * kunwind.h) counted in the kernel: a stack seen before costs a counter,
 * a new one goes to user space once.  A tick whose stack cannot be walked
 * here now (the process's tables not loaded yet or out of date, an object
 * still being built, no room) goes to the perf ring with its stack copy
 * (the program returns 1) and the recorder unwinds it, as without BPF.
 *
 * The mapping-change tracepoints keep pstate (kunwind.h) true: a process
 * of the tree whose executable mappings change is not walked here until
 * user space has read the records of the change.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kunwind_walk.bpf.h"
#define STATS_NR KUNW_STAT_NR
#include "stats.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define PROT_EXEC_FLAG 0x4
#define PERF_CONTEXT_MAX_MARK ((__u64)-4095)

/* Set by user space before loading. */
const volatile __u64 hash_seed = 0x9e3779b97f4a7c15ull;
const volatile __u32 crosscheck = 0; /* tests: every tick also through the ring, see kunw_check */
const volatile __u32 kernel_frames = 1;

/* The CPUs the tallies are sized for (set by user space, with tally's and tally_pos's sizes). */
const volatile __u32 tally_cpus = 1;
/* When the recorder was last woken (wake_recorder). */
volatile __u64 kunw_wake_ns;

/*
 * The tallies (kunwind.h): per CPU, a ring of KUNW_TALLY_SLOTS ticks,
 * each (image, thread, stack hash), that user space reads through its
 * mapping; one producer per CPU (this program does not nest on a CPU).
 * Sizes are set at load: tally_cpus * KUNW_TALLY_SLOTS records, and
 * tally_cpus * KUNW_TALLY_POS positions (head, then tail a cache line on).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_TALLY_SLOTS);
	__type(key, __u32);
	__type(value, struct kunw_tally);
} tally SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KUNW_TALLY_POS);
	__type(key, __u32);
	__type(value, __u64);
} tally_pos SEC(".maps");

/* Per CPU: stack hashes sent lately (a direct-mapped cache in front of `known`). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KUNW_SENT_CACHE);
	__type(key, __u32);
	__type(value, __u64);
} sent_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, KUNW_KNOWN);
	__type(key, __u64);
	__type(value, __u8);
} known SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, KUNW_RING_BYTES);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kunw_stack);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KUNW_COST_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} cost SEC(".maps");

static __always_inline void cost_add(__u32 kind, __u64 ns, __u32 nuser)
{
	__u32 d = nuser < 8 ? 0 : nuser < 16 ? 1 : nuser < 32 ? 2 : nuser < 64 ? 3 : 4;
	__u64 b = ns / KUNW_COST_NS;
	__u32 key;
	__u64 *v;

	if (b >= KUNW_COST_BUCKETS)
		b = KUNW_COST_BUCKETS - 1;
	key = (kind * KUNW_COST_DEPTHS + d) * KUNW_COST_BUCKETS + (__u32)b;
	v = bpf_map_lookup_elem(&cost, &key);
	if (v)
		*v += 1;
}

static __always_inline __u64 mix(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/*
 * The kernel's frames of this tick: the perf event's callchain
 * (exclude_callchain_user), whose first entry may be a context marker:
 * it stays (user space drops it) rather than a loop moving every frame.
 */
static __always_inline __u32 kernel_part(struct bpf_perf_event_data *ctx, struct kunw_stack *s,
					 __u64 ip)
{
	long bytes = 0;
	__u32 n, marker;

	if (ip < 0xffff800000000000ull)
		return 0;
	if (kernel_frames)
		bytes = bpf_get_stack(ctx, s->pcs, KUNW_KERNEL_FRAMES * 8, 0);
	n = bytes > 0 ? (__u32)bytes / 8 : 0;
	if (n > KUNW_KERNEL_FRAMES)
		n = KUNW_KERNEL_FRAMES;
	marker = n && s->pcs[0] >= PERF_CONTEXT_MAX_MARK;
	if (n == marker) /* no frames: the kernel PC, without its callers */
		s->pcs[n++ & 1] = ip;
	return n;
}

/* A new stack: once to user space (ring buffer), then known.  0, or a kunw_stat reason. */
static __always_inline __u32 send_if_new(struct kunw_stack *s)
{
	__u64 size = KUNW_STACK_HEAD + 8ull * (s->nkernel + s->nuser), *seen;
	__u32 slot = (__u32)s->hash & (KUNW_SENT_CACHE - 1);
	__u8 one = 1;

	seen = bpf_map_lookup_elem(&sent_cache, &slot);
	if (seen && *seen == s->hash)
		return 0;
	if (!bpf_map_lookup_elem(&known, &s->hash)) {
		if (size > sizeof(*s))
			size = sizeof(*s);
		/* no wakeup: the recorder reads new stacks at its next round */
		if (bpf_ringbuf_output(&stacks, s, size, BPF_RB_NO_WAKEUP))
			return KUNW_STAT_RING_FULL;
		bpf_map_update_elem(&known, &s->hash, &one, BPF_ANY);
		stat_inc(KUNW_STAT_NEW_STACKS);
	}
	if (seen)
		*seen = s->hash;
	return 0;
}

/* Wake the recorder now, at most once per KUNW_WAKE_NS. */
static __always_inline void wake_now(void)
{
	__u64 now = bpf_ktime_get_ns(), zero = 0;

	if (now - kunw_wake_ns < KUNW_WAKE_NS)
		return;
	kunw_wake_ns = now;
	bpf_ringbuf_output(&stacks, &zero, sizeof(zero), BPF_RB_FORCE_WAKEUP);
}

/*
 * Count one tick: a record in this CPU's tally (user space adds them up).
 * A record, not a counter in a hash map: an insert into a hash map cost
 * ~650 ns per tick of a program whose stacks vary (each new (thread,
 * stack) in each interval), a record ~20 ns.
 */
static __always_inline __u32 tally_add(__u32 image, __u32 tid, __u64 stack)
{
	__u32 cpu = bpf_get_smp_processor_id(), hk, tk, at;
	struct kunw_tally *t;
	__u64 *head, *tail, h, used;

	if (cpu >= tally_cpus)
		return KUNW_STAT_COUNTS_FULL;
	hk = cpu * KUNW_TALLY_POS;
	tk = hk + KUNW_TALLY_TAIL;
	head = bpf_map_lookup_elem(&tally_pos, &hk);
	tail = bpf_map_lookup_elem(&tally_pos, &tk);
	if (!head || !tail)
		return KUNW_STAT_COUNTS_FULL;
	h = *head;
	used = h - *(volatile __u64 *)tail;
	if (used >= KUNW_TALLY_SLOTS)
		return KUNW_STAT_COUNTS_FULL;
	at = cpu * KUNW_TALLY_SLOTS + (__u32)(h & (KUNW_TALLY_SLOTS - 1));
	t = bpf_map_lookup_elem(&tally, &at);
	if (!t)
		return KUNW_STAT_COUNTS_FULL;
	t->image = image;
	t->tid = tid;
	t->stack = stack;
	asm volatile("" ::: "memory"); /* the record before the head (x86 keeps store order) */
	*(volatile __u64 *)head = h + 1;
	if (used + 1 == KUNW_TALLY_SLOTS / 2)
		wake_now();
	return 0;
}

/* A new stack goes to user space first (once), then the tick is tallied. */
static __always_inline __u32 count_stack(struct kunw_stack *s, __u32 image, __u32 tid)
{
	__u32 why = send_if_new(s);

	return why ? why : tally_add(image, tid, s->hash);
}

/* Cross-check mode: the user part of this tick's stack for the recorder to compare. */
static __always_inline void send_check(struct kunw_stack *s, __u32 tid, __u64 sp, __u64 t0)
{
	struct kunw_check *c = bpf_ringbuf_reserve(&stacks, sizeof(*c), 0);
	__u64 nk = s->nkernel, n = s->nuser;

	if (!c)
		return;
	c->hash = 0;
	c->tid = tid;
	c->nuser = (__u32)n;
	c->flags = s->flags;
	c->sp = sp;
	c->time = t0;
	if (nk > KUNW_KERNEL_FRAMES)
		nk = KUNW_KERNEL_FRAMES;
	for (__u64 i = 0; i < KUNW_USER_FRAMES; i++) {
		__u64 k = nk + i;

		if (i >= n || k >= KUNW_FRAMES)
			break;
		c->pcs[i] = s->pcs[k];
	}
	bpf_ringbuf_submit(c, BPF_RB_NO_WAKEUP);
}

struct hash_ctx {
	struct kunw_stack *s;
	__u64 h;
};

static long hash_frame(__u64 i, void *arg)
{
	struct hash_ctx *c = arg;

	if (i >= KUNW_FRAMES)
		return 1;
	c->h = mix(c->h, c->s->pcs[i]);
	return 0;
}

/* bpf_loop: the verifier checks the step once instead of once per frame (faster loading) */
static __always_inline __u64 hash_stack(struct kunw_stack *s)
{
	struct hash_ctx c = {.s = s};
	__u32 n = s->nkernel + s->nuser;

	c.h = mix(mix(hash_seed, (__u64)s->nkernel << 32 | s->nuser), s->flags);
	bpf_loop(n < KUNW_FRAMES ? n : KUNW_FRAMES, hash_frame, &c, 0);
	return c.h ? c.h : 1;
}

/*
 * A tick in the kernel while the process execs (see KUNW_F_EXEC): its
 * kernel frames alone, counted here even before the recorder knows the
 * process (image 0: the recorder takes the thread's latest image).
 * Returns 1 (and *image) when it is such a tick.
 */
static __always_inline int in_exec(__u32 nk, __u32 tgid, __u32 *image)
{
	struct kunw_pstate *st = bpf_map_lookup_elem(&pstate, &tgid);
	struct kunw_proc *p;

	if (!nk || !st || !st->in_exec)
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	*image = p ? p->image : 0;
	return 1;
}

/* The walk of one tick; returns 0 (counted) or a kunw_stat reason to go through the ring. */
static __always_inline __u32 tick(struct bpf_perf_event_data *ctx, struct kunw_stack *s,
				  __u64 *nuser, __u64 *reads, __u64 *t_walk, __u64 t0)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();
	struct kunw_walk_res res = {.max = KUNW_USER_FRAMES};
	struct kunw_regs regs;
	__u32 nk, why = 0;
	int n;

	if (kunw_user_regs(task, (struct pt_regs *)&ctx->regs, &regs))
		return KUNW_STAT_KERNEL_THREAD;
	nk = kernel_part(ctx, s, ctx->regs.ip);
	if (nk > KUNW_KERNEL_FRAMES)
		return KUNW_STAT_NO_TABLE;
	if (!crosscheck && in_exec(nk, (__u32)(id >> 32), &res.image)) {
		n = 0;
		res.flags = KUNW_F_EXEC;
	} else {
		n = kunw_walk_user(&regs, (__u32)(id >> 32), (struct kunw_pcs *)&s->pcs[nk], &res);
		if (n < 0)
			return (__u32)-n;
	}
	*t_walk = bpf_ktime_get_ns();
	s->nkernel = nk;
	s->nuser = (__u32)n;
	s->flags = res.flags;
	s->hash = hash_stack(s);
	*nuser = (__u32)n;
	*reads = res.reads;
	if (crosscheck) {
		send_check(s, (__u32)id, regs.sp, t0);
		return KUNW_STAT_NR; /* through the ring as well, not counted here */
	}
	why = count_stack(s, res.image, (__u32)id);
	if (!why && !n)
		stat_inc(KUNW_STAT_IN_EXEC);
	return why;
}

/*
 * A tick went through the ring because the recorder has not caught up
 * (a new process, changed mappings, a table or the ring to read): wake it
 * now rather than at its next round (up to 50 ms, ~5 % of the ticks of a
 * one-second program at its start), at most once per KUNW_WAKE_NS.
 */
static __always_inline void wake_recorder(__u32 why)
{
	if (why == KUNW_STAT_NO_PROC || why == KUNW_STAT_NOT_SYNCED || why == KUNW_STAT_NOT_READY ||
	    why == KUNW_STAT_RING_FULL || why == KUNW_STAT_COUNTS_FULL)
		wake_now();
}

SEC("perf_event")
int kunwind_tick(struct bpf_perf_event_data *ctx)
{
	__u64 t0 = bpf_ktime_get_ns(), nuser = 0, reads = 0, t_walk = 0;
	__u32 zero = 0, why;
	struct kunw_stack *s = bpf_map_lookup_elem(&scratch, &zero);

	stat_inc(KUNW_STAT_TICKS);
	if (!s)
		return 1;
	why = tick(ctx, s, &nuser, &reads, &t_walk, t0);
	if (why) {
		if (why < KUNW_STAT_NR)
			stat_inc(why);
		wake_recorder(why);
		return 1; /* perf writes the sample, with its stack copy, to the ring */
	}
	stat_inc(KUNW_STAT_COUNTED);
	if (nuser) { /* an exec tick walks nothing */
		cost_add(KUNW_COST_TICK, bpf_ktime_get_ns() - t0, (__u32)nuser);
		cost_add(KUNW_COST_WALK, t_walk - t0, (__u32)nuser);
		stat_add(KUNW_STAT_FRAMES, nuser);
		stat_add(KUNW_STAT_READS, reads);
	}
	return 0;
}

/*
 * Does the system call the task is in change its executable mappings?
 * (mmap/mprotect with PROT_EXEC, mremap, exec, shmat, remap_file_pages;
 * a munmap only takes code away, and a PC cannot be there any more.)
 */
static __always_inline int changes_exec_mappings(struct task_struct *task)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr;

	if (!r)
		return 1;
	nr = BPF_CORE_READ(r, orig_ax);
	switch (nr) {
	case 9:	  /* mmap */
	case 10:  /* mprotect */
	case 329: /* pkey_mprotect */
		return (BPF_CORE_READ(r, dx) & PROT_EXEC_FLAG) != 0;
	case 25:  /* mremap */
	case 30:  /* shmat */
	case 59:  /* execve */
	case 216: /* remap_file_pages */
	case 322: /* execveat */
		return 1;
	default:
		return 0;
	}
}

static __always_inline struct kunw_pstate *own_pstate(struct mm_struct *mm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	if (task->mm !=
	    mm) /* another process's address space (khugepaged...): not a mapping change */
		return NULL;
	return bpf_map_lookup_elem(&pstate, &tgid);
}

SEC("tp_btf/mmap_lock_acquire_returned")
int BPF_PROG(kunwind_lock_acquired, struct mm_struct *mm, bool write, bool success)
{
	struct kunw_pstate *st;

	if (!write || !success)
		return 0;
	st = own_pstate(mm);
	if (st && changes_exec_mappings(bpf_get_current_task_btf()))
		st->changing = 1;
	return 0;
}

/* A write lock may be downgraded and released as a read lock (munmap): any release ends a change. */
SEC("tp_btf/mmap_lock_released")
int BPF_PROG(kunwind_lock_released, struct mm_struct *mm, bool write)
{
	struct kunw_pstate *st = own_pstate(mm);

	if (st && st->changing) {
		/* volatile: the time first, then the end of the change (x86 keeps store order) */
		*(volatile __u64 *)&st->changed_ns = bpf_ktime_get_ns();
		*(volatile __u32 *)&st->changing = 0;
	}
	return 0;
}

/* An exec starts: the old image's mappings are not to be trusted from here on. */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(kunwind_prepare_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct kunw_pstate *st = bpf_map_lookup_elem(&pstate, &tgid);

	if (st) {
		st->changing = 1;
		st->in_exec = 1;
	}
	return 0;
}

/* The new image starts (its registers and stack are set): walkable again once synced. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(kunwind_exec_done, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct kunw_pstate *st = bpf_map_lookup_elem(&pstate, &tgid);

	if (st)
		st->in_exec = 0;
	return 0;
}

/* A process of the tree forks: the child's table is its parent's copy, valid from now on. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(kunwind_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct kunw_pstate st = {};

	if (ptgid == ctgid || !bpf_map_lookup_elem(&pstate, &ptgid))
		return 0;
	st.changed_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&pstate, &ctgid, &st, BPF_ANY);
	return 0;
}
