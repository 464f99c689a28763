/* SPDX-License-Identifier: MIT */
/*
 * The fields of a PERF_RECORD_SAMPLE, decoded by the sample_type its event
 * was opened with (the kernel writes them in a fixed order, each only when
 * its bit is set), and the call stack a sample carries, assembled from its
 * kernel callchain and its user frames.  Pure: no I/O.  Every size and
 * count in a record is checked against the record's size.
 */
#ifndef PROFIL_RECORD_PERF_SAMPLE_H
#define PROFIL_RECORD_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* What the events were opened with (perf_event_attr). */
struct perf_sample_layout {
	uint64_t sample_type; /* PERF_SAMPLE_* (RAW, BRANCH_STACK: not decoded) */
	uint64_t regs_mask;   /* sample_regs_user */
	uint64_t read_format; /* PERF_SAMPLE_READ: decoded with read_format 0 (one value) only */
};

struct perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr, id, stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t read_value;	   /* PERF_SAMPLE_READ: the event's count */
	const uint64_t *callchain; /* PERF_SAMPLE_CALLCHAIN: nr entries, context markers included */
	uint64_t nr;
	uint64_t abi;	      /* PERF_SAMPLE_REGS_ABI_*, 0 (NONE): no user registers */
	const uint64_t *regs; /* one per bit of regs_mask, in bit order; NULL when abi == 0 */
	const void *stack;    /* PERF_SAMPLE_STACK_USER: the copy, from the sampled SP */
	uint64_t stack_size;  /* bytes of it the kernel really copied (dyn_size) */
};

/*
 * Decode one sample record (rec: the perf_event_header and what follows,
 * size bytes, 8-aligned in memory).  Fields the layout has not are 0.
 * Returns 0, -EBADMSG for a record shorter than its fields say, or
 * -EOPNOTSUPP for a layout this decoder does not read.
 */
int perf_sample__parse(const struct perf_sample_layout *l, const void *rec, size_t size,
		       struct perf_sample *out);

/*
 * The kernel frames of a callchain: the entries after PERF_CONTEXT_KERNEL
 * (the first is the kernel PC that was sampled), copied into pcs[max].
 * Returns how many.
 */
unsigned int perf_callchain__kernel(const uint64_t *chain, uint64_t nr, uint64_t *pcs,
				    unsigned int max);

/*
 * The user frames of a callchain (the kernel's frame-pointer walk): the
 * entries after PERF_CONTEXT_USER, the sampled user PC first, then the
 * return addresses.  Returns how many were copied into pcs[max]; *all
 * gets how many the chain holds.
 */
unsigned int perf_callchain__user(const uint64_t *chain, uint64_t nr, uint64_t *pcs,
				  unsigned int max, unsigned int *all);

#endif /* PROFIL_RECORD_PERF_SAMPLE_H */
