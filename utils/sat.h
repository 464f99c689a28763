/* SPDX-License-Identifier: MIT */
/*
 * sat: saturating 64-bit arithmetic for counts and nanoseconds that come
 * from a file or a profiled program: a damaged or absurd value sums or
 * multiplies to UINT64_MAX, never wraps to a small one.
 */
#ifndef PROFIL_SAT_H
#define PROFIL_SAT_H

#include <stdint.h>

/* a + b, or UINT64_MAX when it does not fit. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* a * b, or UINT64_MAX when it does not fit. */
static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

#endif /* PROFIL_SAT_H */
