/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * stats.bpf.h: a program's counts of what it did, per CPU in the map
 * `stats` (STATS_NR slots: the program defines it, its enum's _NR, before
 * it includes this header; user space sums the CPUs' counts:
 * bpfload__sum_percpu, record/bpfload.h).  Included once by each program
 * that counts (histclock, kunwind, offcpu).
 */
#ifndef PROFIL_BPF_STATS_BPF_H
#define PROFIL_BPF_STATS_BPF_H

#ifndef STATS_NR
#error "define STATS_NR (the number of counts) before including stats.bpf.h"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STATS_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 which)
{
	stat_add(which, 1);
}

#endif /* PROFIL_BPF_STATS_BPF_H */
