// SPDX-License-Identifier: MIT
/* PLT entries named by the relocations of their GOT slots: see plt.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/plt.h"
#include "utils/search.h"
#include "utils/cmp.h"

#define MAX_RELOCS (4 * PLT_MAX_ENTRIES)

struct slot {
	uint64_t got; /* r_offset: the GOT slot the relocation fills */
	const char *name;
	uint64_t addend; /* IRELATIVE: the resolver */
	int irelative;
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return CMP(x->got, y->got);
}

static int push_slot(struct slots *s, const struct slot *sl)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct slot *v;

		if (ncap > MAX_RELOCS)
			return -E2BIG;
		v = realloc(s->v, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = ncap;
	}
	s->v[s->n++] = *sl;
	return 0;
}

/* The name of symbol idx of the symbol table section symtab, or NULL. */
static const char *sym_name(Elf *elf, Elf_Scn *symtab, size_t idx)
{
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	if (!symtab || !idx || !gelf_getshdr(symtab, &sh) || !sh.sh_entsize)
		return NULL;
	d = elf_getdata(symtab, NULL);
	if (!d || idx >= d->d_size / sh.sh_entsize || !gelf_getsym(d, (int)idx, &sym))
		return NULL;
	return elf_strptr(elf, sh.sh_link, sym.st_name);
}

/* The slots of one SHT_RELA section. */
static int read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct slots *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symtab = elf_getscn(elf, sh->sh_link);
	size_t n = d && sh->sh_entsize ? d->d_size / sh->sh_entsize : 0;

	for (size_t i = 0; i < n && i < MAX_RELOCS; i++) {
		GElf_Rela r;
		struct slot sl = {0};
		unsigned type;
		int rc;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if (type == R_X86_64_IRELATIVE) {
			sl.irelative = 1;
			sl.addend = (uint64_t)r.r_addend;
		} else if (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) {
			sl.name = sym_name(elf, symtab, GELF_R_SYM(r.r_info));
			if (!sl.name || !*sl.name)
				continue;
		} else {
			continue;
		}
		sl.got = r.r_offset;
		rc = push_slot(s, &sl);
		if (rc)
			return rc;
	}
	return 0;
}

static const struct slot *find_slot(const struct slots *s, uint64_t got)
{
	size_t lo = SEARCH_LOWER(s->v, s->n, got, got);

	return lo < s->n && s->v[lo].got == got ? &s->v[lo] : NULL;
}

/* The GOT slot an entry jumps through (`ff 25 disp32`, rip-relative), or 0. */
static uint64_t entry_got(const uint8_t *b, size_t size, uint64_t addr)
{
	for (size_t i = 0; i + 6 <= size; i++) {
		int32_t disp;

		if (b[i] != 0xff || b[i + 1] != 0x25)
			continue;
		memcpy(&disp, b + i + 2, 4);
		return addr + i + 6 + (uint64_t)(int64_t)disp;
	}
	return 0;
}

struct plt_walk {
	const struct slots *slots;
	plt_cb cb;
	plt_name_at name_at;
	void *arg;
	const char **sec_names; /* .plt.sec's names by entry index, for the lazy .plt */
	size_t nsec;
};

static const char *slot_name(const struct plt_walk *w, const struct slot *sl)
{
	if (!sl->irelative)
		return sl->name;
	return w->name_at ? w->name_at(w->arg, sl->addend) : NULL;
}

/* One PLT section's entries.  lazy: .plt, named by .plt.sec's index when it jumps to PLT0. */
static int walk_section(struct plt_walk *w, Elf_Scn *scn, const GElf_Shdr *sh, int lazy,
			const char **keep)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	uint64_t ent = sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize : 16;
	size_t n;

	if (!d || !d->d_buf || d->d_size > sh->sh_size)
		return 0;
	n = d->d_size / ent;
	for (size_t i = 0; i < n && i < PLT_MAX_ENTRIES; i++) {
		const uint8_t *b = (const uint8_t *)d->d_buf + i * ent;
		uint64_t addr = sh->sh_addr + i * ent;
		uint64_t got = entry_got(b, ent, addr);
		const struct slot *sl = got ? find_slot(w->slots, got) : NULL;
		const char *name = sl ? slot_name(w, sl) : NULL;
		int rc;

		if (!name && lazy && i >= 1 && i - 1 < w->nsec)
			name = w->sec_names[i - 1];
		if (keep && i < w->nsec)
			keep[i] = name;
		if (!name)
			continue;
		rc = w->cb(w->arg, addr, ent, name);
		if (rc)
			return rc;
	}
	return 0;
}

static Elf_Scn *plt_section(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS ||
		    !(sh->sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int collect_slots(Elf *elf, struct slots *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		int rc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		rc = read_relocs(elf, scn, &sh, s);
		if (rc == -ENOMEM)
			return rc;
	}
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_slot);
	return 0;
}

int plt__list(Elf *elf, plt_cb cb, plt_name_at name_at, void *arg)
{
	struct slots s = {0};
	struct plt_walk w = {&s, cb, name_at, arg, NULL, 0};
	GElf_Shdr sh, ssec;
	Elf_Scn *scn, *sec;
	size_t shstrndx;
	int rc;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	rc = collect_slots(elf, &s);
	if (rc || !s.n)
		goto out;
	sec = plt_section(elf, shstrndx, ".plt.sec", &ssec);
	if (sec && ssec.sh_size / 16 <= PLT_MAX_ENTRIES) {
		w.nsec = ssec.sh_size / 16;
		w.sec_names = calloc(w.nsec ? w.nsec : 1, sizeof(*w.sec_names));
		if (!w.sec_names) {
			rc = -ENOMEM;
			goto out;
		}
		rc = walk_section(&w, sec, &ssec, 0, w.sec_names);
	}
	scn = plt_section(elf, shstrndx, ".plt", &sh);
	if (!rc && scn)
		rc = walk_section(&w, scn, &sh, 1, NULL);
	scn = plt_section(elf, shstrndx, ".plt.got", &sh);
	if (!rc && scn)
		rc = walk_section(&w, scn, &sh, 0, NULL);
out:
	free(w.sec_names);
	free(s.v);
	return rc;
}
