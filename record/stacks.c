// SPDX-License-Identifier: MIT
/* Call stacks of the perf session's samples: see stacks.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "record/stacks.h"
#include "unwind/unwind.h"
#include "utils/procfile.h"

_Static_assert(RECORD_STACK_BYTES_DEFAULT == UNWIND_STACK_BYTES,
	       "the default stack copy is the unwinder's (unwind/unwind.h says why)");

struct stacks {
	uint32_t callgraph;   /* PDATA_CG_FP or PDATA_CG_DWARF */
	uint32_t stack_bytes; /* dwarf: user stack copied per sample */
	uint32_t max_stack;   /* the kernel's callchain limit (perf_event_max_stack) */
	int kernel;	      /* the events sample the kernel: callchains carry its frames */
	struct unwinder *u;   /* dwarf */
	struct stacks_stats st;
	uint64_t pcs[PDATA_MAX_DEPTH];
	/* the last sample's user walk (stacks__last_user) */
	unsigned int last_at, last_n, last_flags;
	uint64_t last_sp;
};

static uint32_t read_max_stack(void)
{
	uint32_t v = (uint32_t)procfile__number("/proc/sys/kernel/perf_event_max_stack", 0);

	return v ? v : 127; /* the kernel's default */
}

int stacks__new(struct stacks **out, uint32_t callgraph, uint32_t stack_bytes)
{
	struct stacks *st;

	if (callgraph != PDATA_CG_FP && callgraph != PDATA_CG_DWARF)
		return -EINVAL;
	if (stack_bytes && (stack_bytes % 8 || stack_bytes < RECORD_STACK_BYTES_MIN ||
			    stack_bytes > RECORD_STACK_BYTES_MAX))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->callgraph = callgraph;
	st->stack_bytes = stack_bytes ? stack_bytes : RECORD_STACK_BYTES_DEFAULT;
	st->max_stack = read_max_stack();
	if (callgraph == PDATA_CG_DWARF) {
		st->u = unwinder__new();
		if (!st->u) {
			free(st);
			return -ENOMEM;
		}
	}
	*out = st;
	return 0;
}

void stacks__free(struct stacks *st)
{
	if (!st)
		return;
	unwinder__free(st->u);
	free(st);
}

unsigned int stacks__last_user(const struct stacks *st, uint64_t *sp, const uint64_t **pcs,
			       unsigned int *flags)
{
	*sp = st->last_sp;
	*pcs = st->pcs + st->last_at;
	*flags = st->last_flags;
	return st->last_n;
}

_Static_assert(UNWIND_REGS_SP == __builtin_popcountll(UNWIND_REGS_MASK & ((1ull << 7) - 1)),
	       "UNWIND_REGS_SP is the index of PERF_REG_X86_SP in UNWIND_REGS_MASK's order");

void stacks__fill_attr(struct stacks *st, struct perf_event_attr *a)
{
	st->kernel = !a->exclude_kernel;
	if (st->callgraph == PDATA_CG_FP) {
		/* the kernel walks both parts; without kernel samples there is no kernel part */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = !st->kernel;
		return;
	}
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = UNWIND_REGS_MASK;
	a->sample_stack_user = st->stack_bytes;
	if (st->kernel) {
		/* the kernel unwinds its own part; the user part is ours */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
	}
}

static int is_kernel_pc(uint64_t pc)
{
	return pc >= PDATA_KERNEL_START;
}

/* The user frames by the kernel's frame-pointer walk, after n kernel frames.  Returns the total. */
static unsigned int user_fp(struct stacks *st, const struct perf_sample *s, unsigned int n,
			    int *truncated)
{
	unsigned int all = 0, m = 0;

	if (s->callchain)
		m = perf_callchain__user(s->callchain, s->nr, st->pcs + n, PDATA_MAX_DEPTH - 1 - n,
					 &all);
	if (!m && !is_kernel_pc(s->ip)) {
		st->pcs[n] = s->ip; /* no chain at all: the PC alone */
		m = 1;
		*truncated = 1;
	}
	/* a chain that stops by itself cannot be told from a complete one; the limit can */
	if (m < all || n + all >= st->max_stack)
		*truncated = 1;
	return n + m;
}

static void count_reason(struct stacks *st, unsigned int flags)
{
	if (flags & UNWIND_TRUNC_STACK)
		st->st.trunc_stack++;
	else if (flags & UNWIND_TRUNC_NO_MAP)
		st->st.trunc_no_map++;
	else if (flags & UNWIND_TRUNC_NO_CFI)
		st->st.trunc_no_cfi++;
	else if (flags & UNWIND_TRUNC_BOUND)
		st->st.trunc_bound++;
	else
		st->st.trunc_other++;
}

/* The user frames by the CFI unwinder, after n kernel frames.  Returns the total. */
static unsigned int user_dwarf(struct stacks *st, const struct perf_sample *s, unsigned int n,
			       int *truncated)
{
	unsigned int flags = 0;
	int m;

	if (s->abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs || !s->stack_size) {
		/*
		 * No user registers (a kernel thread, an exiting process: the
		 * kernel part is the whole stack), a 32-bit process, or no
		 * stack copy (a bad SP): the PC alone.
		 */
		if (n && !s->abi)
			return n;
		if (!is_kernel_pc(s->ip) || !n)
			st->pcs[n++] = s->ip;
		st->st.no_regs++;
		*truncated = 1;
		return n;
	}
	m = unwinder__unwind(st->u, (pid_t)s->pid, s->regs, UNWIND_REGS_MASK, s->stack,
			     (size_t)s->stack_size, st->pcs + n, (int)(PDATA_MAX_DEPTH - 1 - n),
			     &flags);
	if (m <= 0) {
		st->pcs[n] = s->ip;
		m = 1;
		flags = UNWIND_TRUNC_NO_REGS;
	}
	st->last_at = n;
	st->last_n = (unsigned int)m;
	st->last_flags = flags;
	st->last_sp = s->regs[UNWIND_REGS_SP];
	if (flags & UNWIND_TRUNCATED) {
		*truncated = 1;
		count_reason(st, flags);
	}
	return n + (unsigned int)m;
}

