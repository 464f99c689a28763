// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * offcpu: every interval a thread of the recorded tree spends off the CPU,
 * counted in the kernel by (thread, stacks at its switch-out, reason),
 * weighted by its nanoseconds.  The layout and the rules: offcpu.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "offcpu.h"
#include "kunwind_walk.bpf.h"
#include "procacct_switch.bpf.h"
#define STATS_NR OFFCPU_STAT_NR
#include "stats.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TASK_INTERRUPTIBLE_F 0x0001
#define TASK_UNINTERRUPTIBLE_F 0x0002
#define TASK_STOPPED_F 0x0004
#define TASK_TRACED_F 0x0008
#define TASK_DEAD_F 0x0080
#define KERNEL_START 0xffff800000000000ull
/* bpf_get_stackid's first frames are the program's own glue: the BPF program, bpf_trace_run4 */
#define KSTACK_SKIP 2

/* Set by user space before loading. */
const volatile __u32 follow_children = 1;
const volatile __u32 user_stacks = 1;	/* the frame-pointer walk of the user stack */
const volatile __u32 kernel_stacks = 1; /* the kernel's frames */
const volatile __u32 reuse_stacks = 1;	/* the cache of offcpu.h ("Cost") */
const volatile __u32 user_copies = 1;	/* copies of the user stack at new places */
const volatile __u32 kernel_walk = 0;	/* the in-kernel CFI walk at new places (offcpu.h) */
/* the kernel's accounting's work at a dead thread's last switch (procacct_switch.bpf.h) */
const volatile __u32 acct_switch = 0;

/* Which counts map the programs add into (user space flips it). */
volatile __u32 cur;
/*
 * The attached process (its pid), set by user space before it enters its
 * threads in `threads`; 0: none.  Only its tasks can be of the tree without
 * a state: no other task costs a lookup at its switches.
 */
volatile __u32 seeded;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct offcpu_proc);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu_thread);
} threads SEC(".maps");

/*
 * Each tracked thread's state, on its task (task-local storage: no hash
 * lookup at its switches): made with its entry in `threads`, gone at its
 * last switch or with the task.  `threads` holds what user space needs
 * without it (offcpu.h, "Threads").
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_thread);
} tstate SEC(".maps");

/*
 * The counts: two maps of one type, the programs add into the one `cur` names
 * while user space drains the other.
 */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_KEYS);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
};

struct counts_map counts0 SEC(".maps");
struct counts_map counts1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_KERNEL_DEPTH * sizeof(__u64));
} kstacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_USER_DEPTH * sizeof(__u64));
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OFFCPU_RING_BYTES);
} ends SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OFFCPU_COPY_RING);
} copies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OFFCPU_UWALK_RING);
} uwalks SEC(".maps");

/* The last walk id handed out. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} walks SEC(".maps");

static __always_inline __u32 reason_of(bool preempt, unsigned int state)
{
	if (preempt || !(state & 0xff))
		return OFFCPU_PREEMPTED;
	if (state & TASK_UNINTERRUPTIBLE_F)
		return OFFCPU_BLOCKED;
	if (state & TASK_INTERRUPTIBLE_F)
		return OFFCPU_SLEEP;
	if (state & (TASK_STOPPED_F | TASK_TRACED_F))
		return OFFCPU_STOPPED;
	return OFFCPU_SLEEP; /* parked and the like: waiting to be woken */
}

