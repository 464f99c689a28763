// SPDX-License-Identifier: MIT
/*
 * Unwind tables and the step function (pure: no OS calls).  See
 * unwind_table.h for the row semantics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_table.h"
#include "utils/array.h"
#include "utils/search.h"
#include "utils/cmp.h"

/* More signal frames than this in one stack is taken for a loop. */
#define MAX_SIGNAL_FRAMES 16

/* ---- tables ----------------------------------------------------------- */

int unw_table_add_fde(struct unw_table *t, uint64_t start, uint64_t end)
{
	if (start >= end)
		return -EINVAL;
	if (array__reserve(&t->fdes, &t->fdecap, t->nfdes + 1, sizeof(*t->fdes)))
		return -ENOMEM;
	t->fdes[t->nfdes++] = (struct unw_fde){.start = start, .end = end};
	return 0;
}

static int cmp_fdes(const void *a, const void *b)
{
	const struct unw_fde *x = a, *y = b;

	return CMP(x->start, y->start) ?: CMP(x->end, y->end);
}

void unw_table_sort_fdes(struct unw_table *t)
{
	size_t keep = 0;

	if (t->nfdes)
		qsort(t->fdes, t->nfdes, sizeof(*t->fdes), cmp_fdes);
	for (size_t i = 0; i < t->nfdes; i++) {
		if (keep && t->fdes[i].start < t->fdes[keep - 1].end)
			continue;
		t->fdes[keep++] = t->fdes[i];
	}
	t->nfdes = keep;
}

struct unw_fde *unw_table_find_fde(const struct unw_table *t, uint64_t addr)
{
	size_t lo;

	/* the last FDE whose start <= addr */
	lo = SEARCH_UPPER(t->fdes, t->nfdes, start, addr);
	if (!lo || addr >= t->fdes[lo - 1].end)
		return NULL;
	return &t->fdes[lo - 1];
}

static int same_rules(const struct unw_row *a, const struct unw_row *b)
{
	return a->cfa_kind == b->cfa_kind && a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->rbp_kind == b->rbp_kind && a->rbp_reg == b->rbp_reg && a->rbp_off == b->rbp_off &&
	       a->ra_kind == b->ra_kind && a->ra_reg == b->ra_reg && a->ra_off == b->ra_off &&
	       a->flags == b->flags && a->plt_threshold == b->plt_threshold;
}

int unw_table_add_row(struct unw_table *t, struct unw_fde *fde, const struct unw_row *row)
{
	if (fde->n && same_rules(&t->rows[fde->first + fde->n - 1], row))
		return 0;
	if (t->nrows >= UINT32_MAX)
		return -ENOMEM;
	if (array__reserve(&t->rows, &t->rowcap, t->nrows + 1, sizeof(*t->rows)))
		return -ENOMEM;
	if (!fde->n)
		fde->first = (uint32_t)t->nrows;
	t->rows[t->nrows++] = *row;
	fde->n++;
	return 0;
}

const struct unw_row *unw_table_fde_row(const struct unw_table *t, const struct unw_fde *fde,
					uint64_t addr)
{
	const struct unw_row *rows;
	size_t lo;

	if (fde->state != UNW_FDE_READY || !fde->n)
		return NULL;
	rows = t->rows + fde->first;
	lo = SEARCH_UPPER(rows, fde->n, start, addr);
	return lo ? &rows[lo - 1] : NULL;
}

