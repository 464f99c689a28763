/* SPDX-License-Identifier: MIT */
/*
 * record: the recording engine of `profil record`, whose product is a
 * profil.data (profile/pdata.h).  The one entry point of the component:
 * cmds/record.c parses the options, calls record__run() and prints.
 *
 * It runs COMMAND (or attaches to a running process) and records every
 * thread of the tree.  Clocks: the kernel's perf_event task clock
 * (record/perf_session.c), with the kernel-side histogram on it where
 * permitted (record/record_bpf.c, record/bpfclock.c), else an LD_PRELOAD
 * agent built on libprofil (agent/agent.c, launched by
 * record/agent_launch.c; contract in agent/agent_env.h) that samples every
 * thread by its own CPU time and counts straight into the shared file
 * mapping.
 *
 * The program keeps its stdin/stdout/stderr, signal dispositions and exit
 * status; the recorder blocks the signals it watches only in itself,
 * forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT that were sent to it alone (a
 * terminal's Ctrl-C already reaches the whole foreground group) and reports
 * the program's status (128+N for signal N).
 *
 * A recorder that dies (SIGKILL, the OOM killer, a truncated profile) takes
 * its command with it: the command runs with PR_SET_PDEATHSIG = SIGTERM, as
 * perf record sends SIGTERM to a workload it leaves behind.  Only the
 * command's own process gets it (the kernel clears it on fork, and on the
 * exec of a set-user-ID or file-capability program, which is then left
 * running detached); its descendants live on.  Their profile stays
 * PDATA_RECORDING and readable: under perf and bpf nothing counts any more
 * (the events die with the recorder), under the agent their samples keep
 * going into that file; never into a finished profile (pdata.h).
 *
 * Files: the profile and the event stream are opened through
 * utils/outfile.h (profile/pdata.h's rules); the command's executable and
 * every file its arguments name are protected from both (outfile__protect).
 *
 * What the profile holds (for readers of profile/pdata.h; doc/accounting.md):
 *  - one proc record per process image: a fork gets one (perf: with the
 *    parent's executable mappings copied, as the kernel reports none), an
 *    exec gets one whose parent is the previous image (which ends with
 *    PDATA_END_EXEC);
 *  - kernel PCs (>= PDATA_KERNEL_START) where the perf and bpf clocks may
 *    sample the kernel (header flag PDATA_F_KERNEL), and a KSYM record for
 *    every kernel function they hit; else the kernel's time is each
 *    thread's system time (pdata_cpu.sys_ns); the agent's ticks land at the
 *    user PC where the kernel returns;
 *  - CPU time (pdata_cpu) of every thread and image, sampled or not: perf
 *    and bpf clocks where BPF is permitted, the kernel's accounting
 *    (runtime, utime/stime split) of each (thread, image); else each
 *    thread's task clock at its exit, its split by the samples (user time:
 *    its user samples times the period), given to its last image; the
 *    agent: getrusage and the CPU-time clocks;
 *  - how processes ended: the command's from wait4; with BPF every
 *    process's; else the orphans the recorder adopts as their subreaper, a
 *    zombie's status when it is still there; the agent records exits
 *    itself (not deaths by a signal);
 *  - header: samples, lost (perf ring losses), throttled (samples the kernel
 *    did not take while it throttled the events), cpu_ns / user_ns / sys_ns
 *    (the tree: RUSAGE_CHILDREN of the recorder; attach: the task clock of
 *    the recorded threads), period_ns = one period of the clock in effect
 *    (1e9 / nominal_hz, after capping: the rate every reader states),
 *    nominal_hz, clock and clock_note (why this clock, capping, where the
 *    kernel's time is, the source of the CPU times, throttling), the command
 *    quoted as a shell needs it;
 *  - with call stacks (opts->callgraph): every sample's stack, unwound
 *    while recording and deduplicated in the frame table; header.callgraph
 *    says how (fp, dwarf), header.truncated how many were cut short, and
 *    the clock note how they were taken and what went through the rings.
 *    -g picks dwarf on the perf clock (auto: the recorder unwinding the
 *    ring's copies measured cheaper than the in-kernel walk,
 *    bench/results/callgraph.md); with --clock bpf each stack is walked
 *    through the CFI and counted in the kernel (record/kstacks.h,
 *    doc/kstacks.md; header.callgraph kernel-cfi), the ticks it cannot walk
 *    there come through the ring and are unwound as with the perf clock.
 */
