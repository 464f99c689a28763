/* SPDX-License-Identifier: MIT */
/*
 * buildid: a GNU build id written in lowercase hex, the one spelling of it
 * in paths and outputs: plain (pprof's mapping, debuginfod's cache entry) or
 * split after its first byte, "xx/rest", as the .build-id directories lay
 * out their files (/usr/lib/debug/.build-id, profil's object cache).
 */
#ifndef PROFIL_UTILS_BUILDID_H
#define PROFIL_UTILS_BUILDID_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 64 /* bytes: the longest id profil spells (GNU's are 20) */

/*
 * The id's LEN bytes in hex into out, with a '/' after the first byte when
 * SPLIT, NUL-terminated.  The length written, or -EINVAL (no id, or longer
 * than BUILDID_MAX), -ENAMETOOLONG (out too small: nothing usable in it).
 */
static inline int buildid__hex(const uint8_t *id, size_t len, int split, char *out, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t at = 0;

	if (!len || len > BUILDID_MAX)
		return -EINVAL;
	if (size < 2 * len + (split ? 1 : 0) + 1)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++) {
		out[at++] = digits[id[i] >> 4];
		out[at++] = digits[id[i] & 15];
		if (split && i == 0)
			out[at++] = '/';
	}
	out[at] = 0;
	return (int)at;
}

#endif /* PROFIL_UTILS_BUILDID_H */
