/* SPDX-License-Identifier: MIT */
/*
 * `profil record --off-cpu` where BPF is not permitted: what the kernel
 * tells an unprivileged user about its own threads' context switches
 * (PERF_RECORD_SWITCH, attr.context_switch on the perf session's events),
 * handled in time order with the session's other records.  Each thread's
 * time between a switch-out and its next switch-in is off the CPU:
 * "preempted" when the kernel says so (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT),
 * else a wait ("sleep": the records do not tell an interruptible sleep from
 * an uninterruptible one).  No stack: each thread's totals become off-CPU
 * slots at the pseudo PC PDATA_PC_OFFCPU ("[off-cpu]" in the reports), and
 * its lifetime (from its fork, or its exec for the command, to its exit, or
 * the end of the recording) and off-CPU total go into its thread record,
 * when the thread ends and at the end.  Every switch is a ring record: the
 * recorder reads two per switch of the tree.
 */
#ifndef PROFIL_RECORD_OFFCPU_SWITCH_H
#define PROFIL_RECORD_OFFCPU_SWITCH_H

#include <stddef.h>
#include <stdint.h>

struct pdata;
struct perf_session;
struct perf_session_observer;
struct offcpu_switch;

/* Returns 0 or -ENOMEM. */
int offcpu_switch__new(struct offcpu_switch **out, struct pdata *pd);

/* The observer to put in perf_session_opts (with context_switch set). */
const struct perf_session_observer *offcpu_switch__observer(struct offcpu_switch *os);

/* The session the observer's records come from (to name images and threads). */
void offcpu_switch__session(struct offcpu_switch *os, struct perf_session *s);

/* The end of the recording (after the session's last drain): open intervals closed now. */
void offcpu_switch__finish(struct offcpu_switch *os);

/* One phrase for the off-CPU note. */
void offcpu_switch__describe(const struct offcpu_switch *os, char *buf, size_t len);

void offcpu_switch__free(struct offcpu_switch *os);

#endif /* PROFIL_RECORD_OFFCPU_SWITCH_H */