#ifndef PROFIL_RECORD_RECORD_H
#define PROFIL_RECORD_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#define RECORD_DEFAULT_HZ 997 /* near 1 kHz, prime: cannot run in lock-step with the program */

/* --call-graph dwarf,SIZE: user stack bytes copied per sample (a multiple of 8). */
#define RECORD_STACK_BYTES_DEFAULT 16384
#define RECORD_STACK_BYTES_MIN 512
#define RECORD_STACK_BYTES_MAX 65528 /* the kernel's limit: a sample record is at most 64 KiB */

/* Call stacks (`-g`, `--call-graph MODE`), perf's names. */
enum record_callgraph {
	RECORD_CG_NONE,	 /* a flat profile */
	RECORD_CG_AUTO,	 /* -g: the best this machine permits (dwarf on perf events) */
	RECORD_CG_FP,	 /* the kernel's frame-pointer walk: cheap, broken by code without them */
	RECORD_CG_DWARF, /* user stack copies unwound through the CFI by the recorder */
};

enum record_sample_by {
	RECORD_SAMPLE_AUTO,
	RECORD_SAMPLE_THREAD,
	RECORD_SAMPLE_CGROUP,
};

struct record_opts {
	const char *output; /* profil.data to create (replaced) */
	unsigned int hz;    /* nominal samples per CPU second */
	/*
	 * enum pdata_clock (profile/pdata.h): AUTO (perf, else thread; bpf
	 * measured no cheaper than perf), PERF (task-clock sampling into ring
	 * buffers), BPF (the kernel-side histogram on the perf events), THREAD
	 * (the agent: per-thread CPU-time timers), ITIMER (the agent: a
	 * process-wide CPU timer).  attach: AUTO or PERF.
	 */
	uint32_t clock;
	pid_t attach_pid;   /* attach to this running process, 0: run argv */
	int inherit;	    /* follow child processes */
	const char *events; /* the prof/profil event stream ("-" = stdout), NULL: none */
	enum record_callgraph callgraph;
	unsigned int stack_bytes; /* dwarf: user stack bytes copied per sample, 0 = 16 KiB */
	int offcpu;		  /* --off-cpu: the time off the CPU too (record/offcpu.h) */
	/*
	 * --sample-by (perf and bpf clocks, a command): how the tree's CPU
	 * samples are taken.  RECORD_SAMPLE_THREAD: per-thread task-clock
	 * events, inherited (unprivileged; they cost at every context switch of
	 * the tree).  RECORD_SAMPLE_CGROUP: per-CPU cpu-clock events of a cgroup
	 * the recorder makes and puts the command in (root; free at the tree's
	 * switches), an error when it cannot.  AUTO: cgroup with --off-cpu where
	 * it can be made (a context switch is what --off-cpu watches), else
	 * thread; the clock note says which and why.
	 */
	int sample_by;
	char **argv; /* COMMAND [ARGS...] (NULL-terminated) when not attaching */
	/*
	 * The whole machine (`-a`, record/system.c): every process on every CPU
	 * (or cpu_list's), user and kernel, while argv runs (argv may be empty),
	 * for duration seconds, or until SIGINT/SIGTERM/SIGHUP.
	 */
	int all_cpus;
	const char *cpu_list; /* -C: "0,2-3"; NULL: every online CPU */
	double duration;      /* seconds, 0: until argv ends or a signal */
	/*
	 * --rotate: one complete profile per rotate seconds into the directory
	 * output (profil-YYYYmmddTHHMMSSZ.data, the period's start in UTC), the
	 * oldest of this run removed beyond keep (0: all kept).
	 */
	unsigned int rotate;
	unsigned int keep;
	const struct record_hook *hook; /* NULL: none (profil top's) */
};

