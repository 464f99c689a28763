// SPDX-License-Identifier: MIT
/*
 * The library tests/progs/agent_manylibs.c loads 500 copies of (each copy a
 * file of its own, hence an object of its own): hop() calls a function of
 * the next copy, so every stack crosses two of them.
 */
#define NOINLINE __attribute__((noinline)) /* hop() calls before its last store: no tail call */

static volatile unsigned long sink;

NOINLINE void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

NOINLINE void hop(void (*next)(unsigned long), unsigned long n)
{
	next(n);
	sink++;
}
