/* SPDX-License-Identifier: MIT */
/*
 * caps: the recorder's own effective capabilities, the CapEff line of
 * /proc/self/status (bit n: capability n, <linux/capability.h>), read in one
 * place for every check of a privilege (record -a, watch).
 */
#ifndef PROFIL_UTILS_CAPS_H
#define PROFIL_UTILS_CAPS_H

#include <stdint.h>

/* The bits of the capabilities profil checks (linux/capability.h; PERFMON, BPF: Linux 5.8). */
#define CAPS_SYS_ADMIN 21
#define CAPS_PERFMON 38
#define CAPS_BPF 39

/* The effective set; 0 when the file cannot be read or holds no CapEff line. */
uint64_t caps__effective(void);

#endif /* PROFIL_UTILS_CAPS_H */
