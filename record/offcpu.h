/* SPDX-License-Identifier: MIT */
/*
 * `profil record --off-cpu`, user half of bpf/offcpu.bpf.c (the rules and
 * the maps: bpf/offcpu.h): loads the programs, puts the command in the
 * tree (counted from its exec on), and moves the kernel's counts into
 * profil.data at every poll round: each (thread, stacks, reason) key
 * becomes the nanoseconds of an off-CPU slot (pdata__count_offcpu) of the
 * thread's image, under the stack the thread left the CPU with (the
 * kernel's frames innermost, the scheduler's own left out, then the user
 * part: unwound through the CFI from the copy of the user stack sent at
 * the first switch-out from that place, else the kernel's frame-pointer
 * walk, or the user PC alone in a flat profile).  Each thread's lifetime inside
 * the recording and its off-CPU total go into its thread record (at its
 * end, and at the end of the recording for the threads still alive, whose
 * open intervals are closed then).
 *
 * The image of a count: the kernel keys it by the process's execs since
 * it was tracked (gen); the newest gen met for a process is the image the
 * perf session has now, an older one the image before it (its parent),
 * so only an exec handled before the previous image's last counts arrive
 * moves those to the new image.  Counts are applied only once the perf
 * session has handled every record up to the moment they were read.
 *
 * Needs BPF: root or CAP_BPF+CAP_PERFMON, and the kernel's BTF.
 */
#ifndef PROFIL_RECORD_OFFCPU_H
#define PROFIL_RECORD_OFFCPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kstacks;
struct offcpu;
struct pdata;
struct perf_session;
struct perf_session_observer;

struct procacct;

struct offcpu_opts {
	int follow_children; /* forked processes belong to the tree */
	int stacks;	     /* kernel frames and the user frames (-g), else the user PC alone */
	int copies;	     /* the user stack through the CFI (a copy per new place): dwarf */
	int no_reuse;	     /* walk every switch-out (measurements of the reuse rule) */
	/*
	 * With copies: the in-kernel CFI walk's tables (record/kstacks.h), or
	 * NULL.  The programs then walk a new place's user stack in the kernel
	 * instead of copying it (bpf/offcpu.h), with these tables; own_ks: they
	 * are ours (closed with us; fed the session's mappings through
	 * offcpu__observer and flushed at every poll), else the bpf clock's.
	 */
	struct kstacks *ks;
	int own_ks;
	/*
	 * The kernel's accounting (record/procacct.h), or NULL: the switch
	 * program then does its work at a dead thread's last switch too, in its
	 * maps, and its own switch program is detached (one BPF program less at
	 * every context switch).
	 */
	struct procacct *acct;
};

/*
 * Load and attach the programs.  Returns 0, or -errno with one sentence in
 * why (-EPERM: not permitted here; -ENOTSUP: built without BPF).
 */
int offcpu__open(struct offcpu **out, struct pdata *pd, const struct offcpu_opts *o, char *why,
		 size_t whylen);

/* Put process pid in the tree: the command, counted from its exec on. */
int offcpu__track(struct offcpu *oc, pid_t pid);

/* A thread of a process being attached, as /proc showed it at the attach (record/attach.c). */
struct offcpu_seed {
	pid_t tid;
	char state;	     /* /proc/PID/task/TID/stat: 'R', 'S', 'D', 'T', 't', ... */
	uint64_t runtime_ns; /* its CPU time so far (/proc/PID/task/TID/schedstat) */
	uint64_t upc;	     /* the user PC of the system call it waits in, 0: unknown */
};

/*
 * record -p PID: put the running process pid in the tree, counted from now
 * (CLOCK_MONOTONIC ns), with its threads as /proc showed them just before
 * (the programs already run): each one's lifetime starts now, and a thread
 * that was waiting (S, D, T) has an interval open from now, whose stack is
 * the user PC of its system call (its stacks at its switch-out were not
 * seen).  Returns 0 or -errno.
 */
int offcpu__attach(struct offcpu *oc, pid_t pid, const struct offcpu_seed *threads, size_t n,
		   uint64_t now);

/*
 * With our own kernel-walk tables (offcpu_opts.own_ks): the observer to put
 * in perf_session_opts, which gives them the session's mappings.
 */
const struct perf_session_observer *offcpu__observer(struct offcpu *oc);

/* A root of the tree for the kernel walk's tables (the command, an attached process). */
void offcpu__walk_track(struct offcpu *oc, pid_t pid);

/* The session whose records name the processes (after perf_session__open). */
void offcpu__session(struct offcpu *oc, struct perf_session *s);

/*
 * perf_session_opts.forgetting, with oc as its argument: process pid's
 * mappings are about to go at time (exit, exec); the copies of its user
 * stacks taken before are unwound now.
 */
void offcpu__forgetting(void *arg, pid_t pid, uint64_t time);

/*
 * Every poll round: read what the kernel counted since the last round and
 * count into the profile what the session can place (s: the perf session
 * that names processes and threads).
 */
void offcpu__poll(struct offcpu *oc, struct perf_session *s);

/*
 * The end of the recording (after the session's last drain): every count,
 * the intervals still open closed now, the lifetimes of the threads still
 * alive.
 */
void offcpu__finish(struct offcpu *oc, struct perf_session *s);

/* One phrase for the clock note: what was counted, how, and what was lost. */
void offcpu__describe(const struct offcpu *oc, char *buf, size_t len);

/* Statistics of the kernel side (bpf/offcpu.h enum offcpu_stat), summed over CPUs. */
void offcpu__stats(const struct offcpu *oc, uint64_t *out, size_t n);

void offcpu__close(struct offcpu *oc);

#endif /* PROFIL_RECORD_OFFCPU_H */
