// SPDX-License-Identifier: MIT
/* report_rows: rows summed by keys, sorted and listed.  See report_rows.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_rows.h"
#include "utils/htab.h"
#include "utils/sat.h"
#include "utils/cmp.h"

/* An entry: the row and the hash of its key (growing the table reads no string). */
struct row_ent {
	struct report_row row;
	uint64_t hash;
	uint64_t stamp; /* the last rowtab__add_total call that counted this row */
};

struct rowtab {
	struct htab *t;
	unsigned keymask; /* 1 << enum report_key */
	uint64_t stamp;	  /* rowtab__add_total calls so far */
};

static uint64_t str_hash(const char *s)
{
	return s ? htab_hash_str(s) : 0;
}

static uint64_t row_key_hash(const struct report_row *r)
{
	uint64_t h = htab_hash_u64((uint64_t)r->kind + 1);

	/* an interned function determines its object: hash the path only without one */
	h = htab_hash_combine(h, r->f ? (uintptr_t)r->f : str_hash(r->objpath));
	h = htab_hash_combine(h, str_hash(r->comm));
	h = htab_hash_combine(h, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)r->tid);
	h = htab_hash_combine(h, str_hash(r->cgroup));
	return h | 1; /* never 0: an entry is never all zero bytes */
}

static uint64_t ent_key_hash(const void *key)
{
	return row_key_hash(key);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool ent_eq(const void *entry, const void *key)
{
	const struct report_row *a = &((const struct row_ent *)entry)->row, *b = key;

	return a->f == b->f && a->kind == b->kind && a->pid == b->pid && a->tid == b->tid &&
	       (a->f || str_eq(a->objpath, b->objpath)) && str_eq(a->comm, b->comm) &&
	       str_eq(a->cgroup, b->cgroup);
}

static const struct htab_type row_type = {
	.entry_size = sizeof(struct row_ent),
	.hash = ent_key_hash,
	.eq = ent_eq,
	.stored_hash = HTAB_STORED_HASH(struct row_ent, hash),
};

/* 64 slots to start with: most images and threads have few functions. */
#define ROWS_EXPECTED 31

struct rowtab *rowtab__new(const int *keys, size_t nkeys)
{
	struct rowtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	for (size_t i = 0; i < nkeys; i++)
		t->keymask |= 1u << keys[i];
	t->t = htab__new(&row_type, ROWS_EXPECTED);
	if (!t->t) {
		free(t);
		return NULL;
	}
	return t;
}

void rowtab__free(struct rowtab *t)
{
	if (!t)
		return;
	htab__free(t->t);
	free(t);
}

/* The row key of an item: the table's keys, the others left zero. */
static void item_key(const struct rowtab *t, const struct report_item *it, struct report_row *k)
{
	memset(k, 0, sizeof(*k));
	k->kind = it->kind == REPORT_OFFCPU ? REPORT_SAMPLED : it->kind; /* the rows of code */
	if (t->keymask & (1u << REPORT_KEY_SYM))
		k->f = it->f;
	if (t->keymask & ((1u << REPORT_KEY_SYM) | (1u << REPORT_KEY_DSO))) {
		k->objpath = it->f->objpath;
		k->object = it->f->object;
	}
	if (t->keymask & (1u << REPORT_KEY_COMM))
		k->comm = it->comm;
	if (t->keymask & (1u << REPORT_KEY_PID))
		k->pid = it->p->pid;
	if (t->keymask & (1u << REPORT_KEY_TID))
		k->tid = it->tid;
	if (t->keymask & (1u << REPORT_KEY_CGROUP))
		k->cgroup = it->p->cgroup ? it->p->cgroup : "";
}

/* The entry of an item's row, made when new. */
static struct row_ent *row_of(struct rowtab *t, const struct report_item *it)
{
	struct report_row k;
	struct row_ent *e;
	bool fresh;

	item_key(t, it, &k);
	e = htab__insert(t->t, &row_type, &k, &fresh);
	if (e && fresh) {
		e->row = k;
		e->hash = row_key_hash(&k);
		e->stamp = 0;
	}
	return e;
}

void report_rows__add_off(uint64_t *off, const struct report_item *it)
{
	off[0] = sat_add(off[0], it->ns);
	if (it->reason && it->reason < PDATA_KIND_NR)
		off[it->reason] = sat_add(off[it->reason], it->ns);
}

int rowtab__add(struct rowtab *t, const struct report_item *it)
{
	struct row_ent *e = row_of(t, it);

	if (!e)
		return -ENOMEM;
	if (it->kind == REPORT_OFFCPU) {
		report_rows__add_off(e->row.off_ns, it);
		return 0;
	}
	e->row.count = sat_add(e->row.count, it->count);
	e->row.ns = sat_add(e->row.ns, it->ns);
	return 0;
}

int rowtab__add_total(struct rowtab *t, const struct report_item *it,
		      const struct func *const *frames, size_t n)
{
	struct report_item fi = *it;

	t->stamp++;
	for (size_t k = 0; k < n; k++) {
		struct row_ent *e;

		fi.f = frames[k];
		e = row_of(t, &fi);
		if (!e)
			return -ENOMEM;
		if (e->stamp == t->stamp)
			continue; /* recursion, or another function of the same row: once */
		e->stamp = t->stamp;
		if (it->kind == REPORT_OFFCPU) {
			report_rows__add_off(e->row.off_total, it);
			continue;
		}
		e->row.total = sat_add(e->row.total, it->count);
	}
	return 0;
}

struct report_row *rowtab__take(struct rowtab *t, size_t *n)
{
	struct row_ent *ents = htab__take(t->t, n);
	struct report_row *rows;

	if (!ents)
		return NULL;
	/* the rows are the first member of each entry: pack them in place */
	rows = (struct report_row *)ents;
	for (size_t i = 0; i < *n; i++)
		memmove(&rows[i], &ents[i].row, sizeof(*rows));
	return rows;
}

/* ---- order -------------------------------------------------------------------- */

static int cmp_key(const struct report_row *x, const struct report_row *y, int key)
{
	switch (key) {
	case REPORT_KEY_COMM:
		return cmp__str(x->comm, y->comm);
	case REPORT_KEY_DSO:
		return cmp__str(x->objpath, y->objpath);
	case REPORT_KEY_SYM:
		return func__cmp(x->f, y->f);
	case REPORT_KEY_PID:
		return CMP(x->pid, y->pid);
	case REPORT_KEY_TID:
		return CMP(x->tid, y->tid);
	case REPORT_KEY_CGROUP:
		return cmp__str(x->cgroup, y->cgroup);
	default:
		return 0;
	}
}

static int cmp_names(const struct report_row *x, const struct report_row *y,
		     const struct row_order *o)
{
	int c = 0;

	for (size_t i = 0; !c && i < o->nkeys; i++)
		c = cmp_key(x, y, o->keys[i]);
	/* every key, so that the order is total whatever the view's keys */
	for (int k = REPORT_KEY_COMM; !c && k <= REPORT_KEY_CGROUP; k++)
		c = cmp_key(x, y, k);
	return c ? c : CMP(x->kind, y->kind);
}

static int cmp_time(const struct report_row *x, const struct report_row *y,
		    const struct row_order *o)
{
	double a = report_rows__value_ns(x, o->period_ns, o->value, 0);
	double b = report_rows__value_ns(y, o->period_ns, o->value, 0);

	if (o->children) {
		double ta = report_rows__value_ns(x, o->period_ns, o->value, 1);
		double tb = report_rows__value_ns(y, o->period_ns, o->value, 1);

		if (ta != tb)
			return ta > tb ? -1 : 1;
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
	}
	if (a != b)
		return a > b ? -1 : 1;
	return CMP(y->count, x->count);
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct report_row *x = a, *y = b;
	const struct row_order *o = arg;
	int c = o->by_tid ? CMP(x->tid, y->tid) : 0;

	if (c)
		return c;
	if (o->sort_name) {
		c = cmp_names(x, y, o);
		return c ? c : cmp_time(x, y, o);
	}
	c = cmp_time(x, y, o);
	return c ? c : cmp_names(x, y, o);
}

void report_rows__sort(struct report_row *rows, size_t n, const struct row_order *ord)
{
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), cmp_row, (void *)ord);
}

