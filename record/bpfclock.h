/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side histogram clock (`--clock bpf`), user-space half.
 *
 * Usage by the recorder: open task-clock sampling events as for the perf
 * clock (per CPU, inherit), then bpfclock__open() once, bpfclock__attach()
 * on every event fd; ticks whose PC is in no registered region come out of
 * the perf ring buffer as ordinary samples: count those as usual, and
 * register the (thread, mapping) of such a sample with bpfclock__add_region()
 * so that its next ticks stay in the kernel (only the mappings where a
 * thread actually spends time get bins).  bpfclock__forget_thread/_process()
 * when a thread or an image ends, bpfclock__flush() periodically and at
 * the end to move the kernel's counts into profil.data.
 */
#ifndef PROFIL_BPFCLOCK_H
#define PROFIL_BPFCLOCK_H

#include <stddef.h>
#include <stdint.h>

struct bpfclock;
struct pdata;

/* 1 if this build has the BPF clock at all. */
int bpfclock__built(void);

/*
 * Load the BPF program and map the bins.  Needs root or CAP_BPF +
 * CAP_PERFMON: -EPERM then, with the reason in why.
 */
int bpfclock__open(struct bpfclock **out, char *why, size_t whylen);

/* Run the program at every overflow of this perf event (and of the events it inherits to). */
int bpfclock__attach(struct bpfclock *bc, int perf_fd);

/*
 * Count the PCs of thread tid (of process pid) in [start, end) into bins of
 * proc (the profil.data process id): the bins are per thread, so the
 * profile keeps the per-thread split.  -EEXIST when registered already,
 * -ENOSPC when the bins are used up (the ticks then come through the ring).
 */
int bpfclock__add_region(struct bpfclock *bc, uint32_t pid, uint32_t tid, uint32_t proc,
			 uint64_t start, uint64_t end);

/* Stop counting for an ended thread, or every thread of an ended image (flushes first). */
void bpfclock__forget_thread(struct bpfclock *bc, uint32_t tid, struct pdata *p);
void bpfclock__forget_process(struct bpfclock *bc, uint32_t pid, struct pdata *p);

/* Move every count accumulated since the last flush into p.  Returns samples moved. */
uint64_t bpfclock__flush(struct bpfclock *bc, struct pdata *p);

struct bpfclock_stats {
	uint64_t ticks;	     /* ticks the program saw */
	uint64_t binned;     /* counted in the kernel */
	uint64_t unresolved; /* passed to the perf ring */
	uint64_t regions;    /* regions registered */
	uint64_t bins_used;
};
void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st);

void bpfclock__close(struct bpfclock *bc);

#endif
