/* SPDX-License-Identifier: MIT */
/*
 * folded: `profil export --format folded`, Brendan Gregg's collapsed
 * stacks, the input of flamegraph.pl, speedscope, Pyroscope and inferno:
 *
 *   COMMAND;OUTERMOST;...;CALLER;LEAF COUNT
 *
 * one line per distinct stack, root first, the leaf (where the samples hit)
 * last, then a space and the number of samples.  The first frame is the
 * command name of the process image: its main thread's name (what ps and
 * perf show), else its executable's base name, else "[unknown]".  Frames
 * are the function names of `profil report` (the same rows: callers looked
 * up at their return address - 1, kernel functions innermost, a stack cut
 * short under "[truncated]"); a flat profile gives COMMAND;LEAF lines.
 * Lines with the same text (the same command and stack, from any thread or
 * process) are summed, and sorted by their text, byte order (as
 * stackcollapse-perf.pl).  In names, ';' becomes ':' (as
 * stackcollapse-perf.pl does) and control characters become '?', so a
 * line is always one stack.
 *
 * Profiles with off-CPU time (record --off-cpu) can be folded by another
 * value (enum folded_value): off-CPU time, or wall time (CPU + off-CPU),
 * in nanoseconds, each off-CPU stack the one its thread left the CPU with
 * (kernel frames innermost, as the CPU samples'); CPU time stays samples.
 */
#ifndef PROFIL_FOLDED_H
#define PROFIL_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/pview.h"
#include "report/resolve.h"

/* What a line's count is. */
enum folded_value {
	FOLDED_CPU = 0,	   /* samples of CPU time */
	FOLDED_OFFCPU = 1, /* nanoseconds off the CPU */
	FOLDED_WALL = 2,   /* nanoseconds: samples x period + off the CPU */
};

/* What was written. */
struct folded_summary {
	uint64_t samples; /* sum of the counts */
	size_t lines;	  /* distinct stacks */
};

/*
 * The profile at data_path as folded stacks to out_path ("-": stdout; a
 * file is written to a temporary beside it and renamed: never a partial
 * file).  sum may be NULL.  Returns 0, or -errno with one sentence in why.
 */
int folded__export(const char *data_path, const char *out_path, struct folded_summary *sum,
		   char *why, size_t whylen);

/*
 * The same by value; -EINVAL with one sentence when the value is off-CPU
 * or wall time and the profile has none.
 */
int folded__export_value(const char *data_path, const char *out_path, int value,
			 struct folded_summary *sum, char *why, size_t whylen);

#endif /* PROFIL_FOLDED_H */
