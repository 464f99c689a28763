// SPDX-License-Identifier: MIT
/*
 * The CFI gate (see cfi_check.h).  Every loop below advances a reader by at
 * least one byte inside a range whose size is bounded, or halves a search
 * interval: the check itself always ends, after at most a few hundred
 * thousand byte reads.  It mirrors libunwind 1.6's parser where libunwind's
 * reading decides what gets interpreted (which FDE, where the instructions
 * start), so that what is checked is what libunwind will run.
 */
#include <string.h>

#include "agent/cfi_check.h"
#include "utils/leb128.h"

#define DW_EH_PE_OMIT 0xff
#define DW_EH_PE_INDIRECT 0x80

/* A bounded reader: p advances inside [p, end); any read past end fails. */
struct rd {
	uintptr_t p, end;
	int bad;
};

static int rd_need(struct rd *r, uint64_t n)
{
	if (r->bad || n > r->end - r->p) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t rd_fixed(struct rd *r, unsigned int n)
{
	uint64_t v = 0;

	if (!rd_need(r, n))
		return 0;
	memcpy(&v, (const void *)r->p, n); /* little-endian x86-64 */
	r->p += n;
	return v;
}

static int64_t rd_signed(struct rd *r, unsigned int n)
{
	uint64_t v = rd_fixed(r, n);
	unsigned int shift = 64 - 8 * n;

	return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

/*
 * A LEB128 number (utils/leb128.h), signed or not: its bits; one cut short
 * or of more than 10 bytes is no value of ours (the reader goes bad, 0).
 */
static uint64_t rd_leb(struct rd *r, int is_signed)
{
	const uint8_t *p = (const uint8_t *)r->p, *end = (const uint8_t *)r->end;
	uint64_t v;

	if (r->bad)
		return 0;
	if (is_signed ? leb128__sleb(&p, end, (int64_t *)&v) : leb128__uleb(&p, end, &v)) {
		r->bad = 1;
		return 0;
	}
	r->p = (uintptr_t)p;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, 0);
}

static int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, 1);
}

/* ---- DWARF expressions ------------------------------------------------------ */

enum {
	OPND_NONE,
	OPND_1,
	OPND_2,
	OPND_4,
	OPND_8,
	OPND_ULEB,
	OPND_SLEB,
	OPND_ULEB_SLEB,
	OPND_ULEB_ULEB,
	OPND_BLOCK,
	OPND_BRANCH,
	OPND_BAD
};

/* The operands of a DW_OP_* opcode (DWARF 4, 2.5), OPND_BAD for those refused. */
static int op_operands(uint8_t op)
{
	if (op >= 0x30 && op <= 0x6f) /* lit0..31, reg0..31 */
		return OPND_NONE;
	if (op >= 0x70 && op <= 0x8f) /* breg0..31 */
		return OPND_SLEB;
	switch (op) {
	case 0x03: /* addr */
	case 0x0e: /* const8u */
	case 0x0f: /* const8s */
		return OPND_8;
	case 0x08: /* const1u */
	case 0x09: /* const1s */
	case 0x15: /* pick */
	case 0x94: /* deref_size */
	case 0x95: /* xderef_size */
		return OPND_1;
	case 0x0a: /* const2u */
	case 0x0b: /* const2s */
		return OPND_2;
	case 0x0c: /* const4u */
	case 0x0d: /* const4s */
		return OPND_4;
	case 0x10: /* constu */
	case 0x23: /* plus_uconst */
	case 0x90: /* regx */
	case 0x93: /* piece */
		return OPND_ULEB;
	case 0x11: /* consts */
	case 0x91: /* fbreg */
		return OPND_SLEB;
	case 0x92: /* bregx */
		return OPND_ULEB_SLEB;
	case 0x9d: /* bit_piece */
		return OPND_ULEB_ULEB;
	case 0x9e: /* implicit_value */
		return OPND_BLOCK;
	case 0x28: /* bra */
	case 0x2f: /* skip */
		return OPND_BRANCH;
	case 0x06: /* deref */
	case 0x12: /* dup */
	case 0x13: /* drop */
	case 0x14: /* over */
	case 0x16: /* swap */
	case 0x17: /* rot */
	case 0x18: /* xderef */
	case 0x19: /* abs */
	case 0x1a: /* and */
	case 0x1b: /* div */
	case 0x1c: /* minus */
	case 0x1d: /* mod */
	case 0x1e: /* mul */
	case 0x1f: /* neg */
	case 0x20: /* not */
	case 0x21: /* or */
	case 0x22: /* plus */
	case 0x24: /* shl */
	case 0x25: /* shr */
	case 0x26: /* shra */
	case 0x27: /* xor */
	case 0x29: /* eq */
	case 0x2a: /* ge */
	case 0x2b: /* gt */
	case 0x2c: /* le */
	case 0x2d: /* lt */
	case 0x2e: /* ne */
	case 0x96: /* nop */
	case 0x97: /* push_object_address */
	case 0x9b: /* form_tls_address */
	case 0x9c: /* call_frame_cfa */
	case 0x9f: /* stack_value */
		return OPND_NONE;
	default: /* call2/4/ref (a jump elsewhere), vendor opcodes */
		return OPND_BAD;
	}
}

