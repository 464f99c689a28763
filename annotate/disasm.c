// SPDX-License-Identifier: MIT
/* x86-64 disassembly with capstone: see disasm.h. */
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/disasm.h"

struct disasm {
	csh cs;
	cs_insn *insn;
};

struct disasm *disasm__new(void)
{
	struct disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		return NULL;
	}
	cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		return NULL;
	}
	return d;
}

void disasm__free(struct disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

static int in_group(const cs_insn *in, uint8_t group)
{
	const cs_detail *det = in->detail;

	for (uint8_t i = 0; det && i < det->groups_count; i++)
		if (det->groups[i] == group)
			return 1;
	return 0;
}

/* The immediate operand of a direct jump or call: its target. */
static uint64_t direct_target(const cs_insn *in)
{
	const cs_detail *det = in->detail;

	if (!det || det->x86.op_count != 1 || det->x86.operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)det->x86.operands[0].imm;
}

int disasm__run(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		int (*cb)(void *arg, const struct dis_insn *in), void *arg)
{
	while (len) {
		struct dis_insn out = {0};
		const uint8_t *p = code;
		size_t left = len;
		uint64_t at = addr;
		int rc;

		if (cs_disasm_iter(d->cs, &p, &left, &at, d->insn)) {
			const cs_insn *in = d->insn;

			out.addr = in->address;
			out.size = (uint8_t)in->size;
			snprintf(out.text, sizeof(out.text), "%-6.31s %.150s", in->mnemonic,
				 in->op_str);
			out.is_call = in_group(in, CS_GRP_CALL);
			out.is_jump = in_group(in, CS_GRP_JUMP);
			out.is_ret = in_group(in, CS_GRP_RET);
			if (out.is_call || out.is_jump)
				out.target = direct_target(in);
		} else {
			out.addr = addr;
			out.size = 1;
			snprintf(out.text, sizeof(out.text), "(bad)");
		}
		/* trailing blanks of an instruction without operands */
		for (size_t n = strlen(out.text); n && out.text[n - 1] == ' '; n--)
			out.text[n - 1] = 0;
		rc = cb(arg, &out);
		if (rc)
			return rc;
		code += out.size;
		len -= out.size;
		addr += out.size;
	}
	return 0;
}