void unw_table_free(struct unw_table *t)
{
	free(t->fdes);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* ---- steps ------------------------------------------------------------ */

static int read_stack(const struct unw_stack *s, uint64_t addr, uint64_t *v)
{
	uint64_t off;

	if (addr < s->base)
		return -1;
	off = addr - s->base;
	if (off > s->size || s->size - off < sizeof(*v))
		return -1;
	memcpy(v, s->data + off, sizeof(*v));
	return 0;
}

static int reg_value(const struct unw_regs *r, unsigned int reg, uint64_t *v)
{
	if (reg >= UNW_NREGS || !(r->valid & (1u << reg)))
		return -1;
	*v = r->r[reg];
	return 0;
}

static enum unw_step_result eval_cfa(const struct unw_row *row, const struct unw_stack *stack,
				     const struct unw_regs *regs, uint64_t *cfa)
{
	uint64_t base, pc;

	switch (row->cfa_kind) {
	case UNW_CFA_REG:
		if (reg_value(regs, row->cfa_reg, &base))
			return UNW_STEP_UNSUPPORTED;
		*cfa = base + (int64_t)row->cfa_off;
		return UNW_STEP_OK;
	case UNW_CFA_DEREF:
		if (reg_value(regs, row->cfa_reg, &base))
			return UNW_STEP_UNSUPPORTED;
		return read_stack(stack, base + (int64_t)row->cfa_off, cfa) ? UNW_STEP_STACK :
									      UNW_STEP_OK;
	case UNW_CFA_PLT:
		/* a lazy-binding PLT entry: the push of the relocation index moves RSP by 8 */
		if (reg_value(regs, UNW_REG_RSP, &base) || reg_value(regs, UNW_REG_RIP, &pc))
			return UNW_STEP_UNSUPPORTED;
		*cfa = base + (int64_t)row->cfa_off + ((pc & 15) >= row->plt_threshold ? 8 : 0);
		return UNW_STEP_OK;
	default:
		return UNW_STEP_UNSUPPORTED;
	}
}

/* Where a saved register is, for the LOC_CFA and LOC_REG rules. */
static int saved_at(uint8_t kind, uint8_t reg, int64_t off, uint64_t cfa,
		    const struct unw_regs *regs, uint64_t *addr)
{
	uint64_t base;

	if (kind == UNW_LOC_CFA) {
		*addr = cfa + off;
		return 0;
	}
	if (kind == UNW_LOC_REG && !reg_value(regs, reg, &base)) {
		*addr = base + off;
		return 0;
	}
	return -1;
}

enum unw_step_result unw_step_cfi(const struct unw_row *row, const struct unw_stack *stack,
				  struct unw_regs *regs)
{
	struct unw_regs out = {.valid = (1u << UNW_REG_RSP) | (1u << UNW_REG_RIP)};
	enum unw_step_result res;
	uint64_t cfa, addr;

	if (row->ra_kind == UNW_LOC_UNDEFINED)
		return UNW_STEP_OUTERMOST;
	res = eval_cfa(row, stack, regs, &cfa);
	if (res != UNW_STEP_OK)
		return res;
	if (row->ra_kind == UNW_LOC_IN_REG) {
		if (reg_value(regs, row->ra_reg, &out.r[UNW_REG_RIP]))
			return UNW_STEP_UNSUPPORTED;
	} else if (saved_at(row->ra_kind, row->ra_reg, row->ra_off, cfa, regs, &addr)) {
		return UNW_STEP_UNSUPPORTED;
	} else if (read_stack(stack, addr, &out.r[UNW_REG_RIP])) {
		return UNW_STEP_STACK;
	}
	out.r[UNW_REG_RSP] = cfa;
	/* RBP: a lost RBP only matters if a later frame needs it, so it is not an error here */
	if (row->rbp_kind == UNW_LOC_SAME) {
		out.r[UNW_REG_RBP] = regs->r[UNW_REG_RBP];
		out.valid |= regs->valid & (1u << UNW_REG_RBP);
	} else if (row->rbp_kind == UNW_LOC_IN_REG) {
		if (!reg_value(regs, row->rbp_reg, &out.r[UNW_REG_RBP]))
			out.valid |= 1u << UNW_REG_RBP;
	} else if (!saved_at(row->rbp_kind, row->rbp_reg, row->rbp_off, cfa, regs, &addr) &&
		   !read_stack(stack, addr, &out.r[UNW_REG_RBP])) {
		out.valid |= 1u << UNW_REG_RBP;
	}
	*regs = out;
	return UNW_STEP_OK;
}

enum unw_step_result unw_step_fp(const struct unw_stack *stack, struct unw_regs *regs)
{
	struct unw_regs out = {.valid = (1u << UNW_REG_RSP) | (1u << UNW_REG_RIP) |
					(1u << UNW_REG_RBP)};
	uint64_t fp, sp;

	if (reg_value(regs, UNW_REG_RBP, &fp) || reg_value(regs, UNW_REG_RSP, &sp))
		return UNW_STEP_NO_FRAME;
	if (!fp || fp < sp || (fp & 7))
		return UNW_STEP_NO_FRAME;
	if (read_stack(stack, fp, &out.r[UNW_REG_RBP]) ||
	    read_stack(stack, fp + 8, &out.r[UNW_REG_RIP]))
		return UNW_STEP_STACK;
	out.r[UNW_REG_RSP] = fp + 16;
	*regs = out;
	return UNW_STEP_OK;
}

/* ---- the walk --------------------------------------------------------- */

static unsigned int stop_reason(enum unw_step_result res)
{
	switch (res) {
	case UNW_STEP_STACK:
		return UNW_F_TRUNC_STACK;
	case UNW_STEP_NO_FRAME:
		return UNW_F_TRUNC_NO_CFI;
	default:
		return UNW_F_TRUNC_UNSUPPORTED;
	}
}

int unw_walk(const struct unw_regs *leaf, const struct unw_stack *stack, unw_find_fn find,
	     void *arg, uint64_t *pcs, int max, unsigned *flags)
{
	const uint32_t need = (1u << UNW_REG_RIP) | (1u << UNW_REG_RSP);
	struct unw_regs r = *leaf;
	unsigned int f = 0;
	int n = 0, exact = 1, signals = 0;

	if ((r.valid & need) != need) {
		*flags = UNW_F_TRUNC_NO_REGS;
		return 0;
	}
	if (max <= 0) {
		*flags = UNW_F_TRUNC_DEPTH;
		return 0;
	}
	pcs[n++] = r.r[UNW_REG_RIP];
	for (;;) {
		uint64_t pc = r.r[UNW_REG_RIP], sp = r.r[UNW_REG_RSP];
		struct unw_found found = {NULL, 0, 0};
		enum unw_step_result res;
		int signal = 0, in_reg = 0;

		find(arg, exact ? pc : pc - 1, &found);
		if (!found.mapped) {
			f |= UNW_F_TRUNC_NO_MAP;
			break;
		}
		if (found.bound) {
			f |= UNW_F_TRUNC_BOUND;
			break;
		}
		if (found.row && found.row->cfa_kind != UNW_CFA_NONE) {
			signal = found.row->flags & UNW_ROW_SIGNAL;
			in_reg = found.row->ra_kind == UNW_LOC_IN_REG;
			res = unw_step_cfi(found.row, stack, &r);
		} else {
			f |= UNW_F_FP_FALLBACK;
			res = unw_step_fp(stack, &r);
		}
		if (res == UNW_STEP_OUTERMOST) {
			f |= UNW_F_COMPLETE;
			break;
		}
		if (res != UNW_STEP_OK) {
			f |= stop_reason(res);
			break;
		}
		/*
		 * The caller's frame is above ours, except across a signal frame
		 * (sigaltstack), or at the same SP when the return address came
		 * from a register (the leaf's only: it cannot repeat).
		 */
		if (signal ? ++signals > MAX_SIGNAL_FRAMES :
			     r.r[UNW_REG_RSP] < sp || (r.r[UNW_REG_RSP] == sp && !in_reg)) {
			f |= UNW_F_TRUNC_LOOP;
			break;
		}
		if (!r.r[UNW_REG_RIP]) { /* a zero return address ends a chain CFI did not mark */
			f |= UNW_F_TRUNC_NO_MAP;
			break;
		}
		if (n == max) {
			f |= UNW_F_TRUNC_DEPTH;
			break;
		}
		if (signal)
			f |= UNW_F_SIGNAL_FRAME;
		exact = signal;
		pcs[n++] = r.r[UNW_REG_RIP];
	}
	*flags = f;
	return n;
}

/* ---- mappings --------------------------------------------------------- */

int unw_maps_insert(struct unw_maps *m, uint64_t start, uint64_t end, uint64_t pgoff, void *obj)
{
	struct unw_map *v;
	size_t n = 0;

	if (start >= end)
		return -EINVAL;
	/* at most one old mapping is split in two, plus the new one */
	v = malloc((m->n + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const struct unw_map *o = &m->v[i];

		if (o->end <= start || o->start >= end) {
			v[n++] = *o;
			continue;
		}
		if (o->start < start) {
			v[n] = *o;
			v[n++].end = start;
		}
		if (o->end > end) {
			v[n] = *o; /* start - pgoff is unchanged, and so is the bias */
			v[n].start = end;
			v[n++].pgoff = o->pgoff + (end - o->start);
		}
	}
	{
		size_t at = n;

		while (at > 0 && v[at - 1].start > start)
			at--;
		memmove(&v[at + 1], &v[at], (n - at) * sizeof(*v));
		v[at] = (struct unw_map){.start = start, .end = end, .pgoff = pgoff, .obj = obj};
		n++;
	}
	free(m->v);
	m->v = v;
	m->n = n;
	m->cap = n;
	m->last = 0;
	return 0;
}

struct unw_map *unw_maps_find(struct unw_maps *m, uint64_t addr)
{
	size_t lo;

	if (m->last < m->n && addr >= m->v[m->last].start && addr < m->v[m->last].end)
		return &m->v[m->last];
	lo = SEARCH_UPPER(m->v, m->n, start, addr);
	if (!lo || addr >= m->v[lo - 1].end)
		return NULL;
	m->last = lo - 1;
	return &m->v[lo - 1];
}

int unw_maps_copy(struct unw_maps *dst, const struct unw_maps *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!src->n)
		return 0;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = dst->cap = src->n;
	return 0;
}

void unw_maps_free(struct unw_maps *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