static __always_inline __u64 mix(__u64 h, __u64 v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* The counts entry of key, made when new; NULL when the map is full. */
static __always_inline struct offcpu_val *count_entry(struct offcpu_key *key)
{
	void *map = cur ? (void *)&counts1 : (void *)&counts0;
	struct offcpu_val zero = {}, *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline bool same_key(const struct offcpu_key *a, const struct offcpu_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	_Static_assert(sizeof(*a) == 5 * sizeof(__u64), "a key is five words");
	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3] && x[4] == y[4];
}

/* A run of intervals under one key into the counts map. */
static __always_inline void flush_run(struct offcpu_run *run)
{
	struct offcpu_val *v;

	if (!run->count)
		return;
	stat_add(OFFCPU_STAT_RUNS, 1);
	v = count_entry(&run->key);
	if (!v) {
		stat_add(OFFCPU_STAT_KEYS_FULL, 1);
		stat_add(OFFCPU_STAT_KEYS_FULL_NS, run->ns);
	} else {
		/* plain adds: a key names one thread, whose switches come one at a time */
		v->ns += run->ns;
		v->count += run->count;
	}
	run->ns = 0;
	run->count = 0;
}

/* All of th's runs into the counts map (its end, an exec). */
static __always_inline void flush_runs(struct offcpu_thread *th)
{
	_Static_assert(OFFCPU_RUNS == 2, "one run preempted, one other");
	flush_run(&th->runs[0]);
	flush_run(&th->runs[1]);
}

/*
 * Add ns of th's pending interval (closed at now) to the thread's total and
 * to its key's count: to the thread's run of its kind when the key is the
 * run's (no lookup of the counts map at each switch-in), else that run goes
 * to the map and a new one begins.
 */
static __always_inline void count_interval(struct offcpu_thread *th, __u64 ns, __u64 now)
{
	struct offcpu_run *run = &th->runs[th->key.reason == OFFCPU_PREEMPTED ? 1 : 0];

	th->offcpu_ns += ns;
	if (run->count && now - run->since < OFFCPU_PEND_NS && same_key(&run->key, &th->key)) {
		run->ns += ns;
		run->count++;
		return;
	}
	flush_run(run);
	run->key = th->key;
	run->ns = ns;
	run->count = 1;
	run->since = now;
}

/* Close th's pending interval at now (its switch-in). */
static __always_inline void close_interval(struct offcpu_thread *th, __u64 now)
{
	__u64 out = th->out_ns;

	if (!out)
		return;
	th->out_ns = 0;
	count_interval(th, now > out ? now - out : 0, now);
}

/*
 * The interval a missed switch-in left open, closed at the thread's next
 * switch (task, which is switching out or dying now): the time since it
 * left the CPU less the CPU time it has had since.
 */
static __always_inline void close_missed(struct offcpu_thread *th, struct task_struct *task,
					 __u64 now)
{
	__u64 out = th->out_ns, ran = task->se.sum_exec_runtime - th->out_runtime, ns;

	if (!out)
		return;
	th->out_ns = 0;
	ns = now > out ? now - out : 0;
	ns = ns > ran ? ns - ran : 0;
	stat_add(OFFCPU_STAT_UNCLOSED, 1);
	stat_add(OFFCPU_STAT_UNCLOSED_NS, ns);
	count_interval(th, ns, now);
}

/* Thread th (of process tgid, image gen) ended at now: its lifetime and total to user space. */
static __always_inline void send_end(struct offcpu_thread *th, __u32 tgid, __u32 tid, __u32 gen,
				     __u64 now)
{
	struct offcpu_end *e = bpf_ringbuf_reserve(&ends, sizeof(*e), 0);

	if (!e) {
		stat_add(OFFCPU_STAT_ENDS_LOST, 1);
		return;
	}
	e->tgid = tgid;
	e->tid = tid;
	e->gen = gen;
	e->pad = 0;
	e->born_ns = th->born_ns;
	e->died_ns = now;
	e->offcpu_ns = th->offcpu_ns;
	bpf_ringbuf_submit(e, 0);
}

/*
 * The state of task (thread tid), not on the task yet: made from its entry
 * in `threads` where user space entered it (a thread of an attached
 * process, task_start 0: adopted), else, where any, at its first
 * switch-out as a thread of a tracked process (key.gen: its image).
 * An entry of another task with the same tid (a tid used again before the
 * dead one's last switch) is replaced.  NULL: not ours, or no room (counted).
 */
static __always_inline struct offcpu_thread *thread_new(struct task_struct *task, __u32 tid,
							__u64 now, bool any)
{
	struct offcpu_thread *th = seeded ? bpf_map_lookup_elem(&threads, &tid) : NULL, fresh = {};
	__u64 start = task->start_time;
	__u32 tgid = task->tgid;
	struct offcpu_proc *pr;

	if (th && (th->task_start == start || !th->task_start)) {
		th->task_start = start;
		fresh = *th;
	} else {
		if (!any)
			return NULL;
		pr = bpf_map_lookup_elem(&tracked, &tgid);
		if (!pr || !pr->armed)
			return NULL;
		fresh.born_ns = now;
		fresh.task_start = start;
		fresh.key.tgid = tgid;
		fresh.key.tid = tid;
		fresh.key.gen = pr->gen;
		if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY)) {
			stat_add(OFFCPU_STAT_THREADS_FULL, 1);
			return NULL;
		}
	}
	th = bpf_task_storage_get(&tstate, task, &fresh, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!th)
		stat_add(OFFCPU_STAT_THREADS_FULL, 1);
	return th;
}

