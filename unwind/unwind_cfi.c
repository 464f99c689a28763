// SPDX-License-Identifier: MIT
/*
 * CFI -> unwind table (see unwind_cfi.h): the CIEs and FDEs listed by
 * utils/ehframe.h (the one reader of a CFI section's entries, symbols/ lists
 * function ranges with it too), and a one-pass, bounded interpreter of each
 * FDE's DW_CFA_* program.  (libdw's own dwarf_cfi_addrframe replays the program
 * from its start for every row asked: quadratic in an FDE's size, 10 s for
 * one FDE of 2 M DW_CFA_nop and 8,192 rows.)
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_cfi.h"
#include "utils/ehframe.h"
#include "utils/leb128.h"
#include "utils/why.h"

/* The rules the table keeps: the CFA's, and where the caller's RBP and RIP are. */
struct loc_rule {
	uint8_t kind; /* enum unw_loc_kind */
	uint8_t reg;
	int16_t off;
};

struct cfi_state {
	uint8_t cfa_kind; /* enum unw_cfa_kind; UNW_CFA_NONE until the program defines it */
	uint8_t cfa_reg;
	uint8_t plt_threshold;
	int32_t cfa_off;
	struct loc_rule rbp, ra;
};

/* A CIE: what its FDEs need (utils/ehframe.h), and the state after its initial instructions. */
struct cie_info {
	struct ehframe_cie cie;
	int valid;  /* 0: not parsed yet (cache slot free) */
	int usable; /* 0: malformed or over a bound: its FDEs fail */
	int ra_rip; /* its return address register is RIP (16) */
	struct cfi_state init;
};

#define CIE_CACHE 16

struct unw_cfi {
	struct ehframe sec; /* the section listed */
	struct cie_info cies[CIE_CACHE];
	unsigned int next_cie; /* round-robin replacement */
	struct unw_cfi_stats st;
};

/* ---- reading ------------------------------------------------------------ */

struct cursor {
	const uint8_t *p, *end;
};

static int get_uleb(struct cursor *c, uint64_t *v)
{
	return leb128__uleb(&c->p, c->end, v);
}

static int get_sleb(struct cursor *c, int64_t *v)
{
	return leb128__sleb(&c->p, c->end, v);
}

static int get_fixed(struct cursor *c, size_t size, uint64_t *v)
{
	if ((size_t)(c->end - c->p) < size)
		return -1;
	*v = 0;
	memcpy(v, c->p, size); /* little-endian, like the host */
	c->p += size;
	return 0;
}

/* A pointer at c (ehframe__read_pointer): an address when apply_rel, else a length. */
static int get_encoded(const struct unw_cfi *x, struct cursor *c, int enc, int apply_rel,
		       uint64_t *out)
{
	return ehframe__read_pointer(&x->sec, enc, &c->p, c->end, apply_rel, out);
}

/* ---- CIEs ----------------------------------------------------------------- */

static int run_program(struct unw_cfi *x, const struct cie_info *ci, struct cursor prog,
		       struct unw_table *t, struct unw_fde *fde, uint64_t *loc_out);

static void parse_cie(struct unw_cfi *x, uint64_t off, struct cie_info *ci)
{
	struct cursor prog;

	memset(ci, 0, sizeof(*ci));
	ci->valid = 1;
	if (ehframe__cie(&x->sec, off, &ci->cie) < 0 || !ci->cie.code_align)
		return;
	ci->ra_rip = ci->cie.ra_reg == UNW_REG_RIP;
	/* before any instruction: no CFA, RBP callee-saved (same value), RA unknown */
	ci->init.rbp.kind = UNW_LOC_SAME;
	ci->init.ra.kind = UNW_LOC_UNSUPPORTED;
	prog = (struct cursor){ci->cie.insns, ci->cie.insns_end};
	if (prog.p > prog.end)
		return;
	if ((size_t)(prog.end - prog.p) > UNW_CFI_MAX_FDE_BYTES ||
	    x->st.bytes + (uint64_t)(prog.end - prog.p) > UNW_CFI_MAX_OBJECT_BYTES) {
		x->st.over_bound = 1; /* its FDEs are not listed, or fail */
		return;
	}
	ci->usable = run_program(x, ci, prog, NULL, NULL, NULL) == 0;
}

