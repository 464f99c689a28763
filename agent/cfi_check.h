/* SPDX-License-Identifier: MIT */
/*
 * The gate in front of libunwind: before the in-handler unwinder lets
 * libunwind interpret the CFI of a code address (agent/unwind.c), this
 * checks, with loops bounded by the bytes it reads, that libunwind's
 * interpretation and evaluation of it will end.  libunwind's own loops are
 * not bounded: a DWARF expression that branches backwards (DW_OP_skip -3;
 * lit1; bra -4) makes its evaluator spin forever, an expression length that
 * wraps the address makes its CFI interpreter go back over the same
 * instructions forever, an augmentation string without its NUL is read
 * until memory faults, and a 2 MB FDE of DW_CFA_nop is interpreted anew at
 * every cache miss.  In a signal handler with every signal blocked, any of
 * these is a program that hangs unkillable (issue 16, item 1).
 *
 * What is accepted (the rest is refused, and the walk stops there, counted):
 *  - the FDE libunwind would pick for pc: the same binary search of the
 *    .eh_frame_hdr table (datarel|sdata4 pairs) and its pc range check;
 *  - the FDE and its CIE: every length and pointer inside [lo, hi) (the
 *    object's mapping), 32- or 64-bit lengths, CIE version 1, 3 or 4, an
 *    augmentation of at most 4 characters of "zLPRS" (what libunwind keeps),
 *    pointer encodings absptr/udata/sdata 2, 4, 8, uleb/sleb (+ pcrel,
 *    textrel, datarel, funcrel, indirect), each instruction stream at most
 *    CFI_MAX_INSN bytes, remember_state nested at most CFI_MAX_REMEMBER deep;
 *  - the DW_CFA_* opcodes of DWARF 4 and the GNU ones x86-64 uses
 *    (args_size, negative_offset_extended), each operand inside its stream;
 *  - expressions (def_cfa_expression, expression, val_expression) of at
 *    most CFI_MAX_EXPR bytes, of known DW_OP_* opcodes (no DW_OP_call*),
 *    whose DW_OP_skip/DW_OP_bra branch forwards only, onto an opcode of the
 *    linear decoding or the end: every evaluation then executes a
 *    subsequence of that decoding, at most CFI_MAX_EXPR operations.
 *
 * Pure: no system call, no allocation; reads memory only inside [lo, hi)
 * (a fault there, e.g. a hole between the object's segments, is the
 * caller's guard's business).  Fuzzed by tests/fuzz/fuzz_agent_unwind.c.
 */
#ifndef PROFIL_AGENT_CFI_CHECK_H
#define PROFIL_AGENT_CFI_CHECK_H

#include <stddef.h>
#include <stdint.h>

#define CFI_MAX_INSN 65536  /* bytes of CFA instructions in one FDE or CIE (real: <= 8 KiB) */
#define CFI_MAX_EXPR 1024   /* bytes of one DWARF expression (real: <= 16) */
#define CFI_MAX_REMEMBER 64 /* DW_CFA_remember_state nesting */

/* Why the CFI of a pc was refused (negative, as returned by cfi_check_pc). */
enum cfi_verdict {
	CFI_OK = 0,
	CFI_NO_FDE = -1,    /* no FDE covers pc (not refused: code without CFI) */
	CFI_MALFORMED = -2, /* a length, pointer or operand outside its bounds */
	CFI_UNKNOWN = -3,   /* an opcode, encoding, version or augmentation libunwind may misread */
	CFI_TOO_BIG = -4,   /* over CFI_MAX_INSN, CFI_MAX_EXPR or CFI_MAX_REMEMBER */
	CFI_LOOP = -5,	    /* an expression that branches backwards or into an operand */
};

/* Where the object's CFI is: its .eh_frame_hdr search table and mapping. */
struct cfi_object {
	uintptr_t hdr;	 /* the .eh_frame_hdr (datarel base of its table) */
	uintptr_t table; /* its search table: fde_count pairs of int32 */
	uint64_t fde_count;
	uintptr_t lo, hi; /* every byte read lies in [lo, hi) */
};

/*
 * Check the CFI libunwind would use for pc (a code address: a return
 * address minus 1, or an exact interrupted pc).  Returns CFI_OK or a
 * negative enum cfi_verdict.
 */
int cfi_check_pc(const struct cfi_object *o, uintptr_t pc);

/* Check one DWARF expression of len bytes at expr (exposed for the tests). */
int cfi_check_expr(const uint8_t *expr, uint64_t len);

/* A word for a verdict ("malformed", "too big", ...), for notes and tests. */
const char *cfi_verdict_name(int verdict);

#endif
