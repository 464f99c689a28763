/* SPDX-License-Identifier: MIT */
/*
 * search: the one binary search, over any array sorted by one of its
 * elements' fields (an address, an id, a thread id).  Statement
 * expressions (GNU C), so that the comparison is inlined for each field's
 * own type, as a hand-written loop would be.
 *
 *   SEARCH_UPPER(arr, n, field, x)   how many of arr[0..n) have .field <= x:
 *                                    the element holding an address x is the
 *                                    one before (index result - 1), if any
 *   SEARCH_LOWER(arr, n, field, x)   how many of arr[0..n) have .field < x:
 *                                    the first element with .field >= x
 */
#ifndef PROFIL_SEARCH_H
#define PROFIL_SEARCH_H

#include <stddef.h>

#define SEARCH_BY_(arr, n, field, x, cmp)                         \
	({                                                        \
		size_t lo_ = 0, hi_ = (n);                        \
		while (lo_ < hi_) {                               \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;      \
			if ((arr)[mid_].field cmp (x))            \
				lo_ = mid_ + 1;                   \
			else                                      \
				hi_ = mid_;                       \
		}                                                 \
		lo_;                                              \
	})

#define SEARCH_UPPER(arr, n, field, x) SEARCH_BY_(arr, n, field, x, <=)
#define SEARCH_LOWER(arr, n, field, x) SEARCH_BY_(arr, n, field, x, <)

#endif /* PROFIL_SEARCH_H */
