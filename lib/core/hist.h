/* SPDX-License-Identifier: MIT */
/*
 * The pure core of libprofil: bin arithmetic, region lookup and counting.
 * No OS calls, no allocation, no globals: a port to another kernel or to a
 * bare-metal timer reuses this file unchanged.
 */
#ifndef PROFIL_CORE_HIST_H
#define PROFIL_CORE_HIST_H

#include <stddef.h>
#include <stdint.h>

/* One contiguous range of PCs counted into one array of bins. */
struct hist_region {
	uintptr_t start;  /* first PC counted by this piece */
	uintptr_t end;    /* first PC past this piece (exclusive) */
	uintptr_t offset; /* pr_off: PC of bin 0 */
	void *bins;       /* the caller's buffer */
	size_t nbins;
	uint32_t scale;   /* 16.16 fixed point, 1..65536 */
	uint8_t width;    /* bytes per bin: 2 (u16) or 4 (u32) */
};

/* A set of non-overlapping regions sorted by start, plus an optional overflow bin. */
struct hist {
	struct hist_region *regions;
	size_t nregions;
	void *overflow; /* counts PCs outside every region; NULL for none */
	uint8_t overflow_width;
};

/* What one sample did. */
enum hist_outcome {
	HIST_COUNTED,   /* a bin was incremented */
	HIST_SATURATED, /* the bin was already at its maximum */
	HIST_OUTSIDE,   /* no region covers the PC (and no overflow bin) */
	HIST_OVERFLOW,  /* no region covers the PC; the overflow bin counted it */
};

/* One region as the caller described it (profil() or one struct prof). */
struct hist_spec {
	void *bins;
	size_t size;      /* bytes */
	uintptr_t offset;
	uint32_t scale;
	uint8_t width;    /* 2 or 4 */
};

/*
 * glibc's index: floor(floor((pc - offset) / width) * scale / 65536),
 * computed without overflow for every 64-bit pc and scale <= 65536.
 * The caller guarantees pc >= offset.
 */
static inline uint64_t hist_index(uintptr_t pc, uintptr_t offset, uint32_t scale, unsigned width)
{
	uint64_t i = (uint64_t)(pc - offset) / width;

	return i / 65536 * scale + i % 65536 * scale / 65536;
}

/* Smallest PC whose index is >= nbins, or UINTPTR_MAX if every PC from offset up is counted. */
uintptr_t hist_end_pc(uintptr_t offset, uint32_t scale, unsigned width, size_t nbins);

/*
 * Build the region set for profil(): one region.  regions must have room
 * for 1 entry.  Returns 0, or -EINVAL (scale > 65536 or scale == 0).
 */
int hist_build_single(struct hist *h, struct hist_region *regions, const struct hist_spec *spec);

/*
 * Build the region set for sprofil() the way glibc resolves overlaps
 * (where regions overlap, the one with the higher offset wins), without
 * glibc's lookup bugs.  Regions with scale < 2 are ignored; the region
 * with offset 0 and scale 2 becomes the overflow bin.  regions must have
 * room for 2 * n entries; order[] is scratch space for n indices.
 * Returns the number of regions (0 means nothing to profile), or -EINVAL
 * (a scale above 65536 or a width other than 2 or 4).
 */
int hist_build_multi(struct hist *h, struct hist_region *regions, size_t *order,
		     const struct hist_spec *specs, size_t n);

/* The region covering pc, or NULL.  O(log nregions). */
const struct hist_region *hist_lookup(const struct hist *h, uintptr_t pc);

/* Count one sample at pc: atomic, lock-free, saturating. */
enum hist_outcome hist_count(const struct hist *h, uintptr_t pc);

/* Saturating atomic increment of one bin of the given width; returns 0 if saturated. */
int hist_bump(void *bin, unsigned width);

#endif /* PROFIL_CORE_HIST_H */