static const struct cie_info *get_cie(struct unw_cfi *x, uint64_t off)
{
	struct cie_info *ci;

	for (int i = 0; i < CIE_CACHE; i++)
		if (x->cies[i].valid && x->cies[i].cie.off == off)
			return &x->cies[i];
	ci = &x->cies[x->next_cie++ % CIE_CACHE];
	parse_cie(x, off, ci);
	return ci;
}

/* ---- expressions ---------------------------------------------------------- */

struct op {
	uint8_t atom;
	uint64_t a;
	int64_t b;
};

/*
 * Decode an expression of at most UNW_CFI_MAX_EXPR_OPS operations (only
 * the operations the recognised rules use; anything else: -1).  Nothing is
 * executed, so a branch cannot loop.  Returns the number of operations.
 */
static int decode_expr(struct cursor e, struct op *ops)
{
	int n = 0;

	while (e.p < e.end) {
		struct op *o = &ops[n];
		int64_t s;

		if (n == UNW_CFI_MAX_EXPR_OPS)
			return -1;
		o->atom = *e.p++;
		if (o->atom >= DW_OP_breg0 && o->atom <= DW_OP_breg31) {
			o->a = o->atom - DW_OP_breg0;
			if (get_sleb(&e, &o->b))
				return -1;
		} else if (o->atom == DW_OP_bregx) {
			if (get_uleb(&e, &o->a) || get_sleb(&e, &o->b))
				return -1;
		} else if (o->atom == DW_OP_plus_uconst) {
			if (get_uleb(&e, &o->a))
				return -1;
			s = (int64_t)o->a;
			o->b = s;
		} else if (!((o->atom >= DW_OP_lit0 && o->atom <= DW_OP_lit31) ||
			     o->atom == DW_OP_deref || o->atom == DW_OP_and ||
			     o->atom == DW_OP_ge || o->atom == DW_OP_shl ||
			     o->atom == DW_OP_plus)) {
			return -1;
		}
		n++;
	}
	return n;
}