/* ---- listing ------------------------------------------------------------------ */

static bool listed(const struct report_row *r, const struct row_limits *lim)
{
	double ns = report_rows__ns(r, lim->period_ns);

	/* an [unsampled] row of at most one period is a remainder smaller than one sample */
	if (r->kind == REPORT_UNSAMPLED && ns <= lim->period_ns)
		return false;
	ns = report_rows__value_ns(r, lim->period_ns, lim->value, lim->children);
	if (lim->percent_limit > 0 && lim->of_seconds > 0 &&
	    100.0 * ns / 1e9 / lim->of_seconds < lim->percent_limit)
		return false;
	return true;
}

int report_rows__list(const struct report_row *rows, size_t n, const struct row_limits *lim,
		      struct report_list *out)
{
	memset(out, 0, sizeof(*out));
	out->rows = malloc((n ? n : 1) * sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double s = report_rows__ns(&rows[i], lim->period_ns) / 1e9;

		out->seconds += s;
		if (listed(&rows[i], lim) && (lim->top <= 0 || out->nrows < (size_t)lim->top)) {
			out->rows[out->nrows++] = rows[i];
		} else {
			out->hidden++;
			out->hidden_seconds += s;
			out->hidden_value +=
				report_rows__value_ns(&rows[i], lim->period_ns, lim->value, 0) /
				1e9;
		}
	}
	return 0;
}
