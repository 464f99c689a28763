/* SPDX-License-Identifier: MIT */
/*
 * output/: every writer of what profil read, each taking the report's model
 * (report/report.h, with its call-stack parts report/cgreport.h and the
 * comparison of two profiles report/diff.h) or the profile's view
 * (profile/pview.h).  This header is the interface of both for the commands:
 *
 *   the report           text, JSON, CSV (below)
 *   output/html.h        report --format html: one self-contained page
 *   output/pprof.h       export: pprof's profile.proto, gzipped
 *   output/gmon.h        export: gmon.out for GNU gprof
 *   output/folded.h      export: collapsed stacks (flamegraph.pl, speedscope)
 *   profil diff          text, JSON, HTML (a differential flame graph), pprof (below)
 */
#ifndef PROFIL_OUTPUT_OUTPUT_H
#define PROFIL_OUTPUT_OUTPUT_H

#include <stdio.h>

#include "output/folded.h"
#include "output/gmon.h"
#include "output/html.h"
#include "output/pprof.h"
#include "report/cgreport.h"
#include "report/diff.h"
#include "report/report.h"

struct json_object;

/*
 * ---- the report's writers: output/report_text.c and output/report_json.c.
 * 0, or -errno (write error, out of memory).  cr: the call-stack parts
 * (report/cgreport.h: the trees, the JSON stacks), or NULL.
 */

/*
 * The text report: header, the whole run, and with images (or o.threads)
 * each image's rows; each table followed by its trees (cr).
 */
int report__write_text(struct report *rep, const struct cgreport *cr, FILE *out, const char *input,
		       int images);

/* The JSON report (doc/report-json.md), streamed image by image. */
int report__write_json(struct report *rep, const struct cgreport *cr, FILE *out);

/*
 * CSV (doc/report-json.md): run = 0, one row per image's function (and
 * thread with o.threads) as in version 1; run = 1, the whole run's rows.
 */
int report__write_csv(struct report *rep, FILE *out, int run);

/* ---- the report's call-stack parts (output/cgreport_write.c): text ---- */

/* "# call stacks: ..." header line, when the profile has stacks or o asks for them. */
void cgreport__text_header(const struct cgreport *cr, FILE *out);

/*
 * The trees o asks for, after their table: of the whole run (ci NULL), of
 * image ci (thread CGREPORT_PROCESS) or of its thread index thread (an
 * index into its report_proc.threads).
 */
void cgreport__text_trees(const struct cgreport *cr, const struct cgreport_image *ci, size_t thread,
			  FILE *out);

/* ---- JSON: fields for the report's stream (report_json.c) ---- */

/* Top level, of m's profile: callgraph, truncated_samples, stacks_dropped, into o.  0 or -ENOMEM. */
int cgreport__json_top(const struct report *m, struct json_object *o);

/* The whole run's call_graph, callers, callees and their frames, into o.  0 or -ENOMEM. */
int cgreport__json_run(const struct cgreport *cr, struct json_object *o);

/*
 * The process object o of image ci (as the report writes it, with its
 * "threads"): its stacks, its trees and its threads' trees, and the frames
 * they refer to.  0 or -ENOMEM.
 */
int cgreport__json_image(const struct cgreport *cr, const struct cgreport_image *ci,
			 struct json_object *o);

/* ---- profil diff's writers (output/diff_write.c) ---- */

/* What the writers of a comparison show beside it. */
struct diff_print {
	const char *old_path, *new_path; /* the profiles as named on the command line */
	long top;			 /* rows per table, 0 = all */
	int normalize; /* html: the page first compares shares (else seconds); pprof: NEW scaled to OLD's totals */
};

/* The comparison as text.  0, or -EIO (a write error). */
int diff__write_text(const struct diff *d, const struct diff_print *o, FILE *out);

/* The comparison as one JSON document.  0, or -ENOMEM, or -EIO. */
int diff__write_json(const struct diff *d, const struct diff_print *o, FILE *out);

/* The JSON document of the comparison (what diff__write_json writes), or NULL: out of memory. */
struct json_object *diff__json(const struct diff *d, const struct diff_print *o);

/*
 * The differential flame graph (output/diff_html.c): both profiles' stacks
 * merged, each frame coloured by its change, and the comparison's tables, in
 * one self-contained page written to path ("-": stdout) as the report's page
 * is (output/html.h).  0, or -errno with one sentence in why.
 */
int diff__write_html(const struct diff *d, const struct diff_print *o, const char *path, char *why,
		     size_t whylen);

/*
 * The comparison as ONE pprof profile (output/pprof.h) that go tool pprof
 * reads as it reads `-diff_base OLD NEW`: NEW's samples as they are, OLD's
 * negated and labelled pprof::base=true (o->normalize: NEW's values scaled
 * to OLD's totals, as pprof -normalize -diff_base does).  path as
 * pprof__export's.  sum (may be NULL): NEW's and OLD's figures summed.
 * 0, or -errno with one sentence in why.
 */
int diff__write_pprof(const struct diff *d, const struct diff_print *o, const char *path,
		      struct pprof_summary *sum, char *why, size_t whylen);

#endif /* PROFIL_OUTPUT_OUTPUT_H */
