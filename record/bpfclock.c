// SPDX-License-Identifier: MIT
/* The kernel-side histogram clock, user-space half: see bpfclock.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/bpfclock.h"

#ifdef PROFIL_HAVE_BPF
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile/pdata.h"
#include "bpf/histclock.h"
#include "histclock.skel.h"

struct region {
	uint32_t pid, tid, proc;
	uint64_t start, end;
	uint32_t base, nbins;
	int live;
};

struct bpfclock {
	struct histclock *skel;
	uint64_t *bins; /* the BPF array, mapped */
	size_t bins_len;
	uint64_t *dirty; /* one flag per chunk of bins, mapped */
	size_t dirty_len;
	uint32_t bins_used;
	struct region *regions;
	size_t nregions, cap;
};

int bpfclock__built(void)
{
	return 1;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int bpfclock__open(struct bpfclock **out, char *why, size_t whylen)
{
	struct bpfclock *bc = calloc(1, sizeof(*bc));
	int err;

	if (!bc)
		return -ENOMEM;
	libbpf_set_print(silent);
	bc->skel = histclock__open_and_load();
	if (!bc->skel) {
		err = -errno;
		snprintf(why, whylen, "cannot load the BPF histogram program: %s%s", strerror(-err),
			 err == -EPERM || err == -EACCES ? " (needs root or CAP_BPF+CAP_PERFMON)" :
							   "");
		free(bc);
		return err == -EACCES ? -EPERM : err;
	}
	bc->bins_len = (size_t)HISTCLOCK_MAX_BINS * sizeof(uint64_t);
	bc->bins = mmap(NULL, bc->bins_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(bc->skel->maps.bins), 0);
	if (bc->bins == MAP_FAILED) {
		err = -errno;
		snprintf(why, whylen, "cannot map the BPF histogram: %s", strerror(-err));
		histclock__destroy(bc->skel);
		free(bc);
		return err;
	}
	bc->dirty_len = (size_t)HISTCLOCK_CHUNKS * sizeof(uint64_t);
	bc->dirty = mmap(NULL, bc->dirty_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bpf_map__fd(bc->skel->maps.dirty), 0);
	if (bc->dirty == MAP_FAILED) {
		err = -errno;
		snprintf(why, whylen, "cannot map the BPF histogram flags: %s", strerror(-err));
		munmap(bc->bins, bc->bins_len);
		histclock__destroy(bc->skel);
		free(bc);
		return err;
	}
	*out = bc;
	return 0;
}

int bpfclock__attach(struct bpfclock *bc, int perf_fd)
{
	int prog = bpf_program__fd(bc->skel->progs.histclock_tick);

	return ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog) < 0 ? -errno : 0;
}

/* Put region r into the slot table of every granule it covers. */
static int index_region(struct bpfclock *bc, const struct region *r, int remove)
{
	int fd = bpf_map__fd(bc->skel->maps.regions);
	uint64_t g;

	for (g = r->start >> HISTCLOCK_GRANULE_SHIFT; g <= (r->end - 1) >> HISTCLOCK_GRANULE_SHIFT;
	     g++) {
		struct histclock_key key = {.tid = r->tid, .granule = g};
		struct histclock_slots slots;
		int i, found = -1;

		if (bpf_map_lookup_elem(fd, &key, &slots) < 0)
			memset(&slots, 0, sizeof(slots));
		for (i = 0; i < HISTCLOCK_SLOTS; i++) {
			int same = slots.r[i].start == r->start && slots.r[i].end == r->end;
			int empty = slots.r[i].end == 0;

			if (remove ? same : (empty || same)) {
				found = i;
				break;
			}
		}
		if (found < 0) {
			if (remove)
				continue;
			return -ENOSPC; /* a third region in one granule: ring buffer path */
		}
		if (remove) {
			memset(&slots.r[found], 0, sizeof(slots.r[found]));
		} else {
			slots.r[found].start = r->start;
			slots.r[found].end = r->end;
			slots.r[found].base = r->base;
		}
		if (remove && !slots.r[0].end && !slots.r[1].end)
			bpf_map_delete_elem(fd, &key);
		else if (bpf_map_update_elem(fd, &key, &slots, BPF_ANY) < 0)
			return -errno;
	}
	return 0;
}

