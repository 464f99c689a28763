/* SPDX-License-Identifier: MIT */
/*
 * CPU lists as the kernel writes them (/sys/devices/system/cpu/online:
 * "0-3,5") and as -C takes them: the one parser of the recorder.
 */
#ifndef PROFIL_RECORD_CPULIST_H
#define PROFIL_RECORD_CPULIST_H

#include <stddef.h>

#define CPULIST_MAX 8192 /* CPU numbers at or above are refused */

/*
 * Parse "N", "N-M" and comma-separated lists of them into a sorted array
 * without duplicates (*out, malloc'ed).  Returns how many, or -EINVAL with
 * one sentence in why (empty, a bad number, a range backwards, a number of
 * CPULIST_MAX or more), -ENOMEM.
 */
int cpulist__parse(const char *s, int **out, char *why, size_t whylen);

/*
 * The CPUs of /sys/devices/system/cpu/<which> ("online", "possible"),
 * else 0..sysconf(_SC_NPROCESSORS_ONLN)-1.  Returns how many, or -errno.
 */
int cpulist__read(const char *which, int **out);

/* 1 when cpu is in cpus[0..n). */
int cpulist__has(const int *cpus, int n, int cpu);

#endif /* PROFIL_RECORD_CPULIST_H */
