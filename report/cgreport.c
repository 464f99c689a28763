// SPDX-License-Identifier: MIT
/*
 * cgreport: --call-graph, --callers, --callees and the JSON stacks of
 * `profil report` (see cgreport.h).  The whole run's graph is built once,
 * from every image's samples the filters keep; an image's (and its
 * threads') while a writer shows it, from the same samples.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/cgreport.h"
#include "utils/htab.h"
#include "utils/why.h"
#include "utils/search.h"

/* ---- options ------------------------------------------------------------------- */

int cgreport__parse_call_graph(const char *arg, struct cgreport_opts *o, char *why, size_t whylen)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	double t = CGREPORT_DEFAULT_THRESHOLD;
	char *end;

	if (len == 6 && !strncmp(arg, "caller", 6))
		o->order = CG_CALLER;
	else if (len == 6 && !strncmp(arg, "callee", 6))
		o->order = CG_CALLEE;
	else
		return why_fail(why, whylen, -EINVAL,
				"--call-graph wants caller or callee, optionally with ,PERCENT "
				"(e.g. caller,0.5), not '%s'",
				arg);
	if (comma) {
		errno = 0;
		t = strtod(comma + 1, &end);
		if (errno || end == comma + 1 || *end || !(t >= 0 && t <= 100))
			return why_fail(why, whylen, -EINVAL,
					"--call-graph: the threshold must be a percentage from 0 "
					"to 100, not '%s'",
					comma + 1);
	}
	o->call_graph = 1;
	o->threshold = t;
	o->threshold_given = comma != NULL;
	return 0;
}

int cgreport__wanted(const struct cgreport_opts *o)
{
	return o->children || o->call_graph || o->callers || o->callees;
}

static int trees_wanted(const struct cgreport_opts *o)
{
	return o->call_graph || o->callers || o->callees;
}

/* 1 when the profile has call stacks (it was recorded with them). */
static int cgreport__has_stacks(const struct report *m)
{
	return m->v->hdr.callgraph != PDATA_CG_NONE || m->v->nstacks > 1;
}

/* ---- building ------------------------------------------------------------------------ */

static void scope_free(struct cg_scope *sc)
{
	callgraph__free(sc->cg);
	cg_tree__free(sc->tree);
	cg_tree__free(sc->callers);
	cg_tree__free(sc->callees);
	memset(sc, 0, sizeof(*sc));
}

static int scope_finish(const struct cgreport *cr, struct cg_scope *sc)
{
	const struct cgreport_opts *o = &cr->o;
	int rc = 0;

	if (o->call_graph)
		rc = callgraph__tree(sc->cg, o->order, NULL, &sc->tree);
	if (!rc && o->callers)
		rc = callgraph__tree(sc->cg, CG_CALLEE, o->callers, &sc->callers);
	if (!rc && o->callees)
		rc = callgraph__tree(sc->cg, CG_CALLER, o->callees, &sc->callees);
	return rc;
}

/* Where a sample item goes: a graph (the run's merges the threads: tid 0), and a thread's. */
struct fill {
	const struct cgreport *cr;
	struct callgraph *cg;
	int keep_tid;
	struct cgreport_image *ci; /* an image's threads, or NULL */
};

/* The index of thread tid in pr->threads (in tid order), or pr->nthreads. */
static size_t thread_index(const struct report_proc *pr, int tid)
{
	size_t lo = SEARCH_LOWER(pr->threads, pr->nthreads, tid, tid);

	return lo < pr->nthreads && pr->threads[lo].tid == tid ? lo : pr->nthreads;
}

/* samples and off-CPU ns weighed as every graph of cr weighs them. */
static uint64_t weigh(const struct cgreport *cr, uint64_t samples, uint64_t off_ns)
{
	return callgraph__weight_of(cr->per_sample, cr->per_off_ns, samples, off_ns);
}

/* A graph weighed as the report's value (cgreport.h). */
static struct callgraph *new_graph(const struct cgreport *cr)
{
	struct callgraph *cg = callgraph__new();

	if (cg)
		callgraph__set_weights(cg, cr->per_sample, cr->per_off_ns);
	return cg;
}

