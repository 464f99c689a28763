/* SPDX-License-Identifier: MIT */
/*
 * gmon.out writer (GNU format, as binutils gprof reads it; facts in
 * shared/reference/semantics.md section 4).
 *
 * gprof symbolises against ONE executable, so the histogram covers the
 * text of one main executable: of all the executables the profile's
 * process images ran, the one with the most samples in its own code (the
 * samples of every image of it are summed: forks of one program add up);
 * on a tie, or when no sample is in any executable, the root process's.
 * Time in shared libraries cannot be shown by gprof and is left out.
 *
 * Addresses are link-time (load bias removed: a PIE matches its symbols);
 * the histogram spans the executable PT_LOAD segments at one u16 bin per
 * 2 bytes, gprof's resolution, so no bin straddles two functions (wider
 * bins for texts over 16 MiB, so that a histogram has at most 2^23 bins); prof_rate is the true effective rate round(1e9 / period_ns).
 * Bins above 65535 are carried without loss in extra histogram records
 * with exactly the same range, which gprof sums.
 *
 * Call graph: when the profile has call stacks, every caller -> callee
 * edge of a stack whose two functions are both in the executable's text
 * becomes a call-graph arc (tag 1 record: from_pc, self_pc, count), so that
 * `gprof -q` prints a call graph for a program never built with -pg.
 * from_pc is the call site (the caller's return address - 1, link-time),
 * self_pc the start of the callee's function.  An arc's count is the
 * number of SAMPLES whose stack held that edge (once per sample, however
 * often recursion repeats it), not a number of calls: gprof's "called"
 * column then reads "samples under this call", and its propagation of time
 * from callees to callers in proportion to these counts approximates the
 * inclusive time.  Counts above 2^31 - 1 are split into several records,
 * which gprof sums.
 *
 * The file is written through utils/outfile.h with pdata__output_rules: to
 * a temporary file in the destination directory, renamed into place, so
 * there is never a partial gmon.out; never through a symbolic link, never
 * over another user's file, a profile or a program.
 */
#ifndef PROFIL_GMON_H
#define PROFIL_GMON_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Write gmon.out for the profile at data_path to out_path.  Returns 0, or
 * -errno with one sentence in why.
 */
int gmon_export(const char *data_path, const char *out_path, char *why, size_t whylen);

/* What gmon_export_summary wrote. */
struct gmon_summary {
	char exe[PATH_MAX]; /* the executable the histogram is for */
	uint32_t rate;	    /* prof_rate written */
	uint64_t in_text;   /* samples in the histogram */
	uint64_t outside;   /* samples left out: other programs, shared libraries */
	uint64_t records;   /* histogram records (more than one: bins beyond 65535) */
	size_t arcs;	    /* distinct call-graph arcs (0 without call stacks) */
	int saturated;	    /* bins too large even for the extra records */
};

/* gmon_export, and a summary of what was written (sum may be NULL). */
int gmon_export_summary(const char *data_path, const char *out_path, struct gmon_summary *sum,
			char *why, size_t whylen);

#endif /* PROFIL_GMON_H */
