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

/*
 * The call graphs of one image's rows pr (report__proc), and of its threads
 * with --threads, for as long as a writer shows it: built when o asks for
 * trees, or for json when the profile has stacks (its "stacks").  *out is
 * NULL when nothing is asked.  0 or -ENOMEM.
 */
int cgreport__image(const struct cgreport *cr, const struct report_proc *pr, int json,
		    struct cgreport_image **out);
void cgreport_image__free(struct cgreport_image *ci);

/*
 * ---- the model the writers read (output/cgreport_write.c) ----
 */

/* What is shown of one scope: the whole run, a process image or one of its threads. */
struct cg_scope {
	struct callgraph *cg;
	struct cg_tree *tree;	 /* --call-graph */
	struct cg_tree *callers; /* --callers */
	struct cg_tree *callees; /* --callees */
};

struct cgreport_image {
	const struct report_proc *pr;
	uint64_t of; /* the image's weight (callgraph__weigh): what percentages are a share of */
	struct cg_scope all;
	struct cg_scope *threads; /* with --threads and trees: parallel to pr->threads */
	size_t nthreads;
};

struct cgreport {
	struct report *m;
	struct cgreport_opts o;
	int has_stacks;
	int trees;	      /* o asks for trees */
	struct cg_scope *run; /* the whole run's, when o asks for trees */
	uint64_t run_of;      /* the run's weight: what its percentages are a share of */
	/*
	 * With off-CPU time (m->offcpu and off-CPU items): every graph also holds
	 * the off-CPU time of each stack (the items the filters and --reason keep;
	 * with a reason's value, that reason's only), and the trees are weighed by
	 * m->value in nanoseconds: CPU samples times the period, off-CPU ns, or
	 * both (wall).  Else by samples.
	 */
	int offcpu;
	uint64_t per_sample, per_off_ns; /* callgraph__set_weights of every graph */
	int off_reason;			 /* a reason's value: its enum pdata_kind, else 0 */
};

/* The seconds of n samples (the report's period). */
double cgreport__sample_seconds(const struct cgreport *cr, uint64_t n);

/* "wall time", "CPU time", "off-CPU time", "sleep time"...: what the weights are, or "samples". */
const char *cgreport__weight_name(const struct cgreport *cr);

/* The scope of (ci, thread): the run's when ci is NULL; NULL when nothing was built. */
const struct cg_scope *cgreport__scope(const struct cgreport *cr, const struct cgreport_image *ci,
				       size_t thread);

/* 1 when the tables give way to the trees (--callers, --callees). */
int cgreport__replaces_table(const struct cgreport *cr);

#endif /* PROFIL_CGREPORT_H */
