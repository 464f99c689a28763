/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * procacct_switch.bpf.h: the kernel's accounting's maps (bpf/procacct.h)
 * and its work at a dead thread's last switch, for every program that runs
 * at sched_switch: procacct's own (bpf/procacct.bpf.c), and the off-CPU
 * program (bpf/offcpu.bpf.c), which takes it over where both are loaded
 * (record/offcpu.c shares procacct's maps with it by fd and procacct's own
 * switch program is detached: one BPF program less at every context switch,
 * measured 3-5 points of the pipe ping-pong's throughput, doc/offcpu.md).
 */
#ifndef PROFIL_BPF_PROCACCT_SWITCH_BPF_H
#define PROFIL_BPF_PROCACCT_SWITCH_BPF_H

#include "procacct.h"
#include "drops.bpf.h"

#define PROCACCT_TASK_DEAD 0x80 /* TASK_DEAD, include/linux/sched.h */

/* tgid -> 1: the processes of the tree (user space puts the first one). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u32);
} acct_tracked SEC(".maps");

/* tid -> its values when its current image began (only threads that exec'd). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct procacct_base);
} acct_base SEC(".maps");

/* tid -> its exit status, from its exit tracepoint to its last switch. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct procacct_exiting);
} acct_exiting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROCACCT_RING_BYTES);
} acct_events SEC(".maps");

/* The thread's segment so far: its values now less those at the segment's start. */
static __always_inline void acct_segment(struct task_struct *t, __u32 tid,
					 struct procacct_event *e, struct procacct_base *now)
{
	struct procacct_base *b = bpf_map_lookup_elem(&acct_base, &tid);

	now->runtime_ns = BPF_CORE_READ(t, se.sum_exec_runtime);
	now->utime_ns = BPF_CORE_READ(t, utime);
	now->stime_ns = BPF_CORE_READ(t, stime);
	e->runtime_ns = now->runtime_ns;
	e->utime_ns = now->utime_ns;
	e->stime_ns = now->stime_ns;
	if (b) {
		e->runtime_ns -= b->runtime_ns < now->runtime_ns ? b->runtime_ns : now->runtime_ns;
		e->utime_ns -= b->utime_ns < now->utime_ns ? b->utime_ns : now->utime_ns;
		e->stime_ns -= b->stime_ns < now->stime_ns ? b->stime_ns : now->stime_ns;
	}
}

/*
 * The segment so far of thread tid (task t) of process tgid to user space as
 * an event of kind; x: its exit status (EXIT), or NULL.
 */
static __always_inline void acct_send_segment(struct task_struct *t, __u32 kind, __u32 tgid,
					      __u32 tid, const struct procacct_exiting *x)
{
	struct procacct_event *e = bpf_ringbuf_reserve(&acct_events, sizeof(*e), 0);
	struct procacct_base now;

	if (!e) {
		count_drop();
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = tgid;
	e->tid = tid;
	if (x) {
		e->group_dead = x->group_dead;
		e->status = x->status;
	}
	acct_segment(t, tid, e, &now);
	e->time = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, 0);
}

/* A switch away from prev: at a tracked thread's last one, its runtime is final. */
static __always_inline void acct_switch_out(struct task_struct *prev, unsigned int prev_state)
{
	__u32 tid, tgid;
	struct procacct_exiting *x;

	if (!(prev_state & PROCACCT_TASK_DEAD))
		return;
	tid = prev->pid;
	x = bpf_map_lookup_elem(&acct_exiting, &tid);
	if (!x)
		return;
	tgid = prev->tgid;
	acct_send_segment(prev, PROCACCT_EXIT, tgid, tid, x);
	if (x->group_dead)
		bpf_map_delete_elem(&acct_tracked, &tgid);
	bpf_map_delete_elem(&acct_exiting, &tid);
	bpf_map_delete_elem(&acct_base, &tid);
}

#endif /* PROFIL_BPF_PROCACCT_SWITCH_BPF_H */
