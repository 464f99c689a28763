/* SPDX-License-Identifier: MIT */
/*
 * cmp: the one three-way comparison of two numbers, for the comparators
 * that qsort and bsearch call: -1, 0 or 1 as a < b, a == b or a > b.
 * Keys chain with GNU C's ?: (the first key that differs decides); a
 * descending key swaps its arguments:
 *
 *	return CMP(x->start, y->start) ?: CMP(y->weight, x->weight);
 *
 * For integers: a NaN would compare equal to everything.  cmp__str: two
 * strings as strcmp orders them, a missing (NULL) one as "".
 */
#ifndef PROFIL_CMP_H
#define PROFIL_CMP_H

#include <string.h>

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static inline int cmp__str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

#endif /* PROFIL_CMP_H */
