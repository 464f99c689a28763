/* SPDX-License-Identifier: MIT */
/*
 * ehframe: the one reader of an object's call frame information sections
 * (.eh_frame, .debug_frame) as a list of entries: its CIEs with their
 * augmentation, its FDEs with their code range, and the DWARF pointer
 * encodings (DW_EH_PE_*) they use.  Two users: the names of code without
 * symbols (symbols/symbols.c: each FDE's range is a function's) and the
 * recorder's CFI compiler (unwind/unwind_cfi.c, which interprets the
 * instructions this hands it).
 *
 * The entries are found with libdw's dwarf_next_cfi (their lengths, CIE ids
 * and pointers, 32- and 64-bit DWARF); this decodes what libdw leaves raw:
 * the augmentation data and an FDE's initial location and range.  The
 * section is untrusted: every read is bounded by its data, an entry libdw
 * cannot read ends the list, an FDE whose CIE or range does not decode
 * (empty, wrapping, an encoding not handled) is skipped, and a list stops
 * after EHFRAME_MAX_ENTRIES entries.  x86-64 objects: pointers are
 * little-endian, DW_EH_PE_absptr is 8 bytes.
 */
#ifndef PROFIL_UTILS_EHFRAME_H
#define PROFIL_UTILS_EHFRAME_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#define EHFRAME_MAX_ENTRIES (4u << 20)	  /* CIEs + FDEs listed per section */
#define EHFRAME_MAX_SECTION 0xffffffffull /* a section's bytes (offsets are kept in 32 bits) */

/* A CFI section of an object. */
struct ehframe {
	const unsigned char *ident; /* the object's e_ident (libdw needs it) */
	Elf_Data *data;		    /* the section's bytes, decompressed */
	uint64_t sh_addr; /* .eh_frame: its link-time address (pc-relative pointers); else 0 */
	int eh_frame;	  /* 1: .eh_frame, 0: .debug_frame */
};

/* A CIE: what its FDEs need to be read, and its initial instructions. */
struct ehframe_cie {
	uint64_t off; /* its offset in the section */
	int fde_enc;  /* DW_EH_PE_* of its FDEs' pointers ('R'; absptr without it) */
	int has_z;    /* 'z': its FDEs carry an augmentation block before their instructions */
	int signal;   /* 'S': its FDEs describe signal trampolines */
	uint64_t code_align;		  /* code alignment factor (0 in a malformed CIE) */
	int64_t data_align;		  /* data alignment factor */
	uint64_t ra_reg;		  /* return address register */
	const uint8_t *insns, *insns_end; /* initial instructions */
};

/* An entry of the section: a CIE, or an FDE and the offset of its CIE. */
struct ehframe_entry {
	uint64_t off, next; /* its offset, the next entry's */
	int is_cie;
	uint64_t cie_off;	/* an FDE's CIE */
	const uint8_t *p, *end; /* an FDE's bytes from its initial location on */
};

/* An FDE: the code it describes and its instructions. */
struct ehframe_fde {
	uint64_t off;	     /* its offset in the section */
	uint64_t cie_off;    /* its CIE's */
	uint64_t start, end; /* [start, end): link-time addresses */
	/* its instructions (after the augmentation block); NULL: the block is malformed */
	const uint8_t *insns, *insns_end;
};

/*
 * Section name (".eh_frame" or ".debug_frame") of elf, decompressed if it
 * is compressed (at most EHFRAME_MAX_SECTION bytes; the Elf is changed in
 * memory).  elf must outlive s.  0, or -ENOENT: no such section with data
 * (missing, SHT_NOBITS, empty, over the bound, not decompressed).
 */
int ehframe__open(struct ehframe *s, Elf *elf, const char *name);

/* The entry at offset off.  0, or -EINVAL (libdw cannot read one there). */
int ehframe__entry(const struct ehframe *s, uint64_t off, struct ehframe_entry *e);

/*
 * The CIE at offset off, its augmentation decoded ('z' with R, L, P, S, B,
 * G; an unknown letter ends what is read, 'z' sizes the FDEs' block
 * anyway).  0, or -EINVAL: no CIE there, or an augmentation that is not
 * understood or is cut short.
 */
int ehframe__cie(const struct ehframe *s, uint64_t off, struct ehframe_cie *cie);

/* The FDE entry e with its CIE: its range decoded.  0, or -EINVAL (no range: empty, wraps, cut short). */
int ehframe__fde(const struct ehframe *s, const struct ehframe_entry *e,
		 const struct ehframe_cie *cie, struct ehframe_fde *f);

/* Bytes of a pointer in encoding enc (DW_EH_PE_*), or 0 for the forms not handled (uleb128...). */
size_t ehframe__pointer_size(int enc);

/*
 * Read a pointer of encoding enc at *p (a position in s's data, before
 * end) and move *p past it; apply_rel: an address (pc-relative encodings
 * add the field's own address; other applications than absptr and pcrel
 * are refused), else a length.  0, or -EINVAL.
 */
int ehframe__read_pointer(const struct ehframe *s, int enc, const uint8_t **p, const uint8_t *end,
			  int apply_rel, uint64_t *out);

/* A walk over a section's FDEs; zero it (= {0}) to start. */
struct ehframe_iter {
	uint64_t off;
	size_t entries;
	int over_bound;		     /* the walk stopped at EHFRAME_MAX_ENTRIES entries */
	struct ehframe_cie cies[16]; /* the CIEs read (their FDEs point back at a few) */
	int cie_ok[16];
	unsigned ncies, next_cie;
};

/*
 * The next FDE whose CIE and range decode, in the order of the section.
 * Returns 1 (*f, and *cie its CIE when cie is not NULL, valid until the
 * next call), or 0 at the end of the section, at the first entry libdw
 * cannot read, or after EHFRAME_MAX_ENTRIES entries (it->over_bound).
 */
int ehframe__next_fde(const struct ehframe *s, struct ehframe_iter *it, struct ehframe_fde *f,
		      const struct ehframe_cie **cie);

#endif /* PROFIL_UTILS_EHFRAME_H */
