/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side histogram clock (`--clock bpf`), user-space half.
 *
 * Usage by the recorder: open task-clock sampling events as for the perf
 * clock (per CPU, inherit), then bpfclock__open() once, bpfclock__attach()
 * on every event fd; ticks whose PC has no bins come out of the perf ring
 * buffer as ordinary samples: count those as usual, and give the sample's
 * (thread, 64 KiB granule) bins with bpfclock__add_region(pc, pc + 1), so
 * that its next ticks stay in the kernel (only the code where a thread
 * actually spends time gets bins; kernel code too when the events sample
 * it).  bpfclock__forget_thread/_process()
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
 * proc (the profil.data process id): a block of bins for every 64 KiB
 * granule the range touches (a tick's PC: [pc, pc + 1)).  The bins are per
 * thread, so the profile keeps the per-thread split.  -EEXIST when every
 * granule has its block already, -ENOSPC when the blocks are used up (the
 * ticks then come through the ring until an ended thread gives some back).
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
	uint64_t regions;    /* blocks handed out over the run */
	uint64_t bins_used;  /* bins in use now */
	uint64_t refused;    /* ticks that found no free block */
};
void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st);

void bpfclock__close(struct bpfclock *bc);

#endif
