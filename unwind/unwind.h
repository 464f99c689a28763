/* SPDX-License-Identifier: MIT */
/*
 * The recorder's stack unwinder (`record --call-graph dwarf`): turns one
 * perf sample's user registers and user stack copy into the sample's call
 * stack, while recording, so that the profile stores PCs and not stack
 * copies.  x86-64 user code only.
 *
 * How: per ELF object (shared by every process that maps it, opened on the
 * first sample that needs it) an unwind table compiled from the object's
 * CFI (.eh_frame, else .debug_frame) by a one-pass, bounded interpreter
 * (unwind/unwind_cfi.c; hostile CFI costs at most its bounds and ends the
 * samples that need it as UNWIND_TRUNC_BOUND), FDE by FDE as samples need them;
 * per sample a pure walk over those tables that reads memory only from the
 * stack copy (unwind/unwind_table.c).  Code without CFI (JIT, stripped
 * CFI) gets one frame-pointer step, flagged.
 *
 * ---- How the perf session calls it ------------------------------------
 * (record/stacks.c, fed by record/perf_session.c)
 *
 * perf_event_attr, in addition to what the flat profile asks for:
 *
 *     attr.sample_type      |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
 *     attr.sample_regs_user  = UNWIND_REGS_MASK;       IP, SP, BP
 *     attr.sample_stack_user = UNWIND_STACK_BYTES;     16 KiB (multiple of 8; <= ~60000)
 *     (exclude_kernel = 1 and mmap2 = 1, as now)
 *
 * Each sample then ends (after IP, TID, TIME) with
 *
 *     u64 abi;  u64 regs[popcount(sample_regs_user)];   regs only if abi != NONE
 *     u64 size; char data[size]; u64 dyn_size;          dyn_size only if size != 0
 *
 * regs[] are in the bit order of the mask (PERF_REG_X86_*).  Call
 *
 *     n = unwinder__unwind(u, pid, regs, attr.sample_regs_user, data, dyn_size,
 *                          pcs, max, &flags);
 *
 * when abi == PERF_SAMPLE_REGS_ABI_64 and dyn_size > 0 (dyn_size: the bytes
 * the kernel really copied; a 32-bit process or a sample without user regs
 * is not unwound: store the IP alone).  The stack copy starts at the sampled
 * SP.  Store pcs[0..n) and flags.
 *
 * Mappings, from the records the session already handles:
 *  - PERF_RECORD_MMAP2 with PROT_EXEC: unwinder__add_map(u, pid, addr,
 *    addr + len, pgoff, makedev(maj, min), ino, filename), or, when the
 *    record carries a build id instead (misc & PERF_RECORD_MISC_MMAP_BUILD_ID),
 *    unwinder__add_map_build_id(u, pid, addr, addr + len, pgoff, id, size,
 *    filename).
 *  - a process learned from /proc (attach, or a pid seen before its
 *    records): unwinder__read_proc_maps(u, pid).
 *  - PERF_RECORD_FORK of a new process: unwinder__fork(u, ppid, pid).
 *  - PERF_RECORD_COMM with PERF_RECORD_MISC_COMM_EXEC, and the EXIT of a
 *    process (pid == tid): unwinder__forget(u, pid).
 *
 * `--call-graph fp` does not need this module: ask the kernel for
 * PERF_SAMPLE_CALLCHAIN (with exclude_callchain_kernel = 1), which walks
 * the frame-pointer chain itself.
 *
 * ---- What it costs (measured here: `make unwind-bench`, 2-core VM, busy) --
 *
 *  - Unwinding: 300-800 ns per sample warm (40-65 ns per frame, 7-18
 *    frames), libdwfl over the same copies: 3-11 us with one cached Dwfl
 *    per process, 150-270 us with a Dwfl per sample (perf's way).  The
 *    first sample in an FDE compiles its rows: a few us, once.
 *  - Opening an object (first sample in it): listing its FDEs, libz 0.01
 *    ms, libc 0.35 ms, libLLVM-14 8 ms (compiling all of libLLVM's rows
 *    at once: 21 ms and 23 MiB; rows are compiled per FDE on first use).
 *    Hostile CFI costs at most the bounds of unwind/unwind_cfi.h: the
 *    issue-16 object (8 MB .eh_frame, FDEs of 2 M DW_CFA_nop) 0.02 ms;
 *    8 MB of FDEs just within the bounds, all compiled: 12 ms.
 *  - Records: 16456 bytes per sample with 16 KiB stacks (8264 with 8 KiB):
 *    at 10 kHz that is ~165 MB/s per busy CPU to drain, so a 1 MiB ring
 *    holds ~6 ms of samples; give the rings 8-16 MiB (or drain faster).
 *  - The profiled program: with 8 KiB stacks its CPU time grew 1.06x the
 *    flat sampling overhead at 10 kHz (0.97x at 1 kHz); with 16 KiB, 1.17x
 *    at 10 kHz (1 kHz: within noise).
 *  - Completeness with 16 KiB stacks: unwind_zlib, bash, sh+gzip, python3
 *    100 %, perl 99.8 %; python3 with 8 KiB: 98.4 % (deep interpreter
 *    frames), hence 16 KiB by default.
 *
 * ---- The PCs -------------------------------------------------------------
 *
 * pcs[0] is the sampled PC; pcs[1..] are return addresses, leaf first.
 * Symbolise pcs[0] as is and pcs[i] - 1 for i > 0 (unwind_lookup_pc), so
 * that a call at the very end of a function is attributed to that function.
 * The one exception is the frame interrupted by a signal (flag
 * UNWIND_SIGNAL_FRAME): its PC is exact; looking it up minus 1 still names
 * its function unless the signal hit the function's first instruction.
 *
 * "Complete" means the walk reached the outermost frame, the one whose CFI
 * marks the return address undefined (_start, the thread start in clone /
 * clone3), or an object's ELF entry code that has no CFI (ld.so's _start
 * on Debian 12, the outermost frame while ld.so relocates a new process);
 * every other end is a UNWIND_TRUNC_* reason.
 */
