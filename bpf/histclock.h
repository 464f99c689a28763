/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side histogram clock: shared between histclock.bpf.c (the
 * program the kernel runs at every task-clock tick) and record/bpfclock.c
 * (user space, which gives threads bins and reads them in place).
 *
 * Bins come in blocks: a block counts the PCs of one thread in one 64 KiB
 * granule of its address space (user code or kernel code alike), one u32
 * bin per 8 bytes.  The PC of each tick is looked up by (tid, pc >>
 * HISTCLOCK_GRANULE_SHIFT) in a hash that gives its block in one
 * BPF_F_MMAPABLE array that user space maps directly.  A tick of a
 * (thread, granule) without a block goes to perf's ring buffer instead (the
 * program returns 1), as an ordinary sample that makes user space give it
 * one, so nothing is lost while user space catches up.  Blocks are all the
 * same size: a thread or an image that ends gives its blocks back, and the
 * next thread reuses them, however large its executable.
 */
#ifndef PROFIL_HISTCLOCK_H
#define PROFIL_HISTCLOCK_H

#define HISTCLOCK_GRANULE_SHIFT 16 /* a block covers 64 KiB of code */
#define HISTCLOCK_BIN_SHIFT 3	   /* one bin per 8 bytes of code */
#define HISTCLOCK_BLOCK_BINS (1u << (HISTCLOCK_GRANULE_SHIFT - HISTCLOCK_BIN_SHIFT))
#define HISTCLOCK_BLOCKS 512 /* 512 blocks of 32 KiB: 16 MiB of bins */
#define HISTCLOCK_CHUNK_SHIFT 9	   /* a dirty flag per 512 bins: flushes read only those */
#define HISTCLOCK_CHUNKS_PER_BLOCK (HISTCLOCK_BLOCK_BINS >> HISTCLOCK_CHUNK_SHIFT)
#define HISTCLOCK_CHUNKS (HISTCLOCK_BLOCKS * HISTCLOCK_CHUNKS_PER_BLOCK)
#define HISTCLOCK_MAX_KEYS (2 * HISTCLOCK_BLOCKS) /* (thread, granule) entries in the index */

/* Blocks are per thread, so that the bins keep the per-thread split. */
struct histclock_key {
	__u32 tid;
	__u32 pad;
	__u64 granule; /* pc >> HISTCLOCK_GRANULE_SHIFT */
};

/* One block: the bins of pc = granule << GRANULE_SHIFT | i << BIN_SHIFT. */
struct histclock_block {
	__u32 bins[HISTCLOCK_BLOCK_BINS];
};

/* Per-CPU statistics, index in the stats array (ticks seen = binned + unresolved). */
enum histclock_stat {
	HISTCLOCK_STAT_BINNED,	   /* counted into a bin by the kernel */
	HISTCLOCK_STAT_UNRESOLVED, /* handed to the perf ring */
	HISTCLOCK_STAT_NR,
};

#endif
