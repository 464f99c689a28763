// SPDX-License-Identifier: MIT
/*
 * CFI -> unwind table through libdw (see unwind_cfi.h).
 *
 * The FDEs are listed by utils/fde.h (dwarf_next_cfi and the pointer
 * encoding of the CIE's 'R' augmentation), and every start is confirmed by libdw
 * (dwarf_cfi_addrframe must report a row starting exactly there) before
 * its rows are taken.  Everything else, the CFA and register rules at each
 * PC, is what libdw computes.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_cfi.h"
#include "utils/fde.h"
#include "utils/why.h"

struct unw_cfi {
	Dwarf_CFI *cfi;
	Dwarf *dw; /* for .debug_frame */
	int eh_frame;
	struct unw_cfi_stats st;
};

/* One FDE into the table (fde__list's callback). */
static int add_fde(void *arg, uint64_t start, uint64_t end)
{
	return unw_table_add_fde(arg, start, end) == -ENOMEM ? -ENOMEM : 0;
}

/* ---- rules ------------------------------------------------------------ */

/* DW_OP_bregN off / DW_OP_bregx N off: register and offset. */
static int is_breg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return 1;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (unsigned int)op->number;
		*off = (int64_t)op->number2;
		return op->number < UNW_NREGS;
	}
	return 0;
}

static int fits16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * The lazy-binding PLT rule GNU ld writes for .plt:
 *   breg7 (rsp) N; breg16 (rip) 0; lit15; and; litK; ge; lit3; shl; plus
 * i.e. CFA = RSP + N + ((RIP & 15) >= K ? 8 : 0).
 */
static int is_plt_rule(const Dwarf_Op *ops, size_t n, int64_t *off, unsigned int *k)
{
	static const uint8_t tail[] = {DW_OP_lit15, DW_OP_and, 0,	  DW_OP_ge,
				       DW_OP_lit3,  DW_OP_shl, DW_OP_plus};
	unsigned int reg;
	int64_t ripoff;

	if (n != 9 || !is_breg(&ops[0], &reg, off) || reg != UNW_REG_RSP ||
	    !is_breg(&ops[1], &reg, &ripoff) || reg != UNW_REG_RIP || ripoff)
		return 0;
	for (size_t i = 0; i < sizeof(tail); i++) {
		if (i == 2) {
			if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
				return 0;
			*k = ops[4].atom - DW_OP_lit0;
		} else if (ops[2 + i].atom != tail[i]) {
			return 0;
		}
	}
	return 1;
}

static void compile_cfa(Dwarf_Frame *fr, struct unw_row *row)
{
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	unsigned int reg, k = 0;
	int64_t off;

	row->cfa_kind = UNW_CFA_UNSUPPORTED;
	if (dwarf_frame_cfa(fr, &ops, &n) || !n)
		return;
	if (n <= 2 && is_breg(&ops[0], &reg, &off) && reg < UNW_NREGS && fits32(off) &&
	    (n == 1 || ops[1].atom == DW_OP_deref)) {
		row->cfa_kind = n == 1 ? UNW_CFA_REG : UNW_CFA_DEREF;
		row->cfa_reg = (uint8_t)reg;
		row->cfa_off = (int32_t)off;
	} else if (is_plt_rule(ops, n, &off, &k) && fits32(off)) {
		row->cfa_kind = UNW_CFA_PLT;
		row->cfa_reg = UNW_REG_RSP;
		row->cfa_off = (int32_t)off;
		row->plt_threshold = (uint8_t)k;
	}
}

/*
 * Where the caller's value of a register is, from dwarf_frame_register:
 * same value (ops NULL), undefined (no ops), saved at CFA + off
 * ([call_frame_cfa] or [call_frame_cfa, plus_uconst off]), saved at
 * reg + off (an expression rule: [call_frame_cfa, bregN off]).
 */
static void compile_loc(Dwarf_Frame *fr, int regno, uint8_t *kind, uint8_t *reg, int16_t *off)
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
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		if (n == 1) {
			*kind = UNW_LOC_CFA;
			*off = 0;
		} else if (n == 2 && ops[1].atom == DW_OP_plus_uconst &&
			   fits16((int64_t)ops[1].number)) {
			*kind = UNW_LOC_CFA;
			*off = (int16_t)(int64_t)ops[1].number;
		} else if (n == 2 && is_breg(&ops[1], &r, &o) && r < UNW_NREGS && fits16(o)) {
			*kind = UNW_LOC_REG;
			*reg = (uint8_t)r;
			*off = (int16_t)o;
		}
	} else if (n == 1 && is_breg(&ops[0], &r, &o) && r < UNW_NREGS && fits16(o)) {
		*kind = UNW_LOC_REG;
		*reg = (uint8_t)r;
		*off = (int16_t)o;
	}
}