#ifndef PROFIL_UNWIND_H
#define PROFIL_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * PERF_REG_X86_DI, _BP, _SP and _IP of <asm/perf_regs.h> (DI: where glibc's
 * __vfork keeps its return address while the parent waits).
 */
#define UNWIND_REGS_MASK ((1ull << 5) | (1ull << 6) | (1ull << 7) | (1ull << 8))
#define UNWIND_REGS_SP 2 /* the index of SP in a sample's regs of UNWIND_REGS_MASK */
#define UNWIND_STACK_BYTES 16384
#define UNWIND_MAX_FRAMES 127

/* Result flags: UNWIND_COMPLETE or one UNWIND_TRUNC_* reason, plus the notes. */
#define UNWIND_COMPLETE 0x001	       /* reached the outermost frame */
#define UNWIND_FP_FALLBACK 0x002       /* note: a frame without CFI was stepped by frame pointer */
#define UNWIND_SIGNAL_FRAME 0x004      /* note: crossed a signal frame */
#define UNWIND_TRUNC_STACK 0x010       /* needed memory outside the stack copy */
#define UNWIND_TRUNC_NO_MAP 0x020      /* a PC in no known executable mapping (or 0) */
#define UNWIND_TRUNC_NO_CFI 0x040      /* no CFI, and no frame-pointer frame either */
#define UNWIND_TRUNC_UNSUPPORTED 0x080 /* a CFI rule not evaluated, or a register not sampled */
#define UNWIND_TRUNC_LOOP 0x100	       /* the stack pointer did not grow */
#define UNWIND_TRUNC_DEPTH 0x200       /* more frames than max */
#define UNWIND_TRUNC_NO_REGS 0x400     /* the sample has no IP or SP */
#define UNWIND_TRUNC_BOUND 0x800       /* the PC's CFI exceeds a bound (unwind/unwind_cfi.h) */
#define UNWIND_TRUNCATED 0xff0

/* One unwinder serves one thread (the recorder's): it is not locked. */
struct unwinder;

struct unwinder_stats {
	uint64_t samples, complete, frames;
	uint64_t objects;	 /* objects opened (or tried) */
	uint64_t objects_no_cfi; /* of which: no usable CFI (frame pointers only) */
	uint64_t fdes;		 /* FDEs listed in the opened objects */
	uint64_t fdes_compiled;	 /* FDEs whose rows were compiled (on first use) */
	uint64_t rows;		 /* rows compiled (after merging) */
	uint64_t build_ns;	 /* time spent opening objects and compiling rows */
	uint64_t max_object_ns;	 /* of which the most one object cost */
	uint64_t fdes_bound; /* FDEs over a bound of unwind/unwind_cfi.h (walks end TRUNC_BOUND) */
	uint64_t objects_over_bound; /* objects with CFI over a bound */
};

