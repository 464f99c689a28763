// SPDX-License-Identifier: MIT
/*
 * utils/ehframe.h, the one lister of a CFI section's CIEs and FDEs (for the
 * names of code without symbols and for the recorder's CFI compiler), on
 * sections built here (tests/progs/hostile_elf.h): GCC's shape; other
 * augmentations and pointer encodings (zPLR, absolute udata4, sdata2 going
 * below zero); FDEs that must be skipped (empty range, CIE with a cut-short
 * augmentation, a pointer encoding not handled) and one whose augmentation
 * block overruns it (listed, without instructions); a walk that stops at an
 * entry libdw cannot read; a real object's listing against libdw's own
 * reading of the same FDEs (dwarf_cfi_addrframe: a row starts at each listed
 * start and ends within the listed range); the LEB128 readers (edges of
 * length, sign and truncation).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "object_fixture.h"
#include "tests/progs/hostile_elf.h"
#include "utils/ehframe.h"
#include "utils/leb128.h"

#define TEXT_LEN 0x4000
#define EH_ADDR HELF_EH(TEXT_LEN)

/* A CIE with augmentation aug and its data (raw bytes); returns its offset. */
static size_t raw_cie(struct helf_buf *eh, const char *aug, const uint8_t *augdata, size_t n)
{
	static const uint8_t tail[] = {0x0c, 0x07, 0x08}; /* def_cfa rsp 8 */
	size_t at = eh->len;

	helf_put(eh, NULL, 8); /* length, CIE id 0 */
	helf_u8(eh, 1);	       /* version */
	helf_put(eh, aug, strlen(aug) + 1);
	helf_u8(eh, 1);	   /* code alignment */
	helf_u8(eh, 0x78); /* data alignment -8 */
	helf_u8(eh, 16);   /* return address */
	if (aug[0] == 'z') {
		helf_u8(eh, (uint8_t)n);
		helf_put(eh, augdata, n);
	}
	helf_put(eh, tail, sizeof(tail));
	helf_align_entry(eh, at + 4);
	helf_u32_at(eh, at, (uint32_t)(eh->len - at - 4));
	return at;
}

/* An FDE of the CIE at cie_at whose bytes after the CIE pointer are body. */
static void raw_fde(struct helf_buf *eh, size_t cie_at, const void *body, size_t n)
{
	size_t at = eh->len;

	helf_put(eh, NULL, 8);
	helf_u32_at(eh, at + 4, (uint32_t)(at + 4 - cie_at));
	helf_put(eh, body, n);
	helf_align_entry(eh, at + 4);
	helf_u32_at(eh, at, (uint32_t)(eh->len - at - 4));
}

struct listed {
	struct ehframe_fde f[16];
	struct ehframe_cie c[16];
	int n;
	int over_bound;
};

/* Every FDE the lister gives for the .eh_frame eh (in an image). */
static int list(const struct helf_buf *eh, struct listed *out)
{
	struct helf_buf img = {0};
	struct ehframe s;
	struct ehframe_iter it = {0};
	const struct ehframe_cie *cie;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (eh->oom || helf_image(&img, NULL, TEXT_LEN, eh->p, eh->len) < 0)
		return -1;
	elf = elf_memory((char *)img.p, img.len);
	if (!elf || ehframe__open(&s, elf, ".eh_frame") < 0) {
		if (elf)
			elf_end(elf);
		free(img.p);
		return -1;
	}
	while (out->n < 16 && ehframe__next_fde(&s, &it, &out->f[out->n], &cie) > 0)
		out->c[out->n++] = *cie;
	out->over_bound = it.over_bound;
	/* the instructions point into the image: keep only whether there are some */
	for (int i = 0; i < out->n; i++)
		if (out->f[i].insns)
			out->f[i].insns_end =
				(const uint8_t *)(uintptr_t)(out->f[i].insns_end - out->f[i].insns);
	for (int i = 0; i < out->n; i++)
		if (out->f[i].insns)
			out->f[i].insns = (const uint8_t *)1;
	elf_end(elf);
	free(img.p);
	return 0;
}

