// SPDX-License-Identifier: MIT
/*
 * The agent's CFI gate (agent/cfi_check.c) and the unwind step behind it:
 *  - DWARF expressions: backward branches, branches into an operand or past
 *    the end, unknown opcodes, truncated operands, the size bound;
 *  - whole objects: the seeds of the fuzz target (tests/fuzz/corpus/
 *    agent_unwind/: a small object of ordinary and hostile CFI) walked by the
 *    unwinder (tests/fuzz/agent_unwind_input.h): the hostile ones end at once,
 *    refused (AGENT_UNWIND_REFUSED), the ordinary ones walk into the next frame;
 *  - an FDE of 70,000 DW_CFA_nop (over the 64 KiB bound) and an augmentation
 *    string without its NUL, built here: refused.
 * Every walk has a time bound by construction (the old agent looped forever
 * in libunwind on the hostile seeds); tests/run.sh kills a hung test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cfi_check.h"
#include "agent_unwind_input.h"
#include "check.h"

static int expr(const uint8_t *b, size_t n)
{
	return cfi_check_expr(b, n);
}

static void test_expressions(void)
{
	static const uint8_t skip_back[] = {0x2f, 0xfd, 0xff};			 /* skip -3 */
	static const uint8_t bra_back[] = {0x31, 0x28, 0xfc, 0xff};		 /* lit1; bra -4 */
	static const uint8_t skip_zero[] = {0x2f, 0x00, 0x00, 0x96};		 /* skip 0; nop */
	static const uint8_t skip_fwd[] = {0x77, 0x08, 0x2f, 0x01, 0x00, 0x96};	 /* over the nop */
	static const uint8_t skip_end[] = {0x2f, 0x00, 0x00};			 /* to the end */
	static const uint8_t skip_past[] = {0x2f, 0x02, 0x00};			 /* past the end */
	static const uint8_t skip_into[] = {0x2f, 0x01, 0x00, 0x0a, 0x2f, 0xfd}; /* into const2u */
	static const uint8_t call2[] = {0x98, 0x00, 0x00};
	static const uint8_t truncated[] = {0x0c, 0x01, 0x02}; /* const4u, 2 bytes */
	static const uint8_t long_uleb[] = {0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					    0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	static uint8_t big[CFI_MAX_EXPR + 1];

	memset(big, 0x96, sizeof(big));
	CHECK("expr_skip_back_loops", expr(skip_back, sizeof(skip_back)) == CFI_LOOP);
	CHECK("expr_bra_back_loops", expr(bra_back, sizeof(bra_back)) == CFI_LOOP);
	CHECK("expr_skip_zero_ok", expr(skip_zero, sizeof(skip_zero)) == CFI_OK);
	CHECK("expr_skip_forward_ok", expr(skip_fwd, sizeof(skip_fwd)) == CFI_OK);
	CHECK("expr_skip_to_end_ok", expr(skip_end, sizeof(skip_end)) == CFI_OK);
	CHECK("expr_skip_past_end", expr(skip_past, sizeof(skip_past)) == CFI_LOOP);
	CHECK("expr_skip_into_operand", expr(skip_into, sizeof(skip_into)) == CFI_LOOP);
	CHECK("expr_call_refused", expr(call2, sizeof(call2)) == CFI_UNKNOWN);
	CHECK("expr_truncated", expr(truncated, sizeof(truncated)) == CFI_MALFORMED);
	CHECK("expr_long_uleb", expr(long_uleb, sizeof(long_uleb)) == CFI_MALFORMED);
	CHECK("expr_too_big", expr(big, sizeof(big)) == CFI_TOO_BIG);
	CHECK("expr_max_ok", expr(big, CFI_MAX_EXPR) == CFI_OK);
	CHECK("expr_empty_ok", expr(big, 0) == CFI_OK);
}

/* ---- objects built here: .eh_frame_hdr, a CIE, one FDE ---------------------------- */

static uint8_t image[80000] __attribute__((aligned(16)));

static void put32(size_t at, uint32_t v)
{
	memcpy(image + at, &v, 4);
}

/*
 * hdr at 0 (12 bytes + 1 table entry), CIE at 32 (aug: aug, no NUL if nonul), FDE after it
 * covering [hdr + 0x1000, + 0x100) with insn_len bytes of DW_CFA_nop.  Returns the image's size.
 */