/* The graphs' weights from the report's value (m->value, never AUTO). */
static void choose_weights(struct cgreport *cr)
{
	const struct report *m = cr->m;
	uint64_t period = (uint64_t)(m->period_s * 1e9 + 0.5);

	cr->per_sample = 1;
	cr->per_off_ns = 0;
	cr->offcpu = m->offcpu && m->v->noffcpu;
	if (!cr->offcpu)
		return;
	if (!period)
		period = 1;
	switch (m->value) {
	case REPORT_VALUE_WALL:
		cr->per_sample = period;
		cr->per_off_ns = 1;
		break;
	case REPORT_VALUE_CPU:
		cr->per_sample = period;
		break;
	default: /* off-CPU time, or one reason's */
		cr->per_sample = 0;
		cr->per_off_ns = 1;
		if (m->value >= REPORT_VALUE_SLEEP)
			cr->off_reason = m->value - REPORT_VALUE_SLEEP + 1;
		break;
	}
}

double cgreport__sample_seconds(const struct cgreport *cr, uint64_t n)
{
	return (double)n * cr->m->period_s;
}

const char *cgreport__weight_name(const struct cgreport *cr)
{
	static const char *const names[REPORT_VALUE_NR] = {
		[REPORT_VALUE_CPU] = "CPU time",
		[REPORT_VALUE_WALL] = "wall time",
		[REPORT_VALUE_OFFCPU] = "off-CPU time",
		[REPORT_VALUE_SLEEP] = "sleep time",
		[REPORT_VALUE_BLOCKED] = "blocked time",
		[REPORT_VALUE_PREEMPTED] = "preempted time",
		[REPORT_VALUE_STOPPED] = "stopped time",
	};
	int v = cr->m->value;

	if (!cr->offcpu || v <= REPORT_VALUE_AUTO || v >= REPORT_VALUE_NR)
		return "samples";
	return names[v];
}

/* The off-CPU ns of offcpu_ns[PDATA_KIND_NR] that the graphs weigh. */
static uint64_t off_of(const struct cgreport *cr, const uint64_t *offcpu_ns)
{
	return cr->offcpu ? offcpu_ns[cr->off_reason] : 0;
}

static int fill_item(void *arg, const struct report_item *it)
{
	struct fill *fl = arg;
	const struct report *m = fl->cr->m;
	const struct func *frames[CALLGRAPH_MAX_FRAMES];
	int truncated, n, rc;
	size_t t;

	int off = it->kind == REPORT_OFFCPU;
	int (*add)(struct callgraph *, int, const struct func *const *, uint32_t, int, uint64_t) =
		off ? callgraph__add_off : callgraph__add;

	if (off && fl->cr->off_reason && it->reason != (uint32_t)fl->cr->off_reason)
		return 0;
	n = callgraph__sample_frames(m->v, m->r, it->p, it->s, frames, &truncated);
	if (n < 0)
		return n;
	rc = add(fl->cg, fl->keep_tid ? it->tid : 0, frames, (uint32_t)n, truncated,
		 off ? it->ns : it->count);
	if (rc < 0 || !fl->ci || !fl->ci->threads)
		return rc;
	t = thread_index(fl->ci->pr, it->tid);
	if (t == fl->ci->nthreads)
		return 0; /* cannot happen: the image's rows have the thread of every item */
	return add(fl->ci->threads[t].cg, it->tid, frames, (uint32_t)n, truncated,
		   off ? it->ns : it->count);
}

/* The samples and, with off-CPU time, the off-CPU items of image i that the filters keep. */
static int fill_image(struct cgreport *cr, size_t i, struct fill *fl)
{
	int rc = report__sampled_items(cr->m, i, fill_item, fl);

	if (!rc && cr->offcpu)
		rc = report__offcpu_items(cr->m, i, fill_item, fl);
	return rc;
}

static int build_run(struct cgreport *cr)
{
	struct fill fl = {cr, NULL, 0, NULL};
	int rc = 0;

	cr->run = calloc(1, sizeof(*cr->run));
	if (!cr->run || !(cr->run->cg = new_graph(cr)))
		return -ENOMEM;
	fl.cg = cr->run->cg;
	for (size_t i = 0; !rc && i < cr->m->v->nprocs; i++)
		rc = fill_image(cr, i, &fl);
	return rc ? rc : scope_finish(cr, cr->run);
}

