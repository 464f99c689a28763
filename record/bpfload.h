/* SPDX-License-Identifier: MIT */
/*
 * bpfload: what the recorder's BPF programs (bpfclock, procacct, offcpu) share when
 * they load: libbpf kept quiet (its messages are not the user's business: the
 * recorder says why in one sentence), and that sentence; and the one reader
 * of their per-CPU counts (bpf/stats.bpf.h).  Header only, for the files
 * built with PROFIL_HAVE_BPF.
 */
#ifndef PROFIL_RECORD_BPFLOAD_H
#define PROFIL_RECORD_BPFLOAD_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static inline int bpfload__silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* libbpf prints nothing from here on. */
static inline void bpfload__quiet(void)
{
	libbpf_set_print(bpfload__silent);
}

/*
 * Loading what (e.g. "histogram program") failed with err (-errno; anything
 * else is EINVAL): why says so, with what it needs when refused.  The -errno
 * to return (a refusal is -EPERM).
 */
static inline int bpfload__failed(int err, const char *what, char *why, size_t whylen)
{
	if (err >= 0)
		err = -EINVAL;
	snprintf(why, whylen, "cannot load the BPF %s: %s%s", what, strerror(-err),
		 err == -EPERM || err == -EACCES ? " (needs root or CAP_BPF+CAP_PERFMON)" : "");
	return err == -EACCES ? -EPERM : err;
}

/*
 * sum[k]: key k of the per-CPU array of u64 fd (a program's `stats`, its
 * cost histogram...) summed over the CPUs, for the keys 0..nkeys-1; 0 where
 * it cannot be read.  One batch lookup (a system call per key was 640 for
 * the kernel walk's counts), else, without batch operations, one per key.
 */
static inline void bpfload__sum_percpu(int fd, uint32_t nkeys, uint64_t *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals = ncpu > 0 && nkeys ? calloc((size_t)ncpu * nkeys, sizeof(*vals)) : NULL;
	uint32_t *keys = vals ? calloc(nkeys, sizeof(*keys)) : NULL;
	uint32_t out = 0, n = nkeys;

	memset(sum, 0, nkeys * sizeof(*sum));
	if (keys && bpf_map_lookup_batch(fd, NULL, &out, keys, vals, &n, NULL) < 0 &&
	    errno != ENOENT) {
		memset(vals, 0, (size_t)ncpu * nkeys * sizeof(*vals));
		for (n = 0; n < nkeys; n++) {
			keys[n] = n;
			bpf_map_lookup_elem(fd, &keys[n], vals + (size_t)n * ncpu);
		}
	}
	for (uint32_t i = 0; keys && i < n && i < nkeys; i++)
		for (int c = 0; c < ncpu && keys[i] < nkeys; c++)
			sum[keys[i]] += vals[(size_t)i * ncpu + c];
	free(keys);
	free(vals);
}

#endif /* PROFIL_RECORD_BPFLOAD_H */
