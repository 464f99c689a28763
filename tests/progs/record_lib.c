// SPDX-License-Identifier: MIT
/* librecord_hot.so: a hot loop inside a shared library (record tests). */
#define UNIT 60000000ul

static volatile unsigned long sink;

__attribute__((noinline)) void lib_spin(unsigned long units)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < units * UNIT; i++)
		s += i ^ (s >> 3);
	sink += s;
}
