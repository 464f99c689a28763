// SPDX-License-Identifier: MIT
/*
 * Recording a command: choose the clock, start the command stopped before
 * its exec, open the perf events on it (or hand it the agent), release it,
 * run the poll loop until it ends, and finish the profile.  See record.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent_env.h"
#include "events/record_events.h"
#include "profile/pdata.h"
#include "record/agent_launch.h"
#include "record/offcpu.h"
#include "record/offcpu_switch.h"
#include "record/perf_session.h"
#include "record/procacct.h"
#include "record/proctree.h"
#include "record/record.h"
#include "record/record_bpf.h"
#include "record/run.h"
#include "record/shquote.h"
#include "utils/cgroup.h"
#include "utils/install_dirs.h"
#include "utils/outfile.h"
#include "utils/procfile.h"
#include "utils/why.h"

/*
 * Find COMMAND as execvp would, so that a missing or non-executable one is
 * reported before anything is created.  Returns 0 and the path, or -errno.
 */
static int resolve_command(const char *cmd, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	int seen_eacces = 0;
	struct stat st;

	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return -EACCES;
		if (!realpath(cmd, out))
			snprintf(out, outlen, "%s", cmd);
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchrnul(path, ':');
		int dlen = (int)(colon - path);
		char cand[PATH_MAX];

		snprintf(cand, sizeof(cand), "%.*s%s%s", dlen, dlen ? path : ".", "/", cmd);
		if (stat(cand, &st) == 0) {
			if (!S_ISDIR(st.st_mode) && access(cand, X_OK) == 0) {
				if (!realpath(cand, out))
					snprintf(out, outlen, "%s", cand);
				return 0;
			}
			seen_eacces = 1;
		}
		path = *colon ? colon + 1 : colon;
	}
	return seen_eacces ? -EACCES : -ENOENT;
}

/* No output of the recording may replace the program or a file its arguments name. */
static void protect_command(char **argv, const char *exe)
{
	outfile__protect(exe, "the program being recorded");
	for (int i = 1; argv[i]; i++)
		outfile__protect(argv[i], "a file the recorded command names");
}

/* What the recorder tells the stopped child: how to exec. */
struct go_msg {
	char mode;   /* 'p' exec as is, 'a' exec with the agent, 'x' give up */
	char clock;  /* enum pdata_clock, agent mode */
	char stacks; /* agent mode: call stacks (unwound in the agent's signal handler) */
	unsigned int hz;
};

/*
 * Fork the command, stopped before exec on a pipe.  The parent then opens
 * perf events on it (or decides on the agent) and releases it with a go_msg.
 */
static int spawn_stopped(struct record_run *r, int *go_w, int *err_r, const char *agent_path)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct go_msg m = {.mode = 'x'};
		int e;

		close(go[1]);
		close(err[0]);
		close(r->sfd);
		/*
		 * The recorder's death takes the command with it (record.h).  Set
		 * before the go message is read: a recorder that dies before this
		 * closes the pipe, and the child gives up without running anything.
		 */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		if (read(go[0], &m, sizeof(m)) != (ssize_t)sizeof(m) || m.mode == 'x')
			_exit(127);
		close(go[0]);
		if (m.mode == 'a')
			agent_launch__prepare_child(pdata__fd(r->pd), m.clock, m.hz, r->o->inherit,
						    m.stacks, agent_path);
		execvp(r->o->argv[0], r->o->argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	r->child = pid;
	*go_w = go[1];
	*err_r = err[0];
	return 0;
}

/* What the agent's clocks count, for the clock note. */
#define AGENT_CLOCK_NOTE                                                                           \
	"; CPU-time timers count user and system time: a tick lands at the user PC where the "     \
	"kernel returns (system time shows in the code that called the kernel); the kernel "       \
	"checks them at its own tick, so above CONFIG_HZ a tick carries the periods it merged; "   \
	"per-image and per-thread CPU time from getrusage"

/*
 * The kernel's accounting of the tree where BPF is permitted: every
 * thread's CPU time and every process's exit status.  Else the task clock
 * of each thread (perf_session_opts.thread_cpu).
 */
