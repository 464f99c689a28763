// SPDX-License-Identifier: MIT
/*
 * stack_query: the test suite's reading of the call stacks of a profile,
 * through profile/pview.h and report/resolve.h (independent of the
 * reports of stacks).
 *
 *   stack_query FILE header
 *       callgraph=NAME state=N samples=N lost=N dropped=N truncated=N stacks_dropped=N
 *       stacked=N frames=N stacks=N
 *       note TEXT
 *       (stacked: samples that carry a stack; frames: frame nodes in use; stacks:
 *       distinct call stacks)
 *   stack_query FILE count [FILTER...]
 *       the samples that pass every filter:
 *         --tid-of FUNC   the sample's thread has samples whose stack holds FUNC
 *         --leaf FUNC     the innermost frame is in FUNC
 *         --in OBJ        the innermost frame is in an object whose name starts with OBJ
 *         --has FUNC      some frame is in FUNC
 *         --complete      the stack was not cut short
 *   stack_query FILE folded
 *       one line per distinct stack: "f0;f1;...;leaf COUNT", outermost first
 *       ("[truncated]" first when cut short)
 *
 * Callers' frames are looked up at their return address minus one.
 * Exit status 1 (and one line on stderr) when the file cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pview.h"
#include "report/resolve.h"

#define MAX_FILTERS 16

struct filter {
	const char *kind; /* "--leaf", "--in", "--has", "--complete", "--tid-of" */
	const char *arg;
};

struct query {
	const struct pview *v;
	struct resolver *r;
	struct filter f[MAX_FILTERS];
	int nf;
	int *tids; /* --tid-of: the threads that pass */
	size_t ntids;
};

/* The function of frame i of sample s, whose stack st has the PCs pcs (pview__stack_pcs). */
static const struct func *frame(struct query *q, const struct pv_sample *s,
				const struct pv_stack *st, const uint64_t *pcs, uint32_t i)
{
	const struct pv_proc *p = pview__proc(q->v, s->proc);
	uint64_t pc = st->n ? pcs[i] : s->pc;

	if (!p)
		return NULL;
	return resolver__pc(q->r, p, s->gen, i ? pc - 1 : pc, 0);
}

static int has_func(struct query *q, const struct pv_sample *s, const char *name)
{
	const struct pv_stack *st = pview__stack(q->v, s->stack);
	uint64_t pcs[PDATA_MAX_DEPTH];
	uint32_t n = pview__stack_pcs(q->v, st, pcs, PDATA_MAX_DEPTH);

	n += !n;
	for (uint32_t i = 0; i < n; i++) {
		const struct func *f = frame(q, s, st, pcs, i);

		if (f && !strcmp(f->name, name))
			return 1;
	}
	return 0;
}

static int tid_listed(const struct query *q, int tid)
{
	for (size_t i = 0; i < q->ntids; i++)
		if (q->tids[i] == tid)
			return 1;
	return 0;
}

static int passes(struct query *q, const struct pv_sample *s)
{
	const struct pv_stack *st = pview__stack(q->v, s->stack);
	uint64_t pcs[PDATA_MAX_DEPTH];

	pview__stack_pcs(q->v, st, pcs, 1);
	for (int k = 0; k < q->nf; k++) {
		const struct filter *f = &q->f[k];
		const struct func *leaf = frame(q, s, st, pcs, 0);

		if (!strcmp(f->kind, "--complete") && (!st->n || st->truncated))
			return 0;
		if (!strcmp(f->kind, "--leaf") && (!leaf || strcmp(leaf->name, f->arg)))
			return 0;
		if (!strcmp(f->kind, "--in") &&
		    (!leaf || strncmp(leaf->object, f->arg, strlen(f->arg))))
			return 0;
		if (!strcmp(f->kind, "--has") && !has_func(q, s, f->arg))
			return 0;
		if (!strcmp(f->kind, "--tid-of") && !tid_listed(q, s->tid))
			return 0;
	}
	return 1;
}

