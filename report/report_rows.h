/* SPDX-License-Identifier: MIT */
/*
 * report_rows: the report's rows summed by keys (utils/htab), sorted, and
 * listed (--top, --percent-limit, [unsampled] remainders).  Inside
 * profile/, for report.c; pure (no I/O).
 */
#ifndef PROFIL_REPORT_REPORT_ROWS_H
#define PROFIL_REPORT_REPORT_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

struct rowtab;

/* Rows keyed by keys[0..nkeys) (enum report_key) and the kind.  NULL: out of memory. */
struct rowtab *rowtab__new(const int *keys, size_t nkeys);
void rowtab__free(struct rowtab *t);

/* Add an off-CPU item's ns to off[0] (every reason) and off[its reason] (off[PDATA_KIND_NR]). */
void report_rows__add_off(uint64_t *off, const struct report_item *it);

/* Add an item's time to its row.  0 or -ENOMEM. */
int rowtab__add(struct rowtab *t, const struct report_item *it);

/*
 * Add the samples of item it (REPORT_SAMPLED) to the total of the row of
 * each of frames[0..n) (it with that function: its stack's frames that
 * pass the filters), once per row however many frames fall in it.  Rows
 * met only here have no self time.  0 or -ENOMEM.
 */
int rowtab__add_total(struct rowtab *t, const struct report_item *it,
		      const struct func *const *frames, size_t n);

/* Hand over the rows (unsorted; the table is left empty).  NULL and 0 when empty. */
struct report_row *rowtab__take(struct rowtab *t, size_t *n);

/* How rows are ordered. */
struct row_order {
	int sort_name;		   /* by the keys' names in order, else most time first */
	int keys[REPORT_MAX_KEYS]; /* the order the names are compared in */
	size_t nkeys;
	int by_tid;	  /* group by tid first (an image's rows per thread) */
	int children;	  /* most total first (--children), then most self */
	double period_ns; /* ns of CPU time per sample */
	int value;	  /* enum report_value (not AUTO): what "most" means */
};

void report_rows__sort(struct report_row *rows, size_t n, const struct row_order *ord);

/* What a listing leaves out. */
struct row_limits {
	long top;	      /* at most this many rows, 0 = all */
	double percent_limit; /* rows below this share of of_seconds */
	double of_seconds;    /* what percentages are a share of */
	double period_ns;     /* [unsampled] rows of at most this are remainders: not listed */
	int children;	      /* the percent limit applies to the total (--children) */
	int value;	      /* enum report_value (not AUTO): of_seconds and the limit are of it */
};

/* The listed rows of rows[0..n) (sorted) into out (a copy).  0 or -ENOMEM. */
int report_rows__list(const struct report_row *rows, size_t n, const struct row_limits *lim,
		      struct report_list *out);

/* CPU time of a row in ns. */
static inline double report_rows__ns(const struct report_row *r, double period_ns)
{
	return (double)r->count * period_ns + (double)r->ns;
}

/* CPU time of a row's total in ns (rows of other kinds than samples have no stacks). */
static inline double report_rows__total_ns(const struct report_row *r, double period_ns)
{
	return (double)r->total * period_ns + (double)r->ns;
}

/* The ns of value (enum report_value, not AUTO) of CPU ns cpu and off-CPU ns off[]. */
static inline double report_rows__value_of(int value, double cpu, const uint64_t *off)
{
	switch (value) {
	case REPORT_VALUE_WALL:
		return cpu + (double)off[0];
	case REPORT_VALUE_OFFCPU:
		return (double)off[0];
	case REPORT_VALUE_SLEEP:
	case REPORT_VALUE_BLOCKED:
	case REPORT_VALUE_PREEMPTED:
	case REPORT_VALUE_STOPPED:
		return (double)off[value - REPORT_VALUE_SLEEP + 1];
	default:
		return cpu;
	}
}

/* A row's value in ns, self or total. */
static inline double report_rows__value_ns(const struct report_row *r, double period_ns, int value,
					   int total)
{
	return total ? report_rows__value_of(value, report_rows__total_ns(r, period_ns),
					     r->off_total) :
		       report_rows__value_of(value, report_rows__ns(r, period_ns), r->off_ns);
}

#endif /* PROFIL_REPORT_REPORT_ROWS_H */
