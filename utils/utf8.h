/* SPDX-License-Identifier: MIT */
/*
 * utf8: the one UTF-8 check.  Names, command lines and paths are bytes:
 * what a writer must emit as UTF-8 (JSON, pprof strings) is checked here.
 * Overlong forms, surrogates and values beyond U+10FFFF are not UTF-8.
 */
#ifndef PROFIL_UTF8_H
#define PROFIL_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 sequence at s (avail >= 1 bytes left), 0 if none. */
size_t utf8__seq_len(const unsigned char *s, size_t avail);

/*
 * A NUL-terminated copy of the n bytes at s as valid UTF-8: each byte that
 * starts no valid sequence becomes U+FFFD.  NULL when out of memory.
 */
char *utf8__dup_valid(const char *s, size_t n);

#endif /* PROFIL_UTF8_H */