/* --tid-of FUNC: the threads with a sample whose stack holds FUNC. */
static int find_tids(struct query *q, const char *func)
{
	for (size_t i = 0; i < q->v->nsamples; i++) {
		const struct pv_sample *s = &q->v->samples[i];

		if (tid_listed(q, s->tid) || !has_func(q, s, func))
			continue;
		q->tids = realloc(q->tids, (q->ntids + 1) * sizeof(int));
		if (!q->tids)
			return -1;
		q->tids[q->ntids++] = s->tid;
	}
	return 0;
}

static int count(struct query *q)
{
	uint64_t n = 0;

	for (size_t i = 0; i < q->v->nsamples; i++)
		if (passes(q, &q->v->samples[i]))
			n += q->v->samples[i].count;
	printf("%llu\n", (unsigned long long)n);
	return 0;
}

static void print_stack(struct query *q, const struct pv_sample *s)
{
	const struct pv_stack *st = pview__stack(q->v, s->stack);
	uint64_t pcs[PDATA_MAX_DEPTH];
	uint32_t n = pview__stack_pcs(q->v, st, pcs, PDATA_MAX_DEPTH);

	n += !n;
	if (st->truncated)
		printf("[truncated];");
	for (uint32_t i = n; i-- > 0;) {
		const struct func *f = frame(q, s, st, pcs, i);

		printf("%s%s", f ? f->name : "?", i ? ";" : "");
	}
	printf(" %llu\n", (unsigned long long)s->count);
}

static int folded(struct query *q)
{
	for (size_t i = 0; i < q->v->nsamples; i++)
		print_stack(q, &q->v->samples[i]);
	return 0;
}

static int header(const struct pview *v, const char *path)
{
	uint64_t stacked = 0;
	struct pdata *p;
	uint32_t frames = 0;
	char why[256];

	if (pdata__open(&p, path, 0, why, sizeof(why)) == 0) {
		frames = pdata__frames_used(p);
		pdata__close(p);
	}
	for (size_t i = 0; i < v->nsamples; i++)
		if (v->samples[i].stack)
			stacked += v->samples[i].count;
	printf("callgraph=%s state=%u samples=%llu lost=%llu dropped=%llu truncated=%llu "
	       "stacks_dropped=%llu stacked=%llu frames=%u stacks=%zu\n",
	       pdata__callgraph_name(v->hdr.callgraph), v->hdr.state,
	       (unsigned long long)v->hdr.samples, (unsigned long long)v->hdr.lost,
	       (unsigned long long)v->hdr.dropped, (unsigned long long)v->hdr.truncated,
	       (unsigned long long)v->hdr.stacks_dropped, (unsigned long long)stacked, frames,
	       v->nstacks ? v->nstacks - 1 : 0);
	printf("note %s\n", v->hdr.clock_note);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: stack_query FILE header|folded|count [--leaf F|--in OBJ|--has F|"
			"--tid-of F|--complete]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct query q = {0};
	struct pview *v;
	char why[256];
	int rc;

	if (argc < 3)
		return usage();
	if (pview__load(&v, argv[1], why, sizeof(why)) < 0) {
		fprintf(stderr, "stack_query: %s\n", why);
		return 1;
	}
	q.v = v;
	q.r = resolver__new(v, 0);
	for (int i = 3; i < argc && q.nf < MAX_FILTERS; i++) {
		q.f[q.nf].kind = argv[i];
		if (strcmp(argv[i], "--complete")) {
			if (i + 1 >= argc)
				return usage();
			q.f[q.nf].arg = argv[++i];
		}
		if (!strcmp(q.f[q.nf].kind, "--tid-of") && find_tids(&q, q.f[q.nf].arg) < 0)
			return 1;
		q.nf++;
	}
	if (!q.r)
		rc = 1;
	else if (!strcmp(argv[2], "header"))
		rc = header(v, argv[1]);
	else if (!strcmp(argv[2], "count"))
		rc = count(&q);
	else if (!strcmp(argv[2], "folded"))
		rc = folded(&q);
	else
		rc = usage();
	free(q.tids);
	resolver__free(q.r);
	pview__free(v);
	return rc;
}