/* Skip one opcode's operands; the branch offset, if any, into *branch.  0 or a verdict. */
static int skip_operands(struct rd *r, int kind, int64_t *branch)
{
	switch (kind) {
	case OPND_NONE:
		return 0;
	case OPND_1:
		rd_fixed(r, 1);
		break;
	case OPND_2:
		rd_fixed(r, 2);
		break;
	case OPND_4:
		rd_fixed(r, 4);
		break;
	case OPND_8:
		rd_fixed(r, 8);
		break;
	case OPND_ULEB:
		rd_uleb(r);
		break;
	case OPND_SLEB:
		rd_sleb(r);
		break;
	case OPND_ULEB_SLEB:
		rd_uleb(r);
		rd_sleb(r);
		break;
	case OPND_ULEB_ULEB:
		rd_uleb(r);
		rd_uleb(r);
		break;
	case OPND_BLOCK: {
		uint64_t n = rd_uleb(r);

		if (rd_need(r, n))
			r->p += n;
		break;
	}
	case OPND_BRANCH:
		*branch = rd_signed(r, 2);
		break;
	default:
		return CFI_UNKNOWN;
	}
	return r->bad ? CFI_MALFORMED : 0;
}

int cfi_check_expr(const uint8_t *expr, uint64_t len)
{
	uint8_t starts[CFI_MAX_EXPR / 8 + 1]; /* bit i: an opcode of the linear decoding at i */
	uint16_t targets[CFI_MAX_EXPR];
	unsigned int ntargets = 0;
	struct rd r = {(uintptr_t)expr, (uintptr_t)expr + len, 0};

	if (len > CFI_MAX_EXPR)
		return CFI_TOO_BIG;
	memset(starts, 0, sizeof(starts));
	while (r.p < r.end) {
		uint64_t at = r.p - (uintptr_t)expr;
		int64_t branch = -1;
		int kind = op_operands(*(const uint8_t *)r.p++), ret;

		starts[at / 8] |= (uint8_t)(1u << (at % 8));
		ret = skip_operands(&r, kind, &branch);
		if (ret < 0)
			return ret;
		if (kind != OPND_BRANCH)
			continue;
		/* forwards only: the target is past this branch's operand */
		if (branch < 0 || (uint64_t)branch > r.end - r.p)
			return CFI_LOOP;
		targets[ntargets++] = (uint16_t)(r.p - (uintptr_t)expr + (uint64_t)branch);
	}
	starts[len / 8] |= (uint8_t)(1u << (len % 8)); /* the end is a valid target */
	/* onto an opcode: a target inside an operand would decode a different stream */
	for (unsigned int i = 0; i < ntargets; i++)
		if (!(starts[targets[i] / 8] & (1u << (targets[i] % 8))))
			return CFI_LOOP;
	return CFI_OK;
}

/* ---- CFA instructions ----------------------------------------------------------- */

/* Bytes of an encoded pointer of encoding enc (low nibble), 0 for uleb/sleb, -1 refused. */
static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		return 2;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	case 0x01: /* uleb128 */
	case 0x09: /* sleb128 */
		return 0;
	default:
		return -1;
	}
}

/* 0 if libunwind reads pointers of encoding enc as this checker does. */
static int enc_ok(uint8_t enc)
{
	/* application: absptr, pcrel, textrel, datarel, funcrel (aligned 0x50 refused) */
	return enc_size(enc) >= 0 && ((enc & 0x70) <= 0x40) ? 0 : CFI_UNKNOWN;
}

static void skip_encoded(struct rd *r, uint8_t enc)
{
	int n = enc_size(enc);

	if (n > 0)
		rd_fixed(r, (unsigned int)n);
	else if ((enc & 0x0f) == 0x01)
		rd_uleb(r);
	else
		rd_sleb(r);
}

/* An expression operand: its length, then the bytes, all inside the stream. */
static int check_block(struct rd *r)
{
	uint64_t len = rd_uleb(r);
	int ret;

	if (r->bad || !rd_need(r, len))
		return CFI_MALFORMED;
	if (len > CFI_MAX_EXPR)
		return CFI_TOO_BIG;
	ret = cfi_check_expr((const uint8_t *)r->p, len);
	r->p += len;
	return ret;
}

