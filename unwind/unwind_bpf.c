// SPDX-License-Identifier: MIT
/* The in-kernel walk's tables, encoded from the recorder's (see unwind_bpf.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_bpf.h"
#include "utils/array.h"
#include "utils/htab.h"

_Static_assert(sizeof(struct kunw_rule) == 16 && sizeof(struct kunw_row) == 8,
	       "bpf/kunwind.h: the kernel's rule and row sizes");
_Static_assert((int)KUNW_CFA_NONE == (int)UNW_CFA_NONE && (int)KUNW_CFA_REG == (int)UNW_CFA_REG &&
		       (int)KUNW_CFA_DEREF == (int)UNW_CFA_DEREF &&
		       (int)KUNW_CFA_PLT == (int)UNW_CFA_PLT &&
		       (int)KUNW_CFA_UNSUPPORTED == (int)UNW_CFA_UNSUPPORTED &&
		       (int)KUNW_LOC_SAME == (int)UNW_LOC_SAME &&
		       (int)KUNW_LOC_CFA == (int)UNW_LOC_CFA &&
		       (int)KUNW_LOC_REG == (int)UNW_LOC_REG &&
		       (int)KUNW_LOC_UNDEFINED == (int)UNW_LOC_UNDEFINED &&
		       (int)KUNW_LOC_UNSUPPORTED == (int)UNW_LOC_UNSUPPORTED &&
		       (int)KUNW_LOC_IN_REG == (int)UNW_LOC_IN_REG &&
		       KUNW_RULE_SIGNAL == UNW_ROW_SIGNAL && KUNW_REG_RSP == UNW_REG_RSP &&
		       KUNW_REG_RBP == UNW_REG_RBP && KUNW_REG_RIP == UNW_REG_RIP,
	       "bpf/kunwind.h and unwind/unwind_table.h rule encodings differ");

struct rule_ent {
	struct kunw_rule rule;
	uint32_t id1; /* index + 1: never 0, so a filled entry is never all zero */
	uint32_t pad;
};

static const struct htab_type rule_type = {
	.entry_size = sizeof(struct rule_ent),
	.hash = htab_2words_hash,
	.eq = htab_2words_eq,
};

struct unwind_bpf_rules {
	struct htab *dict;
	struct kunw_rule *dest;
	uint32_t n, cap;
};

int unwind_bpf_rules__new(struct unwind_bpf_rules **out, struct kunw_rule *dest, uint32_t cap)
{
	struct unwind_bpf_rules *r = calloc(1, sizeof(*r));

	if (!r || !cap)
		goto fail;
	r->dict = htab__new(&rule_type, 1024);
	if (!r->dict)
		goto fail;
	r->dest = dest;
	r->cap = cap;
	memset(&dest[KUNW_RULE_NONE], 0, sizeof(dest[0]));
	r->n = 1;
	*out = r;
	return 0;
fail:
	free(r);
	return -ENOMEM;
}

void unwind_bpf_rules__free(struct unwind_bpf_rules *r)
{
	if (!r)
		return;
	htab__free(r->dict);
	free(r);
}

uint32_t unwind_bpf_rules__count(const struct unwind_bpf_rules *r)
{
	return r->n;
}

/* The index of rule, added when new.  -ENOSPC (full) or -ENOMEM. */
static int64_t rule_index(struct unwind_bpf_rules *r, const struct kunw_rule *rule)
{
	static const struct kunw_rule none;
	struct rule_ent *e;
	bool fresh;

	if (!memcmp(rule, &none, sizeof(none)))
		return KUNW_RULE_NONE;
	e = htab__find(r->dict, &rule_type, rule);
	if (e)
		return e->id1 - 1;
	if (r->n >= r->cap)
		return -ENOSPC;
	e = htab__insert(r->dict, &rule_type, rule, &fresh);
	if (!e)
		return -ENOMEM;
	e->rule = *rule;
	e->id1 = r->n + 1;
	r->dest[r->n] = *rule;
	return r->n++;
}

void unwind_bpf__rule(const struct unw_row *row, struct kunw_rule *out)
{
	memset(out, 0, sizeof(*out));
	out->cfa_kind = row->cfa_kind;
	if (row->cfa_kind == UNW_CFA_NONE)
		return; /* every "no CFI" row is rule 0 */
	out->cfa_reg = row->cfa_reg;
	out->cfa_off = row->cfa_off;
	out->rbp_kind = row->rbp_kind;
	out->rbp_reg = row->rbp_reg;
	out->rbp_off = row->rbp_off;
	out->ra_kind = row->ra_kind;
	out->ra_reg = row->ra_reg;
	out->ra_off = row->ra_off;
	out->flags = row->flags;
	out->plt_threshold = row->plt_threshold;
}

/* ---- an object's rows ----------------------------------------------------- */

struct encoder {
	struct unwind_bpf_rules *rules;
	struct unwind_bpf_rows *out;
	size_t max;
	uint32_t last_rule; /* of the last row emitted */
};

