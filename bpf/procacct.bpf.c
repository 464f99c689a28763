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

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define SIGNAL_GROUP_EXIT_FLAG 0x4 /* SIGNAL_GROUP_EXIT, include/linux/sched/signal.h */

/* Set by user space before loading: whether forked processes belong to the tree. */
const volatile __u32 follow_children = 1;

/* the maps, and the work at a thread's last switch (shared with the off-CPU program) */
#include "procacct_switch.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(acct_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;

	if (!follow_children || child->pid != ctgid) /* a thread: its process is tracked */
		return 0;
	if (bpf_map_lookup_elem(&acct_tracked, &ptgid))
		bpf_map_update_elem(&acct_tracked, &ctgid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(acct_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid, tid = p->pid, old = (__u32)old_pid;
	struct procacct_base now;

	if (!bpf_map_lookup_elem(&acct_tracked, &tgid))
		return 0;
	acct_send_segment(p, PROCACCT_EXEC, tgid, old, NULL);
	if (old != tid) /* a thread that exec'd took its process's id */
		bpf_map_delete_elem(&acct_base, &old);
	now.runtime_ns = BPF_CORE_READ(p, se.sum_exec_runtime);
	now.utime_ns = BPF_CORE_READ(p, utime);
	now.stime_ns = BPF_CORE_READ(p, stime);
	bpf_map_update_elem(&acct_base, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(acct_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;
	struct procacct_exiting x = {};
	struct signal_struct *sig;

	if (!bpf_map_lookup_elem(&acct_tracked, &tgid))
		return 0;
	sig = p->signal;
	x.group_dead = BPF_CORE_READ(sig, live.counter) == 0;
	if (x.group_dead) /* what the parent's wait will say */
		x.status = (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT_FLAG) ?
				   BPF_CORE_READ(sig, group_exit_code) :
				   BPF_CORE_READ(p, exit_code);
	bpf_map_update_elem(&acct_exiting, &tid, &x, BPF_ANY);
	return 0;
}

/* The dead thread's last switch: its runtime is final now (where no other program does it). */
SEC("tp_btf/sched_switch")
int BPF_PROG(acct_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	acct_switch_out(prev, prev_state);
	return 0;
}
