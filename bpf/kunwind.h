/* SPDX-License-Identifier: MIT */
/*
 * kunwind: call stacks walked in the kernel through the CFI.  The layout
 * shared by the BPF side (bpf/kunwind.bpf.c, the walk in
 * bpf/kunwind_walk.bpf.h) and user space (record/kstacks.c, which fills the
 * tables; unwind/unwind_bpf.c, which encodes them).  Every size is a bound
 * the verifier and the kernel's memory see; doc/kstacks.md states them.
 *
 * Tables (written by user space, read by BPF):
 *  - rows: one array of KUNW_ROWS rows for every object; an object owns
 *    rows[first .. first + n), sorted by address (link-time address minus
 *    the object's base), each row valid up to the next one;
 *  - pages: per object, for each 1 KiB of its address range the row that
 *    covers the start of that KiB (relative to first): a lookup searches
 *    only the rows of one KiB (a few cache lines, where a search of the
 *    whole object's rows missed the cache at nearly every step);
 *  - rules: the distinct rules of all objects (a row names one by index),
 *    the same rules as the recorder's unwinder (unwind/unwind_table.h);
 *  - objects: per ELF object (shared by every process mapping it) its base
 *    and its rows; not ready while user space builds it;
 *  - procs: per process (tgid) its executable mappings, sorted, and the
 *    profile's id of its image;
 *  - pstate: per process, written by BPF: when its executable mappings last
 *    changed (exec, mmap/mprotect with PROT_EXEC, mremap...), so that the
 *    walk trusts procs only once user space has caught up with that
 *    change (synced_until, the time up to which it has read the perf
 *    rings: the MMAP2 records come before the change's lock release).
 *
 * Results (written by BPF, read by user space):
 *  - tally (per CPU, through a mapping): a ring of (image, thread, stack
 *    hash) records, one per tick counted; tally_pos holds each CPU's head
 *    (BPF writes) and tail (user space writes);
 *  - known: stack hashes already sent; a new stack goes to user space once
 *    through the `stacks` ring buffer (struct kunw_stack);
 *  - stats (per CPU): why ticks were not counted in the kernel;
 *  - cost (per CPU): a histogram of the walk's duration by depth.
 */
#ifndef PROFIL_KUNWIND_H
#define PROFIL_KUNWIND_H

#define KUNW_ROWS (1u << 21)  /* rows of all objects: 16 MiB */
#define KUNW_PAGE_SHIFT 10    /* an object's page index: one entry per 1 KiB of its code */
#define KUNW_PAGES (1u << 21) /* page index entries (u32) of all objects: 8 MiB */
#define KUNW_RULES 16384      /* distinct rules of all objects: 256 KiB */
#define KUNW_OBJECTS 4096     /* ELF objects with tables at once */
#define KUNW_MAX_MAPS 256     /* executable mappings of one process */
#define KUNW_PROCS 4096	      /* processes at once (allocated as used) */
#define KUNW_USER_FRAMES 127  /* user frames of a stack (unwind/unwind.h: UNWIND_MAX_FRAMES) */
#define KUNW_KERNEL_FRAMES 64 /* kernel frames of a stack */
#define KUNW_FRAMES (KUNW_USER_FRAMES + KUNW_KERNEL_FRAMES)
#define KUNW_TALLY_SLOTS 4096	   /* ticks per CPU waiting in its tally (64 KiB) */
#define KUNW_TALLY_POS 16	   /* u64 positions per CPU in tally_pos: head, then tail */
#define KUNW_TALLY_TAIL 8	   /* the tail's index, a cache line after the head */
#define KUNW_SENT_CACHE 4096	   /* per CPU: stack hashes sent lately (32 KiB) */
#define KUNW_KNOWN 65536	   /* stacks sent to user space (cleared when 3/4 full) */
#define KUNW_RING_BYTES (1u << 20) /* new stacks on their way to user space */
#define KUNW_SIGNAL_FRAMES 16	   /* signal frames in one stack, at most (a loop beyond) */
#define KUNW_MAP_STEPS 9	   /* binary search over KUNW_MAX_MAPS */
/*
 * Binary search over one KiB's rows: at most 1,025 (distinct addresses,
 * plus the row covering the KiB's start); beyond the last KiB, the last row.
 */
