/* SPDX-License-Identifier: MIT */
/*
 * The difference between two profiles (`profil diff OLD NEW`): both are
 * read into the report's model (report/report.h), their samples summed
 * across process images per function, per object and per command, and
 * every key seen in either profile becomes one row with both sides and
 * the change: share of all the profile's samples (percentage points) and
 * CPU seconds, and, where either profile has off-CPU time (record
 * --off-cpu), the off-CPU seconds (the time threads waited under the
 * function, the object, the command) and their share of the profile's
 * off-CPU time.  Rows are sorted by the size of the change.
 *
 * Keys are by base name, so that the same program run from two places
 * (./prog and /usr/bin/prog, two build trees) compares function by
 * function: a function is (name, object base name), an object its base
 * name, a command the base name of the process image's executable.
 */
#ifndef PROFIL_REPORT_DIFF_H
#define PROFIL_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

enum diff_sort {
	DIFF_SORT_SHARE,   /* by |delta share| (the default) */
	DIFF_SORT_SECONDS, /* by |delta seconds| (both profiles must know their period) */
	DIFF_SORT_OFFCPU,  /* by |delta off-CPU seconds| */
};

struct diff_opts {
	enum diff_sort sort;
	double threshold; /* rows whose |delta share| is below, in points, are left out (with
			     DIFF_SORT_OFFCPU: the share of off-CPU time) */
};

enum diff_table { DIFF_FUNCTIONS, DIFF_OBJECTS, DIFF_COMMANDS, DIFF_NTABLES };

/* One row's figures in one profile. */
struct diff_side {
	uint64_t samples;
	double share;	/* percent of all the profile's samples */
	double seconds; /* samples x the profile's period; 0 when the period is unknown */
	double offcpu_seconds; /* time off the CPU under it (0 without off-CPU time) */
	double offcpu_share;   /* percent of all the profile's off-CPU time */
};

struct diff_row {
	const char *name;   /* function name; the object or command base name in the other tables */
	const char *object; /* the object's base name (functions); NULL in the other tables */
	const char *path; /* full path of the object or executable, from NEW when it has the row */
	struct diff_side old, new;
	double delta_share;   /* new.share - old.share, points */
	double delta_seconds; /* new.seconds - old.seconds */
	double delta_offcpu_seconds; /* new.offcpu_seconds - old.offcpu_seconds */
	double delta_offcpu_share;   /* new.offcpu_share - old.offcpu_share, points */
};

struct diff {
	struct diff_opts o;
	struct report *old, *new; /* the two profiles as read (headers, totals, notes) */
	struct diff_row *rows[DIFF_NTABLES];
	size_t nrows[DIFF_NTABLES];
	int seconds_known; /* both profiles know their period: the seconds mean something */
	int offcpu;	   /* either profile has off-CPU time: the off-CPU figures mean something */
};

/*
 * Read both profiles and compare them.  Returns 0, or -errno with one
 * sentence in why (a profile that cannot be read, --sort seconds without
 * a known period, out of memory).
 */
int diff__load(struct diff **out, const char *old_path, const char *new_path,
	       const struct diff_opts *o, char *why, size_t whylen);
void diff__free(struct diff *d);

/* "functions", "objects", "commands". */
const char *diff__table_name(enum diff_table t);

#endif /* PROFIL_REPORT_DIFF_H */