static int filtered(const struct report *m)
{
	const struct report_filter *f = &m->o.filter;

	return f->npids || f->ntids || f->ncomms || f->ndsos;
}

int cgreport__new(struct cgreport **out, struct report *m, const struct cgreport_opts *o, char *why,
		  size_t whylen)
{
	struct cgreport *cr = calloc(1, sizeof(*cr));
	const char *missing = NULL;
	int rc = 0;

	*out = NULL;
	if (!cr)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	cr->m = m;
	cr->o = *o;
	/* --percent-limit is the trees' threshold too, unless --call-graph gave one (perf) */
	if (!o->threshold_given && m->o.percent_limit > 0)
		cr->o.threshold = m->o.percent_limit;
	cr->has_stacks = cgreport__has_stacks(m);
	cr->trees = trees_wanted(o);
	choose_weights(cr);
	cr->run_of = weigh(cr, m->totals.samples, off_of(cr, m->totals.offcpu_ns));
	if (cr->trees)
		rc = build_run(cr);
	if (rc < 0) {
		cgreport__free(cr);
		return why_fail(why, whylen, rc, "out of memory");
	}
	if (o->callers && !cg_tree__root(cr->run->callers)->weight)
		missing = o->callers;
	else if (o->callees && !cg_tree__root(cr->run->callees)->weight)
		missing = o->callees;
	if (missing) {
		cgreport__free(cr);
		return why_fail(why, whylen, -ENOENT, "no function named '%s' in the %s", missing,
				filtered(m) ? "samples the filters keep" : "profile");
	}
	*out = cr;
	return 0;
}

void cgreport__free(struct cgreport *cr)
{
	if (!cr)
		return;
	if (cr->run)
		scope_free(cr->run);
	free(cr->run);
	free(cr);
}

int cgreport__image(const struct cgreport *cr, const struct report_proc *pr, int json,
		    struct cgreport_image **out)
{
	struct cgreport_image *ci;
	struct fill fl = {cr, NULL, 1, NULL};
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!cr || !(cr->trees || (json && cr->has_stacks)))
		return 0;
	ci = calloc(1, sizeof(*ci));
	if (!ci || !(ci->all.cg = new_graph(cr))) {
		free(ci);
		return -ENOMEM;
	}
	ci->pr = pr;
	ci->of = weigh(cr, pr->img->p->samples, off_of(cr, pr->img->offcpu_ns));
	if (cr->trees && cr->m->o.threads && pr->nthreads) {
		ci->threads = calloc(pr->nthreads, sizeof(*ci->threads));
		rc = ci->threads ? 0 : -ENOMEM;
		ci->nthreads = ci->threads ? pr->nthreads : 0;
		for (size_t t = 0; !rc && t < ci->nthreads; t++)
			if (!(ci->threads[t].cg = new_graph(cr)))
				rc = -ENOMEM;
	}
	fl.cg = ci->all.cg;
	fl.ci = ci;
	i = (size_t)(pr->img - cr->m->images);
	if (!rc)
		rc = fill_image((struct cgreport *)cr, i, &fl);
	if (!rc && cr->trees)
		rc = scope_finish(cr, &ci->all);
	for (size_t t = 0; !rc && t < ci->nthreads; t++)
		rc = scope_finish(cr, &ci->threads[t]);
	if (rc) {
		cgreport_image__free(ci);
		return rc;
	}
	*out = ci;
	return 0;
}

void cgreport_image__free(struct cgreport_image *ci)
{
	if (!ci)
		return;
	scope_free(&ci->all);
	for (size_t t = 0; t < ci->nthreads; t++)
		scope_free(&ci->threads[t]);
	free(ci->threads);
	free(ci);
}

/* The scope of (ci, thread): the run's when ci is NULL; NULL when nothing was built. */
const struct cg_scope *cgreport__scope(const struct cgreport *cr, const struct cgreport_image *ci,
				       size_t thread)
{
	if (!ci)
		return cr->run;
	if (thread == CGREPORT_PROCESS)
		return &ci->all;
	return thread < ci->nthreads ? &ci->threads[thread] : NULL;
}

int cgreport__replaces_table(const struct cgreport *cr)
{
	return cr && (cr->o.callers || cr->o.callees);
}