static void open_accounting(struct record_run *r, struct perf_session_opts *po)
{
	char why[256];

	if (procacct__open(&r->acct, r->o->inherit, why, sizeof(why)) == 0 &&
	    procacct__track(r->acct, r->child) < 0) {
		procacct__close(r->acct);
		r->acct = NULL;
	}
	po->thread_cpu = !r->acct;
	po->thread_cpu_split = !r->bpf; /* the histogram's ticks do not pass the recorder */
}

/*
 * The agent's clocks take their call stacks in the sampled thread itself:
 * agent/unwind.c walks the CFI (.eh_frame) with libunwind in the signal
 * handler, so stacks are complete through code without frame pointers (fp
 * and dwarf both get that).  libunwind is loaded by the agent at run time:
 * without it (libunwind8 not installed) the profile is flat, and says so.
 */
static void agent_stacks(struct record_run *r)
{
	void *lib;

	r->callgraph = PDATA_CG_NONE;
	if (r->o->callgraph == RECORD_CG_NONE)
		return;
	lib = dlopen(PROFIL_LIBUNWIND_SO, RTLD_LAZY | RTLD_LOCAL);
	if (!lib) {
		if (!r->res->warning[0])
			snprintf(r->res->warning, sizeof(r->res->warning),
				 "call stacks of the %s clock need %s, which cannot be loaded "
				 "here: the profile is flat",
				 pdata__clock_name((uint32_t)r->clock), PROFIL_LIBUNWIND_SO);
		return;
	}
	dlclose(lib);
	r->callgraph = PDATA_CG_LIBUNWIND;
	snprintf(r->note + strlen(r->note), sizeof(r->note) - strlen(r->note),
		 "; call stacks unwound in the sampled thread (libunwind, the CFI)");
}

/* The agent's clocks and --off-cpu: said once, then CPU time is recorded. */
static void agent_offcpu(struct record_run *r)
{
	if (!r->o->offcpu)
		return;
	pdata__header(r->pd)->offcpu = PDATA_OFFCPU_NONE;
	snprintf(r->offcpu_note, sizeof(r->offcpu_note),
		 "not recorded: the %s clock's CPU-time timers do not run while a thread is off "
		 "the CPU, and interrupting its sleeps to sample them would shorten them; the "
		 "profile has CPU time only (off-CPU time needs the perf or bpf clock)",
		 pdata__clock_name((uint32_t)r->clock));
	if (!r->res->warning[0])
		snprintf(r->res->warning, sizeof(r->res->warning),
			 "--off-cpu: the %s clock cannot see time off the CPU without interrupting "
			 "the program's sleeps: recording CPU time only",
			 pdata__clock_name((uint32_t)r->clock));
}

/* The clock note of a perf-event clock, once its events are open. */
/*
 * auto with call stacks at this rate or more: the in-kernel walk, which
 * measured cheaper per second of the program than the recorder unwinding
 * the ring's copies from ~2 s of program CPU on at 9973 Hz (0.61x on 11 s),
 * not at 997 Hz (its load costs more than it saves under ~15 s).
 */
#define AUTO_KSTACKS_HZ 4000

