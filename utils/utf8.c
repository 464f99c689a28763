// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utils/utf8.h"

size_t utf8__seq_len(const unsigned char *s, size_t avail)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (avail < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *utf8__dup_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t bad = 0, i, len, k = 0;
	char *out;

	for (i = 0; i < n; i += len ? len : 1) {
		len = utf8__seq_len(u + i, n - i);
		bad += !len;
	}
	if (bad > (SIZE_MAX - n - 1) / 2)
		return NULL;
	out = malloc(n + bad * 2 + 1); /* U+FFFD is 3 bytes for 1 */
	if (!out)
		return NULL;
	for (i = 0; i < n; i += len ? len : 1) {
		len = utf8__seq_len(u + i, n - i);
		if (len) {
			memcpy(out + k, s + i, len);
			k += len;
		} else {
			memcpy(out + k, "\xef\xbf\xbd", 3);
			k += 3;
		}
	}
	out[k] = 0;
	return out;
}
