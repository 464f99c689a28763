// SPDX-License-Identifier: MIT
/*
 * The library that takes libagent_manylibs.so's place at the same path, and
 * (being as small) at the same address, in tests/progs/agent_manylibs.c's
 * swap mode (issue 16, item 5): the same functions, another build id, its
 * spin() further in (a pad first), so that one address is a different
 * function in each.
 */
#define NOINLINE __attribute__((noinline)) /* hop() calls before its last store: no tail call */

static volatile unsigned long sink;

NOINLINE void swap_pad(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 3;
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 5;
}

NOINLINE void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

NOINLINE void hop(void (*next)(unsigned long), unsigned long n)
{
	next(n);
	sink++;
}
