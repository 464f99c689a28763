/* SPDX-License-Identifier: MIT */
/*
 * Test helper: build a minimal x86-64 ELF64 shared object in memory with
 * the .eh_frame a test wants (hostile or not), to hand to the recorder's
 * CFI compiler (tests/unit/test_unwind_cfi.c, tests/fuzz/fuzz_cfi.c) or to
 * map and run (tests/progs/hostile_cfi.c).
 *
 * Layout: the ELF header and one PT_LOAD (R+X, the whole file at vaddr 0),
 * .text at HELF_TEXT, .eh_frame at the next page after the text (its
 * sh_addr: HELF_EH(text_len)), .shstrtab, the section headers.
 *
 * The .eh_frame builder writes GCC's usual shape: one CIE ("zR", code
 * alignment 1, data alignment -8, return address r16, FDE pointers
 * pc-relative sdata4, initial rules CFA = rsp + 8, RA at CFA - 8), FDEs
 * with the instructions given, and the zero terminator.
 */
#ifndef PROFIL_TESTS_HOSTILE_ELF_H
#define PROFIL_TESTS_HOSTILE_ELF_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HELF_TEXT 0x1000ull
#define HELF_EH(text_len) (HELF_TEXT + (((uint64_t)(text_len) + 0xfff) & ~0xfffull))

struct helf_buf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static inline void helf_put(struct helf_buf *b, const void *src, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (src)
		memcpy(b->p + b->len, src, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void helf_u8(struct helf_buf *b, uint8_t v)
{
	helf_put(b, &v, 1);
}

static inline void helf_u32_at(struct helf_buf *b, size_t at, uint32_t v)
{
	if (!b->oom)
		memcpy(b->p + at, &v, 4);
}

/* Fill with DW_CFA_nop to a multiple of 4 from `from` (CFI entries are 4-aligned here). */
static inline void helf_align_entry(struct helf_buf *b, size_t from)
{
	while ((b->len - from) % 4)
		helf_u8(b, 0);
}

/* The CIE at the current offset; returns its offset. */
static inline size_t helf_cie(struct helf_buf *eh)
{
	static const uint8_t body[] = {
		0,    0,    0,	  0,	/* CIE id */
		1,			/* version */
		'z',  'R',  0,	  0x01, /* code alignment 1 */
		0x78,			/* data alignment -8 */
		0x10,			/* return address: r16 */
		0x01, 0x1b,		/* augmentation data: FDE pointers pcrel | sdata4 */
		0x0c, 0x07, 0x08,	/* def_cfa rsp 8 */
		0x90, 0x01,		/* offset r16 at CFA - 8 */
	};
	size_t at = eh->len;

	helf_put(eh, NULL, 4);
	helf_put(eh, body, sizeof(body));
	helf_align_entry(eh, at + 4);
	helf_u32_at(eh, at, (uint32_t)(eh->len - at - 4));
	return at;
}

/*
 * An FDE of the CIE at cie_at for [start, start + len) (link-time
 * addresses), eh_addr the section's address; insns: its instructions.
 */
static inline void helf_fde(struct helf_buf *eh, size_t cie_at, uint64_t eh_addr, uint64_t start,
		     uint32_t len, const uint8_t *insns, size_t ninsns)
{
	size_t at = eh->len;
	int32_t pc;

	helf_put(eh, NULL, 4);
	helf_put(eh, NULL, 4);
	helf_u32_at(eh, at + 4, (uint32_t)(at + 4 - cie_at));
	pc = (int32_t)(start - (eh_addr + eh->len));
	helf_put(eh, &pc, 4);
	helf_put(eh, &len, 4);
	helf_u8(eh, 0); /* augmentation data: none */
	helf_put(eh, insns, ninsns);
	helf_align_entry(eh, at + 4);
	helf_u32_at(eh, at, (uint32_t)(eh->len - at - 4));
}

static inline void helf_terminate(struct helf_buf *eh)
{
	helf_put(eh, NULL, 4);
}

/* The whole ELF image (free out->p): text and eh_frame as given.  Returns 0 or -1. */
static inline int helf_image(struct helf_buf *out, const uint8_t *text, size_t text_len, const uint8_t *eh,
		      size_t eh_len)
{
	static const char shstr[] = "\0.text\0.eh_frame\0.shstrtab";
	uint64_t eh_at = HELF_EH(text_len), str_at = eh_at + eh_len, sh_at;
	Elf64_Ehdr e = {0};
	Elf64_Phdr ph = {0};
	Elf64_Shdr sh[4] = {{0}};

	memset(out, 0, sizeof(*out));
	sh_at = (str_at + sizeof(shstr) + 7) & ~7ull;
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_type = ET_DYN;
	e.e_machine = EM_X86_64;
	e.e_version = EV_CURRENT;
	e.e_phoff = sizeof(e);
	e.e_shoff = sh_at;
	e.e_ehsize = sizeof(e);
	e.e_phentsize = sizeof(ph);
	e.e_phnum = 1;
	e.e_shentsize = sizeof(sh[0]);
	e.e_shnum = 4;
	e.e_shstrndx = 3;
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = ph.p_memsz = sh_at + sizeof(sh);
	ph.p_align = 0x1000;
	sh[1] = (Elf64_Shdr){1,
			     SHT_PROGBITS,
			     SHF_ALLOC | SHF_EXECINSTR,
			     HELF_TEXT,
			     HELF_TEXT,
			     text_len,
			     0,
			     0,
			     16,
			     0};
	sh[2] = (Elf64_Shdr){7, SHT_PROGBITS, SHF_ALLOC, eh_at, eh_at, eh_len, 0, 0, 8, 0};
	sh[3] = (Elf64_Shdr){17, SHT_STRTAB, 0, 0, str_at, sizeof(shstr), 0, 0, 1, 0};
	helf_put(out, &e, sizeof(e));
	helf_put(out, &ph, sizeof(ph));
	helf_put(out, NULL, HELF_TEXT - out->len);
	helf_put(out, text, text_len);
	helf_put(out, NULL, eh_at - out->len);
	helf_put(out, eh, eh_len);
	helf_put(out, shstr, sizeof(shstr));
	helf_put(out, NULL, sh_at - out->len);
	helf_put(out, sh, sizeof(sh));
	return out->oom ? -1 : 0;
}

/*
 * The hostile .eh_frame of issue 16: nfdes FDEs over consecutive
 * fde_len-byte ranges of .text, each `nops` DW_CFA_nop then `rows` rows
 * (advance_loc 1; def_cfa_offset 16 or 8, alternating so that none merge).
 */
static inline int helf_hostile_eh(struct helf_buf *eh, uint64_t eh_addr, int nfdes, uint32_t fde_len,
			   size_t nops, uint32_t rows)
{
	struct helf_buf insns = {0};
	size_t cie;

	memset(eh, 0, sizeof(*eh));
	helf_put(&insns, NULL, nops); /* DW_CFA_nop is 0 */
	for (uint32_t r = 0; r < rows; r++) {
		uint8_t row[] = {0x41, 0x0e, r % 2 ? 0x08 : 0x10};

		helf_put(&insns, row, sizeof(row));
	}
	cie = helf_cie(eh);
	for (int i = 0; i < nfdes && !insns.oom; i++)
		helf_fde(eh, cie, eh_addr, HELF_TEXT + (uint64_t)i * fde_len, fde_len, insns.p,
			 insns.len);
	helf_terminate(eh);
	free(insns.p);
	return eh->oom || insns.oom ? -1 : 0;
}

#endif
