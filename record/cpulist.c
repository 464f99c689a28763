// SPDX-License-Identifier: MIT
/* CPU lists.  See cpulist.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/cpulist.h"
#include "utils/why.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* A CPU number at *p (digits only), advancing p.  -1 when there is none or it is too large. */
static int number(const char **p)
{
	long v = 0;

	if (!isdigit((unsigned char)**p))
		return -1;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= CPULIST_MAX)
			return -1;
		(*p)++;
	}
	return (int)v;
}

static int push_range(int **cpus, int *n, int lo, int hi)
{
	int *grown = realloc(*cpus, sizeof(int) * (size_t)(*n + hi - lo + 1));

	if (!grown)
		return -ENOMEM;
	*cpus = grown;
	for (int c = lo; c <= hi; c++)
		grown[(*n)++] = c;
	return 0;
}

int cpulist__parse(const char *s, int **out, char *why, size_t whylen)
{
	const char *p = s;
	int *cpus = NULL, n = 0, k = 0;

	while (*p && *p != '\n') {
		int lo = number(&p), hi = lo;

		if (lo >= 0 && *p == '-') {
			p++;
			hi = number(&p);
		}
		if (lo < 0 || hi < lo || (*p && *p != ',' && *p != '\n')) {
			free(cpus);
			return why_fail(why, whylen, -EINVAL,
					"bad CPU list '%s' (expected e.g. 0,2-3, CPUs below %d)", s,
					CPULIST_MAX);
		}
		if (push_range(&cpus, &n, lo, hi) < 0) {
			free(cpus);
			return why_fail(why, whylen, -ENOMEM, "out of memory");
		}
		if (*p == ',')
			p++;
	}
	if (!n)
		return why_fail(why, whylen, -EINVAL, "empty CPU list");
	qsort(cpus, (size_t)n, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++)
		if (!k || cpus[k - 1] != cpus[i])
			cpus[k++] = cpus[i];
	*out = cpus;
	return k;
}

int cpulist__read(const char *which, int **out)
{
	char path[96], buf[1024];
	FILE *f;
	long c;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", which);
	f = fopen(path, "re");
	if (f) {
		int n = -EINVAL;

		if (fgets(buf, sizeof(buf), f))
			n = cpulist__parse(buf, out, NULL, 0);
		fclose(f);
		if (n > 0)
			return n;
	}
	c = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "0-%ld", c > 0 ? c - 1 : 0);
	return cpulist__parse(buf, out, NULL, 0);
}

int cpulist__has(const int *cpus, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return 1;
	return 0;
}