int bpfclock__add_region(struct bpfclock *bc, uint32_t pid, uint32_t tid, uint32_t proc,
			 uint64_t start, uint64_t end)
{
	uint64_t nbins = ((end - start) >> HISTCLOCK_BIN_SHIFT) + 1;
	struct region r;
	int err;

	if (end <= start)
		return -EINVAL;
	for (size_t i = 0; i < bc->nregions; i++)
		if (bc->regions[i].live && bc->regions[i].tid == tid &&
		    bc->regions[i].start == start && bc->regions[i].end == end)
			return -EEXIST;
	if (nbins > HISTCLOCK_MAX_BINS - bc->bins_used)
		return -ENOSPC;
	if (bc->nregions == bc->cap) {
		size_t cap = bc->cap ? bc->cap * 2 : 64;
		struct region *n = realloc(bc->regions, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		bc->regions = n;
		bc->cap = cap;
	}
	r = (struct region){pid, tid, proc, start, end, bc->bins_used, (uint32_t)nbins, 1};
	err = index_region(bc, &r, 0);
	if (err < 0) {
		index_region(bc, &r, 1);
		return err;
	}
	bc->bins_used += (uint32_t)nbins;
	bc->regions[bc->nregions++] = r;
	return 0;
}

/* Move the counts of bins [from, to) of region r into p, resetting them. */
static uint64_t flush_bins(struct bpfclock *bc, const struct region *r, uint32_t from, uint32_t to,
			   struct pdata *p)
{
	uint64_t moved = 0;

	for (uint32_t i = from; i < to; i++) {
		uint64_t *bin = &bc->bins[r->base + i];
		uint64_t n;

		if (!__atomic_load_n(bin, __ATOMIC_RELAXED))
			continue;
		/* exchange, so that a tick landing meanwhile is counted next time */
		n = __atomic_exchange_n(bin, 0, __ATOMIC_ACQ_REL);
		pdata__count(p, r->proc, (int)r->tid,
			     r->start + ((uint64_t)i << HISTCLOCK_BIN_SHIFT), n);
		moved += n;
	}
	return moved;
}

/* Only the chunks whose dirty flag the kernel set since the last flush are read. */
static uint64_t flush_region(struct bpfclock *bc, const struct region *r, struct pdata *p)
{
	uint32_t first = r->base >> HISTCLOCK_CHUNK_SHIFT;
	uint32_t last = (r->base + r->nbins - 1) >> HISTCLOCK_CHUNK_SHIFT;
	uint64_t moved = 0;

	for (uint32_t c = first; c <= last; c++) {
		uint32_t lo = c << HISTCLOCK_CHUNK_SHIFT, hi = lo + (1u << HISTCLOCK_CHUNK_SHIFT);

		if (!__atomic_load_n(&bc->dirty[c], __ATOMIC_RELAXED))
			continue;
		/* a chunk may hold the end of one region and the start of the next: only clear
		 * the flag when this region covers the whole chunk, else read it every time */
		if (lo >= r->base && hi <= r->base + r->nbins)
			__atomic_store_n(&bc->dirty[c], 0, __ATOMIC_SEQ_CST);
		lo = lo < r->base ? r->base : lo;
		hi = hi > r->base + r->nbins ? r->base + r->nbins : hi;
		moved += flush_bins(bc, r, lo - r->base, hi - r->base, p);
	}
	return moved;
}

/* Unregister (after a last flush) the live regions of a thread or of a whole process. */
static void forget(struct bpfclock *bc, uint32_t id, int by_pid, struct pdata *p)
{
	for (size_t i = 0; i < bc->nregions; i++) {
		struct region *r = &bc->regions[i];

		if (!r->live || (by_pid ? r->pid : r->tid) != id)
			continue;
		index_region(bc, r, 1);
		flush_region(bc, r, p);
		r->live = 0;
	}
}

void bpfclock__forget_thread(struct bpfclock *bc, uint32_t tid, struct pdata *p)
{
	forget(bc, tid, 0, p);
}

void bpfclock__forget_process(struct bpfclock *bc, uint32_t pid, struct pdata *p)
{
	forget(bc, pid, 1, p);
}

uint64_t bpfclock__flush(struct bpfclock *bc, struct pdata *p)
{
	uint64_t moved = 0;

	for (size_t i = 0; i < bc->nregions; i++)
		if (bc->regions[i].live)
			moved += flush_region(bc, &bc->regions[i], p);
	return moved;
}

void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(bc->skel->maps.stats);
	uint64_t sum[HISTCLOCK_STAT_NR] = {0};

	memset(st, 0, sizeof(*st));
	if (ncpu > 0) {
		uint64_t *vals = calloc((size_t)ncpu, sizeof(uint64_t));

		for (uint32_t k = 0; vals && k < HISTCLOCK_STAT_NR; k++) {
			if (bpf_map_lookup_elem(fd, &k, vals) < 0)
				continue;
			for (int c = 0; c < ncpu; c++)
				sum[k] += vals[c];
		}
		free(vals);
	}
	st->binned = sum[HISTCLOCK_STAT_BINNED];
	st->unresolved = sum[HISTCLOCK_STAT_UNRESOLVED];
	st->ticks = st->binned + st->unresolved;
	st->regions = bc->nregions;
	st->bins_used = bc->bins_used;
}

void bpfclock__close(struct bpfclock *bc)
{
	if (!bc)
		return;
	munmap(bc->bins, bc->bins_len);
	munmap(bc->dirty, bc->dirty_len);
	histclock__destroy(bc->skel);
	free(bc->regions);
	free(bc);
}

#else /* !PROFIL_HAVE_BPF */

int bpfclock__built(void)
{
	return 0;
}

int bpfclock__open(struct bpfclock **out, char *why, size_t whylen)
{
	(void)out;
	snprintf(why, whylen, "this profil was built without BPF support");
	return -ENOTSUP;
}

int bpfclock__attach(struct bpfclock *bc, int perf_fd)
{
	(void)bc;
	(void)perf_fd;
	return -ENOTSUP;
}

int bpfclock__add_region(struct bpfclock *bc, uint32_t pid, uint32_t tid, uint32_t proc,
			 uint64_t start, uint64_t end)
{
	(void)bc, (void)pid, (void)tid, (void)proc, (void)start, (void)end;
	return -ENOTSUP;
}

void bpfclock__forget_thread(struct bpfclock *bc, uint32_t tid, struct pdata *p)
{
	(void)bc, (void)tid, (void)p;
}

void bpfclock__forget_process(struct bpfclock *bc, uint32_t pid, struct pdata *p)
{
	(void)bc, (void)pid, (void)p;
}

uint64_t bpfclock__flush(struct bpfclock *bc, struct pdata *p)
{
	(void)bc, (void)p;
	return 0;
}

void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st)
{
	(void)bc;
	memset(st, 0, sizeof(*st));
}

void bpfclock__close(struct bpfclock *bc)
{
	(void)bc;
}
#endif
