/* SPDX-License-Identifier: MIT */
/* The utilities' error convention: return -errno, and one sentence in the caller's why buffer. */
#ifndef PROFIL_WHY_H
#define PROFIL_WHY_H

#include <stddef.h>

/* Format one sentence into why (when why != NULL and whylen > 0) and return err. */
int why_fail(char *why, size_t whylen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
