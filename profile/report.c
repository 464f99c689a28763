// SPDX-License-Identifier: MIT
/*
 * The report's model: samples summed by function row with hash tables
 * (utils/htab), every unique (object, address) symbolised once by the
 * resolver, so big profiles load in seconds.  See report.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/report.h"
#include "utils/htab.h"
#include "utils/why.h"

/* ---- aggregation ---------------------------------------------------------- */

/* Rows counted by function: the key is the interned function pointer. */
static uint64_t row_hash(const void *key)
{
	uint64_t h = (uintptr_t) * (const struct func *const *)key * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 32);
}

static bool row_eq(const void *entry, const void *key)
{
	return ((const struct report_row *)entry)->f == *(const struct func *const *)key;
}

static const struct htab_type row_type = {
	.entry_size = sizeof(struct report_row),
	.hash = row_hash,
	.eq = row_eq,
};

/* 64 slots to start with: most processes and threads have few functions. */
#define ROWS_EXPECTED 31

static int rowtab_add(struct htab *t, const struct func *f, uint64_t count)
{
	bool fresh;
	struct report_row *r = htab__insert(t, &row_type, &f, &fresh);

	if (!r)
		return -ENOMEM;
	r->f = f;
	r->count += count;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_name(const struct report_row *x, const struct report_row *y)
{
	int c = cmp_str(x->f->name, y->f->name);

	if (!c)
		c = cmp_str(x->f->objpath, y->f->objpath);
	if (!c)
		c = cmp_str(x->f->file, y->f->file);
	if (!c)
		c = x->f->line - y->f->line;
	return c;
}

static int cmp_row_self(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_name(x, y);
}

static int cmp_row_name(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c = cmp_name(x, y);

	if (c)
		return c;
	return x->count > y->count ? -1 : x->count < y->count;
}

/* Hand over the rows of t, sorted (t is left empty). */
static void rowtab_finish(struct htab *t, int sort_name, struct report_row **rows, size_t *n)
{
	*rows = htab__take(t, n);
	if (*n > 1)
		qsort(*rows, *n, sizeof(**rows), sort_name ? cmp_row_name : cmp_row_self);
}

static int add_thread(struct report *rep, struct report_proc *op, struct htab *tt, int tid,
		      uint64_t samples)
{
	const struct pv_thread *th = pv_proc__thread(op->p, tid);
	struct report_thread *n = realloc(op->threads, (op->nthreads + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	op->threads = n;
	n = &op->threads[op->nthreads++];
	n->tid = tid;
	n->comm = th ? th->comm : "";
	n->samples = samples;
	n->rows = NULL;
	n->nrows = 0;
	if (rep->o.threads)
		rowtab_finish(tt, rep->o.sort_name, &n->rows, &n->nrows);
	return 0;
}

/* Samples are sorted by (proc, tid, pc): one pass builds process and thread tables. */
static int aggregate_proc(struct report *rep, struct report_proc *op, size_t *at)
{
	struct pview *v = rep->v;
	struct htab *pt = htab__new(&row_type, ROWS_EXPECTED), *tt = NULL;
	int rc = pt ? 0 : -ENOMEM;

	while (!rc && *at < v->nsamples && v->samples[*at].proc == op->p->id) {
		int tid = v->samples[*at].tid;
		uint64_t tsamples = 0;

		if (rep->o.threads) {
			tt = htab__new(&row_type, ROWS_EXPECTED);
			rc = tt ? 0 : -ENOMEM;
		}
		for (; !rc && *at < v->nsamples && v->samples[*at].proc == op->p->id &&
		       v->samples[*at].tid == tid;
		     (*at)++) {
			const struct pv_sample *s = &v->samples[*at];
			const struct func *f = resolver__pc(rep->r, op->p, s->pc, s->count);

			if (!f) {
				rc = -ENOMEM;
				break;
			}
			tsamples += s->count;
			rc = rowtab_add(pt, f, s->count);
			if (!rc && rep->o.threads)
				rc = rowtab_add(tt, f, s->count);
		}
		if (!rc)
			rc = add_thread(rep, op, tt, tid, tsamples);
		htab__free(tt);
		tt = NULL;
	}
	if (!rc)
		rowtab_finish(pt, rep->o.sort_name, &op->rows, &op->nrows);
	htab__free(pt);
	return rc;
}

static int aggregate(struct report *rep)
{
	struct pview *v = rep->v;
	size_t at = 0;

	rep->procs = calloc(v->nprocs ? v->nprocs : 1, sizeof(*rep->procs));
	if (!rep->procs)
		return -ENOMEM;
	for (size_t i = 0; i < v->nprocs; i++) {
		int rc;

		rep->procs[i].p = &v->procs[i];
		/* samples of this proc start at 'at' (both sorted by proc id) */
		while (at < v->nsamples && v->samples[at].proc < v->procs[i].id)
			at++;
		rc = aggregate_proc(rep, &rep->procs[i], &at);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- notes about objects -------------------------------------------------- */

static void add_note(struct report *rep, const char *fmt, const char *a, const char *b)
{
	char buf[512];
	char **n;

	snprintf(buf, sizeof(buf), fmt, a, b);
	n = realloc(rep->notes, (rep->nnotes + 1) * sizeof(*n));
	if (!n)
		return;
	rep->notes = n;
	rep->notes[rep->nnotes] = strdup(buf);
	if (rep->notes[rep->nnotes])
		rep->nnotes++;
}

static void collect_notes(struct report *rep)
{
	const struct resolve_note *notes;
	size_t n = resolver__notes(rep->r, &notes);

	if (rep->v->bad_records)
		add_note(rep, "%s malformed record(s) in the profile were ignored%s",
			 rep->v->bad_records == 1 ? "one" : "some", "");
	for (size_t i = 0; i < n; i++) {
		struct sym_object *o = notes[i].obj;
		unsigned fl = symobj__flags(o);
		const char *path = symobj__path(o);

		if (fl & SYMOBJ_PSEUDO)
			continue;
		if (fl & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF)) {
			add_note(rep, "%s: %s; its code is shown as file offsets", path,
				 (fl & SYMOBJ_MISSING) ? "binary is gone or unreadable" :
							 "not a readable ELF file");
			continue;
		}
		if (fl & SYMOBJ_BY_BUILD_ID)
			add_note(rep, "%s: gone or rebuilt since it was recorded; %s", path,
				 symobj__why(o));
		else if (fl & SYMOBJ_BUILD_ID_DIFFERS)
			add_note(rep, "%s: %s", path,
				 "rebuilt after it was recorded (its build id differs); names may "
				 "be wrong");
		else if (!(fl & SYMOBJ_BUILD_ID_MATCH) && notes[i].first_start_ns != UINT64_MAX &&
			 (uint64_t)symobj__mtime(o) > notes[i].first_start_ns / 1000000000ull + 1)
			add_note(rep, "%s: %s", path,
				 "modified after it was recorded; names may be wrong");
		else if (notes[i].no_vaddr)
			add_note(rep, "%s: %s", path,
				 "some addresses are outside its segments (binary changed?)");
		/* only where it matters: some samples could not be named */
		if ((fl & SYMOBJ_NOSYMS) && notes[i].unnamed)
			add_note(rep, "%s: %s", path,
				 "no symbols; its code is shown as address ranges");
		else if ((fl & SYMOBJ_DYNSYM) && notes[i].unnamed)
			add_note(rep, "%s: %s", path,
				 "stripped; names from .dynsym, other code as address ranges");
		if (fl & SYMOBJ_STATIC)
			add_note(rep, "%s: %s", path,
				 "statically linked; library code is part of the executable");
		if (rep->o.lines && !(fl & SYMOBJ_HAS_DWARF) && symobj__nsyms(o) &&
		    !(fl & SYMOBJ_DYNSYM))
			add_note(rep, "%s: %s", path, "no DWARF line information");
	}
}

int report__load(struct report **out, const char *path, const struct report_opts *o, char *why,
		 size_t whylen)
{
	struct report *rep = calloc(1, sizeof(*rep));
	int rc;

	if (!rep)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	rep->o = *o;
	rc = pview__load(&rep->v, path, why, whylen);
	if (rc < 0) {
		free(rep);
		return rc;
	}
	if (rep->v->hdr.period_ns)
		rep->period_s = (double)rep->v->hdr.period_ns / 1e9;
	else if (rep->v->hdr.nominal_hz)
		rep->period_s = 1.0 / rep->v->hdr.nominal_hz;
	rep->r = resolver__new(rep->v, rep->o.lines);
	rc = rep->r ? aggregate(rep) : -ENOMEM;
	if (rc < 0) {
		report__free(rep);
		return why_fail(why, whylen, rc, "out of memory");
	}
	collect_notes(rep);
	*out = rep;
	return 0;
}

void report__free(struct report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; rep->procs && i < rep->v->nprocs; i++) {
		free(rep->procs[i].rows);
		for (size_t t = 0; t < rep->procs[i].nthreads; t++)
			free(rep->procs[i].threads[t].rows);
		free(rep->procs[i].threads);
	}
	free(rep->procs);
	for (size_t i = 0; i < rep->nnotes; i++)
		free(rep->notes[i]);
	free(rep->notes);
	resolver__free(rep->r);
	pview__free(rep->v);
	free(rep);
}
