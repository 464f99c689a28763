/* SPDX-License-Identifier: MIT */
/*
 * Call stacks from inside the sampling signal handler, with libunwind
 * (Debian's libunwind8, local unwinding from the signal's ucontext).
 *
 * Usage (the agent):
 *	unwind_init(why, sizeof(why));         // once, outside signal context
 *	...in the sink (signal handler)...
 *	n = unwind_from_signal(uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
 *	...after every dlclose()...
 *	unwind_objects_changed();
 *	...before every dlopen()...
 *	unwind_objects_reserve();
 *
 * pcs[0] is the interrupted PC; pcs[1..n-1] are return addresses (the
 * callers, innermost first).  unwind_from_signal() is async-signal-safe,
 * lock-free on its common path, never allocates and never calls into the
 * dynamic loader's locks; a fault while reading a bad stack is caught by the
 * fault guard (lib/guard.h) and gives a truncated stack.  How: see unwind.c.
 */
#ifndef PROFIL_AGENT_UNWIND_H
#define PROFIL_AGENT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_UNWIND_MAX_DEPTH 128
/* Objects whose unwind tables the unwinder can hold at once (a program with more, live at the
 * same time, has the stacks through the others cut short, counted: AGENT_UNWIND_NO_ROOM). */
#define AGENT_UNWIND_MAX_OBJECTS 16384

/* Why a stack ended.  No flag: it reached the outermost frame (_start, clone). */
enum agent_unwind_flags {
	AGENT_UNWIND_TRUNCATED = 1 << 0, /* stopped before the outermost frame (any reason below) */
	AGENT_UNWIND_NO_INFO = 1 << 1,	 /* a frame in code without usable unwind tables */
	AGENT_UNWIND_FAULT = 1 << 2,	 /* a read faulted (the guard cut the walk short) */
	AGENT_UNWIND_DEPTH = 1 << 3,	 /* the depth limit */
	AGENT_UNWIND_BAD_FRAME = 1 << 4, /* libunwind refused a frame (loop, bad register) */
	AGENT_UNWIND_LEAF_ONLY = 1 << 5, /* not attempted: unwinder off, or a nested call */
	AGENT_UNWIND_FORKING = 1 << 6,	 /* an uncached frame while a fork was in progress */
	AGENT_UNWIND_REFUSED =
		1 << 7, /* CFI the gate refused (agent/cfi_check.h: a bound, a loop) */
	AGENT_UNWIND_NO_ROOM = 1 << 8, /* an object past AGENT_UNWIND_MAX_OBJECTS */
};

/*
 * Load libunwind (dlopen, RTLD_LOCAL: its _Unwind_* symbols must not
 * interpose libgcc's in the program), initialise it and install the fault
 * guard.  Outside signal context, before the clock starts.  Returns 0 or
 * -errno with one sentence in why; afterwards unwind_from_signal() gives
 * leaf-only stacks.
 */
int unwind_init(char *why, size_t whylen);

/* 1 once unwind_init() succeeded. */
int unwind_ready(void);

/*
 * Async-signal-safe.  uc: the ucontext_t * the signal handler received.
 * Writes at most max PCs (max >= 1) and the UNWIND_* flags; returns the
 * number of PCs (>= 1).
 */
int unwind_from_signal(const void *uc, uint64_t *pcs, int max, unsigned int *flags);

/* After dlclose (not in a signal handler): forget the unwind tables and
 * cached frames of objects that are gone. */
void unwind_objects_changed(void);

/* Before a dlopen (not in a signal handler): room for every object loaded and 256 more
 * (entries are registered with libunwind, which takes its lock: never in the handler). */
void unwind_objects_reserve(void);

/* Objects whose unwind table the unwinder took up so far (async-signal-safe):
 * a change tells the agent that callers may lie in a mapping it has not recorded. */
uint64_t unwind_objects_seen(void);

/*
 * For the fuzzer and the tests (not in a signal handler): one walk from the
 * registers in uc, at most max frames, through the CFI of an image in
 * memory instead of a loaded object's: its .eh_frame_hdr at hdr, every byte
 * of its CFI inside [lo, hi), unwinding the code addresses [code_lo,
 * code_hi) (the rest of the walk goes through the loaded objects as usual).
 * The image is an object of the unwinder for the call only.  Returns the
 * number of PCs (>= 1), or -EINVAL (not ready, no usable header), -ENOSPC.
 */
struct unwind_image {
	uintptr_t hdr, lo, hi, code_lo, code_hi;
};
int unwind_walk_image(const struct unwind_image *im, const void *uc, uint64_t *pcs, int max,
		      unsigned int *flags);

/* Counters, for tests and the benchmark (racy snapshot). */
struct unwind_stats {
	uint64_t walks;	      /* unwind_from_signal() calls that walked */
	uint64_t hits;	      /* frames stepped with a cached rule */
	uint64_t misses;      /* frames whose rule libunwind computed */
	uint64_t activations; /* objects whose unwind table was registered */
	uint64_t retired;     /* objects found gone after a dlclose */
	uint64_t leaf_only;   /* calls that did not walk */
	uint64_t faults;      /* walks cut short by a fault */
	uint64_t refused;     /* walks cut short at CFI the gate refused */
	uint64_t no_room;     /* walks cut short at an object the table had no room for */
	uint64_t objects;     /* entries registered with libunwind (grows with the program) */
};
void unwind_get_stats(struct unwind_stats *st);

#endif
