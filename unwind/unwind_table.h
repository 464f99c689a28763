/* SPDX-License-Identifier: MIT */
/*
 * The pure core of the stack unwinder (x86-64): unwind tables compiled from
 * the CFI, and the step that walks one sample's stack with them.  No OS
 * calls: unwind/unwind_cfi.c fills the tables from the CFI, unwind/unwind.c
 * owns the objects and mappings; the tests drive this file with synthetic
 * tables and stacks.
 *
 * A table holds the rows of one ELF object, in link-time addresses, FDE by
 * FDE.  A row covers [start, next row's start) and says how to find the
 * caller's registers there:
 *
 *   CFA       = reg + off | *(reg + off) | the PLT rule | unknown
 *   caller RSP = CFA                     (the x86-64 psABI defines CFA so)
 *   caller RIP = *(CFA + ra_off) | *(reg + ra_off) | undefined (outermost)
 *   caller RBP = same | *(CFA + off) | *(reg + off) | undefined
 *
 * Addresses no FDE covers have no CFI; the walker then takes one
 * frame-pointer step and says so.
 *
 * Memory is read only from the sample's stack copy: an address outside
 * [sp, sp + size) ends the walk as truncated.
 */
#ifndef PROFIL_UNWIND_TABLE_H
#define PROFIL_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers of the x86-64 psABI. */
enum {
	UNW_REG_RAX = 0,
	UNW_REG_RDX = 1,
	UNW_REG_RCX = 2,
	UNW_REG_RBX = 3,
	UNW_REG_RSI = 4,
	UNW_REG_RDI = 5,
	UNW_REG_RBP = 6,
	UNW_REG_RSP = 7,
	UNW_REG_R8 = 8, /* ... r15 = 15 */
	UNW_REG_RIP = 16,
	UNW_NREGS = 17,
};

enum unw_cfa_kind {
	UNW_CFA_NONE = 0,    /* no CFI here: frame-pointer step */
	UNW_CFA_REG,	     /* CFA = reg + off */
	UNW_CFA_DEREF,	     /* CFA = *(reg + off) (signal frames, stack realignment) */
	UNW_CFA_PLT,	     /* CFA = RSP + off, + 8 when (pc & 15) >= plt_threshold */
	UNW_CFA_UNSUPPORTED, /* an expression the step does not evaluate */
};

enum unw_loc_kind {
	UNW_LOC_SAME = 0,    /* the register keeps its value in the caller */
	UNW_LOC_CFA,	     /* saved at CFA + off */
	UNW_LOC_REG,	     /* saved at reg + off */
	UNW_LOC_UNDEFINED,   /* not recoverable; for the return address: the outermost frame */
	UNW_LOC_UNSUPPORTED, /* a rule the step does not evaluate */
	UNW_LOC_IN_REG,	     /* its value is in register reg (DW_CFA_register): known at the leaf */
};

#define UNW_ROW_SIGNAL                                                                             \
	0x01 /* a signal trampoline: the caller's PC is exact, not a return address */

struct unw_row {
	uint64_t start; /* link-time address; the row ends where the next one (or its FDE) ends */
	int32_t cfa_off;
	int16_t rbp_off;
	int16_t ra_off;
	uint8_t cfa_kind; /* enum unw_cfa_kind */
	uint8_t cfa_reg;
	uint8_t rbp_kind; /* enum unw_loc_kind */
	uint8_t rbp_reg;
	uint8_t ra_kind; /* enum unw_loc_kind */
	uint8_t ra_reg;
	uint8_t flags; /* UNW_ROW_* */
	uint8_t plt_threshold;
};

/* ---- tables ----------------------------------------------------------- */

/*
 * An object's table: its FDEs (sorted, disjoint), each with its rows once
 * compiled.  Addresses no FDE covers have no CFI.  Rows are compiled per
 * FDE on the first lookup that needs them (a large library's full table
 * would cost a long stall of the recorder and memory for code never run).
 */
enum unw_fde_state {
	UNW_FDE_NEW = 0, /* listed, rows not compiled yet */
	UNW_FDE_READY,	 /* rows[first .. first + n) hold its rules */
	UNW_FDE_FAILED,	 /* malformed CFI: no rows (the walker takes a frame-pointer step) */
	UNW_FDE_BOUND,	 /* its CFI exceeds a bound (unwind_cfi.h): no rows, walks end truncated */
};

struct unw_fde {
	uint64_t start, end; /* link-time [start, end) */
	uint32_t first, n;   /* its rows: rows[first .. first + n) */
	uint32_t state;	     /* enum unw_fde_state */
	uint32_t cfi_off;    /* the compiler's: where the FDE is in its CFI section */
};

struct unw_table {
	struct unw_fde *fdes;
	size_t nfdes, fdecap;
	struct unw_row *rows;
	size_t nrows, rowcap;
};

/*
 * Add an FDE's range (any order; unw_table_sort_fdes sorts), state NEW,
 * cfi_off 0 (the compiler sets it).  Returns 0, -EINVAL or -ENOMEM.
 */
int unw_table_add_fde(struct unw_table *t, uint64_t start, uint64_t end);

/* Sort the FDEs and drop those that overlap a previous one (malformed CFI). */
void unw_table_sort_fdes(struct unw_table *t);

/* The FDE covering a link-time address, or NULL (no CFI there). */
struct unw_fde *unw_table_find_fde(const struct unw_table *t, uint64_t addr);

