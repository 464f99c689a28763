// SPDX-License-Identifier: MIT
/*
 * The recorder's CFI compiler (unwind/unwind_cfi.c):
 *  - against libdw: for every FDE of real Debian objects, the rules at each
 *    row libdw computes (dwarf_cfi_addrframe, replayed per row: slow, the
 *    reference) are the rules of the compiled table there;
 *  - hostile CFI (issue 16 item 3): the 8 MB .eh_frame of four FDEs of 2 M
 *    DW_CFA_nop and 8,192 rows, FDEs over the row and nesting bounds,
 *    looping DWARF expressions, malformed programs.  Cost is asserted as
 *    the instruction bytes interpreted (linear, bounded), not as time.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "unwind/unwind.h"
#include "unwind/unwind_cfi.h"
#include "tests/progs/hostile_elf.h"

/* ---- the reference: libdw's rules at a PC, in the table's vocabulary ----- */

static int ref_breg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return *reg < UNW_NREGS;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (unsigned int)op->number;
		*off = (int64_t)op->number2;
		return op->number < UNW_NREGS;
	}
	return 0;
}

static void ref_cfa(Dwarf_Frame *fr, struct unw_row *row)
{
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	unsigned int reg;
	int64_t off;

	row->cfa_kind = UNW_CFA_UNSUPPORTED;
	if (dwarf_frame_cfa(fr, &ops, &n) || !n)
		return;
	if (n <= 2 && ref_breg(&ops[0], &reg, &off) && off >= INT32_MIN && off <= INT32_MAX &&
	    (n == 1 || ops[1].atom == DW_OP_deref)) {
		row->cfa_kind = n == 1 ? UNW_CFA_REG : UNW_CFA_DEREF;
		row->cfa_reg = (uint8_t)reg;
		row->cfa_off = (int32_t)off;
	} else if (n == 9 && ref_breg(&ops[0], &reg, &off) && reg == UNW_REG_RSP &&
		   ops[4].atom >= DW_OP_lit0 && ops[4].atom <= DW_OP_lit15) {
		row->cfa_kind = UNW_CFA_PLT; /* the rest of the pattern: test_unwind_objects */
		row->cfa_reg = UNW_REG_RSP;
		row->cfa_off = (int32_t)off;
		row->plt_threshold = ops[4].atom - DW_OP_lit0;
	}
}

