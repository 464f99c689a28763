/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * drops.bpf.h: the events a BPF program's ring buffer had no room for,
 * counted per CPU in the map `drops` (one __u64 slot; user space sums the
 * CPUs' counts: procacct__dropped, watch's events_lost).  Included once by
 * each program that has an event ring (watch, procacct).
 */
#ifndef PROFIL_BPF_DROPS_BPF_H
#define PROFIL_BPF_DROPS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void count_drop(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&drops, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

#endif /* PROFIL_BPF_DROPS_BPF_H */
