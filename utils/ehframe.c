// SPDX-License-Identifier: MIT
/* The entries of a CFI section: see ehframe.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <string.h>

#include "utils/ehframe.h"
#include "utils/leb128.h"

/* ---- the section ------------------------------------------------------------ */

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int ehframe__open(struct ehframe *s, Elf *elf, const char *name)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, name, &shdr);
	Elf_Data *data;

	memset(s, 0, sizeof(*s));
	if (!scn)
		return -ENOENT;
	if (shdr.sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;

		if (!gelf_getchdr(scn, &ch) || ch.ch_size > EHFRAME_MAX_SECTION ||
		    elf_compress(scn, 0, 0) < 0)
			return -ENOENT;
	}
	data = elf_getdata(scn, NULL);
	s->ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!s->ident || !data || !data->d_buf || !data->d_size ||
	    data->d_size > EHFRAME_MAX_SECTION)
		return -ENOENT;
	s->data = data;
	s->eh_frame = !strcmp(name, ".eh_frame");
	s->sh_addr = s->eh_frame ? shdr.sh_addr : 0;
	return 0;
}

/* ---- pointers ------------------------------------------------------------------ */

size_t ehframe__pointer_size(int enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: /* ELF64 */
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	default:
		return 0;
	}
}

int ehframe__read_pointer(const struct ehframe *s, int enc, const uint8_t **p, const uint8_t *end,
			  int apply_rel, uint64_t *out)
{
	uint64_t field = s->sh_addr + (uint64_t)(*p - (const uint8_t *)s->data->d_buf);
	size_t size = ehframe__pointer_size(enc);
	uint64_t v = 0;

	if (!size || *p > end || (size_t)(end - *p) < size)
		return -EINVAL;
	memcpy(&v, *p, size); /* x86-64: little-endian, like the host */
	if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	if (apply_rel) {
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			v += field;
		else if ((enc & 0x70) != DW_EH_PE_absptr)
			return -EINVAL;
	}
	*p += size;
	*out = v;
	return 0;
}

/* ---- entries --------------------------------------------------------------------- */

int ehframe__entry(const struct ehframe *s, uint64_t off, struct ehframe_entry *e)
{
	Dwarf_CFI_Entry raw;
	Dwarf_Off next;

	if (!s->data || dwarf_next_cfi(s->ident, s->data, s->eh_frame, off, &next, &raw) != 0)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->off = off;
	e->next = next;
	e->is_cie = raw.CIE_id == (Dwarf_Off)LIBDW_CIE_ID;
	if (!e->is_cie) {
		e->cie_off = raw.fde.CIE_pointer;
		e->p = raw.fde.start;
		e->end = raw.fde.end;
	}
	return 0;
}

/* One byte of augmentation data. */
static int aug_byte(const uint8_t **d, const uint8_t *end, int *v)
{
	if (*d >= end)
		return -EINVAL;
	*v = *(*d)++;
	return 0;
}

/* The augmentation string and data: the FDEs' pointer encoding, 'z', 'S'. */
static int parse_augmentation(const Dwarf_CIE *raw, struct ehframe_cie *cie)
{
	const char *aug = raw->augmentation;
	const uint8_t *d = raw->augmentation_data;
	const uint8_t *end = d ? d + raw->augmentation_data_size : NULL;
	int v;

	cie->fde_enc = DW_EH_PE_absptr;
	if (!aug || !aug[0])
		return 0;
	if (aug[0] != 'z' || !d)
		return -EINVAL;
	cie->has_z = 1;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			if (aug_byte(&d, end, &cie->fde_enc))
				return -EINVAL;
			break;
		case 'L': /* the LSDA's encoding */
			if (aug_byte(&d, end, &v))
				return -EINVAL;
			break;
		case 'P': /* the personality routine: encoding and pointer */
			if (aug_byte(&d, end, &v) || !ehframe__pointer_size(v) ||
			    (size_t)(end - d) < ehframe__pointer_size(v))
				return -EINVAL;
			d += ehframe__pointer_size(v);
			break;
		case 'S':
			cie->signal = 1;
			break;
		case 'B':
		case 'G':
			break;
		default:
			return 0; /* data we cannot skip: 'z' sizes the FDEs' block anyway */
		}
	}
	return 0;
}