/*
 * A watcher of a whole-machine recording (profil top): the recorder
 * rotates its profile every period_ms into dir (a directory of the
 * caller's) and hands each finished period's file to period(), which
 * reads it and removes it.  fd (or -1) is polled with the rings; when it
 * is readable, ready() is called.  Either returning non-zero ends the
 * recording (as a signal does).
 */
struct record_hook {
	void *arg;
	unsigned int period_ms;
	int fd;
	int (*ready)(void *arg);
	int (*period)(void *arg, const char *path);
};

struct record_result {
	/*
	 * The status for profil to exit with: the command's (128+N for signal
	 * N), 0 after attaching; on failure 127 or 126 when the command could
	 * not be run at all (why says so), else 1.
	 */
	int exit_status;
	char why[512]; /* record__run failed: one sentence */
	char warning
		[256]; /* a profile was written, with this caveat (e.g. no samples could be taken) */
	int flush_err; /* 0, or -errno: the profile could not be flushed (it is incomplete) */
	/*
	 * The event stream (opts->events) could not be written whole: one
	 * sentence ("" when it was).  It stopped at the first write error; a file
	 * ends at its last whole event.  The profile is not affected.
	 */
	char events_error[512];
	/* For the summary. */
	uint64_t samples;
	uint64_t lost; /* lost by the clock, or dropped: the sample table was full */
	uint32_t processes;
	const char *clock_name; /* "perf", "bpf", "thread", "itimer" */
	double effective_hz;	/* the rate stated: 1e9 / header.period_ns (as every reader says) */
	unsigned int hz;    /* the nominal rate in effect: below opts->hz when the kernel caps it */
	uint64_t throttled; /* samples the kernel did not take (throttled, or its timer late) */
	int kernel;	    /* the kernel's PCs were sampled (PDATA_F_KERNEL) */
	const char *callgraph_name; /* "none", "fp", "dwarf" (header.callgraph) */
	uint64_t stacks_truncated;  /* samples whose stack was cut short (header.truncated) */
	uint64_t stacks_dropped;    /* samples stored without their stack (frame table full) */
	/* the whole machine */
	unsigned int periods;	 /* --rotate: profiles written (kept or not) */
	uint64_t machine_ns;	 /* CPU time the recorded CPUs spent outside idle (/proc/stat) */
	int ncpus;		 /* CPUs recorded */
	uint64_t offcpu_ns;	 /* --off-cpu: nanoseconds off the CPU counted (header.offcpu_ns) */
	const char *offcpu_name; /* "bpf", "switch", "none" (header.offcpu) */
	/*
	 * Where the profile is at the end: opts->output, or OUTPUT.old when
	 * another recorder on the same -o moved it aside; "" when it is no
	 * longer at either name.  file_size: its size.
	 */
	char output[4096];
	uint64_t file_size;
};

/*
 * Run opts->argv (or attach to opts->attach_pid) until it ends (attach: or
 * until SIGINT/SIGTERM/SIGHUP/SIGQUIT), recording its profile into
 * opts->output.  Returns 0 when the profile was written (see
 * res->flush_err, res->warning), or -errno with one sentence in res->why:
 * then no profile is left behind and, for a command, the command never ran.
 * res->exit_status is set in both cases.
 */
int record__run(const struct record_opts *opts, struct record_result *res);

/*
 * What -a needs here, checked before anything is created: 0 when the
 * recorder may open CPU-wide events (root, CAP_PERFMON or CAP_SYS_ADMIN, or
 * kernel.perf_event_paranoid <= 0), else -EACCES with one sentence in why.
 */
int record__system_permitted(char *why, size_t whylen);

#endif /* PROFIL_RECORD_RECORD_H */
