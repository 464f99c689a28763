// SPDX-License-Identifier: MIT
/*
 * Bin arithmetic, region lookup and counting.  Pure C: no OS calls, no
 * allocation.  Called from signal handlers, so everything on the counting
 * path is lock-free and async-signal-safe.
 */
#include <errno.h>
#include <string.h>

#include "hist.h"

uintptr_t hist_end_pc(uintptr_t offset, uint32_t scale, unsigned width, size_t nbins)
{
	/* index >= nbins  <=>  d >= ceil(nbins * 65536 / scale), d = (pc - offset) / width */
	uint64_t q = nbins / scale, r = nbins % scale;
	uint64_t dmin, span;

	if (q > (UINT64_MAX >> 17))
		return UINTPTR_MAX;
	dmin = q * 65536 + (r * 65536 + scale - 1) / scale;
	if (dmin > UINT64_MAX / width)
		return UINTPTR_MAX;
	span = dmin * width;
	if (span > UINTPTR_MAX - offset)
		return UINTPTR_MAX;
	return offset + span;
}

static void region_init(struct hist_region *r, const struct hist_spec *s)
{
	r->offset = s->offset;
	r->bins = s->bins;
	r->nbins = s->size / s->width;
	r->scale = s->scale;
	r->width = s->width;
	r->start = s->offset;
	r->end = hist_end_pc(s->offset, s->scale, s->width, r->nbins);
}

int hist_build_single(struct hist *h, struct hist_region *regions, const struct hist_spec *spec)
{
	if (spec->scale == 0 || spec->scale > 65536 || (spec->width != 2 && spec->width != 4))
		return -EINVAL;
	region_init(&regions[0], spec);
	h->regions = regions;
	h->nregions = regions[0].nbins ? 1 : 0;
	h->overflow = NULL;
	h->overflow_width = 0;
	return 0;
}

/* Insert piece [start, end) of region *proto at position pos of the sorted array. */
static void insert_piece(struct hist_region *regions, size_t *n, size_t pos,
			 const struct hist_region *proto, uintptr_t start, uintptr_t end)
{
	if (start >= end)
		return;
	memmove(&regions[pos + 1], &regions[pos], (*n - pos) * sizeof(regions[0]));
	regions[pos] = *proto;
	regions[pos].start = start;
	regions[pos].end = end;
	(*n)++;
}

/*
 * Add a region whose start is <= the start of every region already present:
 * it keeps only the gaps the existing (higher-offset) regions leave.
 */
static void add_lowest(struct hist_region *regions, size_t *n, const struct hist_region *r)
{
	uintptr_t start = r->start;
	size_t i;

	for (i = 0; i < *n && start < r->end; i++) {
		if (start < regions[i].start) {
			uintptr_t stop = regions[i].start < r->end ? regions[i].start : r->end;

			insert_piece(regions, n, i, r, start, stop);
			i++; /* skip the piece just inserted */
		}
		if (regions[i].end > start)
			start = regions[i].end;
	}
	insert_piece(regions, n, i, r, start, r->end);
}

int hist_build_multi(struct hist *h, struct hist_region *regions, size_t *order,
		     const struct hist_spec *specs, size_t n)
{
	size_t i, j, count = 0, nregions = 0;

	h->overflow = NULL;
	h->overflow_width = 0;
	for (i = 0; i < n; i++) {
		if (specs[i].scale > 65536 || (specs[i].width != 2 && specs[i].width != 4))
			return -EINVAL;
		if (specs[i].offset == 0 && specs[i].scale == 2) {
			if (specs[i].size >= specs[i].width) {
				h->overflow = specs[i].bins;
				h->overflow_width = specs[i].width;
			}
			continue;
		}
		if (specs[i].scale < 2 || specs[i].size < specs[i].width)
			continue;
		/* insertion sort by decreasing offset, stable */
		for (j = count; j > 0 && specs[order[j - 1]].offset < specs[i].offset; j--)
			order[j] = order[j - 1];
		order[j] = i;
		count++;
	}
	for (i = 0; i < count; i++) {
		struct hist_region r;

		region_init(&r, &specs[order[i]]);
		add_lowest(regions, &nregions, &r);
	}
	h->regions = regions;
	h->nregions = nregions;
	return (int)nregions;
}

const struct hist_region *hist_lookup(const struct hist *h, uintptr_t pc)
{
	size_t lo = 0, hi = h->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hist_region *r = &h->regions[mid];

		if (pc < r->start)
			hi = mid;
		else if (pc >= r->end)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

int hist_bump(void *bin, unsigned width)
{
	if (width == 2) {
		unsigned short *p = bin;
		unsigned short old = __atomic_load_n(p, __ATOMIC_RELAXED);

		do {
			if (old == (unsigned short)~0)
				return 0;
		} while (!__atomic_compare_exchange_n(p, &old, (unsigned short)(old + 1), 1,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	} else {
		unsigned int *p = bin;
		unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);

		do {
			if (old == ~0u)
				return 0;
		} while (!__atomic_compare_exchange_n(p, &old, old + 1, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	}
	return 1;
}

enum hist_outcome hist_count(const struct hist *h, uintptr_t pc)
{
	const struct hist_region *r = hist_lookup(h, pc);
	uint64_t i;

	if (r) {
		i = hist_index(pc, r->offset, r->scale, r->width);
		if (i < r->nbins)
			return hist_bump((char *)r->bins + i * r->width, r->width) ? HIST_COUNTED
										    : HIST_SATURATED;
	}
	if (!h->overflow)
		return HIST_OUTSIDE;
	hist_bump(h->overflow, h->overflow_width);
	return HIST_OVERFLOW;
}