int stacks__count(struct stacks *st, struct pdata *pd, uint32_t proc, const struct perf_sample *s)
{
	unsigned int n = 0;
	int truncated = 0;

	st->last_n = 0;
	if (s->callchain && st->kernel)
		n = perf_callchain__kernel(s->callchain, s->nr, st->pcs, PDATA_MAX_DEPTH / 2);
	if (!n && is_kernel_pc(s->ip))
		st->pcs[n++] = s->ip; /* the kernel PC, without its callers */
	st->st.kernel_frames += n;
	if (st->callgraph == PDATA_CG_FP)
		n = user_fp(st, s, n, &truncated);
	else
		n = user_dwarf(st, s, n, &truncated);
	st->st.frames += n;
	st->st.samples++;
	st->st.truncated += (uint64_t)truncated;
	return pdata__count_stack(pd, proc, (int)s->tid, st->pcs, n, truncated, 1);
}

/* PERF_REG_X86_BP, _SP and _IP: the registers of stacks__unwind_copy's regs[3], in order. */
#define COPY_REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8))

int stacks__unwind_copy(struct stacks *st, pid_t pid, const uint64_t regs[3], const void *stack,
			size_t size, uint64_t *pcs, int max, int *truncated)
{
	unsigned int flags = 0;
	int m;

	*truncated = 0;
	if (!st || st->callgraph != PDATA_CG_DWARF || !size || max <= 0)
		return 0;
	/* BP, SP, IP: a copy's registers, not a sample's (UNWIND_REGS_MASK also has DI) */
	m = unwinder__unwind(st->u, pid, regs, COPY_REGS_MASK, stack, size, pcs, max, &flags);
	if (m <= 0)
		return 0;
	*truncated = (flags & UNWIND_TRUNCATED) != 0;
	return m;
}

void stacks__map(struct stacks *st, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		 uint64_t dev, uint64_t ino, const uint8_t *build_id, size_t build_id_len,
		 const char *path)
{
	if (!st->u)
		return;
	if (build_id_len)
		unwinder__add_map_build_id(st->u, pid, start, end, pgoff, build_id, build_id_len,
					   path);
	else
		unwinder__add_map(st->u, pid, start, end, pgoff, dev, ino, path);
}

void stacks__proc_maps(struct stacks *st, pid_t pid)
{
	if (st->u)
		unwinder__read_proc_maps(st->u, pid);
}

void stacks__fork(struct stacks *st, pid_t ppid, pid_t pid)
{
	if (st->u)
		unwinder__fork(st->u, ppid, pid);
}

void stacks__forget(struct stacks *st, pid_t pid)
{
	if (st->u)
		unwinder__forget(st->u, pid);
}

void stacks__stats(const struct stacks *st, struct stacks_stats *out)
{
	*out = st->st;
	if (st->u) {
		struct unwinder_stats us;

		unwinder__stats(st->u, &us);
		out->objects = us.objects;
		out->objects_no_cfi = us.objects_no_cfi;
		out->objects_over_bound = us.objects_over_bound;
		out->max_object_ns = us.max_object_ns;
	}
}

/* " (cut short: REASON N, ...)": the dwarf unwinder's reasons that occurred. */
static void describe_reasons(const struct stacks_stats *s, char *buf, size_t len)
{
	const struct {
		const char *what;
		uint64_t n;
	} r[] = {
		{"stack copy", s->trunc_stack}, {"no mapping", s->trunc_no_map},
		{"no CFI", s->trunc_no_cfi},	{"CFI over a size bound", s->trunc_bound},
		{"no registers", s->no_regs},	{"other", s->trunc_other},
	};
	const char *sep = " (cut short: ";
	size_t at = strlen(buf);

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]) && at < len; i++) {
		if (!r[i].n)
			continue;
		snprintf(buf + at, len - at, "%s%s %llu", sep, r[i].what,
			 (unsigned long long)r[i].n);
		at = strlen(buf);
		sep = ", ";
	}
	if (*sep == ',' && at < len)
		snprintf(buf + at, len - at, ")");
}

void stacks__describe(const struct stacks *st, char *buf, size_t len)
{
	const struct stacks_stats *s = &st->st;
	size_t at;

	if (st->callgraph == PDATA_CG_DWARF)
		snprintf(buf, len,
			 "call stacks: dwarf (%u %s user stack copies unwound by the "
			 "recorder through the CFI%s)",
			 st->stack_bytes % 1024 ? st->stack_bytes : st->stack_bytes / 1024,
			 st->stack_bytes % 1024 ? "byte" : "KiB",
			 st->kernel ? "; kernel frames by the kernel" : "");
	else
		snprintf(buf, len, "call stacks: fp (the kernel's frame-pointer walk%s)",
			 st->kernel ? ", kernel frames included" : "");
	at = strlen(buf);
	if (!s->samples || at >= len)
		return;
	if (st->callgraph == PDATA_CG_FP) {
		/* where a frame-pointer chain ends cannot be told from the outermost frame */
		snprintf(buf + at, len - at, ", completeness unknown (%llu cut at the depth limit)",
			 (unsigned long long)s->truncated);
		return;
	}
	snprintf(buf + at, len - at, ", %.2f%% complete",
		 100.0 * (double)(s->samples - s->truncated) / (double)s->samples);
	describe_reasons(s, buf, len);
}
