// SPDX-License-Identifier: MIT
/*
 * record/unwind_table: the pure core of the unwinder, with synthetic tables
 * and stacks: table lookups, the CFI step (CFA rules, saved registers, the
 * PLT rule, signal frames), bounds of the stack copy, the frame-pointer
 * fallback, loops, depth, the outermost frame, and the mapping set.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "unwind/unwind_table.h"
#include "unwind_rows.h"

#define BASE 0x7ffc1000ull /* the sampled RSP: the stack copy starts here */
#define TEXT 0x400000ull   /* a synthetic object's code, mapped at its link-time address */

static uint64_t mem[64]; /* the stack copy: mem[i] is at BASE + 8 * i */

static struct unw_stack stack_of(size_t words)
{
	struct unw_stack s = {BASE, (const uint8_t *)mem, words * 8};

	return s;
}

static uint64_t slot(int i)
{
	return BASE + 8 * (uint64_t)i;
}

static struct unw_regs regs3(uint64_t rip, uint64_t rsp, uint64_t rbp, int with_rbp)
{
	struct unw_regs r = {.valid = (1u << UNW_REG_RIP) | (1u << UNW_REG_RSP)};

	r.r[UNW_REG_RIP] = rip;
	r.r[UNW_REG_RSP] = rsp;
	if (with_rbp) {
		r.r[UNW_REG_RBP] = rbp;
		r.valid |= 1u << UNW_REG_RBP;
	}
	return r;
}

/* ---- a synthetic object for the walker -------------------------------- */

struct fake {
	struct unw_table t;
	uint64_t lo, hi;      /* the mapped range */
	uint64_t lookups[16]; /* the addresses the walker asked for */
	int nlookups;
};

static void fake_find(void *arg, uint64_t lookup_pc, struct unw_found *out)
{
	struct fake *f = arg;
	struct unw_fde *fde;

	if (f->nlookups < 16)
		f->lookups[f->nlookups++] = lookup_pc;
	if (lookup_pc < f->lo || lookup_pc >= f->hi)
		return;
	out->mapped = 1;
	fde = unw_table_find_fde(&f->t, lookup_pc);
	if (fde)
		out->row = unw_table_fde_row(&f->t, fde, lookup_pc);
}

/* An FDE [start, end) with rows already compiled. */
static void fake_fde(struct fake *f, uint64_t start, uint64_t end, const struct unw_row *rows,
		     int n)
{
	struct unw_fde *fde;

	unw_table_add_fde(&f->t, start, end);
	unw_table_sort_fdes(&f->t);
	fde = unw_table_find_fde(&f->t, start);
	for (int i = 0; i < n; i++)
		unw_table_add_row(&f->t, fde, &rows[i]);
	fde->state = UNW_FDE_READY;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->lo = TEXT;
	f->hi = TEXT + 0x10000;
}

/* ---- tables ----------------------------------------------------------- */

/*
 * glibc's __vfork: `pop %rdi` keeps the return address in RDI across the
 * syscall (DW_CFA_register RIP, RDI; CFA = RSP + 0).  The leaf's sampled
 * RDI gives it; a caller's RDI is not known, so there the rule is not
 * evaluated.
 */
