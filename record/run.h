/* SPDX-License-Identifier: MIT */
/*
 * Inside the recording engine: the state of one recording and the steps
 * that running a command (command.c) and attaching (attach.c) share
 * (run.c): signals, the poll loop, the header's last fields and the result.
 */
#ifndef PROFIL_RECORD_RUN_H
#define PROFIL_RECORD_RUN_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "profile/pdata.h"
#include "record/record.h"
#include "utils/cgroup.h"

#define MAX_POLLED_RINGS 64

struct record_run {
	const struct record_opts *o;
	struct record_result *res;
	struct pdata *pd;
	struct perf_session *perf;
	struct record_bpf *bpf;		 /* bpf clock: the kernel-side histogram */
	struct procacct *acct;		 /* the kernel's accounting of the tree (BPF), NULL: none */
	struct offcpu *offcpu;		 /* --off-cpu where BPF is permitted, NULL: none */
	struct offcpu_switch *offcpu_sw; /* --off-cpu from the switch records (unprivileged) */
	char offcpu_note[2048];		 /* what the off-CPU time is (a PDATA_REC_NOTE), "" none */
	struct record_events *events;	 /* opts->events: the prof/profil event stream */
	struct jitcollect *jit; /* JIT code names (perf maps, jitdump), made at the first poll */
	int sfd;		/* signalfd */
	sigset_t oldmask;
	pid_t child;
	int status;
	struct rusage ru;
	int exited;
	int detached;
	unsigned int hz;    /* nominal rate in effect (may be capped) */
	int clock;	    /* enum pdata_clock */
	uint32_t callgraph; /* enum pdata_callgraph in effect */
	char note[2048];    /* header.clock_note (cut there at a clause: record_run__copy_note) */
	struct rusage children0;  /* RUSAGE_CHILDREN of the recorder before the command */
	uint64_t root_runtime_ns; /* the command's own thread, from its schedstat as a zombie */
	char exe[PATH_MAX];
	unsigned char ring_hup[MAX_POLLED_RINGS]; /* rings no longer polled */
	int poll_ms;				  /* the poll's timeout, 0: 50 ms */
	int keep_ksyms;		   /* kallsyms read once for every profile (system.c frees it) */
	struct ksyms_cache *ksyms; /* with keep_ksyms */
	/* the command's tree sampled by its cgroup (record.h's sample_by): its directory */
	struct cgroup_run cg;
	int by_cgroup;
	char sample_note[400]; /* per-thread events where a cgroup was wanted: why ("" else) */
};

struct perf_session_opts;

/*
 * --off-cpu (r->o->offcpu): the BPF programs where permitted (record/offcpu.h;
 * the session's opts po learn to call it before they forget a process),
 * else the session's switch records (po gets their observer), else one
 * sentence in the off-CPU note.  pid: the command, put in the tree now; with
 * attach, the process is put in the tree with its threads later
 * (offcpu__attach, offcpu_switch__attach) once its events are on.
 */
void record_run__open_offcpu(struct record_run *r, struct perf_session_opts *po, pid_t pid,
			     int attach);

/* Once r->perf is open: the off-CPU halves learn the session that names processes. */
void record_run__offcpu_session(struct record_run *r);

/* The off-CPU time's last counts and its note, before the header is finished. */
void record_run__finish_offcpu(struct record_run *r);

void record_run__close_offcpu(struct record_run *r);

/* Block the signals the recorder watches (in itself only) and read them through a signalfd. */
int record_run__setup_signals(struct record_run *r);

/*
 * Wait for a signal, a ring at its watermark, extra_fd (-1: none) or 50 ms,
 * then read the signals.  Returns 1 when extra_fd is ready.
 */
int record_run__poll_once(struct record_run *r, int extra_fd);

/* The highest rate perf_event allows here (0: unknown). */
unsigned int record_run__max_perf_rate(void);

/*
 * The call-stack method for a perf-event clock (perf or bpf): -g and
 * --call-graph dwarf give PDATA_CG_DWARF, fp PDATA_CG_FP, none
 * PDATA_CG_NONE.
 */
uint32_t record_run__perf_callgraph(const struct record_opts *o);

/* The profile to create: with a frame table when call stacks are asked for. */
int record_run__create(struct record_run *r, char *why, size_t whylen);

/* The clock note: fmt with up to two strings. */
void record_run__set_note(struct record_run *r, const char *fmt, const char *a, const char *b);

/* The latest proc record of pid in the profile (the agent writes them in fallback mode), or NULL. */
struct pdata_proc *record_run__latest_proc(struct pdata *pd, pid_t pid);

/*
 * The header's fields known at the start (clock, rate, call-stack method,
 * the clock note), so that the profile of a killed recorder has them.
 */
void record_run__start_header(struct record_run *r);

/*
 * Hand the kernel's accounting (r->acct) every event the perf session can
 * place now (final: all of them, after the last drain).
 */
void record_run__account(struct record_run *r, int final);

/*
 * The names the profile carries: the JIT code the samples hit (perf maps
 * and jitdump files read while the processes lived: record/jitcollect.h),
 * and the kernel symbols they hit (when the events sampled the kernel),
 * with what the clock note says about the kernel's time.
 */
void record_run__kernel(struct record_run *r);

/*
 * The header's last fields: clock, the rate in effect and its period, the
 * CPU time of the tree (cpu: total, user, system; zeros unknown), the
 * clock note.
 */
void record_run__finish_header(struct record_run *r, const struct pdata_cpu *tree);

/* The CPU time of the recorder's children since r->children0 (the command's tree). */
void record_run__children_cpu(const struct record_run *r, struct pdata_cpu *out);

/* Mark the profile complete and fill the result's summary (flush_err when it cannot be flushed). */
void record_run__finish(struct record_run *r);

/* Run opts->argv (command.c) or attach to opts->attach_pid (attach.c): record__run's two ways. */
int record__command(const struct record_opts *o, struct record_result *res);
int record__attach(const struct record_opts *o, struct record_result *res);
/* The whole machine (system.c). */
int record__system(const struct record_opts *o, struct record_result *res);

/*
 * The note into the header's fixed field of len bytes: whole when it fits,
 * else its first clause (the clock), "; [note cut: N bytes]; " and as many
 * of its last clauses (the findings: stacks, losses) as fit; cut only at
 * clause boundaries ("; "), never mid-word.
 */
void record_run__copy_note(char *dst, size_t len, const char *note);

#endif /* PROFIL_RECORD_RUN_H */