static int is_breg(const struct op *o, unsigned int *reg, int64_t *off)
{
	if ((o->atom >= DW_OP_breg0 && o->atom <= DW_OP_breg31) || o->atom == DW_OP_bregx) {
		if (o->a >= UNW_NREGS)
			return 0;
		*reg = (unsigned int)o->a;
		*off = o->b;
		return 1;
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
static int is_plt_rule(const struct op *ops, int n, int64_t *off, unsigned int *k)
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

/* DW_CFA_def_cfa_expression: reg + off, *(reg + off), the PLT rule, else unsupported. */
static void cfa_expression(struct cursor e, struct cfi_state *s)
{
	struct op ops[UNW_CFI_MAX_EXPR_OPS];
	int n = decode_expr(e, ops);
	unsigned int reg, k = 0;
	int64_t off;

	s->cfa_kind = UNW_CFA_UNSUPPORTED;
	if (n >= 1 && n <= 2 && is_breg(&ops[0], &reg, &off) && fits32(off) &&
	    (n == 1 || ops[1].atom == DW_OP_deref)) {
		s->cfa_kind = n == 1 ? UNW_CFA_REG : UNW_CFA_DEREF;
		s->cfa_reg = (uint8_t)reg;
		s->cfa_off = (int32_t)off;
	} else if (n > 0 && is_plt_rule(ops, n, &off, &k) && fits32(off)) {
		s->cfa_kind = UNW_CFA_PLT;
		s->cfa_reg = UNW_REG_RSP;
		s->cfa_off = (int32_t)off;
		s->plt_threshold = (uint8_t)k;
	}
}

/*
 * DW_CFA_expression: the caller's register is saved at the address the
 * expression computes, the CFA pushed first.  Empty: at the CFA;
 * plus_uconst off: at CFA + off; bregN off: at reg + off.
 */
static void loc_expression(struct cursor e, struct loc_rule *r)
{
	struct op ops[UNW_CFI_MAX_EXPR_OPS];
	int n = decode_expr(e, ops);
	unsigned int reg;
	int64_t off;

	*r = (struct loc_rule){.kind = UNW_LOC_UNSUPPORTED};
	if (n == 0) {
		*r = (struct loc_rule){.kind = UNW_LOC_CFA};
	} else if (n == 1 && ops[0].atom == DW_OP_plus_uconst && fits16(ops[0].b)) {
		*r = (struct loc_rule){.kind = UNW_LOC_CFA, .off = (int16_t)ops[0].b};
	} else if (n == 1 && is_breg(&ops[0], &reg, &off) && fits16(off)) {
		*r = (struct loc_rule){
			.kind = UNW_LOC_REG, .reg = (uint8_t)reg, .off = (int16_t)off};
	}
}

/* ---- the interpreter ------------------------------------------------------ */

enum { RUN_OK = 0, RUN_MALFORMED = -1, RUN_BOUND = -2, RUN_NOMEM = -3 };

struct interp {
	struct unw_cfi *x;
	const struct cie_info *ci;
	struct unw_table *t; /* NULL: a CIE's initial instructions (no rows) */
	struct unw_fde *fde;
	struct cfi_state s;
	struct cfi_state stack[UNW_CFI_MAX_STATE_DEPTH];
	int depth;
	uint64_t loc;
	uint32_t rows;
};

static void emit_row_rules(const struct interp *in, struct unw_row *row)
{
	const struct cfi_state *s = &in->s;

	row->cfa_kind = s->cfa_kind == UNW_CFA_NONE ? UNW_CFA_UNSUPPORTED : s->cfa_kind;
	row->cfa_reg = s->cfa_reg;
	row->cfa_off = s->cfa_off;
	row->plt_threshold = s->plt_threshold;
	row->rbp_kind = s->rbp.kind;
	row->rbp_reg = s->rbp.reg;
	row->rbp_off = s->rbp.off;
	row->ra_kind = in->ci->ra_rip ? s->ra.kind : UNW_LOC_UNSUPPORTED;
	row->ra_reg = s->ra.reg;
	row->ra_off = s->ra.off;
	row->flags = in->ci->cie.signal ? UNW_ROW_SIGNAL : 0;
}

/* The location moves to to: the row for [loc, to) is emitted (FDEs only; clamped to the FDE). */
static int advance(struct interp *in, uint64_t to)
{
	struct unw_row row = {.start = in->loc};

	if (!in->t)
		return RUN_MALFORMED; /* a CIE's initial instructions do not advance */
	if (to < in->loc)
		return RUN_MALFORMED;
	if (to > in->fde->end)
		to = in->fde->end;
	if (to == in->loc)
		return RUN_OK;
	if (++in->rows > UNW_CFI_MAX_ROWS || in->t->nrows >= UNW_CFI_MAX_OBJECT_ROWS)
		return RUN_BOUND;
	emit_row_rules(in, &row);
	if (unw_table_add_row(in->t, in->fde, &row) < 0)
		return RUN_NOMEM;
	in->x->st.rows++;
	in->x->st.unsupported +=
		row.cfa_kind == UNW_CFA_UNSUPPORTED || row.ra_kind == UNW_LOC_UNSUPPORTED;
	in->loc = to;
	return RUN_OK;
}

static int advance_by(struct interp *in, uint64_t delta)
{
	uint64_t to;

	if (__builtin_mul_overflow(delta, in->ci->cie.code_align, &delta) ||
	    __builtin_add_overflow(in->loc, delta, &to))
		return RUN_MALFORMED;
	return advance(in, to);
}

/* The rule of a register the table keeps, or NULL for the others. */
static struct loc_rule *rule_of(struct cfi_state *s, uint64_t reg)
{
	if (reg == UNW_REG_RBP)
		return &s->rbp;
	if (reg == UNW_REG_RIP)
		return &s->ra;
	return NULL;
}

/* Saved at CFA + factored offset * data alignment. */
static void set_offset(struct interp *in, uint64_t reg, int64_t factored)
{
	struct loc_rule *r = rule_of(&in->s, reg);
	int64_t off;

	if (!r)
		return;
	if (__builtin_mul_overflow(factored, in->ci->cie.data_align, &off) || !fits16(off))
		*r = (struct loc_rule){.kind = UNW_LOC_UNSUPPORTED};
	else
		*r = (struct loc_rule){.kind = UNW_LOC_CFA, .off = (int16_t)off};
}

static void set_kind(struct interp *in, uint64_t reg, uint8_t kind)
{
	struct loc_rule *r = rule_of(&in->s, reg);

	if (r)
		*r = (struct loc_rule){.kind = kind};
}

/* reg's value is in register src (a register the walk knows only at the leaf). */
static void set_in_reg(struct interp *in, uint64_t reg, uint64_t src)
{
	struct loc_rule *r = rule_of(&in->s, reg);

	if (r)
		*r = src < UNW_NREGS ?
			     (struct loc_rule){.kind = UNW_LOC_IN_REG, .reg = (uint8_t)src} :
			     (struct loc_rule){.kind = UNW_LOC_UNSUPPORTED};
}

static void restore_reg(struct interp *in, uint64_t reg)
{
	struct loc_rule *r = rule_of(&in->s, reg);

	if (r)
		*r = *rule_of((struct cfi_state *)&in->ci->init, reg);
}

static void def_cfa(struct interp *in, uint64_t reg, int64_t off)
{
	if (reg >= UNW_NREGS || !fits32(off)) {
		in->s.cfa_kind = UNW_CFA_UNSUPPORTED;
		return;
	}
	in->s.cfa_kind = UNW_CFA_REG;
	in->s.cfa_reg = (uint8_t)reg;
	in->s.cfa_off = (int32_t)off;
}

/* A new offset for a reg + off CFA (meaningless for an expression CFA). */
static void def_cfa_offset(struct interp *in, int64_t off)
{
	if (in->s.cfa_kind != UNW_CFA_REG || !fits32(off))
		in->s.cfa_kind = UNW_CFA_UNSUPPORTED;
	else
		in->s.cfa_off = (int32_t)off;
}

/* A block operand (uleb length, bytes), consumed from c. */
static int get_block(struct cursor *c, struct cursor *block)
{
	uint64_t len;

	if (get_uleb(c, &len) || len > (uint64_t)(c->end - c->p))
		return -1;
	*block = (struct cursor){c->p, c->p + len};
	c->p += len;
	return 0;
}

/* DW_CFA_remember_state / restore_state (the CFA rule included, as GCC's unwinder does). */
static int remember(struct interp *in, int push)
{
	if (push) {
		if (in->depth == UNW_CFI_MAX_STATE_DEPTH)
			return RUN_BOUND;
		in->stack[in->depth++] = in->s;
		return RUN_OK;
	}
	if (!in->depth)
		return RUN_MALFORMED;
	in->s = in->stack[--in->depth];
	return RUN_OK;
}

/* The location and CFA instructions; -4: not one of them. */
static int op_loc_cfa(struct interp *in, uint8_t op, struct cursor *c)
{
	struct cursor block;
	uint64_t u, reg;
	int64_t s;

	switch (op) {
	case DW_CFA_set_loc:
		if (get_encoded(in->x, c, in->ci->cie.fde_enc, 1, &u))
			return RUN_MALFORMED;
		return advance(in, u);
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
	case DW_CFA_MIPS_advance_loc8:
		if (get_fixed(c,
			      op == DW_CFA_advance_loc1 ? 1 :
			      op == DW_CFA_advance_loc2 ? 2 :
			      op == DW_CFA_advance_loc4 ? 4 :
							  8,
			      &u))
			return RUN_MALFORMED;
		return advance_by(in, u);
	case DW_CFA_def_cfa:
		if (get_uleb(c, &reg) || get_uleb(c, &u))
			return RUN_MALFORMED;
		def_cfa(in, reg, u > INT64_MAX ? INT64_MAX : (int64_t)u);
		return RUN_OK;
	case DW_CFA_def_cfa_sf:
		if (get_uleb(c, &reg) || get_sleb(c, &s))
			return RUN_MALFORMED;
		def_cfa(in, reg,
			__builtin_mul_overflow(s, in->ci->cie.data_align, &s) ? INT64_MAX : s);
		return RUN_OK;
	case DW_CFA_def_cfa_register:
		if (get_uleb(c, &reg))
			return RUN_MALFORMED;
		if (in->s.cfa_kind != UNW_CFA_REG || reg >= UNW_NREGS)
			in->s.cfa_kind = UNW_CFA_UNSUPPORTED;
		else
			in->s.cfa_reg = (uint8_t)reg;
		return RUN_OK;
	case DW_CFA_def_cfa_offset:
		if (get_uleb(c, &u))
			return RUN_MALFORMED;
		def_cfa_offset(in, u > INT64_MAX ? INT64_MAX : (int64_t)u);
		return RUN_OK;
	case DW_CFA_def_cfa_offset_sf:
		if (get_sleb(c, &s))
			return RUN_MALFORMED;
		def_cfa_offset(
			in, __builtin_mul_overflow(s, in->ci->cie.data_align, &s) ? INT64_MAX : s);
		return RUN_OK;
	case DW_CFA_def_cfa_expression:
		if (get_block(c, &block))
			return RUN_MALFORMED;
		cfa_expression(block, &in->s);
		return RUN_OK;
	default:
		return -4;
	}
}

/* The register rule instructions. */
static int op_register(struct interp *in, uint8_t op, struct cursor *c)
{
	struct cursor block;
	struct loc_rule *r;
	uint64_t u, reg;
	int64_t s;

	if (get_uleb(c, &reg))
		return RUN_MALFORMED;
	switch (op) {
	case DW_CFA_offset_extended:
	case DW_CFA_GNU_negative_offset_extended:
		if (get_uleb(c, &u) || u > INT64_MAX)
			return RUN_MALFORMED;
		set_offset(in, reg, op == DW_CFA_offset_extended ? (int64_t)u : -(int64_t)u);
		return RUN_OK;
	case DW_CFA_offset_extended_sf:
		if (get_sleb(c, &s))
			return RUN_MALFORMED;
		set_offset(in, reg, s);
		return RUN_OK;
	case DW_CFA_restore_extended:
		restore_reg(in, reg);
		return RUN_OK;
	case DW_CFA_undefined:
		set_kind(in, reg, UNW_LOC_UNDEFINED);
		return RUN_OK;
	case DW_CFA_same_value:
		set_kind(in, reg, UNW_LOC_SAME);
		return RUN_OK;
	case DW_CFA_register: /* in another register: its value there (glibc's __vfork: RDI) */
		if (get_uleb(c, &u))
			return RUN_MALFORMED;
		set_in_reg(in, reg, u);
		return RUN_OK;
	case DW_CFA_val_offset:
		if (get_uleb(c, &u))
			return RUN_MALFORMED;
		set_kind(in, reg, UNW_LOC_UNSUPPORTED);
		return RUN_OK;
	case DW_CFA_val_offset_sf:
		if (get_sleb(c, &s))
			return RUN_MALFORMED;
		set_kind(in, reg, UNW_LOC_UNSUPPORTED);
		return RUN_OK;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		if (get_block(c, &block))
			return RUN_MALFORMED;
		r = rule_of(&in->s, reg);
		if (r && op == DW_CFA_expression)
			loc_expression(block, r);
		else if (r)
			*r = (struct loc_rule){.kind = UNW_LOC_UNSUPPORTED};
		return RUN_OK;
	default:
		return RUN_MALFORMED; /* an opcode we do not know: its operands cannot be skipped */
	}
}

static int step(struct interp *in, struct cursor *c)
{
	uint8_t op = *c->p++;
	uint64_t u;
	int rc;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance_by(in, op & 0x3f);
	case DW_CFA_offset:
		if (get_uleb(c, &u) || u > INT64_MAX)
			return RUN_MALFORMED;
		set_offset(in, op & 0x3f, (int64_t)u);
		return RUN_OK;
	case DW_CFA_restore:
		restore_reg(in, op & 0x3f);
		return RUN_OK;
	}
	switch (op) {
	case DW_CFA_nop:
		return RUN_OK;
	case DW_CFA_remember_state:
	case DW_CFA_restore_state:
		return remember(in, op == DW_CFA_remember_state);
	case DW_CFA_GNU_args_size:
		return get_uleb(c, &u) ? RUN_MALFORMED : RUN_OK;
	}
	rc = op_loc_cfa(in, op, c);
	return rc != -4 ? rc : op_register(in, op, c);
}

/*
 * Run a program: a CIE's initial instructions (t NULL: sets ci's initial
 * state), or an FDE's (rows into t from fde->start; *loc_out: where the
 * last row ends).  The caller has checked the program's size against the
 * bounds; every instruction consumes at least one byte.
 */
static int run_program(struct unw_cfi *x, const struct cie_info *ci, struct cursor prog,
		       struct unw_table *t, struct unw_fde *fde, uint64_t *loc_out)
{
	struct interp *in = malloc(sizeof(*in));
	int rc = RUN_OK;

	if (!in)
		return RUN_NOMEM;
	in->x = x;
	in->ci = ci;
	in->t = t;
	in->fde = fde;
	in->s = ci->init;
	in->depth = 0;
	in->loc = fde ? fde->start : 0;
	in->rows = 0;
	x->st.bytes += (uint64_t)(prog.end - prog.p);
	while (rc == RUN_OK && prog.p < prog.end && (!fde || in->loc < fde->end))
		rc = step(in, &prog);
	if (t && rc == RUN_OK)
		rc = advance(in, fde->end); /* the last row runs to the FDE's end */
	if (!t)
		((struct cie_info *)ci)->init = in->s;
	if (loc_out)
		*loc_out = in->loc;
	free(in);
	return rc;
}

/* ---- FDEs ----------------------------------------------------------------- */

/* An FDE's CIE, address range and instructions. */
struct fde_info {
	const struct cie_info *ci;
	struct ehframe_fde f;
};

/* The FDE entry e, its CIE usable and its instructions there (ehframe__fde). */
static int parse_fde(struct unw_cfi *x, const struct ehframe_entry *e, struct fde_info *f)
{
	if (e->is_cie)
		return -1;
	f->ci = get_cie(x, e->cie_off);
	if (!f->ci->usable || ehframe__fde(&x->sec, e, &f->ci->cie, &f->f) < 0 || !f->f.insns)
		return -1;
	return 0;
}

static void fde_bound(struct unw_cfi *x, struct unw_fde *fde)
{
	fde->state = UNW_FDE_BOUND;
	x->st.fdes_bound++;
	x->st.over_bound = 1;
}

int unw_cfi_compile_fde(struct unw_cfi *c, struct unw_table *t, struct unw_fde *fde)
{
	size_t first = t->nrows;
	struct ehframe_entry e;
	struct fde_info f;
	struct cursor prog;
	uint64_t loc = fde->start;
	int rc;

	if (fde->state != UNW_FDE_NEW)
		return 0;
	c->st.fdes_compiled++;
	fde->state = UNW_FDE_FAILED;
	if (ehframe__entry(&c->sec, fde->cfi_off, &e) < 0 || parse_fde(c, &e, &f) < 0 ||
	    f.f.start != fde->start) {
		c->st.fdes_failed++;
		return 0;
	}
	prog = (struct cursor){f.f.insns, f.f.insns_end};
	if ((size_t)(prog.end - prog.p) > UNW_CFI_MAX_FDE_BYTES ||
	    c->st.bytes + (uint64_t)(prog.end - prog.p) > UNW_CFI_MAX_OBJECT_BYTES) {
		fde_bound(c, fde);
		return 0;
	}
	fde->n = 0;
	rc = run_program(c, f.ci, prog, t, fde, &loc);
	if (rc == RUN_NOMEM || rc == RUN_BOUND) {
		t->nrows = first; /* its rows are the table's last ones */
		fde->n = 0;
		if (rc == RUN_NOMEM)
			return -ENOMEM;
		fde_bound(c, fde);
		return 0;
	}
	if (!fde->n) {
		c->st.fdes_failed++;
		return 0;
	}
	fde->state = UNW_FDE_READY;
	if (loc < fde->end)
		fde->end = loc; /* malformed past its last row: rules for part of it only */
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

/* ---- listing -------------------------------------------------------------- */

/*
 * Every FDE's [start, end) of the section (utils/ehframe.h: at most
 * EHFRAME_MAX_ENTRIES entries), those whose CIE this interpreter can use
 * and whose instructions are where they should be.
 */
static int list_fdes(struct unw_cfi *x, struct unw_table *t)
{
	struct ehframe_iter it = {0};
	struct ehframe_fde f;

	while (ehframe__next_fde(&x->sec, &it, &f, NULL) > 0) {
		if (!get_cie(x, f.cie_off)->usable || !f.insns)
			continue;
		if (unw_table_add_fde(t, f.start, f.end) == -ENOMEM)
			return -ENOMEM;
		t->fdes[t->nfdes - 1].cfi_off = (uint32_t)f.off;
	}
	if (it.over_bound)
		x->st.over_bound = 1;
	return 0;
}

static int list_section(struct unw_cfi *x, Elf *elf, const char *name, struct unw_table *t)
{
	if (ehframe__open(&x->sec, elf, name) < 0)
		return 0;
	x->st.source = name;
	memset(x->cies, 0, sizeof(x->cies));
	x->st.over_bound = 0;
	return list_fdes(x, t);
}

int unw_cfi_open(Elf *elf, struct unw_table *t, struct unw_cfi **out, char *why, size_t whylen)
{
	struct unw_cfi *c;
	GElf_Ehdr ehdr;
	int rc;

	*out = NULL;
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_machine != EM_X86_64)
		return why_fail(why, whylen, -ENOTSUP, "not an x86-64 ELF64 object");
	c = calloc(1, sizeof(*c));
	if (!c)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	rc = list_section(c, elf, ".eh_frame", t);
	if (rc == 0 && !t->nfdes)
		rc = list_section(c, elf, ".debug_frame", t);
	if (rc < 0 || !t->nfdes) {
		unw_cfi_close(c);
		unw_table_free(t);
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
	free(c);
}
