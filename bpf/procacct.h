/* SPDX-License-Identifier: MIT */
/*
 * procacct: the kernel's own accounting of every thread of a recorded tree,
 * shared between bpf/procacct.bpf.c (the programs on the scheduler's fork,
 * exec, exit and switch tracepoints) and record/procacct.c (user space,
 * which reads the events and writes them into profil.data's thread and
 * process records).
 *
 * One event per (thread, image) segment: when a thread leaves an image by
 * exec, and when it is dead (its last switch away, TASK_DEAD: the
 * scheduler's runtime is final then).  Each carries the CPU time of the
 * segment: the scheduler's runtime (sum_exec_runtime, ns) and the tick
 * accounting's user and system time (utime, stime, ns), as differences from
 * the thread's values when the segment began (0 for a new thread, the
 * values at the exec for an exec'd image).  The exit event of the thread
 * that ends its process (group_dead) carries the wait status the parent
 * gets.  time: CLOCK_MONOTONIC (bpf_ktime_get_ns), the perf rings' clock, so
 * that the events sort among their records; it is the last field.
 */
#ifndef PROFIL_PROCACCT_H
#define PROFIL_PROCACCT_H

enum procacct_kind {
	PROCACCT_EXEC = 1, /* the thread left its image by exec */
	PROCACCT_EXIT = 2, /* the thread is dead */
};

struct procacct_event {
	__u32 kind;	  /* enum procacct_kind */
	__u32 pid;	  /* the process (tgid) */
	__u32 tid;	  /* the thread (EXEC: its id before the exec) */
	__u32 group_dead; /* EXIT: the last thread of its process */
	__s32 status;	  /* EXIT of group_dead: the wait status (exit code << 8, or the signal) */
	__u32 pad;
	__u64 runtime_ns; /* scheduler runtime of the segment */
	__u64 utime_ns;	  /* tick-accounted user time of the segment */
	__u64 stime_ns;	  /* tick-accounted system time of the segment */
	__u64 time;	  /* CLOCK_MONOTONIC ns, last */
};

/* The per-thread values at the start of its current segment (exec'd threads only). */
struct procacct_base {
	__u64 runtime_ns, utime_ns, stime_ns;
};

/* Between a thread's exit tracepoint and its last switch. */
struct procacct_exiting {
	__s32 status;
	__u32 group_dead;
};

#define PROCACCT_MAX_TASKS 65536
#define PROCACCT_RING_BYTES (1u << 20)

#endif /* PROFIL_PROCACCT_H */