/*
 * Where the thread leaves the CPU from, cheaply: the reason, its system
 * call, its user registers and how deep its kernel stack is (the address
 * of this program's frame, which lies on the thread's kernel stack).
 */
static __always_inline __u64 signature(struct offcpu_thread *th, __u32 reason, struct pt_regs *r)
{
	__u64 h = mix(0x9e3779b97f4a7c15ull, reason);

	/* the frame's address, through the map value: the verifier allows no arithmetic on it */
	{
		__u64 fp;

		asm volatile("%0 = r10" : "=r"(fp));
		*(volatile __u64 *)&th->frame = fp;
	}
	h = mix(h, *(volatile __u64 *)&th->frame);
	/* direct loads (r is a trusted BTF pointer): no helper call per register */
	h = mix(h, r->orig_ax);
	h = mix(h, r->ip);
	h = mix(h, r->sp);
	h = mix(h, r->bp);
	return h ? h : 1;
}

/*
 * The top of the user stack from sp into buf: OFFCPU_COPY_BYTES, or, where
 * the stack ends before (a main thread's shallow stack lies within a few
 * KiB of the top of its mapping), every whole page up to its end: the rest
 * of sp's page and the page after it, else the rest of sp's page alone.
 * The bytes copied.
 */
static __always_inline __u32 copy_stack_top(__u8 *buf, __u64 sp)
{
	__u32 room = 4096 - (__u32)(sp & 4095); /* 1..4096 */
	__u32 two = room + 4096;

	_Static_assert(OFFCPU_COPY_BYTES == 8192, "the fallbacks below assume two pages");
	if (!bpf_probe_read_user(buf, OFFCPU_COPY_BYTES, (const void *)sp))
		return OFFCPU_COPY_BYTES;
	if (two < OFFCPU_COPY_BYTES && !bpf_probe_read_user(buf, two & 8191, (const void *)sp))
		return two;
	if (!bpf_probe_read_user(buf, room & 8191, (const void *)sp))
		return room;
	return 0;
}

/* A new walk id, for a record about to be sent; 0 never (the map has its one entry). */
static __always_inline __u32 next_walk(void)
{
	__u32 zero = 0, *last = bpf_map_lookup_elem(&walks, &zero);

	return last ? __sync_fetch_and_add(last, 1) + 1 : 0;
}

/*
 * A copy of the user stack of the task switching out (the current one) at
 * a new place, to user space; its walk id, 0 when it could not be sent.
 * r is a trusted BTF pointer: direct loads, no helper call per register.
 */
