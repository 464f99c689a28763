// SPDX-License-Identifier: MIT
/*
 * CFI -> unwind table through libdw (see unwind_cfi.h).
 *
 * The FDEs are listed with dwarf_next_cfi; the one thing decoded here is
 * each FDE's initial location and range (their pointer encoding comes from
 * the CIE's 'R' augmentation), and every start is confirmed by libdw
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
#include "utils/why.h"

struct unw_cfi {
	Dwarf_CFI *cfi;
	Dwarf *dw; /* for .debug_frame */
	int eh_frame;
	struct unw_cfi_stats st;
};

/* The few CIEs of an object and the pointer encoding of their FDEs. */
struct cie_cache {
	Dwarf_Off off[16];
	int enc[16]; /* -1: not understood */
	int n;
};

/* ---- FDE addresses ---------------------------------------------------- */

/* Bytes of a pointer in encoding enc (DW_EH_PE_*), or 0 for the forms not handled. */
static size_t encoded_size(int enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: /* ELF64 */
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	default:
		return 0;
	}
}

/* Read a pointer; apply_rel: add the field's own address for pc-relative encodings. */
static int read_encoded(int enc, const uint8_t *p, const uint8_t *end, uint64_t field_addr,
			int apply_rel, uint64_t *out)
{
	size_t size = encoded_size(enc);
	uint64_t v = 0;

	if (!size || p > end || (size_t)(end - p) < size)
		return -1;
	memcpy(&v, p, size); /* x86-64: little-endian, like the host */
	if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	if (apply_rel) {
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			v += field_addr;
		else if ((enc & 0x70) != DW_EH_PE_absptr)
			return -1;
	}
	*out = v;
	return 0;
}

/* The FDE pointer encoding a CIE announces ('zR' augmentation), or -1. */
static int cie_fde_encoding(const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *end = d ? d + cie->augmentation_data_size : NULL;
	int enc = DW_EH_PE_absptr;

	if (!aug || !aug[0])
		return DW_EH_PE_absptr;
	if (aug[0] != 'z' || !d)
		return -1;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			if (d >= end)
				return -1;
			enc = *d++;
			break;
		case 'L': /* LSDA encoding */
			if (d >= end)
				return -1;
			d++;
			break;
		case 'P': /* personality routine: encoding and pointer */
			if (d >= end || !encoded_size(*d) ||
			    (size_t)(end - d) < 1 + encoded_size(*d))
				return -1;
			d += 1 + encoded_size(*d);
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return enc; /* data we cannot skip: only letters before it were read */
		}
	}
	return enc;
}

static int cie_encoding(struct cie_cache *cc, const unsigned char *ident, Elf_Data *data,
			int eh_frame, Dwarf_Off cie_off)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	int enc = -1;

	for (int i = 0; i < cc->n; i++)
		if (cc->off[i] == cie_off)
			return cc->enc[i];
	if (dwarf_next_cfi(ident, data, eh_frame, cie_off, &next, &entry) == 0 &&
	    entry.CIE_id == (Dwarf_Off)LIBDW_CIE_ID)
		enc = cie_fde_encoding(&entry.cie);
	if (cc->n < (int)(sizeof(cc->off) / sizeof(cc->off[0]))) {
		cc->off[cc->n] = cie_off;
		cc->enc[cc->n++] = enc;
	}
	return enc;
}

/* Every FDE's [start, end) of a CFI section (sh_addr: its link-time address). */
static int list_fdes(Elf *elf, Elf_Data *data, uint64_t sh_addr, int eh_frame, struct unw_table *t)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct cie_cache cc = {.n = 0};
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry entry;

	while (dwarf_next_cfi(ident, data, eh_frame, off, &next, &entry) == 0) {
		const uint8_t *p = entry.fde.start, *end = entry.fde.end;
		uint64_t start, len;
		int enc;

		if (next <= off)
			break;
		off = next;
		if (entry.CIE_id == (Dwarf_Off)LIBDW_CIE_ID)
			continue;
		enc = cie_encoding(&cc, ident, data, eh_frame, entry.fde.CIE_pointer);
		if (enc < 0 ||
		    read_encoded(enc, p, end,
				 sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf), 1, &start))
			continue;
		p += encoded_size(enc);
		if (read_encoded(enc & 0x0f, p, end, 0, 0, &len) || !len || start + len < start)
			continue;
		if (unw_table_add_fde(t, start, start + len) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
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

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int list_section(Elf *elf, const char *section, int eh_frame, struct unw_table *t)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, section, &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	if (!data || !data->d_buf)
		return 0;
	return list_fdes(elf, data, eh_frame ? shdr.sh_addr : 0, eh_frame, t);
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
		rc = list_section(elf, ".eh_frame", 1, t);
	}
	if (rc == 0 && !t->nfdes) {
		if (c->cfi)
			dwarf_cfi_end(c->cfi);
		c->eh_frame = 0;
		c->st.source = ".debug_frame";
		c->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		c->cfi = c->dw ? dwarf_getcfi(c->dw) : NULL;
		if (c->cfi)
			rc = list_section(elf, ".debug_frame", 0, t);
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
