// SPDX-License-Identifier: MIT
/*
 * Writability check by /proc/self/maps: no probe write, no fault, no
 * signal handler needed.  The answer is a snapshot: the guard (guard.c)
 * covers a buffer that is unmapped later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addrcheck.h"

static char *read_maps(size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap + 1), *bigger;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0)
		goto fail;
	for (;;) {
		if (n == cap) {
			cap *= 2;
			bigger = realloc(buf, cap + 1);
			if (!bigger)
				goto fail;
			buf = bigger;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Parse "start-end perms" at the head of one line. */
static int parse_line(const char *line, uintptr_t *lo, uintptr_t *hi, int *writable)
{
	char *end;

	*lo = strtoull(line, &end, 16);
	if (*end != '-')
		return -1;
	*hi = strtoull(end + 1, &end, 16);
	if (*end != ' ' || strlen(end) < 3)
		return -1;
	*writable = end[2] == 'w';
	return 0;
}

int addr_range_writable(const void *p, size_t len)
{
	uintptr_t cur = (uintptr_t)p, last, lo, hi;
	size_t n;
	char *maps, *line, *next;
	int writable, ret = -EFAULT;

	if (len == 0)
		return 0;
	if (!p || cur > UINTPTR_MAX - len)
		return -EFAULT;
	last = cur + len;
	maps = read_maps(&n);
	if (!maps)
		return -EFAULT; /* cannot tell: refuse rather than risk it */
	/* Mappings are listed in increasing address order, without overlap. */
	for (line = maps; line < maps + n && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : maps + n;
		if (parse_line(line, &lo, &hi, &writable) < 0)
			continue;
		if (hi <= cur)
			continue;
		if (lo > cur || !writable)
			break; /* a hole, or a mapping we may not write */
		cur = hi;
		if (cur >= last) {
			ret = 0;
			break;
		}
	}
	free(maps);
	return ret;
}