/* One CFA instruction (DWARF 4, 6.4.2); *depth follows remember/restore_state. */
static int check_cfa_op(struct rd *r, uint8_t fde_enc, int *depth)
{
	uint8_t op = (uint8_t)rd_fixed(r, 1);

	switch (op >> 6) {
	case 1: /* advance_loc */
	case 3: /* restore */
		return 0;
	case 2: /* offset */
		rd_uleb(r);
		return 0;
	}
	switch (op) {
	case 0x00: /* nop */
	case 0x2d: /* GNU_window_save */
		return 0;
	case 0x0a: /* remember_state */
		return ++*depth > CFI_MAX_REMEMBER ? CFI_TOO_BIG : 0;
	case 0x0b: /* restore_state (libunwind refuses an empty stack itself) */
		--*depth;
		return 0;
	case 0x01: /* set_loc */
		skip_encoded(r, fde_enc);
		return 0;
	case 0x02: /* advance_loc1 */
		rd_fixed(r, 1);
		return 0;
	case 0x03: /* advance_loc2 */
		rd_fixed(r, 2);
		return 0;
	case 0x04: /* advance_loc4 */
		rd_fixed(r, 4);
		return 0;
	case 0x06: /* restore_extended */
	case 0x07: /* undefined */
	case 0x08: /* same_value */
	case 0x0d: /* def_cfa_register */
	case 0x0e: /* def_cfa_offset */
	case 0x2e: /* GNU_args_size */
		rd_uleb(r);
		return 0;
	case 0x13: /* def_cfa_offset_sf */
		rd_sleb(r);
		return 0;
	case 0x05: /* offset_extended */
	case 0x09: /* register */
	case 0x0c: /* def_cfa */
	case 0x14: /* val_offset */
	case 0x2f: /* GNU_negative_offset_extended */
		rd_uleb(r);
		rd_uleb(r);
		return 0;
	case 0x11: /* offset_extended_sf */
	case 0x12: /* def_cfa_sf */
	case 0x15: /* val_offset_sf */
		rd_uleb(r);
		rd_sleb(r);
		return 0;
	case 0x0f: /* def_cfa_expression */
		return check_block(r);
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		rd_uleb(r);
		return check_block(r);
	default:
		return CFI_UNKNOWN;
	}
}

/* An instruction stream [start, end): every instruction and operand inside it. */
static int check_insns(uintptr_t start, uintptr_t end, uint8_t fde_enc, int *depth)
{
	struct rd r = {start, end, 0};

	if (end < start)
		return CFI_MALFORMED;
	if (end - start > CFI_MAX_INSN)
		return CFI_TOO_BIG;
	while (r.p < r.end) {
		int ret = check_cfa_op(&r, fde_enc, depth);

		if (ret < 0)
			return ret;
		if (r.bad)
			return CFI_MALFORMED;
	}
	return CFI_OK;
}

/* ---- CIE, FDE, table ------------------------------------------------------------ */

/* An entry's length field at *p: the entry's end into *end, p past the field. */
static int entry_length(struct rd *r, uintptr_t *end, int *is64)
{
	uint64_t len = rd_fixed(r, 4);

	*is64 = len == 0xffffffffu;
	if (*is64)
		len = rd_fixed(r, 8);
	if (r->bad || len == 0 || len > r->end - r->p)
		return CFI_MALFORMED;
	*end = r->p + len;
	return 0;
}

struct cie {
	uintptr_t insn, end; /* its initial instructions */
	uint8_t fde_enc, lsda_enc;
	int sized, abi_marker;
};

/* The augmentation data of a CIE ("zLPRS" at most 4, as libunwind keeps). */
static int cie_augmentation(struct rd *r, const char *aug, struct cie *c)
{
	uintptr_t aug_end = 0;

	c->fde_enc = 0x00; /* absptr on x86-64 */
	c->lsda_enc = DW_EH_PE_OMIT;
	c->sized = aug[0] == 'z';
	if (c->sized) {
		uint64_t n = rd_uleb(r);

		if (!rd_need(r, n))
			return CFI_MALFORMED;
		aug_end = r->p + n;
	}
	for (const char *a = aug + c->sized; *a; a++) {
		uint8_t enc;

		switch (*a) {
		case 'L':
			c->lsda_enc = (uint8_t)rd_fixed(r, 1);
			if (c->lsda_enc != DW_EH_PE_OMIT && enc_ok(c->lsda_enc) < 0)
				return CFI_UNKNOWN;
			break;
		case 'R':
			c->fde_enc = (uint8_t)rd_fixed(r, 1);
			if (enc_ok(c->fde_enc) < 0 || (c->fde_enc & DW_EH_PE_INDIRECT))
				return CFI_UNKNOWN;
			break;
		case 'P':
			enc = (uint8_t)rd_fixed(r, 1);
			if (enc_ok(enc) < 0)
				return CFI_UNKNOWN;
			skip_encoded(r, enc);
			break;
		case 'S':
			c->abi_marker = 1;
			break;
		default: /* libunwind would read the rest of the data as instructions */
			return CFI_UNKNOWN;
		}
	}
	if (r->bad || (c->sized && r->p != aug_end))
		return CFI_MALFORMED;
	return 0;
}