int ehframe__cie(const struct ehframe *s, uint64_t off, struct ehframe_cie *cie)
{
	Dwarf_CFI_Entry raw;
	Dwarf_Off next;

	memset(cie, 0, sizeof(*cie));
	cie->off = off;
	if (!s->data || dwarf_next_cfi(s->ident, s->data, s->eh_frame, off, &next, &raw) != 0 ||
	    raw.CIE_id != (Dwarf_Off)LIBDW_CIE_ID || parse_augmentation(&raw.cie, cie) < 0)
		return -EINVAL;
	cie->code_align = raw.cie.code_alignment_factor;
	cie->data_align = raw.cie.data_alignment_factor;
	cie->ra_reg = raw.cie.return_address_register;
	cie->insns = raw.cie.initial_instructions;
	cie->insns_end = raw.cie.initial_instructions_end;
	return 0;
}

/* A uleb128 length and that many bytes, within [*p, end): moves *p past them. */
static int skip_block(const uint8_t **p, const uint8_t *end)
{
	uint64_t len;

	if (leb128__uleb(p, end, &len) || len > (uint64_t)(end - *p))
		return -EINVAL;
	*p += len;
	return 0;
}

int ehframe__fde(const struct ehframe *s, const struct ehframe_entry *e,
		 const struct ehframe_cie *cie, struct ehframe_fde *f)
{
	const uint8_t *p = e->p;
	uint64_t len;

	memset(f, 0, sizeof(*f));
	f->off = e->off;
	f->cie_off = e->cie_off;
	if (e->is_cie || !p || p > e->end ||
	    ehframe__read_pointer(s, cie->fde_enc, &p, e->end, 1, &f->start) ||
	    ehframe__read_pointer(s, cie->fde_enc & 0x0f, &p, e->end, 0, &len) || !len ||
	    f->start + len < f->start)
		return -EINVAL;
	f->end = f->start + len;
	if (!cie->has_z || !skip_block(&p, e->end)) {
		f->insns = p;
		f->insns_end = e->end;
	}
	return 0;
}

/* ---- the walk ---------------------------------------------------------------------- */

/* The CIE at off, read once while it is among the last few. NULL: it does not decode. */
static const struct ehframe_cie *iter_cie(const struct ehframe *s, struct ehframe_iter *it,
					  uint64_t off)
{
	const unsigned int n = sizeof(it->cies) / sizeof(it->cies[0]);
	unsigned int k;

	for (k = 0; k < it->ncies; k++)
		if (it->cies[k].off == off)
			return it->cie_ok[k] ? &it->cies[k] : NULL;
	k = it->ncies < n ? it->ncies++ : it->next_cie++ % n;
	it->cie_ok[k] = ehframe__cie(s, off, &it->cies[k]) == 0;
	it->cies[k].off = off;
	return it->cie_ok[k] ? &it->cies[k] : NULL;
}

int ehframe__next_fde(const struct ehframe *s, struct ehframe_iter *it, struct ehframe_fde *f,
		      const struct ehframe_cie **cie)
{
	struct ehframe_entry e;

	while (s->data && !it->over_bound && ehframe__entry(s, it->off, &e) == 0) {
		const struct ehframe_cie *c;

		if (e.next <= it->off)
			break;
		if (++it->entries > EHFRAME_MAX_ENTRIES) {
			it->over_bound = 1;
			break;
		}
		it->off = e.next;
		if (e.is_cie || !(c = iter_cie(s, it, e.cie_off)) || ehframe__fde(s, &e, c, f))
			continue;
		if (cie)
			*cie = c;
		return 1;
	}
	return 0;
}