/* A row at link-time address addr (addresses come in order); the same rule as the last merges. */
static int emit(struct encoder *e, uint64_t addr, const struct kunw_rule *rule)
{
	struct unwind_bpf_rows *o = e->out;
	int64_t id = rule_index(e->rules, rule);
	uint64_t off = addr - o->base;

	if (id < 0)
		return (int)id;
	if (off > UINT32_MAX)
		return -E2BIG;
	if (o->n && o->v[o->n - 1].addr == (uint32_t)off) {
		o->v[o->n - 1].rule = (uint32_t)id; /* an empty row before it: replaced */
		if (o->n >= 2 && o->v[o->n - 2].rule == (uint32_t)id)
			o->n--;
		e->last_rule = o->n ? o->v[o->n - 1].rule : UINT32_MAX;
		return 0;
	}
	if (o->n && e->last_rule == (uint32_t)id)
		return 0;
	if (o->n >= e->max)
		return -E2BIG;
	if (array__reserve(&o->v, &o->cap, o->n + 1, sizeof(*o->v)))
		return -ENOMEM;
	o->v[o->n++] = (struct kunw_row){(uint32_t)off, (uint32_t)id};
	e->last_rule = (uint32_t)id;
	return 0;
}

static int emit_none(struct encoder *e, uint64_t addr)
{
	static const struct kunw_rule none;

	return emit(e, addr, &none);
}

/* The rows of one FDE: its compiled rows, or one row saying why it has none. */
static int emit_fde(struct encoder *e, const struct unw_table *t, const struct unw_fde *f)
{
	struct kunw_rule rule;
	int rc;

	if (f->state == UNW_FDE_FAILED || (f->state == UNW_FDE_READY && !f->n))
		return emit_none(
			e, f->start); /* malformed: a frame-pointer step, as the walker does */
	if (f->state != UNW_FDE_READY) {
		/* over a bound of the compiler (or never compiled): the walk stops here, truncated */
		memset(&rule, 0, sizeof(rule));
		rule.cfa_kind = KUNW_CFA_BOUND;
		return emit(e, f->start, &rule);
	}
	for (uint32_t i = 0; i < f->n; i++) {
		const struct unw_row *row = &t->rows[f->first + i];

		if (row->start < f->start || row->start >= f->end)
			continue;
		unwind_bpf__rule(row, &rule);
		rc = emit(e, row->start, &rule);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int emit_entry(struct encoder *e, uint64_t entry)
{
	struct kunw_rule rule = {.cfa_kind = KUNW_CFA_REG,
				 .cfa_reg = KUNW_REG_RSP,
				 .cfa_off = 8,
				 .ra_kind = KUNW_LOC_UNDEFINED};

	return emit(e, entry, &rule);
}

void unwind_bpf_rows__free(struct unwind_bpf_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static int encode_all(struct encoder *e, const struct unw_table *t, uint64_t entry,
		      uint64_t entry_end)
{
	uint64_t end = 0; /* where the last FDE (or the entry code) ended */
	int entry_done = entry >= entry_end, rc = 0;

	for (size_t i = 0; rc == 0 && i <= t->nfdes; i++) {
		const struct unw_fde *f = i < t->nfdes ? &t->fdes[i] : NULL;

		if (!entry_done && (!f || entry < f->start)) {
			if (end && end < entry)
				rc = emit_none(e, end);
			if (rc == 0)
				rc = emit_entry(e, entry);
			end = entry_end;
			entry_done = 1;
		}
		if (!f || rc < 0)
			break;
		if (end && end < f->start)
			rc = emit_none(e, end);
		if (rc == 0)
			rc = emit_fde(e, t, f);
		end = f->end;
	}
	if (rc == 0 && end)
		rc = emit_none(e, end);
	return rc;
}

int unwind_bpf__encode(const struct unw_table *t, uint64_t entry, uint64_t entry_end,
		       struct unwind_bpf_rules *rules, struct unwind_bpf_rows *out, size_t max_rows)
{
	struct encoder e = {rules, out, max_rows, UINT32_MAX};
	int rc;

	out->n = 0;
	out->base = 0;
	if (t->nfdes)
		out->base = t->fdes[0].start;
	if (entry < entry_end && (!t->nfdes || entry < out->base))
		out->base = entry;
	rc = encode_all(&e, t, entry, entry_end);
	if (rc < 0)
		unwind_bpf_rows__free(out);
	return rc;
}

uint32_t unwind_bpf__npages(const struct unwind_bpf_rows *rows)
{
	return rows->n ? (rows->v[rows->n - 1].addr >> KUNW_PAGE_SHIFT) + 1 : 0;
}

void unwind_bpf__pages(const struct unwind_bpf_rows *rows, uint32_t *pages)
{
	uint32_t n = unwind_bpf__npages(rows), r = 0;

	for (uint32_t p = 0; p < n; p++) {
		uint64_t page_start = (uint64_t)p << KUNW_PAGE_SHIFT;

		while (r + 1 < rows->n && rows->v[r + 1].addr <= page_start)
			r++;
		pages[p] = r;
	}
}

uint32_t unwind_bpf__lookup(const struct unwind_bpf_rows *rows, const uint32_t *pages,
			    uint32_t npages, uint64_t addr)
{
	uint64_t off = addr - rows->base, page;
	uint32_t lo = 0, hi = (uint32_t)rows->n;

	if (addr < rows->base || off > UINT32_MAX || !rows->n)
		return KUNW_RULE_NONE;
	page = off >> KUNW_PAGE_SHIFT;
	lo = hi - 1; /* past the last KiB: the last row */
	if (page < npages) {
		lo = pages[page];
		if (page + 1 < npages)
			hi = pages[page + 1] + 1 < hi ? pages[page + 1] + 1 : hi;
	}
	for (int i = 0; i < KUNW_ROW_STEPS && lo < hi; i++) {
		uint32_t mid = (lo + hi) / 2;

		if (rows->v[mid].addr <= (uint32_t)off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? rows->v[lo - 1].rule : KUNW_RULE_NONE;
}