static void test_gcc_shape(void)
{
	static const uint8_t insns[] = {0x41, 0x0e, 0x10}; /* advance 1; def_cfa_offset 16 */
	struct helf_buf eh = {0};
	struct listed l;
	size_t cie = helf_cie(&eh);

	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT + 0x10, 0x20, insns, sizeof(insns));
	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT + 0x40, 0, insns, sizeof(insns)); /* empty: skipped */
	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT + 0x80, 0x100, NULL, 0);
	helf_terminate(&eh);
	CHECK("gcc_listed", list(&eh, &l) == 0 && l.n == 2);
	CHECKF("gcc_ranges",
	       l.f[0].start == HELF_TEXT + 0x10 && l.f[0].end == HELF_TEXT + 0x30 &&
		       l.f[1].start == HELF_TEXT + 0x80 && l.f[1].end == HELF_TEXT + 0x180,
	       "[%#lx, %#lx) [%#lx, %#lx)", (unsigned long)l.f[0].start, (unsigned long)l.f[0].end,
	       (unsigned long)l.f[1].start, (unsigned long)l.f[1].end);
	CHECK("gcc_cie", l.c[0].fde_enc == 0x1b && l.c[0].has_z && !l.c[0].signal &&
				 l.c[0].code_align == 1 && l.c[0].data_align == -8 &&
				 l.c[0].ra_reg == 16 && l.f[0].cie_off == cie);
	/* the instructions after the (empty) augmentation block, with the entry's padding */
	CHECKF("gcc_insns",
	       l.f[0].insns && (uintptr_t)l.f[0].insns_end >= sizeof(insns) &&
		       (uintptr_t)l.f[0].insns_end < sizeof(insns) + 4,
	       "%zu bytes", (size_t)(uintptr_t)l.f[0].insns_end);
	free(eh.p);
}

static void test_augmentations(void)
{
	/* zPLRS: personality absptr (8 bytes), LSDA encoding, FDE pointers udata4 absolute */
	static const uint8_t plr[] = {0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b, 0x03};
	static const uint8_t cut[] = {0x00, 1, 2}; /* 'P' with its pointer cut short */
	static const uint8_t s2[] = {0x0a};	   /* 'R': sdata2 absolute */
	static const uint8_t uleb[] = {0x01};	   /* 'R': uleb128: not handled */
	struct helf_buf eh = {0};
	struct listed l;
	size_t a = raw_cie(&eh, "zPLRS", plr, sizeof(plr));
	size_t c = raw_cie(&eh, "zR", s2, sizeof(s2));
	size_t d = raw_cie(&eh, "zR", uleb, sizeof(uleb));
	size_t b;
	uint8_t f1[4 + 4 + 1 + 8] = {0}, f3[2 + 2 + 1] = {0}, f5[4 + 4 + 1 + 1] = {0};
	uint32_t start = HELF_TEXT + 0x200, len = 0x30;
	int16_t s16 = -0x20;
	uint16_t l16 = 0x10;

	memcpy(f1, &start, 4);
	memcpy(f1 + 4, &len, 4);
	f1[8] = 8; /* augmentation block: the LSDA pointer */
	raw_fde(&eh, a, f1, sizeof(f1));
	memcpy(f3, &s16, 2);
	memcpy(f3 + 2, &l16, 2);
	raw_fde(&eh, c, f3, sizeof(f3)); /* [-0x20, -0x10): sign-extended */
	raw_fde(&eh, d, f1, sizeof(f1)); /* uleb128 pointers: skipped */
	memcpy(f5, &start, 4);
	memcpy(f5 + 4, &len, 4);
	f5[8] = 0x7f; /* an augmentation block longer than the FDE */
	raw_fde(&eh, a, f5, sizeof(f5));
	/* last (libdw itself may refuse this CIE, which ends the walk): its FDE is skipped */
	b = raw_cie(&eh, "zPR", cut, sizeof(cut));
	raw_fde(&eh, b, f1, sizeof(f1));
	helf_terminate(&eh);
	CHECKF("aug_listed", list(&eh, &l) == 0 && l.n == 3, "%d listed", l.n);
	CHECK("aug_zplrs", l.f[0].start == start && l.f[0].end == start + len &&
				   l.c[0].fde_enc == 0x03 && l.c[0].signal && l.f[0].insns);
	CHECKF("aug_sdata2_negative",
	       l.f[1].start == (uint64_t)-0x20 && l.f[1].end == (uint64_t)-0x10, "[%#lx, %#lx)",
	       (unsigned long)l.f[1].start, (unsigned long)l.f[1].end);
	CHECK("aug_block_overrun_listed_without_insns", l.f[2].start == start && !l.f[2].insns);
	free(eh.p);
}

static void test_unreadable_entry(void)
{
	struct helf_buf eh = {0};
	struct listed l;
	size_t cie = helf_cie(&eh), at;

	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT, 0x10, NULL, 0);
	at = eh.len; /* an FDE whose CIE pointer points before the section: libdw refuses it */
	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT + 0x10, 0x10, NULL, 0);
	helf_u32_at(&eh, at + 4, 0x7ffffff0);
	helf_fde(&eh, cie, EH_ADDR, HELF_TEXT + 0x20, 0x10, NULL, 0);
	helf_terminate(&eh);
	CHECK("unreadable_ends_or_skips", list(&eh, &l) == 0 && l.n >= 1 && l.n <= 2 &&
						  l.f[0].start == HELF_TEXT && !l.over_bound);
	free(eh.p);
}

