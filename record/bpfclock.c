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
#include "record/bpfload.h"

/* What a block of bins counts, while it is in use. */
struct block_use {
	uint32_t pid, tid, proc;
	uint64_t granule;
	int live;
};

struct bpfclock {
	struct histclock *skel;
	struct histclock_block *blocks; /* the BPF array, mapped */
	size_t blocks_len;
	uint64_t *dirty; /* one flag per chunk of bins, mapped */
	size_t dirty_len;
	struct block_use use[HISTCLOCK_BLOCKS];
	uint32_t free[HISTCLOCK_BLOCKS]; /* a stack of unused blocks */
	uint32_t nfree;
	uint64_t registered, refused; /* blocks handed out; ticks left to the ring: no block free */
};

int bpfclock__built(void)
{
	return 1;
}

int bpfclock__open(struct bpfclock **out, char *why, size_t whylen)
{
	struct bpfclock *bc = calloc(1, sizeof(*bc));
	int err;

	if (!bc)
		return -ENOMEM;
	bpfload__quiet();
	bc->skel = histclock__open_and_load();
	if (!bc->skel) {
		err = bpfload__failed(-errno, "histogram program", why, whylen);
		free(bc);
		return err;
	}
	bc->blocks_len = (size_t)HISTCLOCK_BLOCKS * sizeof(struct histclock_block);
	bc->blocks = mmap(NULL, bc->blocks_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  bpf_map__fd(bc->skel->maps.bins), 0);
	if (bc->blocks == MAP_FAILED) {
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
		munmap(bc->blocks, bc->blocks_len);
		histclock__destroy(bc->skel);
		free(bc);
		return err;
	}
	for (uint32_t i = 0; i < HISTCLOCK_BLOCKS; i++)
		bc->free[bc->nfree++] = HISTCLOCK_BLOCKS - 1 - i;
	*out = bc;
	return 0;
}

int bpfclock__attach(struct bpfclock *bc, int perf_fd)
{
	int prog = bpf_program__fd(bc->skel->progs.histclock_tick);

	return ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog) < 0 ? -errno : 0;
}

static int block_of(const struct bpfclock *bc, uint32_t tid, uint64_t granule)
{
	for (uint32_t i = 0; i < HISTCLOCK_BLOCKS; i++)
		if (bc->use[i].live && bc->use[i].tid == tid && bc->use[i].granule == granule)
			return (int)i;
	return -1;
}

/* Give (tid, granule) a block: cleared, then indexed for the kernel. */
static int add_granule(struct bpfclock *bc, uint32_t pid, uint32_t tid, uint32_t proc,
		       uint64_t granule)
{
	struct histclock_key key = {.tid = tid, .granule = granule};
	uint32_t b;

	if (block_of(bc, tid, granule) >= 0)
		return -EEXIST;
	if (!bc->nfree) {
		bc->refused++;
		return -ENOSPC;
	}
	b = bc->free[--bc->nfree];
	/* a tick that found the block's previous key just before it went may have landed late */
	memset(&bc->blocks[b], 0, sizeof(bc->blocks[b]));
	for (uint32_t c = 0; c < HISTCLOCK_CHUNKS_PER_BLOCK; c++)
		__atomic_store_n(&bc->dirty[b * HISTCLOCK_CHUNKS_PER_BLOCK + c], 0,
				 __ATOMIC_RELAXED);
	bc->use[b] = (struct block_use){pid, tid, proc, granule, 1};
	if (bpf_map_update_elem(bpf_map__fd(bc->skel->maps.regions), &key, &b, BPF_ANY) < 0) {
		int err = -errno;

		bc->use[b].live = 0;
		bc->free[bc->nfree++] = b;
		return err;
	}
	bc->registered++;
	return 0;
}

