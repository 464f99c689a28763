/* SPDX-License-Identifier: MIT */
/* Minimal test protocol for tests/run.sh: "ok NAME" / "not ok NAME: why" / "skip NAME: why". */
#ifndef PROFIL_TEST_CHECK_H
#define PROFIL_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(name, cond)                                                                 \
	do {                                                                              \
		if (cond) {                                                               \
			printf("ok %s\n", name);                                          \
		} else {                                                                  \
			printf("not ok %s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); \
			check_failures++;                                                 \
		}                                                                         \
		fflush(stdout);                                                           \
	} while (0)

/* Like CHECK, with a printf-style explanation on failure. */
#define CHECKF(name, cond, ...)                                                   \
	do {                                                                      \
		if (cond) {                                                       \
			printf("ok %s\n", name);                                  \
		} else {                                                          \
			printf("not ok %s: ", name);                              \
			printf(__VA_ARGS__);                                      \
			printf(" (%s:%d)\n", __FILE__, __LINE__);                 \
			check_failures++;                                         \
		}                                                                 \
		fflush(stdout);                                                   \
	} while (0)

#define SKIP(name, why)                                  \
	do {                                             \
		printf("skip %s: %s\n", name, why);      \
		fflush(stdout);                          \
	} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

#endif
