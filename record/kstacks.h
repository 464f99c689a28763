/* SPDX-License-Identifier: MIT */
/*
 * Call stacks walked in the kernel (`record -g --clock bpf`), user-space
 * half: loads bpf/kunwind.bpf.c, keeps its tables (bpf/kunwind.h) true to
 * the recorded tree, and moves the kernel's stack counts into the profile.
 *
 * Usage by the recorder (record/record_bpf.c), on the perf session of the
 * dwarf call-graph mode (the events carry the user registers and stack
 * copy, and, when the kernel is sampled, its callchain; a tick the kernel
 * cannot walk comes through the ring as such a sample and the recorder's
 * own unwinder takes it):
 *
 *   kstacks__open                  once, before the events
 *   kstacks__attach(fd)            on every event fd
 *   kstacks__track(pid)            a root of the tree, before it runs (or
 *                                  before its mappings are read: attach)
 *   kstacks__map / __fork / __proc_maps / __forget / __exited
 *                                  as the session handles MMAP2, FORK,
 *                                  /proc/PID/maps, COMM exec / EXIT
 *   kstacks__wake_fd()             polled beside the perf rings
 *   kstacks__flush(synced_until)   every poll round (after the session's
 *                                  drain: synced_until is the time up to
 *                                  which its records are handled; UINT64_MAX
 *                                  at the end)
 *
 * Tables: each ELF object's CFI is compiled whole (unwind/unwind.c's
 * object cache and compiler, encoded by unwind/unwind_bpf.c) when a
 * mapping of it first appears, shared by every process that maps the file,
 * and evicted when none maps it any more.  Building costs at most
 * KSTACKS_BUILD_NS of the recorder's time per poll round (an object with a
 * huge .eh_frame takes several rounds: its ticks meanwhile come through the
 * ring).  Sizes: bpf/kunwind.h, doc/kstacks.md.
 */
#ifndef PROFIL_KSTACKS_H
#define PROFIL_KSTACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KSTACKS_BUILD_NS 8000000ull    /* table building per poll round, at most (about) */
#define KSTACKS_OBJECT_ROWS (1u << 20) /* rows of one object, at most: beyond, the ring */
#define KSTACKS_MAX_CPUS 1024	       /* possible CPUs: a tally each (64 KiB) */

/*
 * Test hook: "1" turns on the cross-check (every tick walked both ways,
 * compared; "v": the differences on stderr).
 */
#define KSTACKS_ENV_CROSSCHECK "PROFIL_KUNWIND_CROSSCHECK"
/* Benchmark hook: the walk's figures and cost histogram, as JSON, to this file at the end. */
#define KSTACKS_ENV_STATS "PROFIL_KUNWIND_STATS"

struct kstacks;
struct pdata;

/* 1 if this build has the in-kernel walk. */
int kstacks__built(void);

/*
 * Load the program.  -EPERM without root or CAP_BPF+CAP_PERFMON; -ENOTSUP
 * when this kernel cannot run it (why: one sentence, with the oldest
 * kernel that can).
 */
int kstacks__open(struct kstacks **out, struct pdata *pd, char *why, size_t whylen);
int kstacks__attach(struct kstacks *k, int perf_fd);
int kstacks__track(struct kstacks *k, pid_t pid);

void kstacks__map(struct kstacks *k, pid_t pid, uint32_t image, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path);
void kstacks__fork(struct kstacks *k, pid_t ppid, pid_t pid, uint32_t image);
void kstacks__proc_maps(struct kstacks *k, pid_t pid, uint32_t image);
void kstacks__forget(struct kstacks *k, pid_t pid); /* its image ended (exec or exit) */
void kstacks__exited(struct kstacks *k, pid_t pid); /* the process is gone */

void kstacks__flush(struct kstacks *k, uint64_t synced_until);

/*
 * A file descriptor to poll beside the perf rings: readable when the BPF
 * program wants the recorder now (a tick of a process whose tables are
 * not written yet went through the ring); then drain and flush.  -1: none.
 */
int kstacks__wake_fd(struct kstacks *k);

/*
 * Cross-check mode: the recorder's own unwinding of a tick that came
 * through the ring (its time, user frames, leaf first, and its UNWIND_*
 * flags), compared with the kernel's walk of the same tick.
 */
void kstacks__check(struct kstacks *k, pid_t tid, uint64_t time, uint64_t sp, const uint64_t *pcs,
		    unsigned int n, unsigned int flags);

struct kstacks_stats {
	uint64_t ticks, counted; /* ticks the program saw; counted in the kernel */
	uint64_t via_ring;	 /* of which went through the ring, by reason: */
	uint64_t no_proc, not_synced, not_ready, no_table, ring_full, counts_full, kthread;
	uint64_t samples, truncated; /* stacks moved into the profile */
	uint64_t trunc_stack, trunc_no_map, trunc_no_cfi, trunc_depth, trunc_other; /* by reason */
	uint64_t stacks;  /* distinct stacks sent by the kernel */
	uint64_t in_exec; /* counted in an exec: the kernel's frames alone (no user stack then) */
	uint64_t walk_frames, walk_reads; /* user frames walked, user memory reads for them */
	uint64_t objects, objects_no_cfi, objects_too_big, evicted;
	uint64_t rows, rows_max, rules;	 /* rows in use now / at most; rules */
	uint64_t build_ns, build_max_ns; /* building tables: all, the longest object */
	uint64_t checked, agreed;	 /* cross-check */
	uint64_t cost_n, cost_median_ns, cost_p90_ns, cost_p99_ns; /* the walk, per tick */
	uint64_t lost_unknown; /* counts of stacks never received (dropped) */
};
void kstacks__stats(struct kstacks *k, struct kstacks_stats *st);

/* One phrase for the clock note. */
void kstacks__describe(struct kstacks *k, char *buf, size_t len);

void kstacks__close(struct kstacks *k);

#endif /* PROFIL_KSTACKS_H */
