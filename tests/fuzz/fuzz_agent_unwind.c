// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the agent's unwind step (agent/unwind.h: unwind_walk_image),
 * fed an image holding .eh_frame_hdr and .eh_frame and a stack copy: the
 * CFI gate (agent/cfi_check.c), then libunwind computing and applying the
 * rules of what the gate let through, reading the stack copy, up to 16
 * frames.  libunwind is not instrumented, but a CFI the gate lets through on
 * which libunwind loops shows as a libFuzzer timeout (run.sh: -timeout=10):
 * the property item 1 of issue 16 asks for.
 *
 * Input: a 32-byte head, then the image, then the stack copy:
 *   int32  pc_rel     the interrupted pc, relative to the .eh_frame_hdr (as the table's)
 *   uint32 hdr_off    the .eh_frame_hdr's offset in the image
 *   uint32 image_len  bytes of image (at most 1 MiB; the rest of the input is the stack)
 *   uint32 sp_off     the stack pointer's offset in the stack copy (at most 64 KiB)
 *   uint64 rbp, rbx   two callee-saved registers
 * The image is mapped at a fixed address inside a 4 GiB PROT_NONE reservation, which is the
 * image's code range too (the pc and every return address in it unwind through the image's
 * CFI; reading code or data outside the image faults, and the agent's fault guard ends the
 * walk).  Seeds: tests/fuzz/corpus/agent_unwind/ (tests/fuzz/mkseeds_agent_unwind.py: a small
 * object of ordinary and hostile CFI, each function's pc and a stack returning into the next);
 * tests/unit/test_cfi_check.c replays them and checks each walk's flags.
 */
#include "agent_unwind_input.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[16];
	unsigned int flags;

	agent_unwind_input(data, size, pcs, 16, &flags);
	return 0;
}
