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

/*
 * /proc/self/maps is parsed as it is read, one line head at a time, in
 * buffers on the stack: no allocation (the API may be called from a
 * signal handler), and no mapping of our own that could land in, and
 * hide, a hole the caller's range has.
 */
struct maps_reader {
	int fd;
	char chunk[4096];
	size_t at, len;
};

/* The next byte of the file, or -1 at its end (or on an error). */
static int next_byte(struct maps_reader *r)
{
	ssize_t n;

	if (r->at == r->len) {
		do
			n = read(r->fd, r->chunk, sizeof(r->chunk));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		r->at = 0;
		r->len = (size_t)n;
	}
	return (unsigned char)r->chunk[r->at++];
}

/* The first len - 1 bytes of the next line into head; 0, or -1 at the end. */
static int next_line_head(struct maps_reader *r, char *head, size_t len)
{
	size_t n = 0;
	int c;

	while ((c = next_byte(r)) >= 0 && c != '\n')
		if (n + 1 < len)
			head[n++] = (char)c;
	head[n] = '\0';
	return c < 0 && n == 0 ? -1 : 0;
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
	struct maps_reader r = {.fd = -1};
	char head[96];
	int writable, ret = -EFAULT;

	if (len == 0)
		return 0;
	if (!p || cur > UINTPTR_MAX - len)
		return -EFAULT;
	last = cur + len;
	r.fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return -EFAULT; /* cannot tell: refuse rather than risk it */
	/* Mappings are listed in increasing address order, without overlap. */
	while (next_line_head(&r, head, sizeof(head)) == 0) {
		if (parse_line(head, &lo, &hi, &writable) < 0)
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
	close(r.fd);
	return ret;
}