static void perf_note(struct record_run *r)
{
	char rings[sizeof(r->sample_note) + sizeof(r->cg.dir) + 200];
	const char *tc;
	const char *capped = r->hz < r->o->hz ? ", rate capped by perf_event_max_sample_rate" : "";
	const char *acct = r->acct ? "the kernel's accounting (BPF: runtime, utime/stime split), "
				     "exit status of every process" :
				     "the task clock at each thread's exit, split into user and "
				     "system time by the samples; exit status of the command and "
				     "of the orphans it adopts";
	const char *what = "perf_event task-clock";

	if (record_bpf__kernel_stacks(r->bpf) && r->o->clock == PDATA_CLOCK_AUTO)
		what = "BPF program on task-clock, call stacks counted in the kernel (auto: at "
		       ">= 4 kHz the in-kernel walk costs less, doc/kstacks.md)";
	else if (record_bpf__kernel_stacks(r->bpf))
		what = "BPF program on task-clock, call stacks counted in the kernel";
	else if (r->bpf && r->callgraph != PDATA_CG_NONE)
		what = "BPF program on task-clock, every tick through the ring (this kernel cannot "
		       "walk stacks in BPF)";
	else if (r->bpf)
		what = "BPF histogram on task-clock";
	else if (r->o->clock == PDATA_CLOCK_AUTO && r->callgraph != PDATA_CG_NONE &&
		 r->o->hz >= AUTO_KSTACKS_HZ)
		what = "perf_event task-clock (auto: no in-kernel walk here)";
	else if (r->o->clock == PDATA_CLOCK_AUTO && r->callgraph != PDATA_CG_NONE)
		what = "perf_event task-clock (auto: below 4 kHz the recorder unwinding the ring's "
		       "copies costs less, doc/kstacks.md)";
	else if (r->o->clock == PDATA_CLOCK_AUTO)
		what = "perf_event task-clock (auto: the BPF histogram measured no cheaper, "
		       "doc/accounting.md)";
	if (r->by_cgroup)
		snprintf(
			rings, sizeof(rings),
			"per-CPU cpu-clock events of cgroup %s, where the recorder put the command "
			"(its tree; no cost at the tree's context switches), per-CPU rings",
			r->cg.dir);
	else
		snprintf(rings, sizeof(rings), "%s%s",
			 r->o->inherit ? "per-thread events, inherit, per-CPU rings" :
					 "per-thread events, threads only, per-CPU rings",
			 r->sample_note);
	/* a cgroup's events count the CPU's clock while its tasks run: cpu-clock */
	tc = r->by_cgroup ? strstr(what, "task-clock") : NULL;
	if (!tc)
		tc = what + strlen(what);
	snprintf(r->note, sizeof(r->note), "%.*s%s%s, %s%s; per-thread CPU time: %s",
		 (int)(tc - what), what, *tc ? "cpu-clock" : "", *tc ? tc + 10 : "", rings, capped,
		 acct);
}

/* auto's in-kernel walk, where it loads with its stacks; else nothing (the perf clock). */
static void open_auto_kstacks(struct record_run *r)
{
	char bwhy[256];

	if (record_bpf__open(&r->bpf, r->pd, 1, bwhy, sizeof(bwhy)) < 0)
		return;
	if (!record_bpf__kernel_stacks(r->bpf)) { /* every tick through the ring: no gain */
		record_bpf__close(r->bpf);
		r->bpf = NULL;
	}
}

/* Per-thread events where a cgroup was wanted: the note's clause, and one line on stderr. */
static void sample_by_thread(struct record_run *r, const char *why)
{
	snprintf(r->sample_note, sizeof(r->sample_note), " (not by a cgroup: %s)", why);
	if (!r->res->warning[0])
		snprintf(r->res->warning, sizeof(r->res->warning),
			 "--off-cpu: CPU samples by per-thread events, a cost at each "
			 "context switch (not by a cgroup: %.120s)",
			 why);
}

/*
 * The tree sampled by its cgroup (record.h's sample_by): the cgroup made and
 * the stopped command put in it, po told.  1 when chosen; 0 when not (with
 * auto, r->sample_note says why when it was wanted); -errno when
 * --sample-by cgroup cannot be had (why said).
 */
