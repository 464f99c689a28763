/* SPDX-License-Identifier: MIT */
/*
 * kcore: the running kernel's code, read from /proc/kcore (an ELF core
 * file whose PT_LOAD segments are the kernel's memory at its virtual
 * addresses; root or CAP_SYS_RAWIO).  Only the program headers and the
 * bytes asked for are read.
 */
#ifndef PROFIL_ANNOTATE_KCORE_H
#define PROFIL_ANNOTATE_KCORE_H

#include <stddef.h>
#include <stdint.h>

struct kcore;

/* Open path (/proc/kcore).  Returns 0, or -errno with one sentence in why. */
int kcore__open(struct kcore **out, const char *path, char *why, size_t whylen);
void kcore__close(struct kcore *k);

/* len bytes at kernel address addr into buf.  Returns the bytes read (maybe fewer), or -errno. */
long kcore__read(struct kcore *k, uint64_t addr, void *buf, size_t len);

#endif /* PROFIL_ANNOTATE_KCORE_H */
