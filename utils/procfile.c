// SPDX-License-Identifier: MIT
/* One number from a kernel file: see procfile.h. */
#include <stdio.h>

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
