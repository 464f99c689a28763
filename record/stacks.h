/* SPDX-License-Identifier: MIT */
/*
 * Call stacks of the perf session's samples (`record -g`, `--call-graph`):
 * what the events must ask the kernel for, and each sample's stack turned
 * into PCs and counted into the profile (pdata__count_stack) while
 * recording, so that profil.data holds deduplicated stacks and never raw
 * stack copies.
 *
 *  - dwarf: the kernel copies the user registers (IP, SP, BP) and the top
 *    of the user stack into each sample; the recorder's CFI unwinder
 *    (unwind/unwind.h) walks it.  Complete through code built without
 *    frame pointers.  The unwinder needs every process's executable
 *    mappings: the session hands them over (stacks__map, stacks__fork,
 *    stacks__forget, stacks__proc_maps).
 *  - fp: the kernel walks the frame-pointer chain itself
 *    (PERF_SAMPLE_CALLCHAIN); cheap, but a chain ends at the first frame
 *    without a frame pointer, and where it ends cannot be told from a
 *    complete chain: only chains cut at the depth limit count as truncated.
 *
 * Kernel frames: when the events sample the kernel (exclude_kernel == 0),
 * the kernel's own unwinding of its part comes with the sample
 * (PERF_SAMPLE_CALLCHAIN; with dwarf, exclude_callchain_user) and goes
 * innermost, before the user frames (profile/pdata.h).
 */
#ifndef PROFIL_RECORD_STACKS_H
#define PROFIL_RECORD_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/pdata.h"
#include "record/perf_sample.h"

struct perf_event_attr;
struct stacks;

/*
 * callgraph: PDATA_CG_FP or PDATA_CG_DWARF; stack_bytes: 0 = the default
 * (dwarf; RECORD_STACK_BYTES_* in record/record.h).  -EINVAL for others.
 */
int stacks__new(struct stacks **out, uint32_t callgraph, uint32_t stack_bytes);
void stacks__free(struct stacks *st);

/*
 * Ask a sampling event's attr for what the stacks need (after the flat
 * profile's fields are set: it reads exclude_kernel).
 */
void stacks__fill_attr(struct stacks *st, struct perf_event_attr *a);

/*
 * Count one sample (decoded with the layout of the attr above) of process
 * image proc with its call stack.  Returns what pdata__count_stack
 * returns.
 */
int stacks__count(struct stacks *st, struct pdata *pd, uint32_t proc, const struct perf_sample *s);

/*
 * The user frames of a stack copy taken outside a sample (an off-CPU
 * switch-out, record/offcpu.h): regs = {BP, SP, IP}, stack: size bytes
 * from SP.  dwarf only.  Returns the number of PCs written to pcs (leaf
 * first), 0 when it cannot (fp, or not even the leaf); *truncated when the
 * unwinding stopped before the outermost frame.
 */
int stacks__unwind_copy(struct stacks *st, pid_t pid, const uint64_t regs[3], const void *stack,
			size_t size, uint64_t *pcs, int max, int *truncated);

/*
 * Process bookkeeping for the unwinder (dwarf; no-ops for fp).  A mapping's
 * file is known by its build id (build_id_len > 0: the MMAP2 record's), else
 * by dev and ino.
 */
void stacks__map(struct stacks *st, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		 uint64_t dev, uint64_t ino, const uint8_t *build_id, size_t build_id_len,
		 const char *path);
void stacks__proc_maps(struct stacks *st, pid_t pid); /* from /proc/PID/maps */
void stacks__fork(struct stacks *st, pid_t ppid, pid_t pid);
void stacks__forget(struct stacks *st, pid_t pid); /* exec'd or exited */

struct stacks_stats {
	uint64_t samples;   /* samples counted with a stack */
	uint64_t truncated; /* of which cut short */
	uint64_t frames;    /* user frames, all samples */
	uint64_t kernel_frames;
	/* dwarf: truncations by reason (UNWIND_TRUNC_*), and samples without user registers */
	uint64_t trunc_stack, trunc_no_map, trunc_no_cfi, trunc_other, no_regs;
	uint64_t trunc_bound;		  /* at an FDE over a bound of unwind/unwind_cfi.h */
	uint64_t objects, objects_no_cfi; /* ELF objects opened by the unwinder */
	uint64_t objects_over_bound;	  /* of which with CFI over a bound */
	uint64_t max_object_ns;		  /* the most time one object cost the unwinder */
};
void stacks__stats(const struct stacks *st, struct stacks_stats *out);

/*
 * The user part of the last sample's stack as the CFI unwinder walked it
 * (dwarf): its stack pointer, PCs (leaf first), UNWIND_* flags.  0 when
 * the last sample was not unwound (no user registers, fp).
 */
unsigned int stacks__last_user(const struct stacks *st, uint64_t *sp, const uint64_t **pcs,
			       unsigned int *flags);

/* One phrase for the clock note: how the stacks were taken, and how many are complete. */
void stacks__describe(const struct stacks *st, char *buf, size_t len);

#endif /* PROFIL_RECORD_STACKS_H */
