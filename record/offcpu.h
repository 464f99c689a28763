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

struct offcpu;
struct pdata;
struct perf_session;

struct offcpu_opts {
	int follow_children; /* forked processes belong to the tree */
	int stacks;	     /* kernel frames and the user frames (-g), else the user PC alone */
	int copies;	     /* the user stack through the CFI (a copy per new place): dwarf */
	int no_reuse;	     /* walk every switch-out (measurements of the reuse rule) */
};

/*
 * Load and attach the programs.  Returns 0, or -errno with one sentence in
 * why (-EPERM: not permitted here; -ENOTSUP: built without BPF).
 */
int offcpu__open(struct offcpu **out, struct pdata *pd, const struct offcpu_opts *o, char *why,
		 size_t whylen);

/* Put process pid in the tree: the command, counted from its exec on. */
int offcpu__track(struct offcpu *oc, pid_t pid);

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
