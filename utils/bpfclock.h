/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side histogram clock (`--clock bpf`), user-space half.
 *
 * Usage by the recorder: open task-clock sampling events as for the perf
 * clock (per CPU, inherit), then bpfclock__open() once, bpfclock__attach()
 * on every event fd, bpfclock__add_region() for every executable mapping it
 * learns (PERF_RECORD_MMAP2), bpfclock__forget() when a process image ends,
 * and bpfclock__flush() periodically and at the end to move the kernel's
 * counts into profil.data.  Ticks whose PC is in no registered region come
 * out of the perf ring buffer as ordinary samples: count those as usual.
 *
 * The histogram is per process image: the bins cannot tell threads apart,
 * so samples are stored with tid = pid.
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
 * Count PCs of process tgid in [start, end) into bins of proc (the
 * profil.data process id).  -ENOSPC when the bins are used up (the ticks
 * then come through the ring buffer).
 */
int bpfclock__add_region(struct bpfclock *bc, uint32_t tgid, uint32_t proc, uint64_t start,
			 uint64_t end);

/* Stop counting for an ended image of tgid (flushes its bins into p first). */
void bpfclock__forget(struct bpfclock *bc, uint32_t tgid, struct pdata *p);

/* Move every count accumulated since the last flush into p.  Returns samples moved. */
uint64_t bpfclock__flush(struct bpfclock *bc, struct pdata *p);

struct bpfclock_stats {
	uint64_t ticks;      /* ticks the program saw */
	uint64_t binned;     /* counted in the kernel */
	uint64_t unresolved; /* passed to the perf ring */
	uint64_t regions;    /* regions registered */
	uint64_t bins_used;
};
void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st);

void bpfclock__close(struct bpfclock *bc);

#endif
