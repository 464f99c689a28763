// SPDX-License-Identifier: MIT
/* The pure core: glibc's bin arithmetic, region sets, saturation. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/hist.h"
#include "xorshift.h"

/* Reference: the formula of the manual page with exact 128-bit arithmetic. */
static uint64_t ref_index(uint64_t pc, uint64_t off, uint32_t scale, unsigned width)
{
	unsigned __int128 d = (pc - off) / width;

	return (uint64_t)(d * scale / 65536);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	return xorshift64(&rng_state);
}

static void test_index_random(void)
{
	int bad = 0;

	for (int n = 0; n < 2000000; n++) {
		uint64_t off = rnd(), pc = rnd();
		uint32_t scale = (uint32_t)(rnd() % 65536) + 1;
		unsigned width = (n & 1) ? 2 : 4;

		if (n % 3 == 0)
			pc = off + (rnd() >> (rnd() % 64));
		if (pc < off) {
			uint64_t t = pc;
			pc = off;
			off = t;
		}
		if (hist_index(pc, off, scale, width) != ref_index(pc, off, scale, width))
			bad++;
	}
	CHECKF("index matches the exact formula on 2M random inputs", bad == 0, "%d mismatches", bad);
}

static void test_index_edges(void)
{
	const uint32_t scales[] = { 1, 2, 3, 32768, 65535, 65536 };
	const uint64_t offs[] = { 0, 1, 0x400000, UINT64_MAX / 2, UINT64_MAX - 10 };
	int bad = 0;

	for (unsigned s = 0; s < 6; s++)
		for (unsigned o = 0; o < 5; o++)
			for (uint64_t d = 0; d < 300; d++) {
				uint64_t pc = offs[o] + d;
				if (pc < offs[o])
					continue;
				if (hist_index(pc, offs[o], scales[s], 2) != ref_index(pc, offs[o], scales[s], 2))
					bad++;
			}
	CHECKF("index edges (scale 1,2,3,32768,65535,65536)", bad == 0, "%d mismatches", bad);
	CHECK("pc == offset is bin 0", hist_index(0x1000, 0x1000, 65536, 2) == 0);
	CHECK("scale 65536 maps 2 bytes per bin", hist_index(0x1000 + 6, 0x1000, 65536, 2) == 3);
	CHECK("scale 32768 maps 4 bytes per bin", hist_index(0x1000 + 7, 0x1000, 32768, 2) == 1);
	CHECK("top of the address space does not overflow",
	      hist_index(UINT64_MAX, 0, 65536, 2) == UINT64_MAX / 2);
}

/* end pc is the exact boundary: last pc before it is in range, it is not. */
static void test_end_pc(void)
{
	int bad = 0;

	for (int n = 0; n < 200000; n++) {
		uint64_t off = rnd() >> 16;
		uint32_t scale = (uint32_t)(rnd() % 65536) + 1;
		size_t nbins = (size_t)(rnd() % 100000) + 1;
		unsigned width = (n & 1) ? 2 : 4;
		uintptr_t end = hist_end_pc(off, scale, width, nbins);

		if (ref_index(end, off, scale, width) < nbins || ref_index(end - 1, off, scale, width) >= nbins)
			bad++;
	}
	CHECKF("end pc is the exact first pc past the last bin", bad == 0, "%d wrong", bad);
	CHECK("end pc saturates at the top of the address space",
	      hist_end_pc(UINT64_MAX - 100, 1, 2, 1000) == UINTPTR_MAX);
}

static void test_single(void)
{
	unsigned short buf[8];
	struct hist_region reg[1];
	struct hist h;
	struct hist_spec spec = { buf, sizeof(buf), 0x1000, 65536, 2 };
	int rc;

	memset(buf, 0, sizeof(buf));
	CHECK("scale 65537 is EINVAL",
	      hist_build_single(&h, reg, &(struct hist_spec){ buf, 16, 0, 65537, 2 }) == -22);
	CHECK("scale 0 is EINVAL for the core (caller turns it into 'off')",
	      hist_build_single(&h, reg, &(struct hist_spec){ buf, 16, 0, 0, 2 }) == -22);
	rc = hist_build_single(&h, reg, &spec);
	CHECK("single region builds", rc == 0 && h.nregions == 1);
	CHECK("pc below offset is outside", hist_count(&h, 0xfff) == HIST_OUTSIDE);
	CHECK("pc == offset counts in bin 0", hist_count(&h, 0x1000) == HIST_COUNTED && buf[0] == 1);
	CHECK("last bin counts", hist_count(&h, 0x1000 + 15) == HIST_COUNTED && buf[7] == 1);
	CHECK("one past the last bin is outside", hist_count(&h, 0x1000 + 16) == HIST_OUTSIDE);

	/* odd bufsiz: the trailing byte is not a bin */
	spec.size = 7;
	hist_build_single(&h, reg, &spec);
	CHECK("odd bufsiz: 3 bins", h.regions[0].nbins == 3 && hist_count(&h, 0x1000 + 6) == HIST_OUTSIDE);
	spec.size = 0;
	hist_build_single(&h, reg, &spec);
	CHECK("bufsiz 0 counts nothing", h.nregions == 0 && hist_count(&h, 0x1000) == HIST_OUTSIDE);
	spec.size = 1;
	hist_build_single(&h, reg, &spec);
	CHECK("bufsiz 1 counts nothing", hist_count(&h, 0x1000) == HIST_OUTSIDE);

	/* scale 2: everything in the first 32768*... maps to bin 0 */
	memset(buf, 0, sizeof(buf));
	spec = (struct hist_spec){ buf, sizeof(buf), 0, 2, 2 };
	hist_build_single(&h, reg, &spec);
	CHECK("scale 2 maps 64 KiB onto bin 0", hist_count(&h, 65535) == HIST_COUNTED && buf[0] == 1 &&
							    hist_count(&h, 65536) == HIST_COUNTED && buf[1] == 1);
	spec = (struct hist_spec){ buf, sizeof(buf), 0, 1, 2 };
	hist_build_single(&h, reg, &spec);
	CHECK("scale 1 maps 128 KiB onto bin 0", hist_index(131071, 0, 1, 2) == 0 &&
							  hist_index(131072, 0, 1, 2) == 1);
}

