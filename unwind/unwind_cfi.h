/* SPDX-License-Identifier: MIT */
/*
 * Compile an ELF object's CFI into an unwind table (unwind/unwind_table.h)
 * through libdw: libdw parses and executes the CFI (dwarf_cfi_addrframe,
 * dwarf_frame_cfa, dwarf_frame_register); this file lists the FDEs, walks
 * an FDE row by row when asked, and turns the rules libdw reports into
 * table rows, recognising the few expressions that matter (the x86-64 PLT
 * rule, *(reg + off) for signal frames and stack realignment) and marking
 * the rest unsupported.
 */
#ifndef PROFIL_UNWIND_CFI_H
#define PROFIL_UNWIND_CFI_H

#include <gelf.h>
#include <stddef.h>

#include "unwind/unwind_table.h"

struct unw_cfi;

struct unw_cfi_stats {
	const char *source;   /* ".eh_frame", ".debug_frame" or NULL */
	size_t fdes;	      /* FDEs listed */
	size_t fdes_compiled; /* of which compiled so far */
	size_t fdes_failed;   /* of which libdw did not confirm (no rows) */
	size_t rows;	      /* rows libdw reported (before merging) */
	size_t unsupported;   /* rows with a CFA or return-address rule the step cannot evaluate */
};

/*
 * Open elf's CFI (.eh_frame, else .debug_frame) and list its FDEs into t
 * (empty on entry; sorted on return).  elf must outlive *out.  Returns 0
 * (*out NULL and t empty: no CFI), -ENOTSUP for an object that is not
 * x86-64 ELF64, or -ENOMEM; why gets one sentence.
 */
int unw_cfi_open(Elf *elf, struct unw_table *t, struct unw_cfi **out, char *why, size_t whylen);

/* Compile the rows of one FDE of t (its state becomes READY or FAILED).  Returns 0 or -ENOMEM. */
int unw_cfi_compile_fde(struct unw_cfi *c, struct unw_table *t, struct unw_fde *fde);

/* Compile every FDE not compiled yet (the whole table at once).  Returns 0 or -ENOMEM. */
int unw_cfi_compile_all(struct unw_cfi *c, struct unw_table *t);

void unw_cfi_get_stats(const struct unw_cfi *c, struct unw_cfi_stats *st);

void unw_cfi_close(struct unw_cfi *c);

#endif /* PROFIL_UNWIND_CFI_H */
