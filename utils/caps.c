// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "utils/caps.h"

uint64_t caps__effective(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];

	if (!f)
		return 0;
	/* a few dozen lines: the kernel's, bounded */
	for (int i = 0; i < 256 && fgets(line, sizeof(line), f); i++)
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff;
}
