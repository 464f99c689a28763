/* SPDX-License-Identifier: MIT */
/* Is a range of our own address space writable, asked without touching it? */
#ifndef PROFIL_ADDRCHECK_H
#define PROFIL_ADDRCHECK_H

#include <stddef.h>

/* 0 if every byte of [p, p + len) lies in a writable mapping (by /proc/self/maps), else -EFAULT.
 * len == 0 is always fine.  Never reads or writes the range. */
int addr_range_writable(const void *p, size_t len);

#endif