int bpfclock__add_region(struct bpfclock *bc, uint32_t pid, uint32_t tid, uint32_t proc,
			 uint64_t start, uint64_t end)
{
	int rc = 0;

	if (end <= start)
		return -EINVAL;
	for (uint64_t g = start >> HISTCLOCK_GRANULE_SHIFT;
	     g <= (end - 1) >> HISTCLOCK_GRANULE_SHIFT; g++) {
		int r = add_granule(bc, pid, tid, proc, g);

		if (r < 0 && r != -EEXIST)
			return r;
		if (r == -EEXIST && rc == 0)
			rc = -EEXIST;
		else if (r == 0)
			rc = 1;
	}
	return rc == 1 ? 0 : rc;
}

/* Move the counts of chunk c (bins [lo, hi) of block b) into p, resetting them. */
static uint64_t flush_bins(struct bpfclock *bc, uint32_t b, uint32_t lo, uint32_t hi,
			   struct pdata *p)
{
	const struct block_use *u = &bc->use[b];
	uint64_t moved = 0;

	for (uint32_t i = lo; i < hi; i++) {
		uint32_t *bin = &bc->blocks[b].bins[i];
		uint32_t n;

		if (!__atomic_load_n(bin, __ATOMIC_RELAXED))
			continue;
		/* exchange, so that a tick landing meanwhile is counted next time */
		n = __atomic_exchange_n(bin, 0, __ATOMIC_ACQ_REL);
		pdata__count(p, u->proc, (int)u->tid,
			     (u->granule << HISTCLOCK_GRANULE_SHIFT) |
				     ((uint64_t)i << HISTCLOCK_BIN_SHIFT),
			     n);
		moved += n;
	}
	return moved;
}

/* Only the chunks whose dirty flag the kernel set since the last flush are read. */
static uint64_t flush_block(struct bpfclock *bc, uint32_t b, struct pdata *p)
{
	uint64_t moved = 0;

	for (uint32_t c = 0; c < HISTCLOCK_CHUNKS_PER_BLOCK; c++) {
		uint64_t *flag = &bc->dirty[b * HISTCLOCK_CHUNKS_PER_BLOCK + c];
		uint32_t lo = c << HISTCLOCK_CHUNK_SHIFT;

		if (!__atomic_load_n(flag, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(flag, 0, __ATOMIC_SEQ_CST);
		moved += flush_bins(bc, b, lo, lo + (1u << HISTCLOCK_CHUNK_SHIFT), p);
	}
	return moved;
}

/* Take the blocks of a thread or of a whole process out of the index, flush them, free them. */
static void forget(struct bpfclock *bc, uint32_t id, int by_pid, struct pdata *p)
{
	int fd = bpf_map__fd(bc->skel->maps.regions);

	for (uint32_t b = 0; b < HISTCLOCK_BLOCKS; b++) {
		struct block_use *u = &bc->use[b];
		struct histclock_key key;

		if (!u->live || (by_pid ? u->pid : u->tid) != id)
			continue;
		key = (struct histclock_key){.tid = u->tid, .granule = u->granule};
		bpf_map_delete_elem(fd, &key);
		flush_block(bc, b, p);
		u->live = 0;
		bc->free[bc->nfree++] = b;
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

	for (uint32_t b = 0; b < HISTCLOCK_BLOCKS; b++)
		if (bc->use[b].live)
			moved += flush_block(bc, b, p);
	return moved;
}

void bpfclock__stats(struct bpfclock *bc, struct bpfclock_stats *st)
{
	uint64_t sum[HISTCLOCK_STAT_NR];

	memset(st, 0, sizeof(*st));
	bpfload__sum_percpu(bpf_map__fd(bc->skel->maps.stats), HISTCLOCK_STAT_NR, sum);
	st->binned = sum[HISTCLOCK_STAT_BINNED];
	st->unresolved = sum[HISTCLOCK_STAT_UNRESOLVED];
	st->ticks = st->binned + st->unresolved;
	st->regions = bc->registered;
	st->bins_used = (uint64_t)(HISTCLOCK_BLOCKS - bc->nfree) * HISTCLOCK_BLOCK_BINS;
	st->refused = bc->refused;
}

void bpfclock__close(struct bpfclock *bc)
{
	if (!bc)
		return;
	munmap(bc->blocks, bc->blocks_len);
	munmap(bc->dirty, bc->dirty_len);
	histclock__destroy(bc->skel);
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
