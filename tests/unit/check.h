/* SPDX-License-Identifier: MIT */
/* Minimal test protocol for tests/run.sh: "ok NAME" / "not ok NAME: why" / "skip NAME: why". */
#ifndef PROFIL_TEST_CHECK_H
#define PROFIL_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

/* ok NAME when cond holds, else not ok, with a printf-style explanation. */
#define CHECKF(name, cond, ...)                                                                    \
	do {                                                                                       \
		if (cond) {                                                                        \
			printf("ok %s\n", name);                                                   \
		} else {                                                                           \
			printf("not ok %s: ", name);                                               \
			printf(__VA_ARGS__);                                                       \
			printf(" (%s:%d)\n", __FILE__, __LINE__);                                  \
			check_failures++;                                                          \
		}                                                                                  \
		fflush(stdout);                                                                    \
	} while (0)

/* Like CHECKF, the condition's text the explanation. */
#define CHECK(name, cond) CHECKF(name, cond, "%s", #cond)

#define SKIP(name, why)                                                                            \
	do {                                                                                       \
		printf("skip %s: %s\n", name, why);                                                \
		fflush(stdout);                                                                    \
	} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

typedef void (*check_fn)(void);

/*
 * The rest of a main whose set-up (writing the profiles its tests read, say)
 * returned rc: 0, or -errno with why.  The set-up is a check named name; the
 * tests (a NULL-terminated list) run in order only when it succeeded.
 * Returns the exit status.
 */
static inline int check_run(const char *name, int rc, const char *why, const check_fn *tests)
{
	CHECKF(name, rc == 0, "%d %s", rc, why);
	for (; !rc && *tests; tests++)
		(*tests)();
	return CHECK_DONE();
}

#endif