static void compile_row(Dwarf_Frame *fr, int ra_regno, bool signal, struct unw_row *row)
{
	compile_cfa(fr, row);
	if (ra_regno == UNW_REG_RIP)
		compile_loc(fr, UNW_REG_RIP, &row->ra_kind, &row->ra_reg, &row->ra_off);
	else
		row->ra_kind = UNW_LOC_UNSUPPORTED;
	compile_loc(fr, UNW_REG_RBP, &row->rbp_kind, &row->rbp_reg, &row->rbp_off);
	row->flags = signal ? UNW_ROW_SIGNAL : 0;
}

/* ---- tables ----------------------------------------------------------- */

/*
 * Rows compiled per FDE at most: libdw replays the FDE's program up to each
 * row, so the cost grows with the square of its rows; real FDEs have tens
 * to a few thousand.  Past the cap (a hostile file) the rest of the FDE has
 * no CFI for us.
 */
#define MAX_ROWS_PER_FDE 8192

/* Walk one FDE row by row; libdw must confirm that the FDE starts at fde->start. */
int unw_cfi_compile_fde(struct unw_cfi *c, struct unw_table *t, struct unw_fde *fde)
{
	uint64_t pc = fde->start;
	int rows = 0;

	if (fde->state != UNW_FDE_NEW)
		return 0;
	fde->state = UNW_FDE_FAILED;
	while (pc < fde->end && rows++ < MAX_ROWS_PER_FDE) {
		struct unw_row row = {.start = pc};
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		bool signal = false;
		int ra;

		if (dwarf_cfi_addrframe(c->cfi, pc, &fr) || !fr)
			break;
		ra = dwarf_frame_info(fr, &s, &e, &signal);
		if (s > pc || e <= pc || (pc == fde->start && s != pc)) {
			free(fr);
			break;
		}
		compile_row(fr, ra, signal, &row);
		free(fr);
		if (unw_table_add_row(t, fde, &row) < 0)
			return -ENOMEM;
		c->st.rows++;
		c->st.unsupported +=
			row.cfa_kind == UNW_CFA_UNSUPPORTED || row.ra_kind == UNW_LOC_UNSUPPORTED;
		pc = e;
	}
	c->st.fdes_compiled++;
	if (fde->n) {
		fde->state = UNW_FDE_READY;
		if (pc < fde->end)
			fde->end = pc; /* rules for part of it only (libdw stopped, or the cap) */
	} else {
		c->st.fdes_failed++;
	}
	return 0;
}

int unw_cfi_compile_all(struct unw_cfi *c, struct unw_table *t)
{
	for (size_t i = 0; i < t->nfdes; i++) {
		int rc = unw_cfi_compile_fde(c, t, &t->fdes[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int unw_cfi_open(Elf *elf, struct unw_table *t, struct unw_cfi **out, char *why, size_t whylen)
{
	struct unw_cfi *c;
	GElf_Ehdr ehdr;
	int rc = 0;

	*out = NULL;
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_machine != EM_X86_64)
		return why_fail(why, whylen, -ENOTSUP, "not an x86-64 ELF64 object");
	c = calloc(1, sizeof(*c));
	if (!c)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	c->cfi = dwarf_getcfi_elf(elf);
	if (c->cfi) {
		c->eh_frame = 1;
		c->st.source = ".eh_frame";
		rc = fde__list_section(elf, ".eh_frame", add_fde, t, NULL);
	}
	if (rc == 0 && !t->nfdes) {
		if (c->cfi)
			dwarf_cfi_end(c->cfi);
		c->eh_frame = 0;
		c->st.source = ".debug_frame";
		c->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		c->cfi = c->dw ? dwarf_getcfi(c->dw) : NULL;
		if (c->cfi)
			rc = fde__list_section(elf, ".debug_frame", add_fde, t, NULL);
	}
	if (rc < 0 || !t->nfdes) {
		unw_cfi_close(c);
		free(t->fdes);
		memset(t, 0, sizeof(*t));
		if (rc < 0)
			return why_fail(why, whylen, rc, "out of memory");
		return why_fail(why, whylen, 0, "no CFI");
	}
	unw_table_sort_fdes(t);
	c->st.fdes = t->nfdes;
	*out = c;
	return 0;
}

void unw_cfi_get_stats(const struct unw_cfi *c, struct unw_cfi_stats *st)
{
	*st = c->st;
}

void unw_cfi_close(struct unw_cfi *c)
{
	if (!c)
		return;
	if (c->eh_frame && c->cfi)
		dwarf_cfi_end(c->cfi);
	if (c->dw)
		dwarf_end(c->dw);
	free(c);
}
