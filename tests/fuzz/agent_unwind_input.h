/* SPDX-License-Identifier: MIT */
/*
 * The input of tests/fuzz/fuzz_agent_unwind.c (see there) turned into a walk
 * of the agent's unwinder: shared by the fuzz target and
 * tests/unit/test_cfi_check.c, which replays the seeds and checks each walk's
 * flags.  Header-only.
 */
#ifndef PROFIL_FUZZ_AGENT_UNWIND_INPUT_H
#define PROFIL_FUZZ_AGENT_UNWIND_INPUT_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "agent/unwind.h"

#define BASE ((uintptr_t)0x6f0000000000ull)
#define SPAN (1ull << 32)
#define IMAGE_MAX (1u << 20)
#define STACK_MAX (1u << 16)
#define STACK_AT (BASE + (1ull << 30))
#define PAGE 4096u

struct head {
	int32_t pc_rel;
	uint32_t hdr_off, image_len, sp_off;
	uint64_t rbp, rbx;
};

static int agent_unwind_ready = -1;

static int set_up(void)
{
	char why[160];
	void *r;

	if (agent_unwind_ready >= 0)
		return agent_unwind_ready;
	agent_unwind_ready = 0;
	r = mmap((void *)(BASE - SPAN / 2), SPAN, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (r == MAP_FAILED || unwind_init(why, sizeof(why)) < 0)
		return 0;
	agent_unwind_ready = 1;
	return 1;
}

static size_t pages(size_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

/* bytes at addr, readable and writable, zero beyond len up to the page */
static int place(uintptr_t addr, const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (mprotect((void *)addr, pages(len), PROT_READ | PROT_WRITE) < 0)
		return -1;
	memcpy((void *)addr, data, len);
	return 0;
}

static void unplace(uintptr_t addr, size_t len)
{
	if (!len)
		return;
	memset((void *)addr, 0, pages(len));
	mprotect((void *)addr, pages(len), PROT_NONE);
}

/*
 * Walk the input (at most max frames into pcs, flags as unwind_from_signal's).  Returns the
 * number of PCs, or -1 when the input has no walk (too short, no header, no libunwind).
 */
static int agent_unwind_input(const uint8_t *data, size_t size, uint64_t *pcs, int max,
			      unsigned int *flags)
{
	struct unwind_image im;
	struct head h;
	size_t image_len, stack_len;
	ucontext_t uc;
	int n = -1;

	if (!set_up() || size < sizeof(h))
		return -1;
	memcpy(&h, data, sizeof(h));
	data += sizeof(h);
	size -= sizeof(h);
	image_len = h.image_len < size ? h.image_len : size;
	if (image_len > IMAGE_MAX)
		image_len = IMAGE_MAX;
	stack_len = size - image_len < STACK_MAX ? size - image_len : STACK_MAX;
	if ((uint64_t)h.hdr_off + 12 > image_len)
		return -1;
	if (place(BASE, data, image_len) < 0 || place(STACK_AT, data + image_len, stack_len) < 0)
		goto out;
	memset(&uc, 0, sizeof(uc));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(BASE + h.hdr_off + (uintptr_t)(intptr_t)h.pc_rel);
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(STACK_AT + (h.sp_off % (STACK_MAX + 1)));
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)h.rbp;
	uc.uc_mcontext.gregs[REG_RBX] = (greg_t)h.rbx;
	im = (struct unwind_image){BASE + h.hdr_off, BASE, BASE + image_len, BASE - SPAN / 2,
				   BASE + SPAN / 2};
	n = unwind_walk_image(&im, &uc, pcs, max, flags);
out:
	unplace(BASE, image_len);
	unplace(STACK_AT, stack_len);
	return n;
}

#endif
