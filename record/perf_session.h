/* SPDX-License-Identifier: MIT */
/*
 * The perf_event session of the recording engine (perf and bpf clocks):
 * per-CPU task-clock sampling events on the profiled tree, their ring
 * buffers, and the decoding of their records into profil.data (the
 * process tree itself: record/proctree.h).
 */
#ifndef PROFIL_RECORD_PERF_SESSION_H
#define PROFIL_RECORD_PERF_SESSION_H

#include <stdint.h>
#include <sys/types.h>

#include "profile/pdata.h"

/*
 * Test hook: EACCES, EPERM or ENOSYS in this environment variable makes
 * perf_event_open look as if it had failed with it, so that `--clock auto`
 * takes the fallback path (tests/e2e/record_fallback.sh).
 */
#define PROFIL_ENV_SIMULATE_PERF_ERRNO "PROFIL_SIMULATE_PERF_ERRNO"

struct perf_session;
struct procacct_event;

/*
 * Optional observer of a session (the kernel-side histogram clock): told
 * about every event descriptor opened, every sample that came through a
 * ring (its PC, user or kernel), and every thread and process image that
 * ends.
 */
struct perf_session_observer {
	void *arg;
	int (*event_fd)(void *arg, int fd);
	void (*sample)(void *arg, pid_t pid, pid_t tid, uint32_t proc, uint64_t pc);
	void (*thread_end)(void *arg, pid_t tid);
	void (*image_end)(void *arg, pid_t pid);
	/*
	 * For the in-kernel stack walk's tables (record/kstacks.h); each may be
	 * NULL.  An executable mapping of image proc of pid (dev = ino = 0 when
	 * the record carries a build id instead); a new process (a copy of its
	 * parent's mappings); a process whose mappings were read from /proc;
	 * a process that ended (after image_end).
	 */
	void (*map)(void *arg, pid_t pid, uint32_t proc, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path);
	void (*fork)(void *arg, pid_t ppid, pid_t pid, uint32_t proc);
	void (*proc_maps)(void *arg, pid_t pid, uint32_t proc);
	void (*exited)(void *arg, pid_t pid);
	/*
	 * A mapping of another object took the place of one of pid's (each may
	 * be NULL): its samples count under proc, a new mapping generation
	 * (profile/pdata.h), from now on; what was counted before under the
	 * older id.  Called before map for the new mapping.
	 */
	void (*generation)(void *arg, pid_t pid, uint32_t proc);
	/* A ring sample's user stack as the recorder unwound it (leaf first; UNWIND_* flags). */
	void (*user_stack)(void *arg, pid_t tid, uint64_t time, uint64_t sp, const uint64_t *pcs,
			   unsigned int n, unsigned int flags);
	/*
	 * With opts.context_switch: a thread of the tree switched out (out,
	 * preempt: it was runnable) or in, at time (CLOCK_MONOTONIC ns); and
	 * threads and processes that began (fork, exec: begin 1) or ended
	 * (exit: begin 0), in time order with the switches.  Any may be NULL.
	 */
	void (*switched)(void *arg, pid_t pid, pid_t tid, uint64_t time, int out, int preempt);
	void (*task)(void *arg, pid_t pid, pid_t tid, uint64_t time, int begin);
};

struct perf_session_opts {
	unsigned int hz;     /* nominal samples per CPU second */
	int follow_children; /* inherit into fork()ed processes (threads always) */
	int attach;	     /* events on running threads, enabled at once */
	const struct perf_session_observer *observer; /* NULL: none */
	int kernel; /* sample kernel PCs where permitted (else, and by default, user only) */
	/*
	 * Per-thread CPU time from the task clock (inherit_stat: the kernel
	 * reports each inherited thread's count when it exits), for when
	 * nothing better (record/procacct.h) gives it.  split: every sample
	 * comes through the rings, so that they split it into user and system
	 * time (not with the kernel-side histogram).
	 */
	int thread_cpu;
	int thread_cpu_split;
	uint32_t callgraph;   /* enum pdata_callgraph: PDATA_CG_NONE, _FP or _DWARF */
	int context_switch;   /* PERF_RECORD_SWITCH records to the observer (switched) */
	uint32_t stack_bytes; /* dwarf: user stack copied per sample, 0 = the default */
	/*
	 * Called (when set) before the session drops process pid's mappings
	 * while it handles a record of time: the process's exit, or an exec that
	 * replaces them.  What still needs them unwinds with them then
	 * (record/offcpu.h: the copies of user stacks taken before time).
	 */
	void (*forgetting)(void *arg, pid_t pid, uint64_t time);
	void *forgetting_arg;
	/*
	 * The whole machine (`record -a`, record/system.c): one cpu-clock event
	 * per CPU of cpus[0..ncpus) (NULL: every online CPU) on every task but
	 * the idle one, enabled at once (tids are not used).  Processes are
	 * described when they first have a sample (proctree__set_system).
	 */
	int system;
	const int *cpus;
	int ncpus;
	/*
	 * The command's tree by its cgroup (root: record/command.c makes one and
	 * puts the command in it): one cpu-clock event per online CPU with
	 * PERF_FLAG_PID_CGROUP on cgroup_fd, enabled at once.  The kernel keeps
	 * the samples and the side-band records (mmap, comm, fork, exit,
	 * switch) of the tasks in that cgroup, so the tree is followed as with
	 * per-thread events; but a context switch inside the cgroup costs the
	 * events nothing, where per-thread inherited events are switched at
	 * each.  No per-thread count (thread_cpu must be 0): the CPU times come
	 * from the kernel's accounting.  User samples of the command before its
	 * exec (the recorder's child) are dropped.
	 */
	int by_cgroup;
	int cgroup_fd;
};

