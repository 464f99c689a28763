// SPDX-License-Identifier: MIT
/*
 * report_symbench OBJECT N: time symbols/symbols on a big object: open and
 * load its symbols, then symbolise N addresses spread over its text (each
 * a different function).  Prints the times; used by tests/bench/, never by
 * a test (no assertion on time in tests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symbols/symbols.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct symbols *s;
	struct sym_object *o;
	struct sym_result res;
	uint64_t lo, hi, named = 0;
	double t0, t1, t2;
	long n;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	t0 = now();
	s = symbols__new();
	o = s ? symbols__object(s, argv[1]) : NULL;
	if (!o || symobj__text_range(o, &lo, &hi) < 0) {
		fprintf(stderr, "cannot load %s\n", argv[1]);
		return 1;
	}
	t1 = now();
	for (long i = 0; i < n; i++) {
		uint64_t a = lo + (hi - lo) * (uint64_t)i / (uint64_t)n;

		symobj__lookup(o, a, &res);
		named += res.from_symbol;
	}
	t2 = now();
	printf("symbols %zu: load %.1f ms, %ld lookups %.1f ms (%.0f ns each), %llu named\n",
	       symobj__nsyms(o), (t1 - t0) * 1e3, n, (t2 - t1) * 1e3, (t2 - t1) * 1e9 / (double)n,
	       (unsigned long long)named);
	symbols__free(s);
	return 0;
}
