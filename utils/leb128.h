/* SPDX-License-Identifier: MIT */
/*
 * leb128: DWARF's variable-length integers (unsigned, signed), the one
 * reader of them: the .eh_frame reader (utils/ehframe.h), the recorder's
 * CFI interpreter (unwind/unwind_cfi.c) and the agent's CFI gate
 * (agent/cfi_check.c, in a signal handler: header-only, nothing to link,
 * async-signal-safe).
 */
#ifndef PROFIL_UTILS_LEB128_H
#define PROFIL_UTILS_LEB128_H

#include <errno.h>
#include <stdint.h>

/* A LEB128 number: its bits, and in *bits how many the bytes read carry. */
static inline int leb128__read(const uint8_t **p, const uint8_t *end, uint64_t *v,
			       unsigned int *bits)
{
	uint64_t r = 0;

	for (unsigned int shift = 0; *p < end && shift < 70; shift += 7) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*bits = shift + 7;
			return 0;
		}
	}
	return -EINVAL; /* cut short, or longer than 10 bytes */
}

/*
 * A LEB128 number at *p, before end; *p moves past what was read.  Bits past
 * the 64th are dropped.  0, or -EINVAL: cut short by end, or longer than 10
 * bytes.
 */
static inline int leb128__uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int bits;

	return leb128__read(p, end, v, &bits);
}

static inline int leb128__sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t r;
	unsigned int bits;

	if (leb128__read(p, end, &r, &bits))
		return -EINVAL;
	if (bits < 64 && (r >> (bits - 1) & 1)) /* the sign: bit 6 of the last byte */
		r |= ~0ull << bits;
	*v = (int64_t)r;
	return 0;
}

#endif /* PROFIL_UTILS_LEB128_H */