#define KUNW_ROW_STEPS 11
#define KUNW_PC_CACHE 1024   /* per CPU: recent (PC, process) -> rule, 24 KiB per CPU */
#define KUNW_WAKE_NS 1000000 /* the recorder woken at most once per ms (kunwind_tick) */
#define KUNW_WINDOW 1024     /* user stack read per bpf_probe_read_user (~100 ns each here) */

/* DWARF register numbers (unwind/unwind_table.h). */
#define KUNW_REG_RDI 5
#define KUNW_REG_RBP 6
#define KUNW_REG_RSP 7
#define KUNW_REG_RIP 16

/* Rule kinds: the values of enum unw_cfa_kind and enum unw_loc_kind (unwind/unwind_table.h). */
enum kunw_cfa_kind {
	KUNW_CFA_NONE = 0, /* no CFI: a frame-pointer step */
	KUNW_CFA_REG,	   /* CFA = reg + off */
	KUNW_CFA_DEREF,	   /* CFA = *(reg + off) */
	KUNW_CFA_PLT,	   /* CFA = RSP + off, + 8 when (pc & 15) >= plt_threshold */
	KUNW_CFA_UNSUPPORTED,
	KUNW_CFA_BOUND = 15, /* the object's CFI exceeded a bound of the compiler here: stop */
};
enum kunw_loc_kind {
	KUNW_LOC_SAME = 0,
	KUNW_LOC_CFA,
	KUNW_LOC_REG,
	KUNW_LOC_UNDEFINED,
	KUNW_LOC_UNSUPPORTED,
	KUNW_LOC_IN_REG, /* the value is in register reg (DW_CFA_register): the leaf's RDI only */
};
#define KUNW_RULE_SIGNAL 0x01 /* a signal trampoline: the caller's PC is exact */

/* Rule 0: no CFI here (a frame-pointer step). */
#define KUNW_RULE_NONE 0

struct kunw_rule {
	__s32 cfa_off;
	__s16 rbp_off;
	__s16 ra_off;
	__u8 cfa_kind;
	__u8 cfa_reg;
	__u8 rbp_kind;
	__u8 rbp_reg;
	__u8 ra_kind;
	__u8 ra_reg;
	__u8 flags;
	__u8 plt_threshold;
};

struct kunw_row {
	__u32 addr; /* link-time address - the object's base */
	__u32 rule; /* index in rules */
};

/*
 * objects[i].range: n | first << 32 | READY (first < 2^30); 0: being built,
 * NO_TABLE: it did not fit (ticks in either go through the ring).
 */
#define KUNW_OBJ_READY (1ull << 63)
#define KUNW_OBJ_NO_TABLE (1ull << 62)
struct kunw_object {
	__u64 base;  /* link-time address of rows' addr 0 */
	__u32 pages; /* its page index: pages[pages .. pages + npages) */
	__u32 npages;
	__u64 range; /* written last */
	__u64 pad;
};

/* A mapping's obj: an index in objects, or one of these. */
#define KUNW_OBJ_ANON 0xffffffffu /* code without a file (JIT): frame-pointer steps */

struct kunw_map {
	__u64 start, end; /* runtime [start, end) */
	__s64 bias;	  /* runtime - link-time address */
	__u32 obj;
	__u32 pad;
};

struct kunw_proc {
	__u32 image; /* the profile's id of this process image (pdata proc record) */
	__u32 nmaps;
	struct kunw_map maps[KUNW_MAX_MAPS];
};

/* Written by BPF (the mapping-change tracepoints), created by user space for the tree's roots. */
struct kunw_pstate {
	__u64 changed_ns; /* CLOCK_MONOTONIC of the last change of executable mappings */
	__u32 changing;	  /* a change is under way (mmap lock held for writing) */
	__u32 in_exec;	  /* past an exec's point of no return, the new image not started */
};

/* One tick counted in the kernel, in its CPU's tally. */
struct kunw_tally {
	__u32 image;
	__u32 tid;
	__u64 stack; /* the stack's hash */
};

