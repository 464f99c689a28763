/* SPDX-License-Identifier: MIT */
/*
 * The main program's first executable segment (its first PT_LOAD with
 * PF_X), the text the benchmark's in-process samplers cover (bench/ab,
 * bench/shim): where it is loaded, its link-time address and its size.
 */
#ifndef BENCH_MAIN_TEXT_H
#define BENCH_MAIN_TEXT_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

struct main_text {
	uintptr_t start; /* where it is loaded */
	uintptr_t vaddr; /* its link-time address */
	size_t size;
};

static inline int main_text__phdr(struct dl_phdr_info *info, size_t size, void *data)
{
	struct main_text *t = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->start = info->dlpi_addr + ph->p_vaddr;
			t->vaddr = ph->p_vaddr;
			t->size = ph->p_memsz;
			break;
		}
	}
	return 1; /* the first object is the main program: stop there */
}

/* Fill t in: 0, or -1 (all zeros) when the program has no executable segment. */
static inline int main_text__find(struct main_text *t)
{
	*t = (struct main_text){0};
	dl_iterate_phdr(main_text__phdr, t);
	return t->size ? 0 : -1;
}

#endif
