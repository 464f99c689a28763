/* SPDX-License-Identifier: MIT */
/*
 * profil watch: the record the BPF side (watch.bpf.c) sends user space
 * (events/watch.c) through the ring buffer.  Event ids, flags and array sizes
 * come from events/events.h, the single definition of the event stream.
 */
#ifndef PROFIL_BPF_WATCH_H
#define PROFIL_BPF_WATCH_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "events/events.h"

/* Per-process state bits in the `tracked` map. */
#define WATCH_TRACK_ENABLED 1u	 /* the process itself turned profiling on */
#define WATCH_TRACK_INHERITED 2u /* forked by a process that did */

/* bpf_cookie of the profil/sprofil uprobes: which implementation was called. */
#define WATCH_COOKIE_OTHER 0   /* libprofil, --lib: scale 0 turns profiling off */
#define WATCH_COOKIE_GLIBC 1   /* glibc: scale 0 with a buffer is enabled (every tick in bin 0) */
#define WATCH_COOKIE_SYSCALL 2 /* not a call: the i386 profil syscall (98) of a 32-bit task */

struct watch_ctx {
	__u64 ts;	  /* bpf_ktime_get_ns() */
	__u64 start_time; /* task->start_time (monotonic ns) */
	__u64 cgroup_id;
	__u32 cpu;
	__u32 pid, tid, ppid; /* in the task's pid namespace */
	__u32 host_pid, host_tid, host_ppid;
	__u32 uid;
	__u32 mnt_ns, pid_ns;
	__u32 is_compat;
	__s64 ret;
	char comm[PROFIL_COMM_LEN];
	char hostname[PROFIL_HOSTNAME_LEN];
};

struct watch_event {
	__u32 id;	    /* enum profil_event_id */
	__u32 probe_cookie; /* WATCH_COOKIE_* (profil/sprofil) */
	struct watch_ctx ctx;
	union {
		struct {
			__u64 buf, buflen, offset, pc;
			__u32 scale;
		} profil;
		struct {
			__u64 profp, tvp, pc;
			__s32 profcnt;
			__u32 flags, nregions;
			struct {
				__u64 base, size, off, scale;
			} regions[PROFIL_MAX_REGIONS];
		} sprofil;
		struct {
			__s32 which;
			__u32 has_value; /* new_value was readable */
			__s64 interval_sec, interval_usec, value_sec, value_usec;
		} setitimer;
		struct {
			__s32 clockid, sigev_notify, sigev_signo, sigev_tid;
			__u32 has_sigevent;
		} timer_create;
		struct {
			__s32 pid, cpu, group_fd;
			__u32 type;
			__u64 flags, config, sample; /* sample_period or sample_freq */
			__u32 freq, inherit, has_attr;
		} perf;
		struct {
			char filename[PROFIL_PATH_LEN];
		} exec;
		struct {
			__u32 parent_tid, parent_pid, child_tid, child_pid;
			__u64 child_start_time;
		} fork;
		struct {
			__s32 exit_code; /* task->exit_code: status << 8 | signal */
		} exit;
	};
};

#endif
