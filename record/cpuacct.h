/* SPDX-License-Identifier: MIT */
/*
 * The CPU time of every thread and process image of a perf or bpf
 * recording (struct pdata_cpu of their records, profile/pdata.h), from the
 * best source the recorder has, in this order:
 *
 *  - procacct (record/procacct.h; BPF, so root or CAP_BPF+CAP_PERFMON):
 *    for each (thread, image) segment the scheduler's runtime, exact, split
 *    into user and system time as the kernel splits it for getrusage (in
 *    proportion to the tick accounting's utime and stime);
 *  - else the task clock of each thread, exact, which the kernel reports
 *    when an inherited thread exits (PERF_RECORD_READ with inherit_stat;
 *    the command's own thread: its schedstat as a zombie), split by the
 *    samples: user time is the samples at user PCs times the period, system
 *    time the rest (the ticks the kernel took in kernel mode and, unsampled,
 *    dropped: the kernel's own user/system split is the same tick method at
 *    CONFIG_HZ).  A thread's CPU time goes to its last image; what its
 *    samples in earlier images (left by exec) stand for is kept out of it,
 *    and those images' records say nothing (0: unknown).
 *
 * A process image's CPU time is the sum of its threads'.  Pure bookkeeping
 * on the process tree (record/proctree.h) and the profile: no OS calls.
 */
#ifndef PROFIL_RECORD_CPUACCT_H
#define PROFIL_RECORD_CPUACCT_H

#include <stdint.h>

#include "record/proctree.h"

struct procacct_event;

/* A sample of th came through the ring (pc: user or kernel). */
void cpuacct__sample(struct tstate *th, uint64_t pc);

/*
 * th leaves its image by exec (its samples there stand for period_ns each):
 * it has no record until it is named in the new image.
 */
void cpuacct__leave(struct tstate *th);

/*
 * Task-clock time of th: ns more (a PERF_RECORD_READ of one CPU's event),
 * or, absolute, its whole time.  split: every sample of th came through
 * the ring, so that the samples give the user/system split (else only the
 * total is known).
 */
void cpuacct__task_clock(struct tstate *th, uint64_t ns, int absolute, uint64_t period_ns,
			 int split);

/*
 * A procacct event: the CPU time of one (thread, image) segment; the wait
 * status of its process when it was the last thread.  The tree must have
 * handled every record up to the event's time.  Returns the ticks of a
 * period_ns clock that the segment's runtime was worth beyond the samples
 * it brought through the ring (a timer that ran late skips them: samples
 * not taken, when every sample passes the ring and the kernel is sampled).
 */
uint64_t cpuacct__segment(struct proctree *t, const struct procacct_event *e, uint64_t period_ns);

/* The user/system split of runtime_ns as the kernel makes it from the tick accounting. */
void cpuacct__adjust(uint64_t runtime_ns, uint64_t utime_ns, uint64_t stime_ns,
		     struct pdata_cpu *out);

#endif /* PROFIL_RECORD_CPUACCT_H */
