// SPDX-License-Identifier: MIT
/*
 * TEMPORARY: the profile format has no stacks yet.  This stand-in for
 * pdata__count_stack() counts the leaf PC only, so that a profile recorded
 * with stacks on is the same flat profile as without.  THE LEAD'S
 * INTEGRATION POINT: replace this file when utils/pdata gains stacks (the
 * declaration in agent/stack_sink.h is the contract the agent relies on).
 */
#include "pdata.h"
#include "stack_sink.h"

int pdata__count_stack(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs, unsigned int n,
		       uint64_t count)
{
	if (n == 0)
		return 0;
	return pdata__count(p, proc, tid, pcs[0], count);
}
