// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "utils/procmaps.h"

static const char *hex(const char *p, uint64_t *v)
{
	int digits = 0;

	for (*v = 0; digits < 16; p++, digits++) {
		int d = *p >= '0' && *p <= '9'	 ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
						   -1;
		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	return digits ? p : NULL;
}

static const char *dec(const char *p, uint64_t *v)
{
	int digits = 0;

	for (*v = 0; *p >= '0' && *p <= '9' && digits < 20; p++, digits++)
		*v = *v * 10 + (uint64_t)(*p - '0');
	return digits ? p : NULL;
}

/* p past c, or NULL when p is NULL or not at c */
static const char *expect(const char *p, char c)
{
	return p && *p == c ? p + 1 : NULL;
}

int procmaps__parse_line(char *line, struct procmap *m)
{
	const char *p = line;
	uint64_t major, minor;

	line[strcspn(line, "\n")] = '\0';
	p = expect(hex(p, &m->start), '-');
	p = expect(p ? hex(p, &m->end) : NULL, ' ');
	if (!p || strlen(p) < 5 || p[4] != ' ')
		return -EINVAL;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	p = expect(hex(p + 5, &m->offset), ' ');
	p = expect(p ? hex(p, &major) : NULL, ':');
	p = expect(p ? hex(p, &minor) : NULL, ' ');
	p = p ? dec(p, &m->inode) : NULL;
	if (!p || (*p && *p != ' ') || major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	while (*p == ' ')
		p++;
	m->path = p;
	return 0;
}

int procmaps__for_each(pid_t pid, int (*fn)(void *arg, const struct procmap *m), void *arg)
{
	char name[64], line[PATH_MAX + 256];
	struct procmap m;
	int rc = 0, whole = 1;
	FILE *f;

	snprintf(name, sizeof(name), pid ? "/proc/%d/maps" : "/proc/self/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		int cut = !strchr(line, '\n') && !feof(f);

		if (whole && !cut && procmaps__parse_line(line, &m) == 0)
			rc = fn(arg, &m);
		whole = !cut; /* the rest of a cut line is not a line */
	}
	fclose(f);
	return rc;
}
