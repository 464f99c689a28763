// SPDX-License-Identifier: MIT
#include "utils/caps.h"
#include "utils/procstatus.h"

uint64_t caps__effective(void)
{
	unsigned long long eff;

	return procstatus__last_number(0, "CapEff", 16, &eff) == 0 ? eff : 0;
}
