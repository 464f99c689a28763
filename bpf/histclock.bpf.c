// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * histclock: count the PC of every task-clock tick straight into a
 * memory-mapped histogram (blocks of bins per thread and 64 KiB granule, see
 * histclock.h) — the kernel updating the profil buffer itself,
 * with no ring buffer and no user-space work per sample.
 */
/*
 * Only UAPI types (the perf_event program context is a stable ABI): the
 * object needs no CO-RE relocation, so loading it does not read and parse
 * the kernel's BTF (about a third of the clock's start-up time otherwise).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "histclock.h"
#define STATS_NR HISTCLOCK_STAT_NR
#include "stats.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, HISTCLOCK_BLOCKS);
	__type(key, __u32);
	__type(value, struct histclock_block);
} bins SEC(".maps");

/* dirty[c] != 0: bins [c << CHUNK_SHIFT, (c + 1) << CHUNK_SHIFT) of the array changed since the last flush */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, HISTCLOCK_CHUNKS);
	__type(key, __u32);
	__type(value, __u64);
} dirty SEC(".maps");

/* (tid, granule) -> block */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, HISTCLOCK_MAX_KEYS);
	__type(key, struct histclock_key);
	__type(value, __u32);
} regions SEC(".maps");

static __always_inline int count_in(__u32 block, __u64 pc)
{
	struct histclock_block *b = bpf_map_lookup_elem(&bins, &block);
	__u32 bin = (__u32)(pc >> HISTCLOCK_BIN_SHIFT) & (HISTCLOCK_BLOCK_BINS - 1);
	__u32 chunk;
	__u64 *flag;

	if (!b)
		return 0;
	__sync_fetch_and_add(&b->bins[bin], 1);
	/* after the bin: a flush clears the flag before reading the bins */
	chunk = block * HISTCLOCK_CHUNKS_PER_BLOCK + (bin >> HISTCLOCK_CHUNK_SHIFT);
	flag = bpf_map_lookup_elem(&dirty, &chunk);
	if (flag)
		*flag = 1;
	return 1;
}

/* The PC of the tick, user or kernel (the kernel's PCs when the event samples them). */
SEC("perf_event")
int histclock_tick(struct bpf_perf_event_data *ctx)
{
	struct histclock_key key = {};
	__u64 pc = PT_REGS_IP(&ctx->regs);
	__u32 *block;

	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.granule = pc >> HISTCLOCK_GRANULE_SHIFT;
	block = bpf_map_lookup_elem(&regions, &key);
	if (block && count_in(*block, pc)) {
		stat_inc(HISTCLOCK_STAT_BINNED);
		return 0; /* counted: no perf sample record */
	}
	stat_inc(HISTCLOCK_STAT_UNRESOLVED);
	return 1; /* let perf write the sample to the ring buffer */
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