static __always_inline __u32 copy_user_stack(struct offcpu_thread *th, struct pt_regs *r, __u64 now)
{
	struct offcpu_copy *c;
	__u64 sp = r->sp;
	__u32 walk;

	if (!sp)
		return 0;
	c = bpf_ringbuf_reserve(&copies, sizeof(*c), 0);
	if (!c) {
		stat_add(OFFCPU_STAT_COPIES_LOST, 1);
		return 0;
	}
	walk = next_walk();
	if (!walk) {
		bpf_ringbuf_discard(c, 0);
		return 0;
	}
	c->walk = walk;
	c->tgid = th->key.tgid;
	c->tid = th->key.tid;
	c->time = now;
	c->bp = r->bp;
	c->sp = sp;
	c->ip = r->ip;
	c->size = copy_stack_top(c->stack, sp);
	bpf_ringbuf_submit(c, 0);
	stat_add(OFFCPU_STAT_COPIES, 1);
	return walk;
}

/*
 * The user stack of the task switching out (the current one) walked here
 * through the CFI tables (kernel_walk), to user space under a new walk id;
 * 0 when the walk cannot take it now (then it is copied).
 */
static __always_inline __u32 walk_user_stack(struct offcpu_thread *th, struct pt_regs *r)
{
	struct kunw_walk_res res = {.max = OFFCPU_UWALK_FRAMES};
	struct kunw_regs regs = {};
	struct offcpu_uwalk *u;
	__u32 walk;
	int n;

	regs.ip = r->ip;
	regs.sp = r->sp;
	regs.bp = r->bp;
	regs.di = r->di; /* glibc's __vfork keeps its return address there */
	if (!regs.ip || regs.ip >= KERNEL_START || !regs.sp)
		return 0;
	u = bpf_ringbuf_reserve(&uwalks, sizeof(*u), 0);
	if (!u) {
		stat_add(OFFCPU_STAT_KWALK_LOST, 1);
		return 0;
	}
	n = kunw_walk_user(&regs, th->key.tgid, (struct kunw_pcs *)u->pcs, &res);
	walk = n > 0 ? next_walk() : 0;
	if (!walk) {
		bpf_ringbuf_discard(u, 0);
		return 0;
	}
	u->walk = walk;
	u->tgid = th->key.tgid;
	u->tid = th->key.tid;
	u->n = (__u32)n;
	u->flags = res.flags;
	u->pad = 0;
	bpf_ringbuf_submit(u, 0);
	stat_add(OFFCPU_STAT_KWALKS, 1);
	return walk;
}

/* The user stack of a new place: walked in the kernel where it can be, else copied. */
static __always_inline __u32 new_place_stack(struct offcpu_thread *th, struct pt_regs *r, __u64 now)
{
	__u32 walk;

	if (kernel_walk) {
		walk = walk_user_stack(th, r);
		if (walk)
			return walk;
		stat_add(OFFCPU_STAT_KWALK_COPIED, 1);
	}
	return copy_user_stack(th, r, now);
}

/* The stacks of this switch-out: walked, or reused from the thread's walk at the same place. */
static __always_inline void take_stacks(void *ctx, struct offcpu_thread *th, __u64 sig,
					struct pt_regs *r, __u64 now)
{
	__s32 k = OFFCPU_NO_STACK, u = OFFCPU_NO_STACK;
	struct offcpu_cached *c = NULL;
	__u32 i;