static int open_sample_cgroup(struct record_run *r, struct perf_session_opts *po, char *why,
			      size_t whylen)
{
	const struct record_opts *o = r->o;
	char cwhy[300] = "";
	int rc = -EPERM;

	if (o->sample_by == RECORD_SAMPLE_THREAD ||
	    (o->sample_by == RECORD_SAMPLE_AUTO && !o->offcpu))
		return 0;
	if (!o->inherit)
		snprintf(cwhy, sizeof(cwhy), "--no-inherit follows the command's threads only");
	else if (!r->acct) /* the cgroup's events count no thread's time */
		snprintf(
			cwhy, sizeof(cwhy),
			"the threads' CPU times need the kernel's accounting (BPF), not permitted");
	else if ((rc = cgroup__run_make(&r->cg, "profil-record", cwhy, sizeof(cwhy))) == 0 &&
		 (rc = cgroup__run_enter(&r->cg, r->child)) < 0) {
		snprintf(cwhy, sizeof(cwhy), "cannot put the command in %.100s%.120s: %s",
			 r->cg.mnt, r->cg.dir, strerror(-rc));
		cgroup__run_remove(&r->cg);
	}
	if (!cwhy[0]) {
		po->by_cgroup = r->by_cgroup = 1;
		po->cgroup_fd = r->cg.fd;
		return 1;
	}
	if (o->sample_by == RECORD_SAMPLE_CGROUP)
		return why_fail(why, whylen, rc < 0 ? rc : -EPERM, "--sample-by cgroup: %s", cwhy);
	sample_by_thread(r, cwhy);
	return 0;
}

/*
 * The perf session on the command, by its cgroup when chosen; with auto, a
 * cgroup whose events cannot be opened gives way to per-thread events.
 */
static int open_session(struct record_run *r, struct perf_session_opts *po, char *why,
			size_t whylen)
{
	char cwhy[300];
	int rc = open_sample_cgroup(r, po, why, whylen);

	if (rc < 0)
		return rc;
	rc = perf_session__open(&r->perf, r->pd, po, &r->child, 1, why, whylen);
	if (rc == 0 || !po->by_cgroup)
		return rc;
	cgroup__run_remove(&r->cg); /* the command back where it was */
	po->by_cgroup = r->by_cgroup = 0;
	if (r->o->sample_by == RECORD_SAMPLE_CGROUP)
		return rc;
	snprintf(cwhy, sizeof(cwhy), "%.290s", why);
	sample_by_thread(r, cwhy);
	return perf_session__open(&r->perf, r->pd, po, &r->child, 1, why, whylen);
}

/* Returns 0 with perf on, 1 to use the agent, or -errno (why filled). */
static int choose_clock_for_child(struct record_run *r, char *why, size_t whylen)
{
	struct perf_session_opts po = {.hz = r->hz,
				       .follow_children = r->o->inherit,
				       .kernel = 1,
				       .callgraph = record_run__perf_callgraph(r->o),
				       .stack_bytes = r->o->stack_bytes};
	const char *simulated = getenv(PROFIL_ENV_SIMULATE_PERF_ERRNO);
	int rc;

	if (r->o->clock == PDATA_CLOCK_THREAD || r->o->clock == PDATA_CLOCK_ITIMER) {
		r->clock = (int)r->o->clock;
		snprintf(r->note, sizeof(r->note), "%s clock asked for (--clock)%s",
			 pdata__clock_name(r->o->clock), AGENT_CLOCK_NOTE);
		agent_stacks(r);
		agent_offcpu(r);
		return 1;
	}
	/*
	 * The kernel-side histogram when asked for.  Not auto's without call
	 * stacks: it measured no cheaper than the perf clock here, at 1 and 10
	 * kHz, on one process or a build (doc/accounting.md).  With call stacks
	 * at AUTO_KSTACKS_HZ or more, auto's when it loads: the in-kernel walk
	 * (bench/results/callgraph.md, doc/kstacks.md).
	 */
	if (r->o->clock == PDATA_CLOCK_BPF) {
		char bwhy[256];

		rc = record_bpf__open(&r->bpf, r->pd, po.callgraph != PDATA_CG_NONE, bwhy,
				      sizeof(bwhy));
		if (rc < 0) {
			snprintf(why, whylen, "%s", bwhy);
			return rc;
		}
	} else if (r->o->clock == PDATA_CLOCK_AUTO && po.callgraph == PDATA_CG_DWARF &&
		   r->o->hz >= AUTO_KSTACKS_HZ) {
		open_auto_kstacks(r);
	}
	if (r->bpf) {
		record_bpf__track(r->bpf, r->child);
		po.observer = record_bpf__observer(r->bpf);
	}
	open_accounting(r, &po);
	record_run__open_offcpu(r, &po, r->child, 0);
	rc = open_session(r, &po, why, whylen);
	if (rc == 0) {
		record_run__offcpu_session(r);
		r->clock = r->bpf ? PDATA_CLOCK_BPF : PDATA_CLOCK_PERF;
		r->callgraph = record_bpf__kernel_stacks(r->bpf) ? PDATA_CG_KERNEL : po.callgraph;
		perf_note(r);
		return 0;
	}
	record_bpf__close(r->bpf);
	r->bpf = NULL;
	procacct__close(r->acct);
	r->acct = NULL;
	record_run__close_offcpu(r);
	/* what was asked for perf events, the agent cannot give */
	if (r->o->clock == PDATA_CLOCK_PERF || r->o->clock == PDATA_CLOCK_BPF ||
	    r->o->sample_by == RECORD_SAMPLE_CGROUP)
		return rc;
	/* auto: anything perf cannot do here (refused, or e.g. no ring memory) falls back */
	r->clock = PDATA_CLOCK_THREAD;
	snprintf(r->note, sizeof(r->note), "perf %s: %s%s; LD_PRELOAD agent, thread clock%s",
		 perf_errno_is_refusal(-rc) ? "refused" : "failed",
		 strerrorname_np(-rc) ? strerrorname_np(-rc) : "error",
		 simulated && *simulated ? " (simulated)" : "", AGENT_CLOCK_NOTE);
	agent_stacks(r);
	agent_offcpu(r);
	return 1;
}

