// SPDX-License-Identifier: MIT
/*
 * Fuzz target: an .eh_frame section through the recorder's CFI compiler
 * (unwind/unwind_cfi.h): the input is the section's bytes, placed in a
 * minimal x86-64 object (tests/progs/hostile_elf.h) whose .text it may
 * describe; every FDE is listed and compiled (CIE augmentations, pointer
 * encodings, the DW_CFA_* interpreter, expression decoding, the bounds).
 * Checked: every compiled FDE's rows lie inside it, in address order, and
 * the work stays within the bounds (bytes interpreted <= the section).
 * Seeds: tests/fuzz/corpus/cfi/ (real sections of Debian objects, GCC-shaped
 * and hostile programs).
 */
#include <gelf.h>
#include <stdlib.h>

#include "fuzz.h"
#include "unwind/unwind_cfi.h"
#include "tests/progs/hostile_elf.h"

#define TEXT_LEN 0x10000

static void check_table(const struct unw_table *t, const struct unw_cfi_stats *st, size_t size)
{
	for (size_t i = 0; i < t->nfdes; i++) {
		const struct unw_fde *f = &t->fdes[i];

		if (f->state != UNW_FDE_READY)
			continue;
		if (!f->n || (size_t)f->first + f->n > t->nrows)
			abort();
		for (uint32_t r = 0; r < f->n; r++) {
			const struct unw_row *row = &t->rows[f->first + r];

			if (row->start < f->start || row->start >= f->end ||
			    (r && row->start <= row[-1].start))
				abort();
		}
	}
	/* a CIE may be interpreted again when more than the cache's CIEs alternate */
	if (st->bytes > UNW_CFI_MAX_OBJECT_BYTES + UNW_CFI_MAX_FDE_BYTES || st->fdes > size / 8 + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct helf_buf img;
	struct unw_table t = {0};
	struct unw_cfi *c = NULL;
	struct unw_cfi_stats st;
	char why[128];
	Elf *elf;

	elf_version(EV_CURRENT);
	if (helf_image(&img, NULL, TEXT_LEN, data, size) < 0)
		return 0;
	elf = elf_memory((char *)img.p, img.len);
	if (elf && unw_cfi_open(elf, &t, &c, why, sizeof(why)) == 0 && c &&
	    unw_cfi_compile_all(c, &t) == 0) {
		unw_cfi_get_stats(c, &st);
		check_table(&t, &st, size);
	}
	unw_cfi_close(c);
	unw_table_free(&t);
	if (elf)
		elf_end(elf);
	free(img.p);
	return 0;
}