/*
 * Append the next row of fde, in address order, while compiling it (rows
 * of one FDE are added together, before the next FDE's); a row with the
 * same rules as the previous one of the FDE is merged into it.  Returns 0
 * or -ENOMEM.  Row pointers given out before may move.
 */
int unw_table_add_row(struct unw_table *t, struct unw_fde *fde, const struct unw_row *row);

/* The row of a READY fde covering addr (addr inside the FDE), or NULL. */
const struct unw_row *unw_table_fde_row(const struct unw_table *t, const struct unw_fde *fde,
					uint64_t addr);

void unw_table_free(struct unw_table *t);

/* ---- one sample's walk ------------------------------------------------ */

struct unw_regs {
	uint64_t r[UNW_NREGS];
	uint32_t valid; /* bit n: r[n] is known */
};

/* The sample's copy of the user stack: the bytes at [base, base + size). */
struct unw_stack {
	uint64_t base; /* the sampled RSP */
	const uint8_t *data;
	size_t size;
};

/* Outcome of one step (the walker turns them into UNWIND_* flags). */
enum unw_step_result {
	UNW_STEP_OK = 0,
	UNW_STEP_OUTERMOST,   /* CFI says the return address is undefined: the stack is complete */
	UNW_STEP_STACK,	      /* needed memory outside the stack copy */
	UNW_STEP_UNSUPPORTED, /* a rule not evaluated, or a register the sample does not give */
	UNW_STEP_NO_FRAME,    /* frame-pointer step: RBP unknown, 0 or below SP */
};

/*
 * One step through a CFI row (regs: the frame's registers, replaced by the
 * caller's).  The PLT rule uses the runtime RIP: mappings are page-aligned,
 * so its low bits are the link-time ones.  Pure.
 */
enum unw_step_result unw_step_cfi(const struct unw_row *row, const struct unw_stack *stack,
				  struct unw_regs *regs);

/* One frame-pointer step: RIP = *(RBP + 8), RSP = RBP + 16, RBP = *RBP.  Pure. */
enum unw_step_result unw_step_fp(const struct unw_stack *stack, struct unw_regs *regs);

/* What the walker's lookup found for a PC. */
struct unw_found {
	const struct unw_row *row; /* NULL: the object has no CFI for the PC (frame-pointer step) */
	int mapped;		   /* 0: the PC is in no known executable mapping */
	int bound;		   /* 1: the PC's CFI exceeds a bound (UNW_FDE_BOUND): stop */
};

/*
 * The lookup the walker calls once per frame, with the runtime address to
 * look up: the frame's PC for the leaf (and after a signal frame), PC - 1
 * for a return address, so that a call that ends a function (noreturn)
 * still finds that function's row.
 */
typedef void (*unw_find_fn)(void *arg, uint64_t lookup_pc, struct unw_found *out);

/* Walk flags (also the public UNWIND_* flags of unwind/unwind.h, same values). */
#define UNW_F_COMPLETE 0x001
#define UNW_F_FP_FALLBACK 0x002
#define UNW_F_SIGNAL_FRAME 0x004
#define UNW_F_TRUNC_STACK 0x010
#define UNW_F_TRUNC_NO_MAP 0x020
#define UNW_F_TRUNC_NO_CFI 0x040
#define UNW_F_TRUNC_UNSUPPORTED 0x080
#define UNW_F_TRUNC_LOOP 0x100
#define UNW_F_TRUNC_DEPTH 0x200
#define UNW_F_TRUNC_NO_REGS 0x400
#define UNW_F_TRUNC_BOUND 0x800
#define UNW_F_TRUNCATED 0xff0

/*
 * Walk from the sampled registers (RIP and RSP must be valid) and write at
 * most max PCs, leaf first: pcs[0] is the sampled PC, the others are
 * return addresses (or, after a signal frame, the interrupted PC).
 * Returns the number written; *flags gets UNW_F_COMPLETE or one
 * UNW_F_TRUNC_* reason, plus UNW_F_FP_FALLBACK / UNW_F_SIGNAL_FRAME.
 * The stack pointer must grow at every step except across a signal frame,
 * so a cycle cannot run away (and max bounds the rest).  Pure.
 */
int unw_walk(const struct unw_regs *leaf, const struct unw_stack *stack, unw_find_fn find,
	     void *arg, uint64_t *pcs, int max, unsigned *flags);

/* ---- a process's executable mappings ---------------------------------- */

struct unw_map {
	uint64_t start, end, pgoff;
	void *obj;	/* the caller's object (NULL: anonymous code) */
	int64_t bias;	/* runtime address - link-time address, once bias_state is 1 */
	int bias_state; /* 0 unknown yet, 1 known, -1 cannot be computed */
};

/* Sorted, non-overlapping. */
struct unw_maps {
	struct unw_map *v;
	size_t n, cap;
	size_t last; /* index of the last hit */
};

/*
 * Add [start, end) at file offset pgoff; what it overlaps is cut away (a
 * new mapping replaces the old one there, as mmap does).  Returns 0,
 * -EINVAL for an empty range, or -ENOMEM.
 */
int unw_maps_insert(struct unw_maps *m, uint64_t start, uint64_t end, uint64_t pgoff, void *obj);

/* The mapping holding addr, or NULL. */
struct unw_map *unw_maps_find(struct unw_maps *m, uint64_t addr);

/* dst (empty) = a copy of src.  Returns 0 or -ENOMEM. */
int unw_maps_copy(struct unw_maps *dst, const struct unw_maps *src);

void unw_maps_free(struct unw_maps *m);

#endif /* PROFIL_UNWIND_TABLE_H */