static int exit_status_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The scheduler's runtime of thread tid (ns) from /proc/PID/task/TID/schedstat, 0 unknown. */
static uint64_t schedstat_ns(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	return (uint64_t)procfile__number(path, 0);
}

/*
 * The command ended.  While it is a zombie, its thread's runtime: the one
 * thread whose task clock no READ record reports (its events are ours, not
 * inherited).  Then reap it.
 */
static void root_ended(struct record_run *r)
{
	if (r->perf && !r->acct)
		r->root_runtime_ns = schedstat_ns(r->child, r->child);
	if (wait4(r->child, &r->status, 0, &r->ru) == r->child)
		r->exited = 1;
}

/*
 * Every child that ended: the command, and the orphans of its tree that the
 * recorder adopted as their subreaper (their status is theirs to know
 * only: perf reports no exit status).
 */
static void reap_children(struct record_run *r)
{
	for (;;) {
		siginfo_t si = {0};
		int status;

		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid <= 0)
			return;
		if (si.si_pid == r->child) {
			if (r->exited)
				return;
			root_ended(r);
			continue;
		}
		if (waitpid(si.si_pid, &status, 0) == si.si_pid && r->perf)
			perf_session__set_status(r->perf, si.si_pid, status);
	}
}

static void run_loop(struct record_run *r)
{
	while (!r->exited) {
		record_run__poll_once(r, record_bpf__wake_fd(r->bpf));
		reap_children(r);
		if (r->perf)
			perf_session__drain(r->perf, 0);
		record_run__account(r, 0);
		record_bpf__flush(r->bpf, r->perf ? perf_session__handled_until(r->perf) : 0);
		offcpu__poll(r->offcpu, r->perf);
		record_events__poll(r->events);
	}
}

/*
 * The kernel's accounting of the command's last thread comes at its last
 * switch, which may follow the wait that reaped it by a few microseconds.
 */
static void await_root_accounting(struct record_run *r)
{
	for (int i = 0; r->acct && i < 40 && !procacct__root_ended(r->acct); i++) {
		procacct__read(r->acct);
		if (!procacct__root_ended(r->acct))
			usleep(5000);
	}
}

/* The command could not be run: 127 when it does not exist, else 126 (as a shell says). */
static int cannot_run(struct record_result *res, const char *cmd, int err)
{
	res->exit_status = err == ENOENT || err == ENOTDIR ? 127 : 126;
	return why_fail(res->why, sizeof(res->why), -err, "cannot run '%s': %s", cmd,
			strerror(err));
}

