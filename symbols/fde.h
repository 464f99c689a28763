/* SPDX-License-Identifier: MIT */
/*
 * fde: the functions an object's call frame information describes.  Each
 * FDE of .eh_frame (or .debug_frame) carries its function's initial
 * location and address range: the bounds of code that has no symbol (what
 * gdb and libunwind use for stripped code), for symbols/symbols.c.  (The
 * recorder's unwinder, unwind/unwind_cfi.c, parses CIEs and FDEs whole for
 * its own interpreter of their programs.)
 *
 * The FDEs are listed with libdw's dwarf_next_cfi; the one thing decoded
 * here is each FDE's initial location and range, whose pointer encoding
 * comes from its CIE's 'zR' augmentation.  The section is untrusted: every
 * read is bounded by its data, an FDE whose range is empty or wraps is
 * skipped, and the walk stops at the first entry libdw cannot read.
 */
#ifndef PROFIL_FDE_H
#define PROFIL_FDE_H

#include <gelf.h>
#include <stdint.h>

/* One FDE's [start, end) in link-time addresses: return 0 to go on, non-zero to stop. */
typedef int (*fde_cb)(void *arg, uint64_t start, uint64_t end);

/*
 * Every FDE of elf's section named section (".eh_frame" or
 * ".debug_frame"), in the order of the section.  Returns 0 (also when the
 * section is missing or empty: *found 0), or cb's non-zero value.
 */
int fde__list_section(Elf *elf, const char *section, fde_cb cb, void *arg, int *found);

/* The same over a section's data (sh_addr: its link-time address, used by .eh_frame's pc-relative pointers). */
int fde__list(Elf *elf, Elf_Data *data, uint64_t sh_addr, int eh_frame, fde_cb cb, void *arg);

#endif /* PROFIL_FDE_H */
