/* SPDX-License-Identifier: MIT */
/*
 * cgreport: the call-stack parts of `profil report` beside its rows (the
 * report's model, report/report.h, which with report_opts.children gives
 * every row its total, as `perf report --children`), on the call graph
 * (report/callgraph.h):
 *
 *   --call-graph ORDER[,PERCENT]
 *                      after each table, the tree of its stacks: caller
 *                      (top-down) or callee (bottom-up), nodes of at least
 *                      PERCENT of the scope's samples (default: the
 *                      --percent-limit when given, else 0.5, as perf)
 *   --callers FUNC     the tree of FUNC's callers, outwards
 *   --callees FUNC     the tree of FUNC's callees, inwards
 *                      (both instead of the table, with the same threshold)
 *
 * and the stacks themselves in the JSON report (doc/report-json.md).  The
 * scopes are the merged view's: the whole run (every image's samples, so a
 * function's node sums the images; percentages of the run's samples), each
 * process image (text --images, and every process object of the JSON;
 * percentages of the image's samples), each thread with --threads (of its
 * image's samples).  The samples are those the report's filters keep
 * (--pid, --tid, --comm, and --dso on the sample's own function).  Frames
 * are the report's function rows (so --lines splits them by source line).
 */
#ifndef PROFIL_CGREPORT_H
#define PROFIL_CGREPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/callgraph.h"
#include "report/report.h"

struct json_object;

#define CGREPORT_DEFAULT_THRESHOLD 0.5 /* percent, as perf's -g */
#define CGREPORT_PROCESS SIZE_MAX      /* thread argument: the whole image */

struct cgreport_opts {
	int children;	     /* --children (the totals are the model's: report_opts.children) */
	int call_graph;	     /* --call-graph given */
	enum cg_order order; /* its order */
	double threshold;    /* percent of the scope's samples: the smallest node of every
				tree shown (--call-graph's, else CGREPORT_DEFAULT_THRESHOLD) */
	int threshold_given; /* --call-graph gave the threshold (else --percent-limit sets it) */
	const char *callers; /* --callers FUNC, or NULL */
	const char *callees; /* --callees FUNC, or NULL */
};

struct cgreport;
struct cgreport_image;

/*
 * Parse the value of --call-graph: "caller" or "callee", optionally
 * ",PERCENT" (0 to 100).  Returns 0, or -EINVAL with one sentence in why.
 */
int cgreport__parse_call_graph(const char *arg, struct cgreport_opts *o, char *why, size_t whylen);

/* Whether o asks for anything of call stacks (besides the JSON stacks). */
int cgreport__wanted(const struct cgreport_opts *o);

/*
 * The call-stack parts of the report m for o (m outlives it): the whole
 * run's trees when o asks for trees.  Returns 0, -ENOMEM, or -ENOENT when
 * the function of --callers/--callees is on no stack the report keeps;
 * one sentence in why.
 */
int cgreport__new(struct cgreport **out, struct report *m, const struct cgreport_opts *o, char *why,
		  size_t whylen);
void cgreport__free(struct cgreport *cr);

/* 1 when the profile has call stacks (it was recorded with them). */
int cgreport__has_stacks(const struct report *m);

/*
 * The call graphs of one image's rows pr (report__proc), and of its threads
 * with --threads, for as long as a writer shows it: built when o asks for
 * trees, or for json when the profile has stacks (its "stacks").  *out is
 * NULL when nothing is asked.  0 or -ENOMEM.
 */
int cgreport__image(const struct cgreport *cr, const struct report_proc *pr, int json,
		    struct cgreport_image **out);
void cgreport_image__free(struct cgreport_image *ci);

/* ---- text ---- */

/* "# call stacks: ..." header line, when the profile has stacks or o asks for them. */
void cgreport__text_header(const struct cgreport *cr, FILE *out);

/* 1 when the tables give way to the trees (--callers, --callees). */
int cgreport__replaces_table(const struct cgreport *cr);

/*
 * The trees o asks for, after their table: of the whole run (ci NULL), of
 * image ci (thread CGREPORT_PROCESS) or of its thread index thread (an
 * index into its report_proc.threads).
 */
void cgreport__text_trees(const struct cgreport *cr, const struct cgreport_image *ci, size_t thread,
			  FILE *out);

/* ---- JSON: fields for the writer's stream (report_json.c) ---- */

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

#endif /* PROFIL_CGREPORT_H */