/* After the command ended: its end, the header, the event stream's last events. */
static void finish_command(struct record_run *r, int use_agent)
{
	struct pdata_header *h = pdata__header(r->pd);
	struct pdata_proc *root;
	struct pdata_cpu tree;
	int kind, code;

	reap_children(r); /* orphans that ended meanwhile: their CPU time and status */
	await_root_accounting(r);
	if (r->perf)
		perf_session__drain(r->perf, 1);
	record_run__account(r, 1);
	if (r->perf && r->root_runtime_ns) /* after every sample of it is counted: its split */
		perf_session__thread_total(r->perf, r->child, r->root_runtime_ns);
	record_bpf__flush(r->bpf, UINT64_MAX);
	record_run__finish_offcpu(
		r); /* before the kernel's symbols: its stacks name kernel functions */
	record_run__kernel(r);
	root = record_run__latest_proc(r->pd, r->child);
	if (!root) {
		/* the agent never ran (a static program cannot LD_PRELOAD) */
		root = pdata__add_proc(r->pd, r->child, getpid(), 0, r->exe, h->start_ns);
		if (use_agent)
			snprintf(
				r->res->warning, sizeof(r->res->warning),
				"the agent did not load into '%s' (statically linked?): no samples",
				r->o->argv[0]);
	}
	record_decode_status(r->status, &kind, &code);
	h->end_kind = kind;
	h->end_code = code;
	if (root)
		pdata__end_proc(root, kind, code, pdata__now_ns(), NULL);
	/* the tree's CPU time as the kernel accounts it for the recorder's children */
	record_run__children_cpu(r, &tree);
	record_run__finish_header(r, &tree);
	record_events__finish(r->events);
	record_events__close(r->events, r->res->events_error, sizeof(r->res->events_error));
	r->events = NULL;
	record_run__finish(r);
	r->res->exit_status = exit_status_of(r->status);
}

/* Close the clocks' sources: the perf session, the BPF histogram, the kernel's accounting. */
static void close_sources(struct record_run *r)
{
	perf_session__close(r->perf);
	record_bpf__close(r->bpf);
	procacct__close(r->acct);
	record_run__close_offcpu(r);
	/* after the command ended: what of its tree outlives it goes back where it was */
	cgroup__run_remove(&r->cg);
}

/* A start that failed: the event stream and the profile go, as if never made. */
static void discard(struct record_run *r)
{
	record_events__close(r->events, NULL, 0);
	pdata__close(r->pd);
	unlink(r->o->output);
	if (r->sfd >= 0)
		close(r->sfd);
}

/*
 * Before the command starts: the executable found, the rate, the profile
 * and the event stream created.  0, or -errno (why said; nothing left).
 */
