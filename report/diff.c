// SPDX-License-Identifier: MIT
/*
 * profil diff's model: two reports (report/report.h) summed per function,
 * object and command into one table each (utils/htab), both sides per row,
 * the change, the threshold, the order.  See diff.h.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "utils/sat.h"
#include "utils/why.h"

/* ---- the tables: (name, object) -> samples in each profile ---------------- */

/* The entry starts with its key (the type needs no entry_hash); object NULL in the object and
 * command tables. */
struct diff_entry {
	struct htab_name_key k;
	const char *path;
	uint64_t count[2]; /* [0] OLD, [1] NEW */
	uint64_t off[2];   /* off-CPU ns */
};

static const struct htab_type entry_type = {
	.entry_size = sizeof(struct diff_entry),
	.hash = htab_name_key_hash,
	.eq = htab_name_key_eq,
};

/* side: 0 OLD, 1 NEW.  The path shown is NEW's when NEW has the key. */
static int table_add(struct htab *t, const char *name, const char *object, const char *path,
		     int side, uint64_t count, uint64_t off)
{
	struct htab_name_key k = {name, object};
	bool fresh;
	struct diff_entry *e = htab__insert(t, &entry_type, &k, &fresh);

	if (!e)
		return -ENOMEM;
	if (fresh || side == 1)
		e->path = path;
	e->k = k;
	e->count[side] = sat_add(e->count[side], count);
	e->off[side] = sat_add(e->off[side], off);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The whole run's rows by function (load_side's key): samples per function and object. */
static int add_functions(struct htab **t, const struct report *rep, int side)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < rep->run.nrows; i++) {
		const struct report_row *r = &rep->run.rows[i];
		const struct func *f = r->f;

		if (r->kind != REPORT_SAMPLED || !f)
			continue; /* samples only: kernel accounting and unsampled time are not */
		rc = table_add(t[DIFF_FUNCTIONS], f->name, f->object, f->objpath, side, r->count,
			       r->off_ns[0]);
		if (!rc)
			rc = table_add(t[DIFF_OBJECTS], f->object, NULL, f->objpath, side, r->count,
				       r->off_ns[0]);
	}
	return rc;
}

static int add_report(struct htab **t, const struct report *rep, int side)
{
	int rc = add_functions(t, rep, side);

	for (size_t i = 0; !rc && i < rep->v->nprocs; i++) {
		const struct pv_proc *p = &rep->v->procs[i];
		const char *exe = p->exe[0] ? p->exe : "[unknown]";
		uint64_t off = rep->images[i].offcpu_ns[0];

		if (p->samples || off)
			rc = table_add(t[DIFF_COMMANDS], base_name(exe), NULL, exe, side,
				       p->samples, off);
	}
	return rc;
}

/* ---- rows ------------------------------------------------------------------ */

static struct diff_side side_of(const struct report *rep, uint64_t count, uint64_t off)
{
	uint64_t total = rep->v->total, off_total = rep->totals.offcpu_ns[0];

	return (struct diff_side){
		.samples = count,
		.share = total ? 100.0 * (double)count / (double)total : 0.0,
		.seconds = (double)count * rep->period_s,
		.offcpu_seconds = (double)off / 1e9,
		.offcpu_share = off_total ? 100.0 * (double)off / (double)off_total : 0.0,
	};
}

static int cmp_names(const struct diff_row *x, const struct diff_row *y)
{
	int c = strcmp(x->name, y->name);

	if (!c && x->object && y->object)
		c = strcmp(x->object, y->object);
	return c;
}

/* Bigger first; 0 when equal. */
static int cmp_desc(double a, double b)
{
	return a > b ? -1 : a < b;
}

/* Ties: the row that weighs more in either profile first, then by name. */
static int cmp_ties(const struct diff_row *x, const struct diff_row *y)
{
	int c = cmp_desc(fmax(x->old.share, x->new.share), fmax(y->old.share, y->new.share));

	return c ? c : cmp_names(x, y);
}

static int cmp_share(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c = cmp_desc(fabs(x->delta_share), fabs(y->delta_share));

	return c ? c : cmp_ties(x, y);
}

static int cmp_seconds(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c = cmp_desc(fabs(x->delta_seconds), fabs(y->delta_seconds));

	return c ? c : cmp_ties(x, y);
}

static int cmp_offcpu(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c = cmp_desc(fabs(x->delta_offcpu_seconds), fabs(y->delta_offcpu_seconds));

	if (!c)
		c = cmp_desc(fmax(x->old.offcpu_seconds, x->new.offcpu_seconds),
			     fmax(y->old.offcpu_seconds, y->new.offcpu_seconds));
	return c ? c : cmp_ties(x, y);
}

