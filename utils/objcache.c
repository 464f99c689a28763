// SPDX-License-Identifier: MIT
/* The user's cache of objects by build id: see objcache.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/objcache.h"

int objcache__dir(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(out, len, "%s/profil/build-id", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, len, "%s/.cache/profil/build-id", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int objcache__path(const uint8_t *id, size_t id_len, char *out, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * 20 + 3] = "/";
	size_t at = 1, dir;
	int rc;

	if (!id_len || id_len > 20)
		return -EINVAL;
	rc = objcache__dir(out, len);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < id_len; i++) {
		hex[at++] = digits[id[i] >> 4];
		hex[at++] = digits[id[i] & 15];
		if (i == 0)
			hex[at++] = '/';
	}
	hex[at] = 0;
	dir = strlen(out);
	if (dir + at >= len)
		return -ENAMETOOLONG;
	memcpy(out + dir, hex, at + 1);
	return 0;
}
