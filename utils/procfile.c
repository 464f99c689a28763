// SPDX-License-Identifier: MIT
/* The kernel's small /proc files: see procfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils/procfile.h"

long long procfile__number(const char *path, long long dflt)
{
	FILE *f = fopen(path, "re");
	long long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%lld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

int procfile__status(pid_t pid, const char *key, char *buf, size_t size)
{
	char path[64], line[512];
	size_t klen = strlen(key);
	int ret = -ENOENT;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (int i = 0; i < 512 && fgets(line, sizeof(line), f); i++) {
		char *v = line + klen + 1;

		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		size_t n;

		v += strspn(v, " \t");
		n = strcspn(v, "\n");
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		v[n] = 0;
		if (size)
			snprintf(buf, size, "%s", v);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int procfile__status_number(pid_t pid, const char *key, int base, unsigned long long *v)
{
	char val[256], *last, *end;
	int ret = procfile__status(pid, key, val, sizeof(val));

	if (ret < 0)
		return ret;
	last = strrchr(val, '\t');
	if (!last)
		last = strrchr(val, ' ');
	last = last ? last + 1 : val;
	errno = 0;
	*v = strtoull(last, &end, base);
	return end == last || *end || errno ? -EINVAL : 0;
}