/*
 * Open one task-clock sampling event per online CPU for each tid (inherit,
 * so that new threads, and children when asked, are followed; or with
 * opts.system and opts.by_cgroup one cpu-clock event per CPU), sharing
 * one ring buffer per CPU (1 MiB; 16 MiB with call stacks, less when the
 * mlock limit says so).  For a command (!attach) the events start
 * disabled and turn on at the task's exec.  On error returns -errno and
 * one sentence in why; the errno of perf_event_open itself is kept so that
 * the caller can tell a refusal (EACCES, EPERM, ENOSYS) from a failure.
 */
int perf_session__open(struct perf_session **out, struct pdata *pd,
		       const struct perf_session_opts *opts, const pid_t *tids, int ntids,
		       char *why, size_t whylen);

/* Add events for more threads (attach: threads that appeared meanwhile). */
int perf_session__add_tids(struct perf_session *s, const pid_t *tids, int ntids, char *why,
			   size_t whylen);

/*
 * Register a process image the recorder knows about before the kernel
 * reports it (the command, or the attached process); maps_from_proc reads
 * /proc/PID/maps for mappings that already exist.
 */
struct pdata_proc *perf_session__add_root(struct perf_session *s, pid_t pid, pid_t ppid,
					  const char *exe, int maps_from_proc);

/* Ring buffer descriptors to poll(POLLIN), count in *n. */
const int *perf_session__fds(struct perf_session *s, int *n);

/* Read every ring; final != 0 processes everything, else keeps a reorder window. */
void perf_session__drain(struct perf_session *s, int final);

/*
 * Rotation (the whole machine): handle every record stamped up to t (and
 * none after it) into the current profile.  Every record stamped up to t
 * must have reached the rings: call it some milliseconds after t.
 */
void perf_session__drain_to(struct perf_session *s, uint64_t t);

/*
 * Write into pd from now on (the records after the last drain_to): every
 * process and thread is described in pd again when it next has a sample.
 * The counters of perf_session__throttled*() start again from zero.
 */
void perf_session__switch(struct perf_session *s, struct pdata *pd);

/* The whole machine: forget the processes and threads that ended (bounded memory). */
void perf_session__prune(struct perf_session *s);

/* The CPUs the events are on, count in *n. */
const int *perf_session__cpus(struct perf_session *s, int *n);

/* Task-clock time counted by the events (CPU time of the profiled tree since enable). */
uint64_t perf_session__cpu_ns(struct perf_session *s);

/* 1 when the events sample kernel PCs too (opts.kernel, and permitted here). */
int perf_session__kernel(struct perf_session *s);

/*
 * At the end: copy the mapped objects that were rewritten or deleted while
 * recording into the user's cache by build id (record/keepobj.h); one
 * clause about it in note ("" when none).  Returns the copies made.
 */
int perf_session__keep_objects(struct perf_session *s, char *note, size_t len);

/* Mapping replacements not told apart: past PDATA_GENS_MAX generations of an image. */
uint64_t perf_session__gens_refused(struct perf_session *s);

/* Records with a time up to this one have been handled (CLOCK_MONOTONIC ns). */
uint64_t perf_session__handled_until(struct perf_session *s);

/*
 * An event of the kernel's accounting (record/procacct.h), once every
 * record up to its time is handled (perf_session__handled_until): the CPU
 * time of a thread's image, the exit status of a process.
 */
void perf_session__account(struct perf_session *s, const struct procacct_event *e);

/*
 * The current image of process pid as the session has handled its records
 * (its proc record, made when missing; NULL when unknown) and, in *thread
 * (may be NULL), thread tid's record in it (made when missing; NULL when
 * it cannot be): where off-CPU time (record/offcpu.h) is counted.
 */
struct pdata_proc *perf_session__image(struct perf_session *s, pid_t pid, pid_t tid,
				       struct pdata_thread **thread);

/*
 * The id to count time of image (a proc id) of process pid under now: its
 * newest mapping generation's when image is pid's current image
 * (record/proctree.h), else image.
 */
uint32_t perf_session__counting_id(struct perf_session *s, pid_t pid, uint32_t image);

/* The whole task-clock time of thread tid (the command's own, which no READ record reports). */
void perf_session__thread_total(struct perf_session *s, pid_t tid, uint64_t ns);

/* How process pid ended (the recorder waited for it: the command, or an orphan it adopted). */
void perf_session__set_status(struct perf_session *s, pid_t pid, int status);
/* The call stacks of the samples (record/stacks.h), NULL in a flat profile. */
struct stacks *perf_session__stacks(struct perf_session *s);

/* Counters: throttle records seen, processes that ended (EXIT records). */
uint64_t perf_session__throttled(struct perf_session *s);
/* Samples the kernel did not take while it throttled the events (an estimate: the time throttled). */
uint64_t perf_session__throttled_samples(struct perf_session *s);
/*
 * Samples the threads' runtime (the kernel's accounting) was worth beyond
 * those that came: the timer ran late and skipped them (an hrtimer cannot
 * keep every period at high rates).  Known only with the kernel sampled,
 * every tick through the ring and the accounting events; else 0.
 */
uint64_t perf_session__missed_samples(struct perf_session *s);
uint32_t perf_session__ring_pages(struct perf_session *s);
/* 1 when the rings are smaller than asked for (the locked-memory limit). */
int perf_session__ring_limited(struct perf_session *s);

void perf_session__close(struct perf_session *s);

/* 1 when an errno from perf_event_open means "not permitted here" (fall back). */
int perf_errno_is_refusal(int err);

#endif /* PROFIL_RECORD_PERF_SESSION_H */
