/* SPDX-License-Identifier: MIT */
/*
 * disasm: x86-64 machine code to instructions with capstone (Debian's
 * libcapstone-dev), in AT&T syntax as objdump and perf annotate print it,
 * with the direct target of each jump and call.  Bytes that are not an
 * instruction become one-byte "(bad)" entries, so the walk always moves on.
 */
#ifndef PROFIL_ANNOTATE_DISASM_H
#define PROFIL_ANNOTATE_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct disasm;

struct dis_insn {
	uint64_t addr;
	uint8_t size;
	char text[192]; /* "mov    %rdi,%rax" */
	int is_call, is_jump, is_ret;
	uint64_t target; /* a direct jump's or call's target, 0 when none or indirect */
};

/* NULL when capstone cannot be opened (out of memory). */
struct disasm *disasm__new(void);
void disasm__free(struct disasm *d);

/*
 * Decode code[0, len) placed at address addr, calling cb for each
 * instruction (stop when it returns non-zero).  Returns 0 or cb's value.
 */
int disasm__run(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		int (*cb)(void *arg, const struct dis_insn *in), void *arg);

#endif /* PROFIL_ANNOTATE_DISASM_H */