static void test_saturation(void)
{
	unsigned short b16 = 65534;
	unsigned int b32 = 0xfffffffe;

	CHECK("u16 counts up to 65535", hist_bump(&b16, 2) == 1 && b16 == 65535);
	CHECK("u16 saturates at 65535", hist_bump(&b16, 2) == 0 && b16 == 65535);
	CHECK("u32 counts up to 2^32-1", hist_bump(&b32, 4) == 1 && b32 == 0xffffffffu);
	CHECK("u32 saturates", hist_bump(&b32, 4) == 0 && b32 == 0xffffffffu);

	unsigned short buf[2] = { 65535, 0 };
	struct hist_region reg[1];
	struct hist h;
	hist_build_single(&h, reg, &(struct hist_spec){ buf, 4, 0, 65536, 2 });
	CHECK("a full bin reports HIST_SATURATED", hist_count(&h, 0) == HIST_SATURATED && buf[0] == 65535);
}

/* Model of glibc's overlap rule: the region with the highest offset covering pc wins. */
static int model_owner(const struct hist_spec *s, int n, uint64_t pc)
{
	int best = -1;

	for (int i = 0; i < n; i++) {
		if (s[i].scale < 2 || (s[i].offset == 0 && s[i].scale == 2))
			continue;
		size_t nb = s[i].size / s[i].width;
		if (pc < s[i].offset || ref_index(pc, s[i].offset, s[i].scale, s[i].width) >= nb)
			continue;
		if (best < 0 || s[i].offset > s[best].offset)
			best = i;
	}
	return best;
}

static void test_multi(void)
{
	static unsigned int bins[8][64];
	unsigned int overflow = 0;
	struct hist_spec s[9];
	struct hist_region reg[18];
	size_t order[9];
	struct hist h;
	int bad = 0, bad_log = 0;

	for (int round = 0; round < 2000; round++) {
		int n = (int)(rnd() % 8) + 1;
		for (int i = 0; i < n; i++) {
			s[i].bins = bins[i];
			s[i].size = (size_t)(rnd() % 256);
			s[i].offset = 0x10000 + rnd() % 4096;
			s[i].scale = (uint32_t)(rnd() % 65536) + 1;
			s[i].width = 4;
		}
		s[n] = (struct hist_spec){ &overflow, 4, 0, 2, 4 };
		int rc = hist_build_multi(&h, reg, order, s, (size_t)n + 1);
		if (rc < 0 || (size_t)rc > 2 * (size_t)n || h.overflow != &overflow) {
			bad++;
			continue;
		}
		for (size_t i = 1; i < h.nregions; i++)
			if (h.regions[i - 1].end > h.regions[i].start)
				bad_log++;
		for (uint64_t pc = 0xff00; pc < 0x10000 + 4096 + 70000; pc += 1 + rnd() % 97) {
			const struct hist_region *r = hist_lookup(&h, pc);
			int want = model_owner(s, n, pc);
			if (want < 0 ? r != NULL : (r == NULL || r->bins != s[want].bins))
				bad++;
		}
	}
	CHECKF("sprofil regions: the highest offset wins, like glibc, on 2000 random sets", bad == 0,
	       "%d lookups disagree", bad);
	CHECKF("region pieces are sorted and disjoint", bad_log == 0, "%d overlaps", bad_log);

	/* overflow bin and ignored regions */
	unsigned short a[4] = { 0 }, ov = 0;
	struct hist_spec t[3] = {
		{ a, sizeof(a), 0x2000, 65536, 2 },
		{ &ov, 2, 0, 2, 2 },        /* overflow bin */
		{ a, sizeof(a), 0x9000, 1, 2 }, /* scale < 2: ignored */
	};
	int rc = hist_build_multi(&h, reg, order, t, 3);
	CHECK("scale < 2 regions are ignored", rc == 1);
	CHECK("a PC outside every region goes to the overflow bin",
	      hist_count(&h, 0x9000) == HIST_OVERFLOW && ov == 1);
	CHECK("a PC inside a region does not touch the overflow bin",
	      hist_count(&h, 0x2002) == HIST_COUNTED && a[1] == 1 && ov == 1);
	t[0].scale = 65537;
	CHECK("sprofil scale > 65536 is EINVAL", hist_build_multi(&h, reg, order, t, 3) == -22);
}

int main(void)
{
	test_index_random();
	test_index_edges();
	test_end_pc();
	test_single();
	test_saturation();
	test_multi();
	return CHECK_DONE();
}
