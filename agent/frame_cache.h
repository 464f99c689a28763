/* SPDX-License-Identifier: MIT */
/*
 * Frame-rule cache of the in-handler unwinder (pure: no OS calls).
 *
 * A rule is what libunwind computed for one code address: its register
 * state blob (unw_reg_states_iterate), to be applied with
 * unw_apply_reg_state, plus whether the procedure is a signal trampoline.
 * Computing one goes through libunwind's lock-protected memory pools (with
 * sigprocmask() system calls around each use); applying a cached one costs
 * no system call at all.
 *
 * Lock-free, async-signal-safe, shared by every thread: 2-way set
 * associative, each entry guarded by a sequence counter (odd while a writer
 * fills it; a reader copies the entry and keeps the copy only if the counter
 * did not move).  A writer that finds an entry being written gives up (the
 * rule is simply not cached this time).  A rule carries an owner tag (the
 * unwinder's: which loaded object it came from), which the reader checks is
 * still valid, so that unloading one object invalidates its rules only.
 * Zeroed memory is an empty cache.
 *
 * Size: at 250 Hz the cache is cold at every sample (the program ran 4 ms
 * since), so every cache line an entry spans costs a memory access per
 * frame.  An entry is two lines: the blob's non-zero 8-byte words only (a
 * bitmap says which), at most FRAME_CACHE_WORDS of them.  That is what
 * every ordinary frame needs on x86-64 (at most 13 in libc and zlib: the
 * CFA rule, the return address and the six callee-saved registers); a rule
 * with more (a signal trampoline's) is not cached.
 */
#ifndef PROFIL_AGENT_FRAME_CACHE_H
#define PROFIL_AGENT_FRAME_CACHE_H

#include <stdint.h>

#define FRAME_RULE_MAX 192   /* bytes of register state; libunwind 1.6's is 184 */
#define FRAME_CACHE_WORDS 13 /* non-zero words kept per entry */
#define FRAME_CACHE_SETS 2048
#define FRAME_CACHE_WAYS 2

struct frame_rule {
	uint32_t owner;	 /* the caller's tag, != 0 */
	uint16_t signal; /* the procedure is a signal trampoline: the next PC is exact */
	uint16_t size;	 /* bytes used in rs */
	uint64_t rs[FRAME_RULE_MAX / 8];
};

/* 128 bytes: two cache lines */
struct frame_cache_entry {
	uint32_t seq; /* atomic; odd while being written */
	uint32_t owner;
	uint64_t addr; /* the code address looked up (a return address minus 1) */
	uint32_t mask; /* bit i: word i of the blob is non-zero and stored */
	uint16_t signal;
	uint16_t size;
	uint64_t words[FRAME_CACHE_WORDS];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct frame_cache_entry) == 128, "an entry is two cache lines");

struct frame_cache {
	struct frame_cache_entry e[FRAME_CACHE_SETS][FRAME_CACHE_WAYS];
	uint32_t victim; /* atomic, round robin */
};

/* 1 and *out filled if a rule for addr is cached, else 0.  The caller checks out->owner. */
int frame_cache_get(struct frame_cache *c, uint64_t addr, struct frame_rule *out);

/* Cache a rule (best effort: skipped if it is too big or the entry is being written). */
void frame_cache_put(struct frame_cache *c, uint64_t addr, const struct frame_rule *rule);

#endif
