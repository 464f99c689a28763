// SPDX-License-Identifier: MIT
/*
 * Fuzz target: an ELF file through the symbol loader (symbols/symbols.h):
 * program headers, .symtab/.dynsym, address translation, lookups (with the
 * unwind tables for unnamed code), DWARF source lines; and through the
 * agent's build id reader (agent/build_id.h: program headers, notes).  Seeds:
 * tests/fuzz/corpus/elf/ (small real objects: executable, shared library,
 * stripped, with DWARF).
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "agent/build_id.h"
#include "fuzz.h"
#include "symbols/symbols.h"

static void probe(struct sym_object *o, uint64_t vaddr)
{
	struct sym_result res;
	const char *file;
	int line;

	symobj__lookup(o, vaddr, &res);
	symobj__srcline(o, vaddr, &file, &line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_input_file(data, size);
	struct symbols *s;
	struct sym_object *o;
	uint64_t lo, hi, vaddr;
	uint8_t id[BUILD_ID_MAX];
	struct stat st;

	if (!in)
		return 0;
	if (stat(in, &st) == 0)
		build_id_of_mapped(in, major(st.st_dev), minor(st.st_dev), st.st_ino, id);
	s = symbols__new();
	if (!s)
		return 0;
	o = symbols__object(s, in);
	if (o && !(symobj__flags(o) & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF))) {
		if (symobj__text_range(o, &lo, &hi) == 0) {
			probe(o, lo);
			probe(o, lo + (hi - lo) / 2);
			probe(o, hi - 1);
		}
		probe(o, 0);
		probe(o, UINT64_MAX);
		/* a runtime pc in a mapping at 0x555555554000 of file offset 0x1000 */
		for (uint64_t off = 0; off < 0x4000; off += 0x7f3)
			if (symobj__to_vaddr(o, 0x555555554000ull, 0x1000, 0x555555554000ull + off,
					     &vaddr) == 0)
				probe(o, vaddr);
	}
	symbols__free(s);
	return 0;
}
