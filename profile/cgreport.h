/* SPDX-License-Identifier: MIT */
/*
 * cgreport: the call-stack parts of `profil report`, on top of the flat
 * report's model (profile/report.h) and the call graph (profile/callgraph.h):
 *
 *   --children         the table with a total (inclusive) column beside self,
 *                      every function on a stack, as `perf report --children`
 *   --call-graph ORDER[,PERCENT]
 *                      after each table, the tree of the stacks: caller
 *                      (top-down) or callee (bottom-up), nodes of at least
 *                      PERCENT of the process's samples (default 0.5, as perf)
 *   --callers FUNC     the tree of FUNC's callers, outwards
 *   --callees FUNC     the tree of FUNC's callees, inwards
 *                      (both with the threshold of --call-graph, default 0.5)
 *
 * and the stacks themselves in the JSON report (doc/report-json.md).  Per
 * process image, and per thread with --threads; percentages are of the
 * process's samples, as in the flat report.  Frames are the flat report's
 * rows (so --lines splits them by source line).
 */
#ifndef PROFIL_CGREPORT_H
#define PROFIL_CGREPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/callgraph.h"
#include "profile/report.h"

struct json_object;

#define CGREPORT_DEFAULT_THRESHOLD 0.5 /* percent, as perf's -g */
#define CGREPORT_PROCESS SIZE_MAX      /* thread argument: the whole process */

struct cgreport_opts {
	int children;	     /* --children */
	int call_graph;	     /* --call-graph given */
	enum cg_order order; /* its order */
	double threshold;    /* percent of the process's samples: the smallest node of every
				tree shown (--call-graph's, else CGREPORT_DEFAULT_THRESHOLD) */
	const char *callers; /* --callers FUNC, or NULL */
	const char *callees; /* --callees FUNC, or NULL */
	long top;	     /* at most this many rows in a --children table, 0 = all */
	int json;	     /* JSON output: the stacks are listed when the profile has them */
};

struct cgreport;

/*
 * Parse the value of --call-graph: "caller" or "callee", optionally
 * ",PERCENT" (0 to 100).  Returns 0, or -EINVAL with one sentence in why.
 */
int cgreport__parse_call_graph(const char *arg, struct cgreport_opts *o, char *why, size_t whylen);

/* Whether o asks for anything of this file (besides the JSON stacks). */
int cgreport__wanted(const struct cgreport_opts *o);

/*
 * The call-stack parts of the report m for o (m outlives it).  Builds the
 * call graphs only when o needs them.  Returns 0, -ENOMEM, or -ENOENT when
 * the function of --callers/--callees is on no stack of the profile; one
 * sentence in why.
 */
int cgreport__new(struct cgreport **out, const struct report *m, const struct cgreport_opts *o,
		  char *why, size_t whylen);
void cgreport__free(struct cgreport *cr);

/* 1 when the profile has call stacks (it was recorded with them). */
int cgreport__has_stacks(const struct report *m);

/* ---- text ---- */

/* "# call stacks: ..." header line(s), when the profile has stacks or o asks for them. */
void cgreport__text_header(const struct cgreport *cr, FILE *out);

/*
 * The table of process image proc (index into m->procs), or of its thread
 * index thread (CGREPORT_PROCESS: the whole process), when o replaces the
 * flat one: the --children table, or nothing with --callers/--callees
 * (only their trees are shown).  Returns 1 when the flat table is not to be
 * printed, 0 when it is.
 */
int cgreport__text_table(const struct cgreport *cr, size_t proc, size_t thread, FILE *out);

/* The trees o asks for, of the same scope; after the table. */
void cgreport__text_trees(const struct cgreport *cr, size_t proc, size_t thread, FILE *out);

/* ---- JSON (json-c objects of cmds/report.c's document) ---- */

/* Top level: callgraph, truncated_samples, stacks_dropped.  0 or -ENOMEM. */
int cgreport__json_top(const struct cgreport *cr, struct json_object *top);

/*
 * The process object o of process image proc (as the report prints it,
 * with its "functions" and "threads"): with --children its functions
 * arrays become the total tables; frames, stacks and the trees are added.
 * 0 or -ENOMEM.
 */
int cgreport__json_proc(const struct cgreport *cr, size_t proc, struct json_object *o);

/* ---- CSV ---- */

/* 1 when the CSV report is this file's (--children): then cgreport__csv prints it. */
int cgreport__csv_wanted(const struct cgreport *cr);
void cgreport__csv(const struct cgreport *cr, FILE *out);

#endif /* PROFIL_CGREPORT_H */