static void test_step_in_reg(void)
{
	struct unw_row row = rsp_row(TEXT, 0);
	struct unw_stack s = stack_of(8);
	struct unw_regs r = regs3(TEXT + 4, BASE, 0x1111, 1);

	row.ra_kind = UNW_LOC_IN_REG;
	row.ra_reg = UNW_REG_RDI;
	r.r[UNW_REG_RDI] = TEXT + 0x400;
	r.valid |= 1u << UNW_REG_RDI;
	CHECK("step_ra_in_reg", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
					r.r[UNW_REG_RIP] == TEXT + 0x400 &&
					r.r[UNW_REG_RSP] == BASE && r.r[UNW_REG_RBP] == 0x1111 &&
					!(r.valid & (1u << UNW_REG_RDI)));
	r = regs3(TEXT + 4, BASE, 0x1111, 1);
	CHECK("step_ra_in_unsampled_reg", unw_step_cfi(&row, &s, &r) == UNW_STEP_UNSUPPORTED);
	row = rsp_row(TEXT, 8);
	row.rbp_kind = UNW_LOC_IN_REG;
	row.rbp_reg = UNW_REG_RDI;
	mem[0] = TEXT + 0x500;
	r = regs3(TEXT, BASE, 0, 0);
	r.r[UNW_REG_RDI] = 0x7777;
	r.valid |= 1u << UNW_REG_RDI;
	CHECK("step_rbp_in_reg", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
					 r.r[UNW_REG_RBP] == 0x7777 &&
					 (r.valid & (1u << UNW_REG_RBP)));
}

static void test_table(void)
{
	struct unw_table t = {0};
	struct unw_row a = rsp_row(0x1000, 8), b = rsp_row(0x1004, 16), b2 = rsp_row(0x1008, 16);
	struct unw_fde *fde;

	unw_table_add_fde(&t, 0x2000, 0x2100);
	unw_table_add_fde(&t, 0x1000, 0x1040);
	unw_table_add_fde(&t, 0x1020, 0x1080); /* overlaps the previous one: dropped */
	CHECK("table_add_fde_rejects_empty", unw_table_add_fde(&t, 0x3000, 0x3000) == -EINVAL);
	unw_table_sort_fdes(&t);
	CHECK("table_sorted_and_overlap_dropped",
	      t.nfdes == 2 && t.fdes[0].start == 0x1000 && t.fdes[1].start == 0x2000);
	CHECK("table_find_before_first", unw_table_find_fde(&t, 0xfff) == NULL);
	CHECK("table_find_first_byte", unw_table_find_fde(&t, 0x1000) == &t.fdes[0]);
	CHECK("table_find_last_byte", unw_table_find_fde(&t, 0x103f) == &t.fdes[0]);
	CHECK("table_find_gap",
	      unw_table_find_fde(&t, 0x1040) == NULL && unw_table_find_fde(&t, 0x1fff) == NULL);
	CHECK("table_find_after_last", unw_table_find_fde(&t, 0x2100) == NULL);

	fde = &t.fdes[0];
	CHECK("table_row_of_uncompiled_fde", unw_table_fde_row(&t, fde, 0x1000) == NULL);
	unw_table_add_row(&t, fde, &a);
	unw_table_add_row(&t, fde, &b);
	unw_table_add_row(&t, fde, &b2); /* same rules as b: merged */
	fde->state = UNW_FDE_READY;
	CHECK("table_rows_merged", fde->n == 2 && t.nrows == 2);
	CHECK("table_row_lookup", unw_table_fde_row(&t, fde, 0x1003)->cfa_off == 8 &&
					  unw_table_fde_row(&t, fde, 0x1004)->cfa_off == 16 &&
					  unw_table_fde_row(&t, fde, 0x103f)->cfa_off == 16);
	unw_table_free(&t);
	CHECK("table_free_empties", t.nfdes == 0 && t.nrows == 0 && !t.rows && !t.fdes);
}

/* ---- single steps ----------------------------------------------------- */

