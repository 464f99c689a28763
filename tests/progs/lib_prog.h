/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the libprofil test programs: hot functions placed in their
 * own sections (the linker's __start_/__stop_ symbols give their exact
 * address ranges), CPU burning by thread CPU time, clock selection.
 */
#ifndef LIB_PROG_H
#define LIB_PROG_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_clock.h"
#include "profil.h"

/* A function whose every instruction lies in section hot_<name>. */
#define HOT_FN(name)                                                                               \
	extern char __start_hot_##name[], __stop_hot_##name[];                                     \
	__attribute__((noinline, section("hot_" #name))) void name(long n)                         \
	{                                                                                          \
		for (volatile long i = 0; i < n; i++)                                              \
			;                                                                          \
	}

#define HOT_RANGE(name)                                                                            \
	{                                                                                          \
#name, (uintptr_t)__start_hot_##name, (uintptr_t)__stop_hot_##name                 \
	}

struct hot_range {
	const char *name;
	uintptr_t start, stop;
};

/* profil(NULL, 0, 0, 0).  glibc's <unistd.h> declares the buffer nonnull, so the call goes
 * through a pointer that does not carry the attribute (no warning, no UBSan report). */
static inline int profil_off(void)
{
	int (*volatile fn)(unsigned short *, size_t, size_t, unsigned int) = profil;

	return fn(NULL, 0, 0, 0);
}

/* Choose the clock from argv: "thread", "itimer", "perf", "auto", "manual"; exits 77 if perf is
 * refused here (the caller turns that into a skip line). */
static inline void choose_clock(const char *name, unsigned int hz)
{
	enum profil_clock c;

	if (profil_clock_from_name(name, &c) < 0 || profil_set_clock(c, hz) < 0) {
		fprintf(stderr, "bad clock %s or rate %u\n", name, hz);
		exit(2);
	}
}

/* Covering buffer for ranges: one bin per 2 bytes (scale 65536). */
static inline unsigned short *cover(const struct hot_range *r, int n, uintptr_t *lo, size_t *size)
{
	uintptr_t a = UINTPTR_MAX, b = 0;

	for (int i = 0; i < n; i++) {
		if (r[i].start < a)
			a = r[i].start;
		if (r[i].stop > b)
			b = r[i].stop;
	}
	*lo = a;
	*size = (size_t)(b - a + 2);
	return calloc(1, *size);
}

/* Samples that fell in range r of buffer buf (offset lo, scale 65536). */
static inline uint64_t count_range(const unsigned short *buf, uintptr_t lo,
				   const struct hot_range *r)
{
	uint64_t sum = 0;

	for (uintptr_t i = (r->start - lo) / 2; i < (r->stop - lo + 1) / 2; i++)
		sum += buf[i];
	return sum;
}

/* Exit 77 if profil() failed because the clock is refused here. */
static inline void enable_or_skip(int ret, const char *what)
{
	if (ret == 0)
		return;
	if (errno == EACCES || errno == EPERM || errno == ENOSYS || errno == ENOENT ||
	    errno == EOPNOTSUPP) {
		printf("clock refused: %s: %s\n", what, strerror(errno));
		exit(77);
	}
	fprintf(stderr, "%s failed: %s\n", what, strerror(errno));
	exit(1);
}

#endif
