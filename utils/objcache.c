// SPDX-License-Identifier: MIT
/* The user's cache of objects by build id: see objcache.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/buildid.h"
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
	char hex[2 * 20 + 3] = "/";
	size_t dir;
	int rc, at;

	if (!id_len || id_len > 20)
		return -EINVAL;
	rc = objcache__dir(out, len);
	if (rc < 0)
		return rc;
	at = buildid__hex(id, id_len, 1, hex + 1, sizeof(hex) - 1);
	if (at < 0)
		return at;
	dir = strlen(out);
	if (dir + (size_t)at + 1 >= len)
		return -ENAMETOOLONG;
	memcpy(out + dir, hex, (size_t)at + 2);
	return 0;
}