static int parse_cie(uintptr_t at, const struct cfi_object *o, struct cie *c)
{
	struct rd r = {at, o->hi, 0};
	char aug[5];
	unsigned int n = 0;
	uint8_t version;
	int is64, ret = entry_length(&r, &c->end, &is64);

	if (ret < 0)
		return ret;
	r.end = c->end;
	if (rd_fixed(&r, is64 ? 8 : 4) != 0 || r.bad) /* the CIE id of .eh_frame */
		return CFI_MALFORMED;
	version = (uint8_t)rd_fixed(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return CFI_UNKNOWN;
	for (;;) { /* the augmentation string, inside the CIE */
		uint8_t ch = (uint8_t)rd_fixed(&r, 1);

		if (r.bad)
			return CFI_MALFORMED;
		if (!ch)
			break;
		if (n == sizeof(aug) - 1)
			return CFI_UNKNOWN; /* libunwind keeps 4 characters */
		aug[n++] = (char)ch;
	}
	aug[n] = 0;
	rd_uleb(&r); /* code alignment */
	rd_sleb(&r); /* data alignment */
	if (version == 1)
		rd_fixed(&r, 1);
	else
		rd_uleb(&r); /* return address column */
	ret = cie_augmentation(&r, aug, c);
	if (ret < 0)
		return ret;
	c->insn = r.p;
	return r.bad ? CFI_MALFORMED : 0;
}

/* The FDE at fde: its CIE and both instruction streams. */
static int check_fde(uintptr_t fde, const struct cfi_object *o)
{
	struct rd r = {fde, o->hi, 0};
	uintptr_t end, id_at, cie_at;
	struct cie c = {0};
	int is64, depth = 0, ret = entry_length(&r, &end, &is64);

	if (ret < 0)
		return ret;
	r.end = end;
	id_at = r.p;
	cie_at = id_at - (uintptr_t)(is64 ? rd_fixed(&r, 8) : (uint64_t)rd_signed(&r, 4));
	if (r.bad || cie_at == id_at || cie_at < o->lo || cie_at >= o->hi)
		return CFI_MALFORMED;
	ret = parse_cie(cie_at, o, &c);
	if (ret < 0)
		return ret;
	/* the pc range (libunwind checks pc against it), then the augmentation or the LSDA */
	skip_encoded(&r, c.fde_enc);
	skip_encoded(&r, c.fde_enc & 0x0f);
	if (c.sized) {
		uint64_t n = rd_uleb(&r);

		if (!rd_need(&r, n))
			return CFI_MALFORMED;
		r.p += n;
	} else {
		if (c.lsda_enc != DW_EH_PE_OMIT)
			skip_encoded(&r, c.lsda_enc);
		if (c.abi_marker)
			rd_fixed(&r, 4);
	}
	if (r.bad)
		return CFI_MALFORMED;
	ret = check_insns(c.insn, c.end, c.fde_enc, &depth);
	if (ret < 0)
		return ret;
	return check_insns(r.p, end, c.fde_enc, &depth);
}

int cfi_check_pc(const struct cfi_object *o, uintptr_t pc)
{
	int32_t rel = (int32_t)(pc - o->hdr); /* libunwind's lookup, to the letter */
	uint64_t lo = 0, hi = o->fde_count;
	int32_t entry[2];

	if (o->lo >= o->hi || o->table < o->lo || o->table > o->hi ||
	    o->fde_count > (o->hi - o->table) / 8)
		return CFI_MALFORMED;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		memcpy(entry, (const void *)(o->table + mid * 8), sizeof(entry));
		if (rel < entry[0])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (hi == 0)
		return CFI_NO_FDE;
	memcpy(entry, (const void *)(o->table + (hi - 1) * 8), sizeof(entry));
	{
		uintptr_t fde = o->hdr + (uintptr_t)(intptr_t)entry[1];

		if (fde < o->lo || fde >= o->hi)
			return CFI_MALFORMED;
		return check_fde(fde, o);
	}
}

const char *cfi_verdict_name(int verdict)
{
	switch (verdict) {
	case CFI_OK:
		return "ok";
	case CFI_NO_FDE:
		return "no FDE";
	case CFI_MALFORMED:
		return "malformed";
	case CFI_UNKNOWN:
		return "unknown to the unwinder";
	case CFI_TOO_BIG:
		return "over a bound";
	case CFI_LOOP:
		return "a looping expression";
	default:
		return "?";
	}
}
