/* SPDX-License-Identifier: MIT */
/* `profil record --clock bpf`: the kernel-side histogram on the perf session (record_bpf.c). */
#ifndef PROFIL_RECORD_BPF_H
#define PROFIL_RECORD_BPF_H

#include <stddef.h>

#include "record/perf_session.h"

struct record_bpf;

/*
 * Load the BPF program.  -EPERM without root or CAP_BPF+CAP_PERFMON, -ENOTSUP without BPF in this build.
 * stacks: the samples carry call stacks, which the kernel cannot count in place: no thread
 * gets bins, every tick goes through the ring (as with the perf clock, plus the program).
 */
int record_bpf__open(struct record_bpf **out, struct pdata *pd, int stacks, char *why,
		     size_t whylen);

/* The observer to put in perf_session_opts (NULL for rb == NULL). */
const struct perf_session_observer *record_bpf__observer(struct record_bpf *rb);

/* Move the kernel's counts into the profile (every poll round and at the end). */
void record_bpf__flush(struct record_bpf *rb);

/* One phrase for the clock note: how many ticks the kernel counted itself. */
void record_bpf__describe(struct record_bpf *rb, char *buf, size_t len);

void record_bpf__close(struct record_bpf *rb);

#endif
