/* SPDX-License-Identifier: MIT */
/* `profil record --clock bpf`: the kernel-side histogram on the perf session (record_bpf.c). */
#ifndef PROFIL_RECORD_BPF_H
#define PROFIL_RECORD_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/perf_session.h"

struct record_bpf;

/*
 * Load the BPF program.  -EPERM without root or CAP_BPF+CAP_PERFMON, -ENOTSUP without BPF in this build.
 * stacks: the samples carry call stacks (dwarf): they are walked and counted in the kernel
 * (record/kstacks.h), the ticks it cannot walk come through the ring with their stack copy;
 * on a kernel that cannot run that program, every tick goes through the ring (the note says
 * why).
 */
int record_bpf__open(struct record_bpf **out, struct pdata *pd, int stacks, char *why,
		     size_t whylen);

/* 1 when call stacks are walked in the kernel. */
int record_bpf__kernel_stacks(const struct record_bpf *rb);

/* A root of the recorded tree (before it runs, or before its mappings are read). */
int record_bpf__track(struct record_bpf *rb, pid_t pid);

/* A file descriptor to poll beside the perf rings (readable: drain and flush now), or -1. */
int record_bpf__wake_fd(struct record_bpf *rb);

/* The observer to put in perf_session_opts (NULL for rb == NULL). */
const struct perf_session_observer *record_bpf__observer(struct record_bpf *rb);

/*
 * Move the kernel's counts into the profile (every poll round, after the
 * session's drain: synced_until = perf_session__handled_until(); UINT64_MAX
 * at the end).
 */
void record_bpf__flush(struct record_bpf *rb, uint64_t synced_until);

/* One phrase for the clock note: how many ticks the kernel counted itself. */
void record_bpf__describe(struct record_bpf *rb, char *buf, size_t len);

void record_bpf__close(struct record_bpf *rb);

#endif