/* Walk flags: the values of unwind/unwind.h's UNWIND_* (the same reasons), plus FAULT. */
#define KUNW_F_COMPLETE 0x001
#define KUNW_F_FP_FALLBACK 0x002
#define KUNW_F_SIGNAL_FRAME 0x004
#define KUNW_F_TRUNC_STACK 0x010 /* a read of the user stack faulted */
#define KUNW_F_TRUNC_NO_MAP 0x020
#define KUNW_F_TRUNC_NO_CFI 0x040
#define KUNW_F_TRUNC_UNSUPPORTED 0x080
#define KUNW_F_TRUNC_LOOP 0x100
#define KUNW_F_TRUNC_DEPTH 0x200
#define KUNW_F_TRUNC_NO_REGS 0x400
#define KUNW_F_TRUNC_BOUND 0x800
#define KUNW_F_TRUNCATED 0xff0
/*
 * A tick inside an exec past its point of no return (sched_prepare_exec
 * to sched_process_exec): the old image's stack is gone, the new one has
 * not started, so the stack is the kernel's frames alone, and whole.
 */
#define KUNW_F_EXEC 0x1000

/* One new stack, on the ring buffer: pcs[0 .. nkernel) kernel frames, then nuser user frames. */
struct kunw_stack {
	__u64 hash;
	__u32 nkernel;
	__u32 nuser;
	__u32 flags; /* KUNW_F_* of the user part */
	__u32 pad;
	__u64 pcs[KUNW_FRAMES];
};
#define KUNW_STACK_HEAD 24 /* bytes before pcs */

/*
 * Cross-check mode (tests): every tick also goes through the ring, and its
 * in-kernel stack comes as this record, so that the recorder compares the
 * two walks of the same tick (matched by thread, time, PC and stack pointer).
 */
struct kunw_check {
	__u64 hash; /* 0: a cross-check record, not a new stack */
	__u32 tid;
	__u32 nuser;
	__u32 flags;
	__u32 pad;
	__u64 sp;
	__u64 time; /* CLOCK_MONOTONIC at the tick (the perf sample's time, within microseconds) */
	__u64 pcs[KUNW_USER_FRAMES];
};

/* Per-CPU statistics (index in stats): what happened to each tick. */
enum kunw_stat {
	KUNW_STAT_TICKS,       /* ticks seen */
	KUNW_STAT_COUNTED,     /* counted in the kernel */
	KUNW_STAT_NO_PROC,     /* fallback: the process's mappings are not in the kernel yet */
	KUNW_STAT_NOT_SYNCED,  /* fallback: its executable mappings changed since user space read */
	KUNW_STAT_NOT_READY,   /* fallback: an object's table is being built */
	KUNW_STAT_NO_TABLE,    /* fallback: an object's table did not fit the kernel's tables */
	KUNW_STAT_RING_FULL,   /* fallback: no room to send a new stack */
	KUNW_STAT_COUNTS_FULL, /* fallback: the CPU's tally is full */
	KUNW_STAT_KERNEL_THREAD, /* fallback: no user context (a kernel thread) */
	KUNW_STAT_NEW_STACKS,	 /* stacks sent to user space */
	KUNW_STAT_IN_EXEC,	 /* counted: in an exec, the kernel's frames alone (KUNW_F_EXEC) */
	KUNW_STAT_FRAMES,	 /* user frames of the stacks walked */
	KUNW_STAT_READS,	 /* bpf_probe_read_user calls of those walks */
	KUNW_STAT_NR,
};

/* The walk's cost (per CPU): COST_BUCKETS buckets of COST_NS ns, by user depth class. */
#define KUNW_COST_NS 25
#define KUNW_COST_BUCKETS 128 /* 0 .. 3.2 us; the last bucket holds everything beyond */
#define KUNW_COST_DEPTHS 5    /* user frames: 1-7, 8-15, 16-31, 32-63, 64+ */
/*
 * Two histograms: KUNW_COST_WALK, from the tick to the end of the user
 * walk (registers, kernel frames, the walk); KUNW_COST_TICK, the whole
 * program (also the stack's hash, its count, a new stack's record).
 */
#define KUNW_COST_WALK 0
#define KUNW_COST_TICK 1
#define KUNW_COST_KINDS 2
#define KUNW_COST_ENTRIES (KUNW_COST_KINDS * KUNW_COST_DEPTHS * KUNW_COST_BUCKETS)

#endif
