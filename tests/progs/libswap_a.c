// SPDX-License-Identifier: MIT
/*
 * The libraries tests/progs/hostile_objects.c swaps at one path (issue 16
 * item 5): libswap_a.so (swap_hot_a) and libswap_b.so (libswap_b.c: this
 * file with VARIANT 2, swap_hot_b placed 8 KiB further into its text so
 * that no address of one names the other's code).  Built
 * -fomit-frame-pointer: only CFI unwinds them.
 */
#include <time.h>

#if VARIANT == 2
#define HOT swap_hot_b
__attribute__((used, noinline)) void swap_pad_b(void)
{
	__asm__ volatile(".fill 8192, 1, 0x90");
}
#else
#define HOT swap_hot_a
#endif

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin for `seconds` of this thread's CPU time, with a frame of its own. */
__attribute__((noinline)) double HOT(double seconds)
{
	volatile double acc[8] = {0};
	double t0 = cpu_now();

	while (cpu_now() - t0 < seconds)
		for (int i = 0; i < 100000; i++)
			acc[i & 7] += i * 0.5;
	return acc[0];
}

double swap_entry(double seconds)
{
	return HOT(seconds) + 1.0;
}
