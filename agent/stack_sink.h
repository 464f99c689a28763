/* SPDX-License-Identifier: MIT */
/*
 * Where the agent's call stacks go: the lead's integration point with the
 * profile format (utils/pdata.h), which is being redesigned to hold stacks.
 *
 * agent_record_stack() (agent/agent.c) is called from the sampling signal
 * handler for every sample when stacks are on (PROFIL_AGENT_STACKS=1, see
 * utils/agent_env.h) and hands the stack to pdata__count_stack().
 *
 * pcs: pcs[0] is the interrupted PC, pcs[1..n-1] the return addresses of
 * its callers, innermost first (a caller's PC is a return address: the
 * instruction after the call).  flags: UNWIND_* of agent/unwind.h (0: the
 * walk reached the outermost frame; UNWIND_TRUNCATED: it did not).
 */
#ifndef PROFIL_AGENT_STACK_SINK_H
#define PROFIL_AGENT_STACK_SINK_H

#include <stdint.h>

struct pdata;

/* In the signal handler: one sample of thread tid of process image proc. */
void agent_record_stack(uint32_t proc, int tid, const uint64_t *pcs, int n, unsigned int flags);

/*
 * Count `count` samples of the stack pcs[0..n-1] at (proc, tid).  Must be
 * lock-free and async-signal-safe like pdata__count().  Returns 0 or -ENOSPC.
 *
 * TEMPORARY implementation (agent/stack_sink.c): counts the leaf only,
 * exactly as pdata__count() would.  The lead replaces it with the real one
 * when the format gains stacks.
 */
int pdata__count_stack(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs, unsigned int n,
		       uint64_t count);

#endif