struct unwinder *unwinder__new(void);
void unwinder__free(struct unwinder *u);

/*
 * An executable mapping of pid: [start, end) at file offset pgoff of path.
 * dev (makedev(major, minor)) and ino identify the file when known (else
 * 0).  Paths that are not files ("[anon]", "//anon", "") mean code
 * without CFI; "[vdso]" is the kernel's vDSO, read from the recorder's own.
 * Returns 0, -EINVAL or -ENOMEM.
 *
 * Objects are what was mapped, not paths: one object per build id (else
 * per device and inode), so a file rewritten at the same path, or another
 * library mapped where one was unmapped, gets its own table.  A new
 * object's file is opened at once through /proc/PID/map_files (the mapped
 * inode itself, while the mapping lives; root), else on its first sample
 * by path, and then only if that path holds a regular file that is the one
 * mapped (device and inode, or build id): never a FIFO, a device or a
 * planted link, never a blocking open.
 */
int unwinder__add_map(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		      uint64_t dev, uint64_t ino, const char *path);

#define UNWIND_BUILD_ID_MAX 20

/* The same, the file known by its build id (len bytes, at most UNWIND_BUILD_ID_MAX). */
int unwinder__add_map_build_id(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end,
			       uint64_t pgoff, const uint8_t *build_id, size_t len,
			       const char *path);

/* Add the executable mappings /proc/PID/maps lists.  Returns 0 or -errno. */
int unwinder__read_proc_maps(struct unwinder *u, pid_t pid);

/* A forked child starts with its parent's mappings.  Returns 0 or -ENOMEM. */
int unwinder__fork(struct unwinder *u, pid_t ppid, pid_t pid);

/* The process exec'd or exited: drop its mappings (the object tables stay cached). */
void unwinder__forget(struct unwinder *u, pid_t pid);

/*
 * Unwind one sample of pid.  regs: one value per bit of regs_mask, in bit
 * order (PERF_REG_X86_* numbering, as the kernel writes them); IP and SP
 * are required, BP is needed by frame-pointer steps and by code whose CFI
 * uses it.  stack: the stack_size bytes copied from the sampled SP.
 * Writes at most max PCs (leaf first) and returns how many (>= 1 when the
 * sample has an IP); *flags gets UNWIND_COMPLETE or a UNWIND_TRUNC_* reason.
 */
int unwinder__unwind(struct unwinder *u, pid_t pid, const uint64_t *regs, uint64_t regs_mask,
		     const void *stack, size_t stack_size, uint64_t *pcs, int max,
		     unsigned int *flags);

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st);

/*
 * Whole objects, for the in-kernel walk's tables (record/kstacks.c): the
 * same cache of ELF objects (one per file, opened by the same rules), each
 * compiled whole instead of FDE by FDE.
 */
struct unw_object;
struct unw_table;

/* The object of a file mapping ("[vdso]" too), created unopened; NULL for other paths or ENOMEM. */
struct unw_object *unwinder__object(struct unwinder *u, const char *path, uint64_t dev,
				    uint64_t ino);

/*
 * Open o (first call) and compile its FDEs for about budget_ns at most:
 * 0 when every FDE is compiled (or o has no usable CFI), -EAGAIN when
 * some remain (call again), -ENOMEM.
 */
int unwinder__object_compile(struct unwinder *u, struct unw_object *o, uint64_t budget_ns);

/*
 * o's table once compiled, and its outermost entry code without CFI
 * ([entry, entry_end), else 0, 0); NULL when o has no usable CFI (*why:
 * one phrase).
 */
const struct unw_table *unwinder__object_table(const struct unw_object *o, uint64_t *entry,
					       uint64_t *entry_end, const char **why);

/* runtime - link-time address of a mapping of o at start, file offset pgoff.  0 or -1. */
int unwinder__object_bias(const struct unw_object *o, uint64_t start, uint64_t pgoff,
			  int64_t *bias);

/* Free o's table and close its file; it is opened again if asked for. */
void unwinder__object_release(struct unwinder *u, struct unw_object *o);

/* The address to symbolise for pcs[i]: the PC itself for the leaf, the call site for callers. */
static inline uint64_t unwind_lookup_pc(const uint64_t *pcs, int i)
{
	return i ? pcs[i] - 1 : pcs[0];
}

#endif /* PROFIL_UNWIND_H */
