/* SPDX-License-Identifier: MIT */
/*
 * gmon.out writer (GNU format, as binutils gprof reads it; facts in
 * shared/reference/semantics.md section 4).
 *
 * gprof symbolises against ONE object, so the histogram covers the text
 * of one object: an executable or a shared library (gmon.out addresses are
 * link-time addresses of one object; `gprof LIBRARY gmon.out` reads a
 * library's).  It is the object asked for (gmon_opts.object), else the
 * object with the most samples, every process image's samples in it
 * summed (forks of one program add up); on a tie, or when no sample is in
 * any object, the root process's executable.  Samples elsewhere (other
 * objects, the kernel) cannot be shown by gprof and are left out.  An
 * object without a symbol table of its own (stripped) is exported, with a
 * warning: gprof will say it has no symbols.
 *
 * Addresses are link-time (load bias removed: a PIE matches its symbols);
 * the histogram spans the executable PT_LOAD segments at one u16 bin per
 * 2 bytes, gprof's resolution, so no bin straddles two functions (wider
 * bins for texts over 16 MiB, so that a histogram has at most 2^23 bins); prof_rate is the true effective rate round(1e9 / period_ns).
 * Bins above 65535 are carried without loss in extra histogram records
 * with exactly the same range, which gprof sums.
 *
 * Call graph: when the profile has call stacks, every caller -> callee
 * edge of a stack whose two functions are both in the chosen object's text
 * becomes a call-graph arc (tag 1 record: from_pc, self_pc, count), so that
 * `gprof -q` prints a call graph for a program never built with -pg.
 * from_pc is the call site (the caller's return address - 1, link-time),
 * self_pc the start of the callee's function.  An arc's count is the
 * number of SAMPLES whose stack held that edge (once per sample, however
 * often recursion repeats it), not a number of calls: gprof's "called"
 * column then reads "samples under this call", and its propagation of time
 * from callees to callers in proportion to these counts approximates the
 * inclusive time.  Counts above 2^31 - 1 are split into several records,
 * which gprof sums, up to 64 records (an arc saturates at 64 * (2^31 - 1)
 * samples, as bins do: a damaged count never makes the file huge).
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

/* Which object. */
struct gmon_opts {
	const char *object; /* a path, or a base name of an object of the profile; NULL: choose */
};

/* What gmon_export_opts wrote. */
struct gmon_summary {
	char exe[PATH_MAX];	  /* the object the histogram is for (as the profile names it) */
	uint32_t rate;		  /* prof_rate written */
	uint64_t in_text;	  /* samples in the histogram */
	uint64_t outside;	  /* samples left out: other objects, the kernel */
	uint64_t records;	  /* histogram records (more than one: bins beyond 65535) */
	int saturated;		  /* bins too large even for the extra records */
	size_t arcs;		  /* distinct call-graph arcs (0 without call stacks) */
	int arcs_saturated;	  /* arcs whose count exceeded what is written (ARC_MAX_COUNT) */
	int chosen;		  /* 1: chosen (no gmon_opts.object), 0: asked for */
	size_t objects;		  /* objects with samples */
	char why[PATH_MAX + 160]; /* why this object, one clause ("the object with the most ...") */
	char warning[PATH_MAX + 200]; /* "" or one sentence: stripped, no symbols */
	uint64_t offcpu_ns;	      /* off-CPU time of the profile, left out (CPU time only) */
};

/*
 * Write gmon.out for the profile at data_path to out_path, for the object
 * o says (o may be NULL).  Returns 0, or -errno with one sentence in why;
 * fills sum (may be NULL).
 */
int gmon_export_opts(const char *data_path, const char *out_path, const struct gmon_opts *o,
		     struct gmon_summary *sum, char *why, size_t whylen);


/*
 * What was written, for the user, on out: "PREFIX: OUT: N samples of OBJ at
 * R Hz (M elsewhere left out); WHY; read it with: gprof OBJ OUT", and the
 * warning when there is one ("PREFIX: warning: ...").
 */
void gmon_print_summary(FILE *out, const char *prefix, const char *out_path,
			const struct gmon_summary *sum);

#endif /* PROFIL_GMON_H */
