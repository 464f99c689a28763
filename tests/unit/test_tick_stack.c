// SPDX-License-Identifier: MIT
/*
 * The tick handler's stack pool (lib/tick_stack.h): a function runs on a
 * stack of the pool, not on its caller's; the pool holds TICK_STACKS
 * handlers at once (nested runs), the next one is told -EBUSY and counted,
 * and every stack is free again afterwards; a deep frame fits.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "lib/tick_stack.h"

static uintptr_t caller_sp, callee_sp;
static int depth_reached, busy_at;

static void where(void *arg)
{
	volatile char here;

	(void)arg;
	callee_sp = (uintptr_t)&here;
}

static void nest(void *arg)
{
	int depth = *(int *)arg + 1;

	depth_reached = depth;
	if (tick_stack_run(nest, &depth) == -EBUSY)
		busy_at = depth;
}

static void deep(void *arg)
{
	volatile char big[32 * 1024]; /* half a stack: an unwinder walk uses ~10 KiB */

	memset((char *)big, 1, sizeof(big));
	*(int *)arg = big[sizeof(big) - 1];
}

int main(void)
{
	volatile char here;
	uint64_t busy0;
	int zero = 0, got = 0;

	CHECK("pool maps", tick_stacks_init() == 0);
	caller_sp = (uintptr_t)&here;
	CHECK("runs", tick_stack_run(where, NULL) == 0);
	CHECKF("on a stack of its own",
	       callee_sp && (callee_sp > caller_sp ? callee_sp - caller_sp :
						     caller_sp - callee_sp) > TICK_STACK_SIZE,
	       "caller at %#lx, callee at %#lx", (unsigned long)caller_sp,
	       (unsigned long)callee_sp);
	busy0 = tick_stacks_busy();
	tick_stack_run(nest, &zero);
	CHECKF("TICK_STACKS at once, then -EBUSY",
	       depth_reached == TICK_STACKS && busy_at == TICK_STACKS, "deepest %d, busy at %d",
	       depth_reached, busy_at);
	CHECK("the busy one is counted", tick_stacks_busy() == busy0 + 1);
	CHECK("all free afterwards", tick_stack_run(deep, &got) == 0 && got == 1);
	return CHECK_DONE();
}