static int (*const row_order[])(const void *, const void *) = {
	[DIFF_SORT_SHARE] = cmp_share,
	[DIFF_SORT_SECONDS] = cmp_seconds,
	[DIFF_SORT_OFFCPU] = cmp_offcpu,
};

/* The entries of t as rows, filtered and sorted (t is left empty). */
static int table_rows(struct diff *d, struct htab *t, enum diff_table which)
{
	size_t n = 0, kept = 0;
	struct diff_entry *e = htab__take(t, &n);
	struct diff_row *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows) {
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct diff_row r = {
			.name = e[i].k.name,
			.object = e[i].k.object,
			.path = e[i].path,
			.old = side_of(d->old, e[i].count[0], e[i].off[0]),
			.new = side_of(d->new, e[i].count[1], e[i].off[1]),
		};

		r.delta_share = r.new.share - r.old.share;
		r.delta_seconds = r.new.seconds - r.old.seconds;
		r.delta_offcpu_seconds = r.new.offcpu_seconds - r.old.offcpu_seconds;
		r.delta_offcpu_share = r.new.offcpu_share - r.old.offcpu_share;
		if (fabs(d->o.sort == DIFF_SORT_OFFCPU ? r.delta_offcpu_share : r.delta_share) >=
		    d->o.threshold)
			rows[kept++] = r;
	}
	free(e);
	qsort(rows, kept, sizeof(*rows), row_order[d->o.sort]);
	d->rows[which] = rows;
	d->nrows[which] = kept;
	return 0;
}

static int compare(struct diff *d)
{
	struct htab *t[DIFF_NTABLES] = {0};
	int rc = 0;

	for (int i = 0; !rc && i < DIFF_NTABLES; i++)
		rc = (t[i] = htab__new(&entry_type, 64)) ? 0 : -ENOMEM;
	if (!rc)
		rc = add_report(t, d->old, 0);
	if (!rc)
		rc = add_report(t, d->new, 1);
	for (int i = 0; !rc && i < DIFF_NTABLES; i++)
		rc = table_rows(d, t[i], (enum diff_table)i);
	for (int i = 0; i < DIFF_NTABLES; i++)
		htab__free(t[i]);
	return rc;
}

/* ---- loading --------------------------------------------------------------- */

static int load_side(struct report **out, const char *which, const char *path, char *why,
		     size_t whylen)
{
	/* the whole run merged by function: every process's samples of it */
	struct report_opts ro = {.keys = {REPORT_KEY_SYM}, .nkeys = 1};
	char inner[400];
	int rc = report__load(out, path, &ro, inner, sizeof(inner));

	if (rc < 0)
		return why_fail(why, whylen, rc, "%s profile: %s", which, inner);
	return 0;
}

int diff__load(struct diff **out, const char *old_path, const char *new_path,
	       const struct diff_opts *o, char *why, size_t whylen)
{
	struct diff *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	d->o = *o;
	rc = load_side(&d->old, "old", old_path, why, whylen);
	if (!rc)
		rc = load_side(&d->new, "new", new_path, why, whylen);
	if (rc < 0)
		goto fail;
	d->seconds_known = d->old->period_s > 0 && d->new->period_s > 0;
	d->offcpu = d->old->offcpu || d->new->offcpu;
	if ((unsigned)o->sort >= ARRAY_SIZE(row_order)) {
		rc = why_fail(why, whylen, -EINVAL, "unknown sort order %d", (int)o->sort);
		goto fail;
	}
	if (o->sort == DIFF_SORT_OFFCPU && !d->offcpu) {
		rc = why_fail(why, whylen, -EINVAL,
			      "cannot sort by off-CPU time: neither profile has any (record "
			      "--off-cpu records it)");
		goto fail;
	}
	if (o->sort == DIFF_SORT_SECONDS && !d->seconds_known) {
		rc = why_fail(why, whylen, -EINVAL,
			      "cannot sort by seconds: the %s profile does not say how much CPU "
			      "time a sample stands for",
			      d->old->period_s > 0 ? "new" : "old");
		goto fail;
	}
	rc = compare(d);
	if (rc < 0) {
		why_fail(why, whylen, rc, "out of memory");
		goto fail;
	}
	*out = d;
	return 0;
fail:
	diff__free(d);
	return rc;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	for (int i = 0; i < DIFF_NTABLES; i++)
		free(d->rows[i]);
	report__free(d->old);
	report__free(d->new);
	free(d);
}

const char *diff__table_name(enum diff_table t)
{
	static const char *const names[DIFF_NTABLES] = {"functions", "objects", "commands"};

	return (unsigned)t < DIFF_NTABLES ? names[t] : "?";
}