static void test_step_basic(void)
{
	/* push rbp; sub $16, rsp: CFA = RSP + 32, RBP at CFA - 16, RA at CFA - 8 */
	struct unw_row row = rsp_row(TEXT, 32);
	struct unw_stack s = stack_of(8);
	struct unw_regs r = regs3(TEXT + 5, BASE, 0x1111, 1);

	row.rbp_kind = UNW_LOC_CFA;
	row.rbp_off = -16;
	memset(mem, 0, sizeof(mem));
	mem[2] = 0x2222;       /* saved RBP at CFA - 16 = BASE + 16 */
	mem[3] = TEXT + 0x100; /* RA at BASE + 24 */
	CHECK("step_cfi_ok", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK);
	CHECK("step_cfi_caller_regs",
	      r.r[UNW_REG_RIP] == TEXT + 0x100 && r.r[UNW_REG_RSP] == BASE + 32 &&
		      r.r[UNW_REG_RBP] == 0x2222 && (r.valid & (1u << UNW_REG_RBP)));

	/* RBP unchanged (SAME) keeps the callee's value and its validity */
	row = rsp_row(TEXT, 8);
	r = regs3(TEXT, BASE, 0x3333, 1);
	mem[0] = TEXT + 0x200;
	CHECK("step_same_rbp", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
				       r.r[UNW_REG_RBP] == 0x3333 && r.r[UNW_REG_RSP] == BASE + 8);
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("step_same_unknown_rbp_stays_unknown",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_OK && !(r.valid & (1u << UNW_REG_RBP)));

	/* CFA = RBP + 16 (a frame-pointer function's body) */
	row = rsp_row(TEXT, 0);
	row.cfa_reg = UNW_REG_RBP;
	row.cfa_off = 16;
	row.rbp_kind = UNW_LOC_CFA;
	row.rbp_off = -16;
	mem[4] = 0x4444;       /* saved RBP at RBP = BASE + 32 */
	mem[5] = TEXT + 0x300; /* RA at RBP + 8 */
	r = regs3(TEXT, BASE, BASE + 32, 1);
	CHECK("step_cfa_rbp", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
				      r.r[UNW_REG_RIP] == TEXT + 0x300 &&
				      r.r[UNW_REG_RSP] == BASE + 48 && r.r[UNW_REG_RBP] == 0x4444);
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("step_cfa_rbp_unknown_is_unsupported",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_UNSUPPORTED);

	/* a CFA based on a register the sample gave (leaf only), and one it did not */
	row = rsp_row(TEXT, 8);
	row.cfa_reg = UNW_REG_R8 + 2; /* r10: stack realignment prologue */
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("step_cfa_unsampled_reg", unw_step_cfi(&row, &s, &r) == UNW_STEP_UNSUPPORTED);
	r.r[10] = BASE;
	r.valid |= 1u << 10;
	CHECK("step_cfa_sampled_reg", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
					      r.r[UNW_REG_RSP] == BASE + 8 &&
					      !(r.valid & (1u << 10)));

	/* rules the step does not evaluate */
	row = rsp_row(TEXT, 8);
	row.cfa_kind = UNW_CFA_UNSUPPORTED;
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("step_unsupported_cfa", unw_step_cfi(&row, &s, &r) == UNW_STEP_UNSUPPORTED);
	row = rsp_row(TEXT, 8);
	row.ra_kind = UNW_LOC_UNSUPPORTED;
	CHECK("step_unsupported_ra", unw_step_cfi(&row, &s, &r) == UNW_STEP_UNSUPPORTED);
	row = rsp_row(TEXT, 8);
	row.ra_kind = UNW_LOC_UNDEFINED;
	row.cfa_kind = UNW_CFA_UNSUPPORTED; /* outermost wins, whatever the CFA */
	CHECK("step_outermost", unw_step_cfi(&row, &s, &r) == UNW_STEP_OUTERMOST);
	/* an unreadable saved RBP loses RBP, not the frame */
	row = rsp_row(TEXT, 8);
	row.rbp_kind = UNW_LOC_CFA;
	row.rbp_off = -16; /* BASE - 8: below the copy */
	r = regs3(TEXT, BASE, 0x5555, 1);
	CHECK("step_rbp_unreadable_not_fatal",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_OK && !(r.valid & (1u << UNW_REG_RBP)));
}

