/* SPDX-License-Identifier: MIT */
/*
 * The unwind tables of the in-kernel walk (bpf/kunwind.h), encoded from
 * the recorder's compiled tables (unwind/unwind_table.h): pure, no OS
 * calls, no BPF (record/kstacks.c loads what this file encodes; the unit
 * tests drive it with synthetic tables).  The unwind component's second
 * interface, for the in-kernel walk only.
 *
 * An object's rows: its FDEs' rows in address order, each row's rule an
 * index into one dictionary of distinct rules shared by every object
 * (compilers emit a few hundred distinct rules; a row is then 8 bytes).
 * Addresses are relative to the object's base (its first FDE), so that
 * they fit 32 bits.  Where no FDE covers an address a row with rule
 * KUNW_RULE_NONE (a frame-pointer step, as record/unwind_table.c steps
 * code without CFI); an FDE the compiler refused for a bound gets a row
 * whose rule stops the walk (KUNW_CFA_BOUND); the object's ELF entry code
 * without CFI (unwind/unwind.c) a row whose rule marks the outermost frame.
 */
#ifndef PROFIL_UNWIND_BPF_H
#define PROFIL_UNWIND_BPF_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/kunwind.h"
/* the tables it encodes, and the mapping set (unw_maps) its user keeps per process */
#include "unwind/unwind_table.h"

/* The dictionary of rules: entries of `dest` (the kernel's rules array, mapped), up to cap. */
struct unwind_bpf_rules;

/* dest[0] becomes KUNW_RULE_NONE.  Returns 0 or -ENOMEM. */
int unwind_bpf_rules__new(struct unwind_bpf_rules **out, struct kunw_rule *dest, uint32_t cap);
void unwind_bpf_rules__free(struct unwind_bpf_rules *r);
uint32_t unwind_bpf_rules__count(const struct unwind_bpf_rules *r);

/* An object's encoded rows. */
struct unwind_bpf_rows {
	struct kunw_row *v;
	size_t n, cap;
	uint64_t base; /* link-time address of addr 0 */
};

/*
 * Encode table t (every FDE compiled: READY, FAILED or over a bound) and
 * the outermost entry code [entry, entry_end) (0, 0: none) into out
 * (emptied first).  Returns 0; -E2BIG when the object needs more than
 * max_rows rows or spans more than 4 GiB; -ENOSPC when the dictionary is
 * full; -ENOMEM.  On error out is empty.
 */
int unwind_bpf__encode(const struct unw_table *t, uint64_t entry, uint64_t entry_end,
		       struct unwind_bpf_rules *rules, struct unwind_bpf_rows *out,
		       size_t max_rows);

void unwind_bpf_rows__free(struct unwind_bpf_rows *r);

/* Entries of rows' page index (bpf/kunwind.h: one per 1 KiB of the object's range). */
uint32_t unwind_bpf__npages(const struct unwind_bpf_rows *rows);

/* Fill pages[0 .. unwind_bpf__npages(rows)): for each KiB, the row covering its start. */
void unwind_bpf__pages(const struct unwind_bpf_rows *rows, uint32_t *pages);

/*
 * The rule index for link-time address addr, by the lookup the BPF walk
 * does (bpf/kunwind_walk.bpf.h: kunw_find_rule): the page index, then a
 * binary search of that KiB's rows.  KUNW_RULE_NONE outside the rows.
 */
uint32_t unwind_bpf__lookup(const struct unwind_bpf_rows *rows, const uint32_t *pages,
			    uint32_t npages, uint64_t addr);

/* The rule a table row compiles to (for tests and the encoder). */
void unwind_bpf__rule(const struct unw_row *row, struct kunw_rule *out);

#endif /* PROFIL_UNWIND_BPF_H */