static int prepare(struct record_run *r)
{
	const struct record_opts *o = r->o;
	struct record_result *res = r->res;
	unsigned int cap;
	int rc;

	/*
	 * The tree's orphans become the recorder's children: their exit status
	 * and CPU time are then known (getppid() in an orphan says the recorder,
	 * where it said a subreaper above or init).
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	getrusage(RUSAGE_CHILDREN, &r->children0);
	rc = resolve_command(o->argv[0], r->exe, sizeof(r->exe));
	if (rc < 0)
		return cannot_run(res, o->argv[0], -rc);
	protect_command(o->argv, r->exe);
	r->hz = o->hz;
	cap = record_run__max_perf_rate();
	if (o->clock != PDATA_CLOCK_THREAD && o->clock != PDATA_CLOCK_ITIMER && cap && r->hz > cap)
		r->hz = cap;
	rc = record_run__create(r, res->why, sizeof(res->why));
	if (rc < 0)
		return rc;
	pdata__exit_on_truncation(r->pd, "profil record", o->output);
	if (o->events) {
		rc = record_events__open(&r->events, o->events, res->why, sizeof(res->why));
		if (rc < 0) {
			discard(r);
			return rc;
		}
		record_events__export_fd(r->events);
	}
	return 0;
}

/* The clock of the stopped child: 0 perf events, 1 the agent, or -errno (why said). */
static int pick_clock(struct record_run *r, int have_agent)
{
	int use_agent = choose_clock_for_child(r, r->res->why, sizeof(r->res->why));

	if (use_agent <= 0)
		return use_agent;
	r->hz = r->o->hz;
	if (!have_agent)
		return why_fail(r->res->why, sizeof(r->res->why), -ENOENT,
				"%s%sthe fallback agent %s is not installed (neither next to "
				"profil nor in %s)",
				r->note, "; ", PROFIL_AGENT_SO_NAME,
				install_dirs__configured(INSTALL_DIR_AGENT));
	return 1;
}

/* The header's fields of the command, the profile's root, the event stream started. */
static void start_profile(struct record_run *r, int use_agent)
{
	struct pdata_header *h = pdata__header(r->pd);
	char cmdline[2048];

	shquote__argv(cmdline, sizeof(cmdline), r->o->argv, -1);
	snprintf(h->command, sizeof(h->command), "%s", cmdline);
	h->root_pid = r->child;
	h->flags = r->o->inherit ? PDATA_F_INHERIT : 0;
	record_run__start_header(r);
	if (!use_agent)
		perf_session__add_root(r->perf, r->child, getpid(), r->exe, 0);
	if (r->events)
		record_events__start(r->events, r->pd, r->clock);
}

/* Let the stopped child exec the command (with the agent or not).  0, or -errno (why said). */
static int release_child(struct record_run *r, int use_agent, int go_w)
{
	struct go_msg msg = {0};

	msg.mode = use_agent ? 'a' : 'p';
	msg.clock = (char)r->clock;
	msg.stacks = use_agent && r->callgraph == PDATA_CG_LIBUNWIND;
	msg.hz = r->hz;
	if (write(go_w, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return why_fail(r->res->why, sizeof(r->res->why), -errno, "cannot start '%s': %s",
				r->o->argv[0], strerror(errno));
	return 0;
}

/* The stopped child told to exit without running anything, and reaped. */
static void abort_child(struct record_run *r, int go_w, int err_r)
{
	struct go_msg msg = {.mode = 'x'};

	if (go_w >= 0) {
		if (write(go_w, &msg, sizeof(msg)) < 0)
			msg.mode = 0;
		close(go_w);
	}
	if (err_r >= 0)
		close(err_r);
	if (r->child > 0)
		waitpid(r->child, NULL, 0);
}

/* The error pipe closes on a successful exec, else it carries errno: 1 with *err then. */
static int exec_failed(int err_r, int *err)
{
	int rc;

	*err = 0;
	while ((rc = (int)read(err_r, err, sizeof(*err))) < 0 && errno == EINTR)
		;
	close(err_r);
	return rc == (int)sizeof(*err);
}

int record__command(const struct record_opts *o, struct record_result *res)
{
	struct record_run r = {.o = o, .res = res, .sfd = -1};
	char agent[PATH_MAX] = "";
	int go_w = -1, err_r = -1, use_agent, rc, exec_errno, have_agent;

	rc = prepare(&r);
	if (rc < 0)
		return rc;
	have_agent = agent_launch__find(agent, sizeof(agent)) == 0;
	rc = record_run__setup_signals(&r);
	if (rc == 0)
		rc = spawn_stopped(&r, &go_w, &err_r, agent);
	if (rc < 0) {
		why_fail(res->why, sizeof(res->why), rc, "cannot start '%s': %s", o->argv[0],
			 strerror(-rc));
		discard(&r);
		return rc;
	}
	rc = use_agent = pick_clock(&r, have_agent);
	if (rc >= 0) {
		start_profile(&r, use_agent);
		rc = release_child(&r, use_agent, go_w);
	}
	if (rc < 0) {
		abort_child(&r, go_w, err_r);
		close_sources(&r);
		discard(&r);
		return rc;
	}
	close(go_w);
	if (exec_failed(err_r, &exec_errno)) {
		waitpid(r.child, NULL, 0);
		close_sources(&r);
		discard(&r);
		return cannot_run(res, o->argv[0], exec_errno);
	}
	run_loop(&r);
	finish_command(&r, use_agent);
	close_sources(&r);
	pdata__close(r.pd);
	close(r.sfd);
	return 0;
}