	for (i = 0; i < OFFCPU_CACHE; i++) {
		if (th->cache[i].sig == sig) {
			c = &th->cache[i];
			break;
		}
	}
	if (reuse_stacks && c && c->reused < OFFCPU_REWALK) {
		c->reused++;
		th->key.kstack = c->kstack;
		th->key.ustack = c->ustack;
		th->key.walk = c->walk;
		stat_add(OFFCPU_STAT_REUSED, 1);
		return;
	}
	if (kernel_stacks) {
		k = bpf_get_stackid(ctx, &kstacks, KSTACK_SKIP);
		if (k < 0) {
			k = OFFCPU_NO_STACK;
			stat_add(OFFCPU_STAT_KSTACK_FAIL, 1);
		}
	}
	if (user_stacks) {
		u = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
		if (u < 0) {
			u = OFFCPU_NO_STACK;
			stat_add(OFFCPU_STAT_USTACK_FAIL, 1);
		}
	}
	stat_add(OFFCPU_STAT_WALKS, 1);
	if (c) {
		if (k != c->kstack || u != c->ustack) {
			stat_add(OFFCPU_STAT_STALE, 1);
			c->walk = 0; /* another place after all: a new copy */
		}
	} else {
		i = th->next % OFFCPU_CACHE;
		th->next = i + 1;
		c = &th->cache[i];
		c->sig = sig;
		c->walk = 0;
	}
	if (user_copies && !c->walk)
		c->walk = new_place_stack(th, r, now);
	c->kstack = k;
	c->ustack = u;
	c->reused = 0;
	th->key.kstack = k;
	th->key.ustack = u;
	th->key.walk = c->walk;
}

/*
 * A thread of the tree is dead (its last switch): its lifetime and total to
 * user space, its entry gone.  Its process may have left `tracked` already:
 * the threads of an exit_group drop `live` to 0 before the last of them
 * makes its last switch, and the first to see 0 removes the process; the
 * others are still in `threads`, with the image they last ran.
 */
static __always_inline void thread_died(struct task_struct *prev, __u32 tid, __u64 now)
{
	struct offcpu_thread *th = bpf_task_storage_get(&tstate, prev, 0, 0), *reg;
	__u32 tgid = prev->tgid;
	struct offcpu_proc *pr;

	if (!th)
		return; /* not ours */
	close_missed(th, prev, now);
	flush_runs(th);
	pr = bpf_map_lookup_elem(&tracked, &tgid);
	send_end(th, tgid, tid, pr ? pr->gen : th->key.gen, now);
	bpf_task_storage_delete(&tstate, prev);
	/* its entry, unless its tid already went to a new thread */
	reg = bpf_map_lookup_elem(&threads, &tid);
	if (reg && reg->task_start == prev->start_time)
		bpf_map_delete_elem(&threads, &tid);
	/* the process's last thread: it leaves the tree (the map stays bounded by live processes) */
	if (BPF_CORE_READ(prev, signal, live.counter) == 0)
		bpf_map_delete_elem(&tracked, &tgid);
}

static __always_inline void switch_out(void *ctx, bool preempt, struct task_struct *prev,
				       unsigned int state, __u64 now)
{
	__u32 tid = prev->pid, reason;
	struct offcpu_thread *th;
	struct pt_regs *r;

	if (!tid)
		return; /* the idle task */
	if (state & TASK_DEAD_F) {
		thread_died(prev, tid, now);
		return;
	}
	/* a thread with its state is of the tree, its image in key.gen: no lookup of tracked */
	th = bpf_task_storage_get(&tstate, prev, 0, 0);
	if (!th) {
		/*
		 * A thread of the tree has its state from its fork or exec; only an
		 * attach leaves threads to be met here (those of the process, and any
		 * it made before it was tracked): no lookup of tracked otherwise.
		 */
		if (!seeded || prev->tgid != seeded)
			return;
		th = thread_new(prev, tid, now, true);
		if (!th)
			return;
	}
	stat_add(OFFCPU_STAT_SWITCHES, 1);
	close_missed(th, prev, now);
	reason = reason_of(preempt, state);
	r = (struct pt_regs *)bpf_task_pt_regs(prev);
	/* key.tgid and key.tid are the thread's since its state was made (an exec moves tid) */
	th->key.reason = reason;
	th->key.upc = r ? r->ip : 0;
	if (th->key.upc >= KERNEL_START)
		th->key.upc = 0;
	th->key.walk = 0;
	if (r)
		take_stacks(ctx, th, signature(th, reason, r), r, now);
	else
		th->key.kstack = th->key.ustack = OFFCPU_NO_STACK;
	th->out_ns = now;
	th->out_runtime = prev->se.sum_exec_runtime;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 ntid = next->pid;
	struct offcpu_thread *th;

	if (acct_switch)
		acct_switch_out(prev, prev_state);
	switch_out(ctx, preempt, prev, prev_state, now);
	if (!ntid)
		return 0;
	th = bpf_task_storage_get(&tstate, next, 0, 0);
	/* a thread of the attached process, met for the first time */
	if (!th && seeded && next->tgid == seeded)
		th = thread_new(next, ntid, now, false);
	if (th)
		close_interval(th, now);
	return 0;
}