static size_t make_object(const char *aug, int nonul, size_t insn_len)
{
	size_t cie = 32, at, fde;

	memset(image, 0, sizeof(image));
	image[0] = 1, image[1] = 0x1b, image[2] = 0x03, image[3] = 0x3b;
	put32(8, 1);
	at = cie + 8;
	image[at++] = 1; /* version */
	memcpy(image + at, aug, strlen(aug));
	at += strlen(aug);
	if (!nonul)
		image[at++] = 0;
	image[at++] = 1;    /* code alignment */
	image[at++] = 0x78; /* data alignment -8 */
	image[at++] = 16;   /* return address: rip */
	if (!nonul) {
		image[at++] = 1;    /* augmentation data: 1 byte */
		image[at++] = 0x1b; /* FDE pointers: pcrel sdata4 */
		image[at++] = 0x0c, image[at++] = 7, image[at++] = 8; /* def_cfa rsp+8 */
		image[at++] = 0x90, image[at++] = 1;		      /* rip at cfa-8 */
	}
	at = (at + 3) & ~(size_t)3;
	put32(cie, (uint32_t)(at - cie - 4));
	fde = at;
	put32(fde + 4, (uint32_t)(fde + 4 - cie));
	put32(fde + 8, (uint32_t)(0x1000 - (fde + 8))); /* pcrel: hdr + 0x1000 */
	put32(fde + 12, 0x100);
	image[fde + 16] = 0; /* augmentation data: none */
	at = fde + 17 + insn_len;
	at = (at + 3) & ~(size_t)3;
	put32(fde, (uint32_t)(at - fde - 4));
	put32(12, 0x1000);	  /* the table: initial location, datarel */
	put32(16, (uint32_t)fde); /* the FDE, datarel */
	return at;
}

static void test_objects(void)
{
	struct cfi_object o;
	size_t n;

	n = make_object("zR", 0, 8);
	o = (struct cfi_object){(uintptr_t)image, (uintptr_t)image + 12, 1, (uintptr_t)image,
				(uintptr_t)image + n};
	CHECKF("object_ordinary_ok", cfi_check_pc(&o, (uintptr_t)image + 0x1010) == CFI_OK, "%s",
	       cfi_verdict_name(cfi_check_pc(&o, (uintptr_t)image + 0x1010)));
	CHECK("object_before_first_fde", cfi_check_pc(&o, (uintptr_t)image + 0x10) == CFI_NO_FDE);
	n = make_object("zR", 0, 70000);
	o.hi = (uintptr_t)image + n;
	CHECKF("object_70000_nops_too_big",
	       cfi_check_pc(&o, (uintptr_t)image + 0x1010) == CFI_TOO_BIG, "%s",
	       cfi_verdict_name(cfi_check_pc(&o, (uintptr_t)image + 0x1010)));
	o.hi = (uintptr_t)image + 200; /* the FDE's length past the object's end */
	CHECK("object_fde_past_end", cfi_check_pc(&o, (uintptr_t)image + 0x1010) == CFI_MALFORMED);
	n = make_object("zRxx", 1, 8);
	o.hi = (uintptr_t)image + n;
	CHECK("object_aug_without_nul", cfi_check_pc(&o, (uintptr_t)image + 0x1010) < 0);
	n = make_object("zRS", 0, 8);
	o.hi = (uintptr_t)image + n;
	CHECK("object_signal_frame_ok", cfi_check_pc(&o, (uintptr_t)image + 0x1010) == CFI_OK);
	o.fde_count = 1u << 30; /* a table past the object's end */
	CHECK("object_table_past_end",
	      cfi_check_pc(&o, (uintptr_t)image + 0x1010) == CFI_MALFORMED);
}

/* ---- the fuzz seeds, walked ------------------------------------------------------------ */

static int read_file(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	*len = fread(buf, 1, cap, f);
	fclose(f);
	return 0;
}

static void test_seeds(void)
{
	/* the hostile seeds first: their CFI is refused */
	static const struct {
		const char *name;
		int hostile;
	} seeds[] = {{"skip", 1},  {"bra", 1},	  {"valexpr", 1}, {"lenwrap", 1},
		     {"plain", 0}, {"pushed", 0}, {"fwdskip", 0}, {"remember", 0}};
	const char *root = getenv("ROOT");
	static uint8_t buf[1 << 16];
	char path[4096];
	uint64_t pcs[16];
	unsigned int flags;
	size_t len;
	int n;

	if (!root)
		root = ".";
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char name[64];

		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/agent_unwind/%s", root,
			 seeds[i].name);
		snprintf(name, sizeof(name), "seed_%s_%s", seeds[i].name,
			 seeds[i].hostile ? "refused" : "walks");
		if (read_file(path, buf, sizeof(buf), &len) < 0) {
			CHECKF(name, 0, "cannot read %s", path);
			continue;
		}
		n = agent_unwind_input(buf, len, pcs, 16, &flags);
		/* an ordinary one walks into the next function (its return address), which ends
		 * it: a zero return address, or that function's own CFI (a hostile one refused, a
		 * deref faulting) */
		if (seeds[i].hostile)
			CHECKF(name, n == 1 && (flags & AGENT_UNWIND_REFUSED), "n=%d flags=%#x", n,
			       flags);
		else
			CHECKF(name, n >= 2 && pcs[1] != 0, "n=%d flags=%#x", n, flags);
	}
}

int main(void)
{
	test_expressions();
	test_objects();
	test_seeds();
	return CHECK_DONE();
}
