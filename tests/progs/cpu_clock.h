/* SPDX-License-Identifier: MIT */
/*
 * The test programs' ground truth: the CPU time of the calling thread or of
 * the whole process, read by the program itself (tests compare profiles
 * with time measured, never with units of work).  Header-only, for the test
 * programs and the unit tests (no sanitizer needed, any libc).
 */
#ifndef PROFIL_TESTS_CPU_CLOCK_H
#define PROFIL_TESTS_CPU_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