/* A new thread or process of the tree: runnable (not yet run) from now. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(offcpu_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, ctid = child->pid;
	struct offcpu_proc *pr = bpf_map_lookup_elem(&tracked, &ptgid), np = {};
	struct offcpu_thread th = {};
	struct pt_regs *r;
	__u64 now;

	if (!pr || !pr->armed)
		return 0;
	if (ctgid != ptgid) {
		if (!follow_children)
			return 0;
		np.armed = 1;
		if (bpf_map_update_elem(&tracked, &ctgid, &np, BPF_ANY)) {
			stat_add(OFFCPU_STAT_PROCS_FULL, 1);
			return 0;
		}
		pr = &np;
	}
	now = bpf_ktime_get_ns();
	th.born_ns = now;
	th.task_start = child->start_time;
	th.out_ns = now;
	th.key.tgid = ctgid;
	th.key.tid = ctid;
	th.key.gen = pr->gen;
	th.key.reason = OFFCPU_PREEMPTED;
	th.key.kstack = OFFCPU_NO_STACK;
	th.key.ustack = OFFCPU_NO_STACK;
	r = (struct pt_regs *)bpf_task_pt_regs(child);
	th.key.upc = r ? BPF_CORE_READ(r, ip) : 0; /* where it returns from clone */
	if (th.key.upc >= KERNEL_START)
		th.key.upc = 0;
	/* an entry of the tid's dead thread (its last switch still to come) is replaced */
	if (bpf_map_update_elem(&threads, &ctid, &th, BPF_ANY) ||
	    !bpf_task_storage_get(&tstate, child, &th, BPF_LOCAL_STORAGE_GET_F_CREATE))
		stat_add(OFFCPU_STAT_THREADS_FULL, 1);
	return 0;
}

/* An exec: a new image (gen), and the command starts counting at its own. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(offcpu_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid, tid = p->pid, old = (__u32)old_pid;
	struct offcpu_proc *pr = bpf_map_lookup_elem(&tracked, &tgid);
	struct offcpu_thread *th, fresh = {};

	if (!pr)
		return 0;
	pr->gen++;
	if (!pr->armed) {
		pr->armed = 1;
		fresh.born_ns = bpf_ktime_get_ns();
		fresh.task_start = p->start_time;
		fresh.key.tgid = tgid;
		fresh.key.tid = tid;
		fresh.key.gen = pr->gen;
		if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY) ||
		    !bpf_task_storage_get(&tstate, p, &fresh, BPF_LOCAL_STORAGE_GET_F_CREATE))
			stat_add(OFFCPU_STAT_THREADS_FULL, 1);
		return 0;
	}
	if (old != tid) { /* a thread exec'd and took the process's id: its entry follows it */
		th = bpf_map_lookup_elem(&threads, &old);
		if (th) {
			fresh = *th;
			fresh.key.tid = tid;
			bpf_map_delete_elem(&threads, &old);
			bpf_map_update_elem(&threads, &tid, &fresh, BPF_ANY);
		}
	}
	/* the new image: the thread's next intervals are counted under it */
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th)
		th->key.gen = pr->gen;
	th = bpf_task_storage_get(&tstate, p, 0, 0);
	if (th) {
		flush_runs(th); /* the old image's, under the old tid */
		th->key.tid = tid;
		th->key.gen = pr->gen;
	}
	return 0;
}