/* A real object's FDEs: every one listed is an FDE libdw finds at its start. */
static void test_real_object(const char *path)
{
	struct object_file o;
	Elf *elf = object_file__open(&o, path);
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	int bad = 0, n = 0;
	struct ehframe s;
	struct ehframe_iter it = {0};
	struct ehframe_fde f;

	if (!cfi || ehframe__open(&s, elf, ".eh_frame") < 0) {
		SKIP("real_object", "cannot read the object's .eh_frame");
		goto out;
	}
	while (ehframe__next_fde(&s, &it, &f, NULL) > 0) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr lo, hi;

		n++;
		/* the first row of the FDE: it starts where the FDE does, ends within it */
		if (dwarf_cfi_addrframe(cfi, f.start, &fr) ||
		    dwarf_frame_info(fr, &lo, &hi, NULL) < 0 || lo != f.start || hi > f.end)
			bad++;
		free(fr);
	}
	CHECKF("real_object_fdes_as_libdw", n > 100 && !bad, "%s: %d FDEs, %d not as libdw", path,
	       n, bad);
out:
	if (cfi)
		dwarf_cfi_end(cfi);
	object_file__close(&o);
}

/* bytes [0, n) of b as a LEB128 number: rc, the value, how many bytes were read */
static int uleb_of(const uint8_t *b, size_t n, uint64_t *v, size_t *used)
{
	const uint8_t *p = b;
	int rc = leb128__uleb(&p, b + n, v);

	*used = (size_t)(p - b);
	return rc;
}

static int sleb_of(const uint8_t *b, size_t n, int64_t *v, size_t *used)
{
	const uint8_t *p = b;
	int rc = leb128__sleb(&p, b + n, v);

	*used = (size_t)(p - b);
	return rc;
}

static void test_leb128(void)
{
	static const uint8_t u624485[] = {0xe5, 0x8e, 0x26, 0xff};
	static const uint8_t s_minus2[] = {0x7e};
	static const uint8_t s_minus123456[] = {0xc0, 0xbb, 0x78};
	static const uint8_t s_63[] = {0x3f};
	static const uint8_t max64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint8_t s_min64[] = {0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x7f};
	static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t cut[] = {0x80, 0x80};
	uint64_t u = 0;
	int64_t s = 0;
	size_t used = 0;
	int rc;

	rc = uleb_of(u624485, sizeof(u624485), &u, &used);
	CHECKF("uleb_3_bytes", rc == 0 && u == 624485 && used == 3, "rc=%d u=%llu used=%zu", rc,
	       (unsigned long long)u, used);
	rc = sleb_of(s_minus2, sizeof(s_minus2), &s, &used);
	CHECKF("sleb_minus_2", rc == 0 && s == -2 && used == 1, "rc=%d s=%lld", rc, (long long)s);
	rc = sleb_of(s_minus123456, sizeof(s_minus123456), &s, &used);
	CHECKF("sleb_minus_123456", rc == 0 && s == -123456 && used == 3, "rc=%d s=%lld", rc,
	       (long long)s);
	rc = sleb_of(s_63, sizeof(s_63), &s, &used);
	CHECKF("sleb_63", rc == 0 && s == 63, "rc=%d s=%lld", rc, (long long)s);
	rc = uleb_of(max64, sizeof(max64), &u, &used);
	CHECKF("uleb_10_bytes_max", rc == 0 && u == UINT64_MAX && used == 10, "rc=%d u=%#llx", rc,
	       (unsigned long long)u);
	rc = sleb_of(s_min64, sizeof(s_min64), &s, &used);
	CHECKF("sleb_10_bytes_min", rc == 0 && s == INT64_MIN && used == 10, "rc=%d s=%lld", rc,
	       (long long)s);
	rc = uleb_of(eleven, sizeof(eleven), &u, &used);
	CHECKF("uleb_11_bytes_refused", rc == -EINVAL, "rc=%d", rc);
	rc = sleb_of(cut, sizeof(cut), &s, &used);
	CHECKF("sleb_cut_short_refused", rc == -EINVAL && used == 2, "rc=%d used=%zu", rc, used);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_gcc_shape();
	test_augmentations();
	test_unreadable_entry();
	test_real_object("/usr/bin/gzip");
	test_leb128();
	return check_failures ? 1 : 0;
}
