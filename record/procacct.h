/* SPDX-License-Identifier: MIT */
/*
 * The kernel's accounting of a recorded tree (bpf/procacct.bpf.c), user
 * half: loads the programs, puts the first process in the tree, reads their
 * events and hands them over in time order, once the perf session has
 * handled every record up to their time (record/cpuacct.c writes them into
 * the profile).  Needs BPF: root or CAP_BPF+CAP_PERFMON, and the kernel's
 * BTF; without, the recorder falls back to the task clock of each thread
 * (record/cpuacct.h) and to what it can wait for itself.
 */
#ifndef PROFIL_RECORD_PROCACCT_H
#define PROFIL_RECORD_PROCACCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct procacct;
struct procacct_event;

/*
 * Load and attach the programs.  follow_children: forked processes belong
 * to the tree (else only the threads of the first process).  Returns 0, or
 * -errno with one sentence in why (-EPERM: not permitted here; -ENOTSUP:
 * built without BPF).
 */
int procacct__open(struct procacct **out, int follow_children, char *why, size_t whylen);

/* Put process pid (the command, before its exec; or the attached process) in the tree. */
int procacct__track(struct procacct *pa, pid_t pid);

/* Read the events the kernel wrote since the last call (kept until applied). */
void procacct__read(struct procacct *pa);

/*
 * Hand fn, in time order, every kept event stamped at or before until
 * (CLOCK_MONOTONIC ns), and drop them.  Returns how many.
 */
size_t procacct__apply(struct procacct *pa, uint64_t until,
		       void (*fn)(void *arg, const struct procacct_event *e), void *arg);

/* 1 once the exit of the last thread of the tracked process (procacct__track) was read. */
int procacct__root_ended(const struct procacct *pa);

/* Events the kernel could not write (its ring was full). */
uint64_t procacct__dropped(struct procacct *pa);

/*
 * The maps a dead thread's last switch needs (bpf/procacct_switch.bpf.h:
 * acct_tracked, acct_base, acct_exiting, acct_events, drops, in this
 * order), for another program at sched_switch to do procacct's work there.
 * Returns 0, or -errno.
 */
#define PROCACCT_SWITCH_MAPS 5
int procacct__switch_maps(struct procacct *pa, int fds[PROCACCT_SWITCH_MAPS]);

/* That other program runs now: procacct's own switch program is detached (one less per switch). */
void procacct__switch_taken(struct procacct *pa);

void procacct__close(struct procacct *pa);

#endif /* PROFIL_RECORD_PROCACCT_H */
