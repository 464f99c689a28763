// SPDX-License-Identifier: MIT
/* librecord_hot.so: a hot loop inside a shared library (record tests); a unit is 0.1 s of CPU. */
#include <stdint.h>
#include <time.h>

#include "cpu_clock.h"

static volatile unsigned long sink;

__attribute__((noinline)) void lib_spin(unsigned long units)
{
	uint64_t start = thread_cpu_ns(), now = start;
	unsigned long s = 0;

	while (now - start < units * 100000000ull) {
		for (unsigned long i = 0; i < 1000000; i++)
			s += i ^ (s >> 3);
		now = thread_cpu_ns();
	}
	sink += s;
}