static void ref_loc(Dwarf_Frame *fr, int regno, uint8_t *kind, uint8_t *reg, int16_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;
	unsigned int r;
	int64_t o;

	*kind = UNW_LOC_UNSUPPORTED;
	if (dwarf_frame_register(fr, regno, mem, &ops, &n) < 0)
		return;
	if (!n) {
		*kind = ops ? UNW_LOC_UNDEFINED : UNW_LOC_SAME;
		return;
	}
	if (n == 1 && (ops[0].atom == DW_OP_regx ||
		       (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		r = ops[0].atom == DW_OP_regx ? (unsigned int)ops[0].number :
						(unsigned int)(ops[0].atom - DW_OP_reg0);
		if (r < UNW_NREGS) { /* DW_CFA_register: the value is in register r */
			*kind = UNW_LOC_IN_REG;
			*reg = (uint8_t)r;
			*off = 0;
		}
		return;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return;
	if (n == 1) {
		*kind = UNW_LOC_CFA;
		*off = 0;
	} else if (n == 2 && ops[1].atom == DW_OP_plus_uconst &&
		   (int64_t)ops[1].number >= INT16_MIN && (int64_t)ops[1].number <= INT16_MAX) {
		*kind = UNW_LOC_CFA;
		*off = (int16_t)(int64_t)ops[1].number;
	} else if (n == 2 && ref_breg(&ops[1], &r, &o) && o >= INT16_MIN && o <= INT16_MAX) {
		*kind = UNW_LOC_REG;
		*reg = (uint8_t)r;
		*off = (int16_t)o;
	}
}

static int same_rules(const struct unw_row *a, const struct unw_row *b)
{
	if (a->cfa_kind != b->cfa_kind || a->ra_kind != b->ra_kind || a->rbp_kind != b->rbp_kind ||
	    a->flags != b->flags)
		return 0;
	if (a->cfa_kind != UNW_CFA_UNSUPPORTED &&
	    (a->cfa_reg != b->cfa_reg || a->cfa_off != b->cfa_off ||
	     (a->cfa_kind == UNW_CFA_PLT && a->plt_threshold != b->plt_threshold)))
		return 0;
	if ((a->ra_kind == UNW_LOC_CFA || a->ra_kind == UNW_LOC_REG) &&
	    (a->ra_off != b->ra_off || (a->ra_kind == UNW_LOC_REG && a->ra_reg != b->ra_reg)))
		return 0;
	if ((a->rbp_kind == UNW_LOC_CFA || a->rbp_kind == UNW_LOC_REG) &&
	    (a->rbp_off != b->rbp_off || (a->rbp_kind == UNW_LOC_REG && a->rbp_reg != b->rbp_reg)))
		return 0;
	return 1;
}

struct diff_facts {
	int ok;
	size_t fdes, not_ready, rows_checked, mismatches, fde_mismatches;
	char first[200];
};

/* One FDE: every row libdw gives must be the table's rule at that PC. */
static void diff_fde(Dwarf_CFI *cfi, const struct unw_table *t, const struct unw_fde *fde,
		     struct diff_facts *d)
{
	uint64_t pc = fde->start;

	for (int rows = 0; pc < fde->end && rows < 20000; rows++) {
		struct unw_row ref = {.start = pc};
		const struct unw_row *got;
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		bool signal = false;
		int ra;

		if (dwarf_cfi_addrframe(cfi, pc, &fr) || !fr)
			break;
		ra = dwarf_frame_info(fr, &s, &e, &signal);
		ref_cfa(fr, &ref);
		if (ra == UNW_REG_RIP)
			ref_loc(fr, UNW_REG_RIP, &ref.ra_kind, &ref.ra_reg, &ref.ra_off);
		else
			ref.ra_kind = UNW_LOC_UNSUPPORTED;
		ref_loc(fr, UNW_REG_RBP, &ref.rbp_kind, &ref.rbp_reg, &ref.rbp_off);
		ref.flags = signal ? UNW_ROW_SIGNAL : 0;
		free(fr);
		got = unw_table_fde_row(t, fde, pc);
		d->rows_checked++;
		if (!got || !same_rules(got, &ref)) {
			if (!d->mismatches++)
				snprintf(d->first, sizeof(d->first),
					 "pc %#llx: libdw cfa %u/%u%+d ra %u%+d rbp %u%+d; ours "
					 "%s%u/%u%+d ra %u%+d rbp %u%+d",
					 (unsigned long long)pc, ref.cfa_kind, ref.cfa_reg,
					 ref.cfa_off, ref.ra_kind, ref.ra_off, ref.rbp_kind,
					 ref.rbp_off, got ? "" : "(none) ", got ? got->cfa_kind : 0,
					 got ? got->cfa_reg : 0, got ? got->cfa_off : 0,
					 got ? got->ra_kind : 0, got ? got->ra_off : 0,
					 got ? got->rbp_kind : 0, got ? got->rbp_off : 0);
			d->fde_mismatches++;
			return;
		}
		if (e <= pc)
			break;
		pc = e;
	}
}

static struct diff_facts diff_object(const char *path)
{
	struct diff_facts d = {0};
	struct unw_table t = {0};
	struct unw_cfi *c = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	char why[128];

	if (cfi && unw_cfi_open(elf, &t, &c, why, sizeof(why)) == 0 && c &&
	    unw_cfi_compile_all(c, &t) == 0) {
		d.ok = 1;
		d.fdes = t.nfdes;
		for (size_t i = 0; i < t.nfdes; i++) {
			if (t.fdes[i].state == UNW_FDE_READY)
				diff_fde(cfi, &t, &t.fdes[i], &d);
			else
				d.not_ready++;
		}
	}
	unw_cfi_close(c);
	unw_table_free(&t);
	if (cfi)
		dwarf_cfi_end(cfi);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return d;
}

static void test_against_libdw(void)
{
	static const char *objs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libz.so.1",
		"/usr/lib/x86_64-linux-gnu/libm.so.6",
		"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	};

	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		char name[160];
		struct diff_facts d;

		snprintf(name, sizeof(name), "same_rules_as_libdw %s", objs[i]);
		if (access(objs[i], R_OK)) {
			SKIP(name, "not installed");
			continue;
		}
		d = diff_object(objs[i]);
		CHECKF(name,
		       d.ok && d.fdes > 10 && !d.not_ready && d.rows_checked > d.fdes &&
			       !d.mismatches,
		       "ok %d, %zu FDEs (%zu not compiled), %zu rows checked, %zu rows differ in "
		       "%zu FDEs; first: %s",
		       d.ok, d.fdes, d.not_ready, d.rows_checked, d.mismatches, d.fde_mismatches,
		       d.first);
	}
}

/* ---- hostile CFI ------------------------------------------------------------ */

struct compiled {
	int rc;
	struct unw_table t;
	struct unw_cfi_stats st;
};

/* Compile every FDE of an image built from text_len bytes of text and eh. */
static struct compiled compile_image(size_t text_len, const struct helf_buf *eh)
{
	struct compiled r = {0};
	struct helf_buf img;
	struct unw_cfi *c = NULL;
	Elf *elf;
	char why[128];

	r.rc = -1;
	if (helf_image(&img, NULL, text_len, eh->p, eh->len) < 0)
		return r;
	elf = elf_memory((char *)img.p, img.len);
	r.rc = elf ? unw_cfi_open(elf, &r.t, &c, why, sizeof(why)) : -1;
	if (r.rc == 0 && c) {
		r.rc = unw_cfi_compile_all(c, &r.t);
		unw_cfi_get_stats(c, &r.st);
	}
	unw_cfi_close(c);
	if (elf)
		elf_end(elf);
	free(img.p);
	return r;
}

static void test_issue_eh_frame(void)
{
	/* four FDEs of 2 M DW_CFA_nop and 8,192 rows: 8 MB */
	struct helf_buf eh;
	struct compiled r;
	int bound = 0;

	if (helf_hostile_eh(&eh, HELF_EH(4 * 8192), 4, 8192, 2u << 20, 8192) < 0) {
		CHECK("hostile_8mb_built", 0);
		return;
	}
	r = compile_image(4 * 8192, &eh);
	for (size_t i = 0; i < r.t.nfdes; i++)
		bound += r.t.fdes[i].state == UNW_FDE_BOUND;
	CHECKF("hostile_8mb_fdes_bound",
	       r.rc == 0 && r.t.nfdes == 4 && bound == 4 && r.st.fdes_bound == 4 && r.st.over_bound,
	       "rc %d, %zu FDEs (%.1f MB of CFI), %d bound", r.rc, r.t.nfdes, eh.len / 1e6, bound);
	/* only the CIE's program ran: an FDE over a bound is refused before it runs */
	CHECKF("hostile_8mb_not_interpreted", r.st.bytes < 64 && !r.t.nrows,
	       "%llu bytes interpreted, %zu rows", (unsigned long long)r.st.bytes, r.t.nrows);
	unw_table_free(&r.t);
	free(eh.p);
}

static void test_linear(void)
{
	/* four FDEs just under the byte bound: each compiled in one pass */
	size_t nops = UNW_CFI_MAX_FDE_BYTES - 3 * 8192 - 64;
	struct helf_buf eh;
	struct compiled r;
	int ready = 0;

	if (helf_hostile_eh(&eh, HELF_EH(4 * 8192), 4, 8192, nops, 8192) < 0) {
		CHECK("linear_built", 0);
		return;
	}
	r = compile_image(4 * 8192, &eh);
	for (size_t i = 0; i < r.t.nfdes; i++)
		ready += r.t.fdes[i].state == UNW_FDE_READY && r.t.fdes[i].n == 8192;
	CHECKF("linear_compiled", r.rc == 0 && ready == 4 && r.t.nrows == 4 * 8192,
	       "rc %d, %d FDEs of 8192 rows, %zu rows", r.rc, ready, r.t.nrows);
	/* each instruction byte once: at least the four programs, at most the section */
	CHECKF("linear_bytes_once", r.st.bytes >= 4 * (nops + 3 * 8192 + 1) && r.st.bytes <= eh.len,
	       "%llu bytes interpreted for %zu of programs in %zu of .eh_frame",
	       (unsigned long long)r.st.bytes, 4 * (nops + 3 * 8192 + 1), eh.len);
	unw_table_free(&r.t);
	free(eh.p);
}

/* One FDE over [HELF_TEXT, + 256) with the program given: its state, rows, stats. */
static struct compiled one_fde(const uint8_t *insns, size_t n)
{
	struct helf_buf eh = {0};
	struct compiled r;
	size_t cie = helf_cie(&eh);

	helf_fde(&eh, cie, HELF_EH(256), HELF_TEXT, 256, insns, n);
	helf_terminate(&eh);
	r = compile_image(256, &eh);
	free(eh.p);
	return r;
}

static void test_rows_bound(void)
{
	size_t n = 3 * (UNW_CFI_MAX_ROWS + 1);
	uint8_t *insns = malloc(n);
	struct helf_buf eh = {0};
	struct compiled r;
	size_t cie;

	for (size_t i = 0; insns && i < UNW_CFI_MAX_ROWS + 1; i++) {
		insns[3 * i] = 0x41; /* advance_loc 1 */
		insns[3 * i + 1] = 0x0e;
		insns[3 * i + 2] = i % 2 ? 8 : 16;
	}
	cie = helf_cie(&eh);
	helf_fde(&eh, cie, HELF_EH(UNW_CFI_MAX_ROWS + 16), HELF_TEXT, UNW_CFI_MAX_ROWS + 16, insns,
		 n);
	helf_terminate(&eh);
	r = compile_image(UNW_CFI_MAX_ROWS + 16, &eh);
	CHECKF("rows_bound",
	       r.rc == 0 && r.t.nfdes == 1 && r.t.fdes[0].state == UNW_FDE_BOUND && !r.t.nrows &&
		       r.st.fdes_bound == 1,
	       "rc %d, state %u, %zu rows", r.rc, r.t.nfdes ? r.t.fdes[0].state : 0, r.t.nrows);
	unw_table_free(&r.t);
	free(eh.p);
	free(insns);
}

static void test_nesting_bound(void)
{
	uint8_t insns[UNW_CFI_MAX_STATE_DEPTH + 1];
	struct compiled r;

	memset(insns, DW_CFA_remember_state, sizeof(insns));
	r = one_fde(insns, sizeof(insns));
	CHECKF("remember_state_bound", r.rc == 0 && r.t.fdes[0].state == UNW_FDE_BOUND,
	       "rc %d state %u", r.rc, r.t.nfdes ? r.t.fdes[0].state : 0);
	unw_table_free(&r.t);
	r = one_fde(insns, UNW_CFI_MAX_STATE_DEPTH);
	CHECKF("remember_state_within", r.rc == 0 && r.t.fdes[0].state == UNW_FDE_READY,
	       "rc %d state %u", r.rc, r.t.nfdes ? r.t.fdes[0].state : 0);
	unw_table_free(&r.t);
}

/* The FDE's row at HELF_TEXT + off, or NULL. */
static const struct unw_row *row_at(const struct compiled *r, uint64_t off)
{
	if (r->t.nfdes != 1 || r->t.fdes[0].state != UNW_FDE_READY)
		return NULL;
	return unw_table_fde_row(&r->t, &r->t.fdes[0], HELF_TEXT + off);
}

static void test_looping_expressions(void)
{
	/* def_cfa_expression { skip -3 }; { lit1; bra -3 }; val_expression rbp { skip -3 } */
	static const uint8_t skip[] = {0x0f, 3, DW_OP_skip, 0xfd, 0xff, 0x41, 0x0c, 7, 8};
	static const uint8_t bra[] = {0x0f, 4, DW_OP_lit1, DW_OP_bra, 0xfd, 0xff};
	static const uint8_t val[] = {0x16, 6, 3, DW_OP_skip, 0xfd, 0xff, 0x41, DW_CFA_undefined,
				      6};
	struct compiled r = one_fde(skip, sizeof(skip));
	const struct unw_row *a = row_at(&r, 0), *b = row_at(&r, 1);

	CHECKF("expr_skip_loop_unsupported",
	       a && a->cfa_kind == UNW_CFA_UNSUPPORTED && b && b->cfa_kind == UNW_CFA_REG &&
		       b->cfa_off == 8,
	       "rows %p %p", (const void *)a, (const void *)b);
	unw_table_free(&r.t);
	r = one_fde(bra, sizeof(bra));
	a = row_at(&r, 0);
	CHECK("expr_bra_loop_unsupported", a && a->cfa_kind == UNW_CFA_UNSUPPORTED);
	unw_table_free(&r.t);
	r = one_fde(val, sizeof(val));
	a = row_at(&r, 0);
	b = row_at(&r, 1);
	CHECK("val_expression_loop_unsupported", a && a->rbp_kind == UNW_LOC_UNSUPPORTED && b &&
							 b->rbp_kind == UNW_LOC_UNDEFINED &&
							 b->cfa_kind == UNW_CFA_REG);
	unw_table_free(&r.t);
}

static void test_malformed(void)
{
	/* an opcode libdw does not know either, first: no rows */
	static const uint8_t unknown[] = {0x3f};
	/* two rows, then restore_state with nothing remembered: the rows stand, the FDE ends */
	static const uint8_t restore[] = {0x41, 0x0e, 16, 0x41, DW_CFA_restore_state, 0x41};
	/*
	 * set_loc backwards, to text + 1: its operand (pc-relative) is at
	 * .eh_frame + 24 (the CIE) + 17 (the FDE's header) + 2
	 */
	int32_t to = (int32_t)(HELF_TEXT + 1 - (HELF_EH(256) + 24 + 17 + 2));
	uint8_t back[] = {0x44, DW_CFA_set_loc, 0, 0, 0, 0};
	/* a uleb that never ends (longer than 10 bytes) */
	static const uint8_t leb[] = {0x42, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80,
				      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
	struct compiled r = one_fde(unknown, sizeof(unknown));

	memcpy(back + 2, &to, 4);

	CHECKF("malformed_first_op_failed",
	       r.rc == 0 && r.t.fdes[0].state == UNW_FDE_FAILED && r.st.fdes_failed == 1,
	       "state %u", r.t.nfdes ? r.t.fdes[0].state : 0);
	unw_table_free(&r.t);
	r = one_fde(restore, sizeof(restore));
	CHECKF("malformed_restore_state_cut",
	       r.t.nfdes == 1 && r.t.fdes[0].state == UNW_FDE_READY &&
		       r.t.fdes[0].end == HELF_TEXT + 2 && row_at(&r, 1) &&
		       row_at(&r, 1)->cfa_off == 16,
	       "state %u end %#llx", r.t.nfdes ? r.t.fdes[0].state : 0,
	       r.t.nfdes ? (unsigned long long)r.t.fdes[0].end : 0);
	unw_table_free(&r.t);
	r = one_fde(back, sizeof(back));
	CHECKF("malformed_set_loc_backwards",
	       r.t.nfdes == 1 && r.t.fdes[0].state == UNW_FDE_READY &&
		       r.t.fdes[0].end == HELF_TEXT + 4,
	       "state %u", r.t.nfdes ? r.t.fdes[0].state : 0);
	unw_table_free(&r.t);
	r = one_fde(leb, sizeof(leb));
	CHECKF("malformed_endless_uleb",
	       r.t.nfdes == 1 && r.t.fdes[0].state == UNW_FDE_READY &&
		       r.t.fdes[0].end == HELF_TEXT + 2,
	       "state %u", r.t.nfdes ? r.t.fdes[0].state : 0);
	unw_table_free(&r.t);
}

/* ---- the unwinder: a sample in an object over a bound ends counted --------- */

static void test_unwinder_bound(void)
{
	struct helf_buf eh, img;
	struct unwinder *u = unwinder__new();
	struct unwinder_stats st;
	uint64_t regs[4], stack[4] = {0x1234, 0, 0, 0}, pcs[8];
	unsigned int flags = 0;
	char path[64];
	int fd = memfd_create("hostile", MFD_CLOEXEC), n;

	if (fd < 0 || !u || helf_hostile_eh(&eh, HELF_EH(4 * 8192), 4, 8192, 2u << 20, 8192) < 0 ||
	    helf_image(&img, NULL, 4 * 8192, eh.p, eh.len) < 0 ||
	    write(fd, img.p, img.len) != (ssize_t)img.len) {
		CHECK("unwinder_bound_setup", 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	unwinder__add_map(u, 4242, 0x10000000, 0x10000000 + img.len, 0, 0, 0, path);
	regs[0] = 0;			      /* DI */
	regs[1] = 0;			      /* BP */
	regs[2] = 0x7fff0000;		      /* SP */
	regs[3] = 0x10000000 + HELF_TEXT + 5; /* IP, in the first FDE */
	n = unwinder__unwind(u, 4242, regs, UNWIND_REGS_MASK, stack, sizeof(stack), pcs, 8, &flags);
	unwinder__stats(u, &st);
	CHECKF("unwinder_bound_truncates", n == 1 && flags == UNWIND_TRUNC_BOUND, "n %d flags %#x",
	       n, flags);
	CHECKF("unwinder_bound_counted", st.fdes_bound == 1 && st.objects_over_bound == 1,
	       "fdes_bound %llu objects_over_bound %llu", (unsigned long long)st.fdes_bound,
	       (unsigned long long)st.objects_over_bound);
	unwinder__free(u);
	close(fd);
	free(eh.p);
	free(img.p);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_against_libdw();
	test_issue_eh_frame();
	test_linear();
	test_rows_bound();
	test_nesting_bound();
	test_looping_expressions();
	test_malformed();
	test_unwinder_bound();
	return CHECK_DONE();
}
