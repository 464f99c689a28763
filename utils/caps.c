// SPDX-License-Identifier: MIT
#include "utils/caps.h"
#include "utils/procfile.h"

uint64_t caps__effective(void)
{
	unsigned long long eff;

	return procfile__status_number(0, "CapEff", 16, &eff) == 0 ? eff : 0;
}
