/* SPDX-License-Identifier: MIT */
/* The tests' pseudo-random numbers: Marsaglia's xorshift64 (13, 7, 17), the same sequence from the
 * same seed on every run (state: any value but 0). */
#ifndef PROFIL_TESTS_XORSHIFT_H
#define PROFIL_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
