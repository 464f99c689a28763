/* SPDX-License-Identifier: MIT */
/*
 * plt: names for the entries of an object's procedure linkage tables
 * (.plt, .plt.sec with IBT, .plt.got), "func@plt" as perf and objdump name
 * them, for symbols/symbols.c.
 *
 * An x86-64 PLT entry jumps through a GOT slot: `jmp *disp32(%rip)`
 * (ff 25, after an endbr64 and a bnd prefix with IBT).  The slot is the
 * r_offset of the dynamic relocation that fills it: R_X86_64_JUMP_SLOT in
 * .rela.plt for .plt and .plt.sec, R_X86_64_GLOB_DAT in .rela.dyn for
 * .plt.got; its symbol names the entry.  An IRELATIVE slot (static
 * programs' IFUNCs) has no symbol: it is named by the resolver its addend
 * points to, when the caller's lookup knows it.  The lazy-binding entries of
 * .plt beside a .plt.sec (which jump to PLT0, not through a slot) take the
 * name of the .plt.sec entry of the same index.  Everything in the file is
 * untrusted: entries are read within their section, relocation and
 * symbol indices are checked, and at most PLT_MAX_ENTRIES are named.
 */
#ifndef PROFIL_PLT_H
#define PROFIL_PLT_H

#include <gelf.h>
#include <stdint.h>

#define PLT_MAX_ENTRIES 65536

/* One named entry [start, start + size) (link-time addresses); name is the symbol's, no "@plt". */
typedef int (*plt_cb)(void *arg, uint64_t start, uint64_t size, const char *name);

/* For IRELATIVE slots: the name of the function at a link-time address, or NULL. */
typedef const char *(*plt_name_at)(void *arg, uint64_t addr);

/* Every entry of elf's PLT sections that a relocation names.  Returns 0 or cb's non-zero value. */
int plt__list(Elf *elf, plt_cb cb, plt_name_at name_at, void *arg);

#endif /* PROFIL_PLT_H */
