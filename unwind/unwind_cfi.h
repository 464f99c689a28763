/* SPDX-License-Identifier: MIT */
/*
 * Compile an ELF object's CFI (.eh_frame, else .debug_frame) into an
 * unwind table (unwind/unwind_table.h).  libdw splits the section into
 * entries (dwarf_next_cfi); this file lists the FDEs, and compiles an FDE
 * when asked by interpreting its DW_CFA_* program (the CIE's initial
 * instructions, then the FDE's) once, from its first byte to its last,
 * emitting a table row each time the location advances.  DWARF
 * expressions (DW_CFA_def_cfa_expression, DW_CFA_expression) are decoded,
 * never executed: the few that matter (the x86-64 PLT rule, *(reg + off)
 * for signal frames and stack realignment, reg + off) become row rules,
 * every other one an unsupported rule.
 *
 * The object is untrusted (the profiled program maps what it likes), so
 * every loop is bounded, and the cost of an object is linear in its CFI
 * and capped (measured: libLLVM-14, 95,000 FDEs and 3.4 MB of CFI, lists in
 * 8 ms and compiles whole in 21 ms; 1.5 ms per MB of CFI interpreted, so
 * the object budget is ~0.1 s):
 *
 *   UNW_CFI_MAX_FDE_BYTES    instruction bytes of one FDE (and of a CIE's
 *                            initial instructions), checked before running
 *   UNW_CFI_MAX_ROWS         rows one FDE may emit
 *   UNW_CFI_MAX_STATE_DEPTH  DW_CFA_remember_state nesting
 *   UNW_CFI_MAX_OBJECT_BYTES instruction bytes interpreted per object, all
 *                            FDEs together (CIEs are interpreted once each)
 *   UNW_CFI_MAX_OBJECT_ROWS  rows per object (24 bytes each, after merging)
 *   UNW_CFI_MAX_ENTRIES      CIEs + FDEs listed per object (the lister's,
 *                            utils/ehframe.h)
 *   UNW_CFI_MAX_SECTION      the CFI section's size (FDE offsets are 32-bit)
 *   UNW_CFI_MAX_EXPR_OPS     operations decoded per expression (a longer
 *                            one is an unsupported rule, not a bound)
 *
 * An FDE over a bound gets state UNW_FDE_BOUND and no rows: a walk that
 * needs it ends with UNW_F_TRUNC_BOUND (counted); an object whose listing
 * stopped at a bound keeps the FDEs listed so far.  Either way the
 * object's stats say so (fdes_bound, over_bound).  Malformed CFI (an
 * unknown opcode, a truncated operand, restore_state on an empty stack, a
 * location going backwards) ends the FDE's program there: the rows
 * emitted so far stand and the FDE ends at the last row's end; an FDE
 * without a single row is FAILED (frame-pointer step).
 *
 * Interface for other users of the tables (e.g. the in-kernel unwinder's
 * table builder): open an object with unw_cfi_open, then either
 * unw_cfi_compile_all (every FDE, within the object budget) or
 * unw_cfi_compile_fde on demand; read t's FDEs (state READY: rows[first ..
 * first + n)) and rows as unwind/unwind_table.h documents them.
 */
#ifndef PROFIL_UNWIND_CFI_H
#define PROFIL_UNWIND_CFI_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind_table.h"
#include "utils/ehframe.h"

#define UNW_CFI_MAX_FDE_BYTES (256u << 10)
#define UNW_CFI_MAX_ROWS 65536
#define UNW_CFI_MAX_STATE_DEPTH 64
#define UNW_CFI_MAX_OBJECT_BYTES (64ull << 20)
#define UNW_CFI_MAX_OBJECT_ROWS (4u << 20)
#define UNW_CFI_MAX_ENTRIES EHFRAME_MAX_ENTRIES
#define UNW_CFI_MAX_SECTION EHFRAME_MAX_SECTION
#define UNW_CFI_MAX_EXPR_OPS 16

struct unw_cfi;

struct unw_cfi_stats {
	const char *source;   /* ".eh_frame", ".debug_frame" or NULL */
	size_t fdes;	      /* FDEs listed */
	size_t fdes_compiled; /* of which compiled so far */
	size_t fdes_failed;   /* of which malformed from their first byte (no rows) */
	size_t fdes_bound;    /* of which over a bound (no rows, walks end UNW_F_TRUNC_BOUND) */
	size_t rows;	      /* rows emitted (before merging) */
	size_t unsupported;   /* rows with a CFA or return-address rule the step cannot evaluate */
	uint64_t bytes;	      /* CFI instruction bytes interpreted (the object budget's measure) */
	int over_bound;	      /* some bound was reached: FDEs bound, or the listing cut short */
};

/*
 * Open elf's CFI (.eh_frame, else .debug_frame) and list its FDEs into t
 * (empty on entry; sorted on return).  elf must outlive *out.  Returns 0
 * (*out NULL and t empty: no CFI), -ENOTSUP for an object that is not
 * x86-64 ELF64, or -ENOMEM; why gets one sentence.
 */
int unw_cfi_open(Elf *elf, struct unw_table *t, struct unw_cfi **out, char *why, size_t whylen);

/*
 * Compile the rows of one FDE of t: its state becomes READY, FAILED or
 * BOUND.  Returns 0 or -ENOMEM.
 */
int unw_cfi_compile_fde(struct unw_cfi *c, struct unw_table *t, struct unw_fde *fde);

/* Compile every FDE not compiled yet (the whole table at once).  Returns 0 or -ENOMEM. */
int unw_cfi_compile_all(struct unw_cfi *c, struct unw_table *t);

void unw_cfi_get_stats(const struct unw_cfi *c, struct unw_cfi_stats *st);

void unw_cfi_close(struct unw_cfi *c);

#endif /* PROFIL_UNWIND_CFI_H */
