// SPDX-License-Identifier: MIT
/* The FDEs of a CFI section: see fde.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <string.h>

#include "symbols/fde.h"

/* The few CIEs of an object and the pointer encoding of their FDEs. */
struct cie_cache {
	Dwarf_Off off[16];
	int enc[16]; /* -1: not understood */
	int n;
};

/* ---- FDE addresses ---------------------------------------------------- */

/* Bytes of a pointer in encoding enc (DW_EH_PE_*), or 0 for the forms not handled. */
static size_t encoded_size(int enc)
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

/* Read a pointer; apply_rel: add the field's own address for pc-relative encodings. */
static int read_encoded(int enc, const uint8_t *p, const uint8_t *end, uint64_t field_addr,
			int apply_rel, uint64_t *out)
{
	size_t size = encoded_size(enc);
	uint64_t v = 0;

	if (!size || p > end || (size_t)(end - p) < size)
		return -1;
	memcpy(&v, p, size); /* x86-64: little-endian, like the host */
	if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	if (apply_rel) {
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			v += field_addr;
		else if ((enc & 0x70) != DW_EH_PE_absptr)
			return -1;
	}
	*out = v;
	return 0;
}

/* The FDE pointer encoding a CIE announces ('zR' augmentation), or -1. */
static int cie_fde_encoding(const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *end = d ? d + cie->augmentation_data_size : NULL;
	int enc = DW_EH_PE_absptr;

	if (!aug || !aug[0])
		return DW_EH_PE_absptr;
	if (aug[0] != 'z' || !d)
		return -1;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			if (d >= end)
				return -1;
			enc = *d++;
			break;
		case 'L': /* LSDA encoding */
			if (d >= end)
				return -1;
			d++;
			break;
		case 'P': /* personality routine: encoding and pointer */
			if (d >= end || !encoded_size(*d) ||
			    (size_t)(end - d) < 1 + encoded_size(*d))
				return -1;
			d += 1 + encoded_size(*d);
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return enc; /* data we cannot skip: only letters before it were read */
		}
	}
	return enc;
}

static int cie_encoding(struct cie_cache *cc, const unsigned char *ident, Elf_Data *data,
			int eh_frame, Dwarf_Off cie_off)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	int enc = -1;

	for (int i = 0; i < cc->n; i++)
		if (cc->off[i] == cie_off)
			return cc->enc[i];
	if (dwarf_next_cfi(ident, data, eh_frame, cie_off, &next, &entry) == 0 &&
	    entry.CIE_id == (Dwarf_Off)LIBDW_CIE_ID)
		enc = cie_fde_encoding(&entry.cie);
	if (cc->n < (int)(sizeof(cc->off) / sizeof(cc->off[0]))) {
		cc->off[cc->n] = cie_off;
		cc->enc[cc->n++] = enc;
	}
	return enc;
}

int fde__list(Elf *elf, Elf_Data *data, uint64_t sh_addr, int eh_frame, fde_cb cb, void *arg)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct cie_cache cc = {.n = 0};
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry entry;

	if (!ident || !data || !data->d_buf)
		return 0;
	while (dwarf_next_cfi(ident, data, eh_frame, off, &next, &entry) == 0) {
		const uint8_t *p = entry.fde.start, *end = entry.fde.end;
		uint64_t start, len;
		int enc, rc;

		if (next <= off)
			break;
		off = next;
		if (entry.CIE_id == (Dwarf_Off)LIBDW_CIE_ID)
			continue;
		enc = cie_encoding(&cc, ident, data, eh_frame, entry.fde.CIE_pointer);
		if (enc < 0 ||
		    read_encoded(enc, p, end,
				 sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf), 1, &start))
			continue;
		p += encoded_size(enc);
		if (read_encoded(enc & 0x0f, p, end, 0, 0, &len) || !len || start + len < start)
			continue;
		rc = cb(arg, start, start + len);
		if (rc)
			return rc;
	}
	return 0;
}

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

int fde__list_section(Elf *elf, const char *section, fde_cb cb, void *arg, int *found)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, section, &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	int eh_frame = !strcmp(section, ".eh_frame");

	if (found)
		*found = data && data->d_buf && data->d_size;
	if (!data || !data->d_buf)
		return 0;
	return fde__list(elf, data, eh_frame ? shdr.sh_addr : 0, eh_frame, cb, arg);
}