static void test_step_bounds(void)
{
	struct unw_row row = rsp_row(TEXT, 8);
	struct unw_stack s = stack_of(4); /* [BASE, BASE + 32) */
	struct unw_regs r;

	memset(mem, 0, sizeof(mem));
	mem[3] = TEXT + 0x10;
	/* the last word of the copy is readable */
	r = regs3(TEXT, BASE + 24, 0, 0);
	CHECK("bounds_last_word",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_OK && r.r[UNW_REG_RIP] == TEXT + 0x10);
	/* one byte further is not: RA at BASE + 25 .. 33 */
	row.cfa_off = 9;
	r = regs3(TEXT, BASE + 24, 0, 0);
	CHECK("bounds_straddles_end", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
	/* entirely past the copy */
	row.cfa_off = 8;
	r = regs3(TEXT, BASE + 32, 0, 0);
	CHECK("bounds_past_end", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
	/* below the sampled SP */
	row.cfa_off = 0;
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("bounds_below_sp", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
	/* an address that wraps around */
	row.cfa_off = 8;
	r = regs3(TEXT, UINT64_MAX - 3, 0, 0);
	CHECK("bounds_wraparound", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
	/* an empty copy */
	s.size = 0;
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("bounds_empty_copy", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
	/* CFA = *(RSP + off) outside the copy */
	s = stack_of(4);
	row.cfa_kind = UNW_CFA_DEREF;
	row.cfa_off = 32;
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("bounds_deref_cfa", unw_step_cfi(&row, &s, &r) == UNW_STEP_STACK);
}

static void test_step_plt(void)
{
	/* GNU ld .plt: CFA = RSP + 8, + 8 once the entry pushed its index (pc & 15 >= 11) */
	struct unw_row row = rsp_row(TEXT + 0x20, 8);
	struct unw_stack s = stack_of(8);
	struct unw_regs r;

	row.cfa_kind = UNW_CFA_PLT;
	row.plt_threshold = 11;
	memset(mem, 0, sizeof(mem));
	mem[0] = TEXT + 0x500; /* RA before the push */
	mem[1] = TEXT + 0x600; /* RA after the push (mem[0] is the pushed index) */
	r = regs3(TEXT + 0x30 + 6, BASE, 0, 0);
	CHECK("plt_before_push", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
					 r.r[UNW_REG_RIP] == TEXT + 0x500 &&
					 r.r[UNW_REG_RSP] == BASE + 8);
	r = regs3(TEXT + 0x30 + 11, BASE, 0, 0);
	CHECK("plt_after_push", unw_step_cfi(&row, &s, &r) == UNW_STEP_OK &&
					r.r[UNW_REG_RIP] == TEXT + 0x600 &&
					r.r[UNW_REG_RSP] == BASE + 16);
	r = regs3(TEXT + 0x40 + 15, BASE, 0, 0);
	CHECK("plt_entry_end",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_OK && r.r[UNW_REG_RSP] == BASE + 16);
	r = regs3(TEXT + 0x40, BASE, 0, 0);
	CHECK("plt_entry_start",
	      unw_step_cfi(&row, &s, &r) == UNW_STEP_OK && r.r[UNW_REG_RSP] == BASE + 8);
}

static void test_step_fp(void)
{
	struct unw_stack s = stack_of(8);
	struct unw_regs r;

	memset(mem, 0, sizeof(mem));
	mem[2] = 0x6666;       /* saved RBP at RBP */
	mem[3] = TEXT + 0x700; /* RA at RBP + 8 */
	r = regs3(TEXT, BASE, slot(2), 1);
	CHECK("fp_step", unw_step_fp(&s, &r) == UNW_STEP_OK && r.r[UNW_REG_RIP] == TEXT + 0x700 &&
				 r.r[UNW_REG_RSP] == slot(4) && r.r[UNW_REG_RBP] == 0x6666);
	r = regs3(TEXT, BASE, 0, 1);
	CHECK("fp_rbp_zero", unw_step_fp(&s, &r) == UNW_STEP_NO_FRAME);
	r = regs3(TEXT, BASE, 0, 0);
	CHECK("fp_rbp_unknown", unw_step_fp(&s, &r) == UNW_STEP_NO_FRAME);
	r = regs3(TEXT, slot(3), slot(2), 1);
	CHECK("fp_rbp_below_sp", unw_step_fp(&s, &r) == UNW_STEP_NO_FRAME);
	r = regs3(TEXT, BASE, slot(2) + 4, 1);
	CHECK("fp_rbp_misaligned", unw_step_fp(&s, &r) == UNW_STEP_NO_FRAME);
	r = regs3(TEXT, BASE, slot(7), 1); /* RA would be at slot 8: outside */
	CHECK("fp_outside_copy", unw_step_fp(&s, &r) == UNW_STEP_STACK);
}

/* ---- walks ------------------------------------------------------------ */

/*
 * f (TEXT+0x100..0x140): CFA = RSP + 16, called by g (TEXT+0x200..0x240):
 * CFA = RSP + 8, called by start (TEXT+0x300..0x340): RA undefined.
 */
static void three_functions(struct fake *f)
{
	struct unw_row rf = rsp_row(TEXT + 0x100, 16), rg = rsp_row(TEXT + 0x200, 8),
		       rs = rsp_row(TEXT + 0x300, 8);

	rs.ra_kind = UNW_LOC_UNDEFINED;
	fake_init(f);
	fake_fde(f, TEXT + 0x100, TEXT + 0x140, &rf, 1);
	fake_fde(f, TEXT + 0x200, TEXT + 0x240, &rg, 1);
	fake_fde(f, TEXT + 0x300, TEXT + 0x340, &rs, 1);
}

/* A walk over three_functions: its registers, its stack copy, and what it returned. */
struct walk3 {
	struct fake f;
	struct unw_stack s;
	struct unw_regs r;
	uint64_t pcs[8];
	unsigned int flags;
};

/* three_functions and a zeroed stack copy of 8 words (the registers are the test's). */
static void walk3_init(struct walk3 *w)
{
	three_functions(&w->f);
	memset(mem, 0, sizeof(mem));
	w->s = stack_of(8);
	w->flags = 0;
}

/* Walk from w->r, at most max frames: the number of PCs. */
static int walk3(struct walk3 *w, int max)
{
	return unw_walk(&w->r, &w->s, fake_find, &w->f, w->pcs, max, &w->flags);
}

static void test_walk_complete(void)
{
	struct walk3 w;
	int n;

	walk3_init(&w);
	w.r = regs3(TEXT + 0x110, BASE, 0, 0);
	mem[1] = TEXT + 0x220; /* f's RA (CFA = BASE + 16) */
	mem[2] = TEXT + 0x310; /* g's RA (CFA = BASE + 24) */
	n = walk3(&w, 8);
	CHECKF("walk_complete",
	       n == 3 && w.flags == UNW_F_COMPLETE && w.pcs[0] == TEXT + 0x110 &&
		       w.pcs[1] == TEXT + 0x220 && w.pcs[2] == TEXT + 0x310,
	       "n=%d flags=%#x", n, w.flags);
	CHECKF("walk_looks_up_call_sites",
	       w.f.nlookups == 3 && w.f.lookups[0] == TEXT + 0x110 &&
		       w.f.lookups[1] == TEXT + 0x21f && w.f.lookups[2] == TEXT + 0x30f,
	       "lookups %d", w.f.nlookups);

	/* a call that ends its function: the return address is the next FDE's first byte */
	unw_table_free(&w.f.t);
	three_functions(&w.f);
	mem[1] = TEXT + 0x240; /* one past g's end */
	w.r = regs3(TEXT + 0x110, BASE, 0, 0);
	n = walk3(&w, 8);
	CHECKF("walk_noreturn_call_at_end", n == 3 && w.flags == UNW_F_COMPLETE, "n=%d flags=%#x",
	       n, w.flags);

	/* depth */
	mem[1] = TEXT + 0x220;
	w.r = regs3(TEXT + 0x110, BASE, 0, 0);
	n = walk3(&w, 2);
	CHECKF("walk_depth", n == 2 && w.flags == UNW_F_TRUNC_DEPTH, "n=%d flags=%#x", n, w.flags);
	n = walk3(&w, 0);
	CHECK("walk_depth_zero", n == 0 && w.flags == UNW_F_TRUNC_DEPTH);

	/* the stack copy ends before g's return address */
	w.s = stack_of(2);
	n = walk3(&w, 8);
	CHECKF("walk_short_copy", n == 2 && w.flags == UNW_F_TRUNC_STACK, "n=%d flags=%#x", n,
	       w.flags);

	/* no IP or SP */
	w.s = stack_of(8);
	w.r.valid &= ~(1u << UNW_REG_RSP);
	n = walk3(&w, 8);
	CHECK("walk_no_regs", n == 0 && w.flags == UNW_F_TRUNC_NO_REGS);
	unw_table_free(&w.f.t);
}

static void test_walk_ends(void)
{
	struct walk3 w;
	int n;

	walk3_init(&w);
	/* a return address in no mapping */
	mem[1] = 0x12345678;
	w.r = regs3(TEXT + 0x110, BASE, 0, 0);
	n = walk3(&w, 8);
	CHECKF("walk_unmapped", n == 2 && w.flags == UNW_F_TRUNC_NO_MAP && w.pcs[1] == 0x12345678,
	       "n=%d flags=%#x", n, w.flags);
	/* a zero return address is not a frame */
	mem[1] = 0;
	n = walk3(&w, 8);
	CHECKF("walk_zero_ra", n == 1 && w.flags == UNW_F_TRUNC_NO_MAP, "n=%d flags=%#x", n,
	       w.flags);
	/* a leaf in the mapping but without CFI, frame pointer 0: no frame */
	w.r = regs3(TEXT + 0x180, BASE, 0, 1);
	n = walk3(&w, 8);
	CHECKF("walk_no_cfi_no_frame",
	       n == 1 && w.flags == (UNW_F_TRUNC_NO_CFI | UNW_F_FP_FALLBACK), "n=%d flags=%#x", n,
	       w.flags);
	/* an unsupported rule */
	w.f.t.rows[w.f.t.fdes[1].first].cfa_kind = UNW_CFA_UNSUPPORTED;
	mem[1] = TEXT + 0x220;
	w.r = regs3(TEXT + 0x110, BASE, 0, 0);
	n = walk3(&w, 8);
	CHECKF("walk_unsupported", n == 2 && w.flags == UNW_F_TRUNC_UNSUPPORTED, "n=%d flags=%#x",
	       n, w.flags);
	unw_table_free(&w.f.t);
}

static void test_walk_fp_fallback(void)
{
	/* leaf without CFI (TEXT+0x180) with a frame: fp step into g, then CFI to start */
	struct walk3 w;
	int n;

	walk3_init(&w);
	mem[2] = 0;	       /* saved RBP */
	mem[3] = TEXT + 0x220; /* RA into g; g's CFA = slot(4) + 8 */
	mem[4] = TEXT + 0x310; /* g's RA */
	w.r = regs3(TEXT + 0x180, BASE, slot(2), 1);
	n = walk3(&w, 8);
	CHECKF("walk_fp_fallback",
	       n == 3 && w.flags == (UNW_F_COMPLETE | UNW_F_FP_FALLBACK) &&
		       w.pcs[1] == TEXT + 0x220 && w.pcs[2] == TEXT + 0x310,
	       "n=%d flags=%#x", n, w.flags);
	unw_table_free(&w.f.t);
}

static void test_walk_loops(void)
{
	struct fake f;
	struct unw_stack s = stack_of(8);
	struct unw_regs r;
	struct unw_row self = rsp_row(TEXT + 0x400, 0);
	uint64_t pcs[32];
	unsigned int flags = 0;
	int n;

	/* CFA = RSP + 0 with RA at CFA - 8: the stack pointer does not grow */
	fake_init(&f);
	self.ra_off = 0;
	fake_fde(&f, TEXT + 0x400, TEXT + 0x440, &self, 1);
	memset(mem, 0, sizeof(mem));
	mem[0] = TEXT + 0x410; /* returns to itself */
	r = regs3(TEXT + 0x410, BASE, 0, 0);
	n = unw_walk(&r, &s, fake_find, &f, pcs, 32, &flags);
	CHECKF("walk_sp_not_growing", n == 1 && flags == UNW_F_TRUNC_LOOP, "n=%d flags=%#x", n,
	       flags);

	/* a frame-pointer cycle (RBP points at itself): the second step finds RBP below SP */
	mem[2] = slot(2);
	mem[3] = TEXT + 0x800; /* no CFI there either */
	r = regs3(TEXT + 0x800, BASE, slot(2), 1);
	n = unw_walk(&r, &s, fake_find, &f, pcs, 32, &flags);
	CHECKF("walk_fp_cycle", n == 2 && flags == (UNW_F_TRUNC_NO_CFI | UNW_F_FP_FALLBACK),
	       "n=%d flags=%#x", n, flags);

	/* signal frames may move SP anywhere, but not forever */
	unw_table_free(&f.t);
	fake_init(&f);
	self = rsp_row(TEXT + 0x400, 0);
	self.cfa_kind = UNW_CFA_DEREF; /* CFA = *(RSP + 0) */
	self.ra_kind = UNW_LOC_REG;
	self.ra_reg = UNW_REG_RSP;
	self.ra_off = 8; /* RA at RSP + 8 */
	self.flags = UNW_ROW_SIGNAL;
	fake_fde(&f, TEXT + 0x400, TEXT + 0x440, &self, 1);
	mem[0] = BASE;	       /* saved RSP: the same */
	mem[1] = TEXT + 0x410; /* interrupted PC: the trampoline again */
	r = regs3(TEXT + 0x410, BASE, 0, 0);
	n = unw_walk(&r, &s, fake_find, &f, pcs, 32, &flags);
	CHECKF("walk_signal_cycle", n == 17 && (flags & UNW_F_TRUNC_LOOP), "n=%d flags=%#x", n,
	       flags);
	unw_table_free(&f.t);
}

static void test_walk_signal(void)
{
	/*
	 * handler (TEXT+0x100, CFA = RSP + 16) returns into the trampoline
	 * (TEXT+0x500, a signal frame: CFA = *(RSP + 160), RIP at RSP + 168,
	 * RBP at RSP + 120), which resumes the interrupted PC in g exactly.
	 */
	static uint64_t big[64];
	struct unw_stack s = {BASE, (const uint8_t *)big, sizeof(big)};
	struct unw_row rh = rsp_row(TEXT + 0x100, 16), rt = rsp_row(TEXT + 0x4ff, 0),
		       rg = rsp_row(TEXT + 0x200, 8), rs = rsp_row(TEXT + 0x300, 8);
	struct fake f;
	struct unw_regs r;
	uint64_t pcs[8];
	unsigned int flags = 0;
	int n;

	fake_init(&f);
	rt.cfa_kind = UNW_CFA_DEREF;
	rt.cfa_off = 160;
	rt.ra_kind = UNW_LOC_REG;
	rt.ra_reg = UNW_REG_RSP;
	rt.ra_off = 168;
	rt.rbp_kind = UNW_LOC_REG;
	rt.rbp_reg = UNW_REG_RSP;
	rt.rbp_off = 120;
	rt.flags = UNW_ROW_SIGNAL;
	rs.ra_kind = UNW_LOC_UNDEFINED;
	fake_fde(&f, TEXT + 0x100, TEXT + 0x140, &rh, 1);
	fake_fde(&f, TEXT + 0x200, TEXT + 0x240, &rg, 1);
	fake_fde(&f, TEXT + 0x300, TEXT + 0x340, &rs, 1);
	fake_fde(&f, TEXT + 0x4ff, TEXT + 0x540, &rt, 1);
	memset(big, 0, sizeof(big));
	big[1] = TEXT + 0x500; /* the handler's RA: the trampoline */
	/* the trampoline runs at RSP = BASE + 16 (big[2]); its ucontext words: */
	big[2 + 120 / 8] = 0x7777;	 /* saved RBP */
	big[2 + 160 / 8] = slot(40);	 /* saved RSP, above the handler's frame */
	big[2 + 168 / 8] = TEXT + 0x200; /* interrupted PC: g's first instruction */
	big[40] = TEXT + 0x310;		 /* g's RA (CFA = slot(40) + 8) */
	r = regs3(TEXT + 0x110, BASE, 0, 0);
	n = unw_walk(&r, &s, fake_find, &f, pcs, 8, &flags);
	CHECKF("walk_signal_frame",
	       n == 4 && flags == (UNW_F_COMPLETE | UNW_F_SIGNAL_FRAME) && pcs[1] == TEXT + 0x500 &&
		       pcs[2] == TEXT + 0x200 && pcs[3] == TEXT + 0x310,
	       "n=%d flags=%#x", n, flags);
	/* the trampoline is looked up at RA - 1, the interrupted PC exactly */
	CHECKF("walk_signal_exact_pc",
	       f.nlookups >= 3 && f.lookups[1] == TEXT + 0x4ff && f.lookups[2] == TEXT + 0x200,
	       "lookups %d", f.nlookups);
	unw_table_free(&f.t);
}

/* ---- mappings --------------------------------------------------------- */

static void test_maps(void)
{
	struct unw_maps m = {0}, c;
	int a, b, d;
	struct unw_map *x;

	CHECK("maps_empty_range", unw_maps_insert(&m, 0x2000, 0x2000, 0, NULL) == -EINVAL);
	unw_maps_insert(&m, 0x5000, 0x6000, 0x0, &b);
	unw_maps_insert(&m, 0x1000, 0x4000, 0x1000, &a);
	CHECK("maps_sorted", m.n == 2 && m.v[0].start == 0x1000 && m.v[1].start == 0x5000);
	CHECK("maps_find", unw_maps_find(&m, 0x1000)->obj == &a &&
				   unw_maps_find(&m, 0x3fff)->obj == &a &&
				   unw_maps_find(&m, 0x5800)->obj == &b);
	CHECK("maps_find_outside", !unw_maps_find(&m, 0xfff) && !unw_maps_find(&m, 0x4000) &&
					   !unw_maps_find(&m, 0x6000));
	/* a new mapping in the middle of a splits it; pgoff of the right part follows */
	unw_maps_insert(&m, 0x2000, 0x3000, 0x9000, &d);
	CHECK("maps_split", m.n == 4 && m.v[0].end == 0x2000 && m.v[1].obj == &d &&
				    m.v[2].start == 0x3000 && m.v[2].pgoff == 0x3000 &&
				    m.v[2].obj == &a);
	/* one that covers several replaces them */
	unw_maps_insert(&m, 0x1800, 0x5800, 0, &b);
	x = unw_maps_find(&m, 0x5900);
	CHECK("maps_replace", m.n == 3 && m.v[0].end == 0x1800 && m.v[1].obj == &b &&
				      m.v[1].end == 0x5800 && x && x->start == 0x5800 &&
				      x->pgoff == 0x800);
	CHECK("maps_copy", unw_maps_copy(&c, &m) == 0 && c.n == 3 && c.v != m.v &&
				   unw_maps_find(&c, 0x2000)->obj == &b);
	unw_maps_free(&c);
	unw_maps_free(&m);
	CHECK("maps_free", m.n == 0 && !m.v);
}

int main(void)
{
	test_table();
	test_step_basic();
	test_step_in_reg();
	test_step_bounds();
	test_step_plt();
	test_step_fp();
	test_walk_complete();
	test_walk_ends();
	test_walk_fp_fallback();
	test_walk_loops();
	test_walk_signal();
	test_maps();
	return CHECK_DONE();
}
