/* SPDX-License-Identifier: MIT */
/*
 * TEST-ONLY: a dump of every stack the agent records with the unwinder's
 * flags for each walk (a fault, a fork in progress, a frame without CFI),
 * which the profile does not keep: the stress test (tests/stress/) counts
 * them, and tests/progs/stack_prog.c stops once enough stacks are taken.
 * Enabled only when PROFIL_TEST_STACK_DUMP (agent/agent_env.h) names a
 * file; never used by `profil record` itself.  The profile's own stacks are
 * what record_stacks.sh checks last.
 *
 * The file is mapped MAP_SHARED at a fixed size by every profiled process
 * that has the variable (so records survive a crash); records are appended
 * lock-free from the signal handler:
 *
 *   struct stack_dump_header, then records back to back:
 *   struct stack_dump_rec { words, flags, ... } + uint64_t pcs[n]
 *
 * A record is published by storing its `words` last; a reader stops at the
 * first record whose `words` is still 0.
 */
#ifndef PROFIL_AGENT_STACK_DUMP_H
#define PROFIL_AGENT_STACK_DUMP_H

#include <stdint.h>

#define STACK_DUMP_MAGIC "PRSTKDMP"
#define STACK_DUMP_SIZE (64u << 20)

struct stack_dump_header {
	char magic[8];
	uint64_t size; /* of the file */
	uint64_t used; /* atomic: bytes of records reserved after the header */
	uint64_t full; /* atomic: records that did not fit */
};

struct stack_dump_rec {
	uint32_t words; /* size of the record in 8-byte words; stored last */
	uint32_t flags; /* UNWIND_* (agent/unwind.h) */
	uint32_t proc;
	int32_t tid;
	int32_t pid;
	uint32_t n;
	/* uint64_t pcs[n] follow */
};

/* Open the file named by the variable (outside signal context).  0 or -errno. */
int stack_dump_open(const char *path);

/* Async-signal-safe; nothing happens unless stack_dump_open() succeeded. */
void stack_dump_append(uint32_t proc, int tid, const uint64_t *pcs, int n, unsigned int flags);

#endif
