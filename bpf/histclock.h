/* SPDX-License-Identifier: MIT */
/*
 * The kernel-side histogram clock: shared between histclock.bpf.c (the
 * program the kernel runs at every task-clock tick) and record/bpfclock.c
 * (user space, which registers regions and reads the bins in place).
 *
 * The user PC of each tick is looked up by (tid, pc >> HISTCLOCK_GRANULE_SHIFT)
 * in a hash of regions; the region gives the base of its bins in one big
 * BPF_F_MMAPABLE array that user space maps directly.  A tick whose PC is in
 * no registered region is handed to perf's ring buffer instead (the program
 * returns 1), so nothing is lost while user space catches up with new mappings.
 */
#ifndef PROFIL_HISTCLOCK_H
#define PROFIL_HISTCLOCK_H

#define HISTCLOCK_GRANULE_SHIFT 16     /* 64 KiB granules in the region index */
#define HISTCLOCK_SLOTS 2              /* regions sharing one granule */
#define HISTCLOCK_MAX_BINS (2u << 20)  /* 16 MiB of u64 bins (array elements are 8-byte aligned anyway) */
#define HISTCLOCK_MAX_GRANULES 32768   /* (thread, 64 KiB granule) pairs with bins */
#define HISTCLOCK_BIN_SHIFT 3          /* one bin per 8 bytes of text */
#define HISTCLOCK_CHUNK_SHIFT 9        /* a dirty flag per 512 bins: flushes read only those */
#define HISTCLOCK_CHUNKS (HISTCLOCK_MAX_BINS >> HISTCLOCK_CHUNK_SHIFT)

/* Regions are per thread, so that the bins keep the per-thread split. */
struct histclock_key {
	__u32 tid;
	__u32 pad;
	__u64 granule; /* pc >> HISTCLOCK_GRANULE_SHIFT */
};

struct histclock_region {
	__u64 start; /* first PC */
	__u64 end;   /* first PC past the region */
	__u32 base;  /* index of its first bin; regions are [start, end) >> BIN_SHIFT bins */
	__u32 pad;
};

struct histclock_slots {
	struct histclock_region r[HISTCLOCK_SLOTS];
};

/* Per-CPU statistics, index in the stats array (ticks seen = binned + unresolved). */
enum histclock_stat {
	HISTCLOCK_STAT_BINNED,     /* counted into a bin by the kernel */
	HISTCLOCK_STAT_UNRESOLVED, /* handed to the perf ring */
	HISTCLOCK_STAT_NR,
};

#endif
