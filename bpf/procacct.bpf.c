// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * procacct: the CPU time (the scheduler's runtime, the tick accounting's
 * user/system split) and the exit status of every thread and process image
 * of a recorded tree, from the kernel's own accounting.  See procacct.h.
 *
 * The tree is followed in the kernel (fork tracepoint), so that a process
 * living a millisecond is accounted from its first instant, however late
 * user space hears of it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "procacct.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TASK_DEAD_STATE 0x80	   /* TASK_DEAD, include/linux/sched.h */
#define SIGNAL_GROUP_EXIT_FLAG 0x4 /* SIGNAL_GROUP_EXIT, include/linux/sched/signal.h */

/* Set by user space before loading: whether forked processes belong to the tree. */
const volatile __u32 follow_children = 1;

/* tgid -> 1: the processes of the tree (user space puts the first one). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u32);
} tracked SEC(".maps");

/* tid -> its values when its current image began (only threads that exec'd). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct procacct_base);
} base SEC(".maps");

/* tid -> its exit status, from its exit tracepoint to its last switch. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROCACCT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct procacct_exiting);
} exiting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROCACCT_RING_BYTES);
} events SEC(".maps");

#include "drops.bpf.h"

/* The thread's segment so far: its values now less those at the segment's start. */
static __always_inline void segment(struct task_struct *t, __u32 tid, struct procacct_event *e,
				    struct procacct_base *now)
{
	struct procacct_base *b = bpf_map_lookup_elem(&base, &tid);

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
static __always_inline void send_segment(struct task_struct *t, __u32 kind, __u32 tgid, __u32 tid,
					 const struct procacct_exiting *x)
{
	struct procacct_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
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
	segment(t, tid, e, &now);
	e->time = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(acct_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;

	if (!follow_children || child->pid != ctgid) /* a thread: its process is tracked */
		return 0;
	if (bpf_map_lookup_elem(&tracked, &ptgid))
		bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(acct_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid, tid = p->pid, old = (__u32)old_pid;
	struct procacct_base now;

	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	send_segment(p, PROCACCT_EXEC, tgid, old, NULL);
	if (old != tid) /* a thread that exec'd took its process's id */
		bpf_map_delete_elem(&base, &old);
	now.runtime_ns = BPF_CORE_READ(p, se.sum_exec_runtime);
	now.utime_ns = BPF_CORE_READ(p, utime);
	now.stime_ns = BPF_CORE_READ(p, stime);
	bpf_map_update_elem(&base, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(acct_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;
	struct procacct_exiting x = {};
	struct signal_struct *sig;

	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	sig = p->signal;
	x.group_dead = BPF_CORE_READ(sig, live.counter) == 0;
	if (x.group_dead) /* what the parent's wait will say */
		x.status = (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT_FLAG) ?
				   BPF_CORE_READ(sig, group_exit_code) :
				   BPF_CORE_READ(p, exit_code);
	bpf_map_update_elem(&exiting, &tid, &x, BPF_ANY);
	return 0;
}

/* The dead thread's last switch: its runtime is final now. */
SEC("tp_btf/sched_switch")
int BPF_PROG(acct_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 tid, tgid;
	struct procacct_exiting *x;

	if (!(prev_state & TASK_DEAD_STATE))
		return 0;
	tid = prev->pid;
	x = bpf_map_lookup_elem(&exiting, &tid);
	if (!x)
		return 0;
	tgid = prev->tgid;
	send_segment(prev, PROCACCT_EXIT, tgid, tid, x);
	if (x->group_dead)
		bpf_map_delete_elem(&tracked, &tgid);
	bpf_map_delete_elem(&exiting, &tid);
	bpf_map_delete_elem(&base, &tid);
	return 0;
}
