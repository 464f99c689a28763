// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the recorder's stack walk (unwind/unwind_table.h) over CFI
 * compiled from the input (unwind/unwind_cfi.h) and a stack copy from the
 * input: the rows' rules evaluated against untrusted memory and registers
 * (CFA rules, *(reg + off), the PLT rule, saved RBP and return address,
 * signal frames, frame-pointer steps, the loop and depth bounds).
 *
 * Input: u16 n; n bytes of .eh_frame (placed as in fuzz_cfi, its .text
 * mapped at BASE); u16 pc offset into the text; u64 RBP; the rest is the
 * stack copy at RSP = STACK.  FDEs are compiled on the walk's demand, as
 * the recorder does.  Checked: the walk returns within max PCs, with one
 * end reason.  Seeds: tests/fuzz/corpus/unwind/.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "unwind/unwind_cfi.h"
#include "tests/progs/hostile_elf.h"

#define TEXT_LEN 0x10000
#define BASE 0x400000ull
#define STACK 0x7ffc00000000ull

struct ctx {
	struct unw_cfi *c;
	struct unw_table *t;
};

static void find(void *arg, uint64_t pc, struct unw_found *out)
{
	struct ctx *x = arg;
	struct unw_fde *f;

	if (pc < BASE || pc >= BASE + HELF_TEXT + TEXT_LEN)
		return;
	out->mapped = 1;
	f = unw_table_find_fde(x->t, pc - BASE);
	if (!f)
		return;
	if (f->state == UNW_FDE_NEW && unw_cfi_compile_fde(x->c, x->t, f) < 0)
		return;
	out->bound = f->state == UNW_FDE_BOUND;
	out->row = unw_table_fde_row(x->t, f, pc - BASE);
}

static void walk(struct ctx *x, const uint8_t *p, size_t left)
{
	struct unw_regs regs = {.valid = (1u << UNW_REG_RIP) | (1u << UNW_REG_RSP) |
					 (1u << UNW_REG_RBP)};
	struct unw_stack stack = {.base = STACK};
	uint64_t pcs[64];
	uint16_t pc_off;
	unsigned int flags = 0;
	int n;

	if (left < 10)
		return;
	memcpy(&pc_off, p, 2);
	memcpy(&regs.r[UNW_REG_RBP], p + 2, 8);
	regs.r[UNW_REG_RIP] = BASE + HELF_TEXT + pc_off;
	regs.r[UNW_REG_RSP] = STACK;
	stack.data = p + 10;
	stack.size = left - 10;
	n = unw_walk(&regs, &stack, find, x, pcs, 64, &flags);
	if (n < 1 || n > 64 || !(flags & (UNW_F_COMPLETE | UNW_F_TRUNCATED)) ||
	    ((flags & UNW_F_COMPLETE) && (flags & UNW_F_TRUNCATED)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct helf_buf img;
	struct unw_table t = {0};
	struct ctx x = {NULL, &t};
	char why[128];
	uint16_t n;
	Elf *elf;

	elf_version(EV_CURRENT);
	if (size < 2)
		return 0;
	memcpy(&n, data, 2);
	if (n > size - 2)
		n = (uint16_t)(size - 2);
	if (helf_image(&img, NULL, TEXT_LEN, data + 2, n) < 0)
		return 0;
	elf = elf_memory((char *)img.p, img.len);
	if (elf && unw_cfi_open(elf, &t, &x.c, why, sizeof(why)) == 0 && x.c)
		walk(&x, data + 2 + n, size - 2 - n);
	unw_cfi_close(x.c);
	unw_table_free(&t);
	if (elf)
		elf_end(elf);
	free(img.p);
	return 0;
}
