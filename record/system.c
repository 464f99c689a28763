// SPDX-License-Identifier: MIT
/*
 * `profil record -a`: the whole machine.  One cpu-clock sampling event per
 * CPU on every task (the idle task excluded), user and kernel, enabled at
 * once; the same perf session as for a command (record/perf_session.c) in
 * its system mode: a process is described when its first sample comes
 * (from /proc when it existed before, from its FORK, COMM and MMAP2
 * records when it started since), with where it ran (cgroup, pid
 * namespace, mount namespace: PDATA_REC_PROC_CTX).  Nothing is stopped and
 * nothing is read of the processes that do not run.
 *
 * It records while COMMAND runs (started once the events are on, as an
 * ordinary child), for --duration, or until SIGINT/SIGTERM/SIGHUP.
 *
 * --rotate: the records are handled in time order, so a profile can end at
 * an exact instant: at every boundary the records stamped up to it go into
 * the finished period's profile, the later ones into the next (no gap, no
 * overlap), whose processes are described again as they run.  Each period's
 * header has its own start and end and the CPUs' busy time in it
 * (/proc/stat), against which its samples can be counted.
 *
 * Every profile of the whole machine is mode 0600: it holds other users'
 * command lines and code addresses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "record/cpulist.h"
#include "record/ksyms.h"
#include "record/perf_session.h"
#include "record/record.h"
#include "record/record_bpf.h"
#include "record/run.h"
#include "record/shquote.h"
#include "utils/caps.h"
#include "utils/procfile.h"
#include "utils/why.h"

#define SYSTEM_RECORDS (32u << 20) /* a long recording of a busy machine's processes */
#define SYSTEM_SLOTS (1u << 18)	   /* samples of unknown length: 8 MiB (longer: --rotate) */
#define CUT_MARGIN_NS 5000000ull   /* a record is in its ring this long after its stamp */
#define PRUNE_EVERY_NS 2000000000ull
#define SYSTEM_NICE (-10) /* the recorder's priority where it may raise it */

struct system_run {
	struct record_run r;
	int *cpus;
	int ncpus;
	uint64_t mono0, real0; /* CLOCK_MONOTONIC and CLOCK_REALTIME at the start, for stamps */
	uint64_t deadline;     /* CLOCK_MONOTONIC ns, 0: none */
	uint64_t last_prune;
	/* the period being recorded */
	uint64_t period_ns; /* --rotate (or the hook's period), 0: one profile */
	uint64_t cut;	    /* CLOCK_MONOTONIC end of the current period */
	uint64_t start_real;
	uint64_t busy0; /* the CPUs' busy ns at its start */
	char path[PATH_MAX];
	char dir[PATH_MAX - 64]; /* room for the period's file name */
	char base_note[512];
	char command[2048];
	/* this run's period files, oldest first (for --keep) */
	char **files;
	size_t nfiles;
	uint64_t samples, lost;
	unsigned int seq; /* the hook's period files */
	int reniced;	  /* it runs at SYSTEM_NICE */
	int nice0;	  /* the caller's, for the command */
	int hook_stop;
};

/* ---- what -a needs --------------------------------------------------------- */

int record__system_permitted(char *why, size_t whylen)
{
	int paranoid = (int)procfile__number("/proc/sys/kernel/perf_event_paranoid", 2);
	uint64_t eff = caps__effective();

	if (geteuid() == 0 || paranoid <= 0 || (eff & (1ull << CAPS_PERFMON)) ||
	    (eff & (1ull << CAPS_SYS_ADMIN)))
		return 0;
	return why_fail(why, whylen, -EACCES,
			"recording the whole machine (-a) needs root, CAP_PERFMON or "
			"kernel.perf_event_paranoid <= 0 (it is %d here)",
			paranoid);
}

/* ---- the CPUs ---------------------------------------------------------------- */

static int choose_cpus(struct system_run *s, char *why, size_t whylen)
{
	int *online = NULL, *possible = NULL, n, np, rc = 0;

	n = cpulist__read("online", &online);
	if (n <= 0)
		return why_fail(why, whylen, n < 0 ? n : -ENODEV, "cannot list the online CPUs");
	if (!s->r.o->cpu_list) {
		s->cpus = online;
		s->ncpus = n;
		return 0;
	}
	np = cpulist__read("possible", &possible);
	rc = cpulist__parse(s->r.o->cpu_list, &s->cpus, why, whylen);
	for (int i = 0; rc > 0 && i < rc; i++) {
		int c = s->cpus[i];

		if (!cpulist__has(possible, np, c))
			rc = why_fail(why, whylen, -ENODEV,
				      "there is no CPU %d here (-C takes CPUs 0 to %d)", c,
				      np > 0 ? possible[np - 1] : 0);
		else if (!cpulist__has(online, n, c))
			rc = why_fail(why, whylen, -ENODEV, "CPU %d is offline", c);
	}
	if (rc > 0)
		s->ncpus = rc;
	free(online);
	free(possible);
	return rc > 0 ? 0 : rc;
}

/*
 * Busy time of the recorded CPUs (ns) as the kernel counts it in /proc/stat:
 * user, nice, system, irq and softirq; not idle, iowait, nor steal (time
 * the hypervisor gave to others).
 */
static uint64_t busy_ns(const struct system_run *s)
{
	char line[512];
	unsigned long long total = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[7] = {0};
		int cpu;

		if (strncmp(line, "cpu", 3) ||
		    sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6]) < 8 ||
		    !cpulist__has(s->cpus, s->ncpus, cpu))
			continue;
		total += v[0] + v[1] + v[2] + v[5] + v[6];
	}
	fclose(f);
	return hz > 0 ? total * (1000000000ull / (unsigned long long)hz) : 0;
}

/* ---- the profiles ------------------------------------------------------------ */

static uint32_t pow2_at_least(uint64_t n, uint32_t lo, uint32_t hi)
{
	uint32_t v = lo;

	while (v < n && v < hi)
		v <<= 1;
	return v;
}

/* Sized for a period: at most hz * CPUs * seconds samples (twice the slots). */
static int create_profile(struct system_run *s, const char *path, char *why, size_t whylen)
{
	const struct record_opts *o = s->r.o;
	struct pdata_create_opts co = {.mode = 0600, .records_cap = SYSTEM_RECORDS};

	uint64_t seconds = s->period_ns	   ? s->period_ns / 1000000000ull + 1 :
			   o->duration > 0 ? (uint64_t)o->duration + 1 :
					     0;

	if (o->callgraph != RECORD_CG_NONE)
		co.frame_slots = PDATA_DEFAULT_FRAMES;
	/*
	 * A slot is a page touched, then written back and freed at the end: a
	 * table much larger than the samples can fill costs the recorder more
	 * than its samples (1M slots for 3 s: 0.05 s of CPU and seconds of I/O)
	 */
	co.table_slots = SYSTEM_SLOTS;
	if (seconds) {
		uint64_t most = (uint64_t)s->r.hz * (uint64_t)s->ncpus * seconds;

		co.table_slots = pow2_at_least(2 * most, 4096, PDATA_DEFAULT_SLOTS);
		if (s->period_ns)
			co.records_cap = PDATA_DEFAULT_RECORDS;
		if (co.frame_slots)
			co.frame_slots = pow2_at_least(32 * most, 16384, PDATA_DEFAULT_FRAMES);
	}
	return pdata__create(&s->r.pd, path, &co, why, whylen);
}

/* The header of a profile, as far as it is known at its start (busy: busy_ns() then). */
static void start_profile(struct system_run *s, uint64_t start_real, uint64_t busy)
{
	struct pdata_header *h = pdata__header(s->r.pd);

	snprintf(h->command, sizeof(h->command), "%s", s->command);
	h->root_pid = s->r.child > 0 ? s->r.child : 0;
	h->flags = PDATA_F_SYSTEM | PDATA_F_INHERIT;
	h->start_ns = start_real;
	s->start_real = start_real;
	s->busy0 = busy;
	snprintf(s->r.note, sizeof(s->r.note), "%s", s->base_note);
	record_run__start_header(&s->r);
}

/* The name of the period that starts at real (ns, CLOCK_REALTIME), in UTC. */
static void period_path(struct system_run *s, uint64_t real, char *buf, size_t len)
{
	time_t t = (time_t)(real / 1000000000ull);
	struct tm tm;
	char stamp[32];

	if (s->r.o->hook) { /* periods shorter than a second: numbered */
		snprintf(buf, len, "%s/period-%u.data", s->dir, s->seq++);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, len, "%s/profil-%s.data", s->dir, stamp);
}

/* Kernel symbols, the header's last fields, complete and compact: the profile is done. */
static void finish_profile(struct system_run *s, uint64_t end_real, uint64_t busy)
{
	struct pdata_header *h = pdata__header(s->r.pd);
	struct pdata_cpu machine = {busy > s->busy0 ? busy - s->busy0 : 0, 0, 0};
	char why[200];

	record_run__kernel(&s->r);
	record_run__finish_header(&s->r, &machine);
	s->r.res->machine_ns += machine.cpu_ns;
	s->r.res->flush_err = pdata__finish(s->r.pd);
	h->end_ns = end_real; /* the period's end exactly: the next one starts there */
	if (!s->r.res->flush_err && pdata__compact(s->r.pd, s->path, why, sizeof(why)) < 0 &&
	    !s->r.res->warning[0])
		snprintf(s->r.res->warning, sizeof(s->r.res->warning),
			 "%s (the profile is complete, at full size)", why);
	s->samples += h->samples;
	s->lost += h->lost + h->dropped;
	s->r.res->stacks_truncated += h->truncated;
	s->r.res->stacks_dropped += h->stacks_dropped;
	s->r.res->throttled += h->throttled;
	s->r.res->kernel = (h->flags & PDATA_F_KERNEL) != 0;
}

static uint64_t real_of(const struct system_run *s, uint64_t mono)
{
	return s->real0 + (mono - s->mono0);
}

/* --keep: remove this run's oldest period files beyond keep. */
static void keep_newest(struct system_run *s, const char *done)
{
	char **n = realloc(s->files, (s->nfiles + 1) * sizeof(*n));

	if (!n || !(n[s->nfiles] = strdup(done))) {
		s->files = n ? n : s->files;
		return;
	}
	s->files = n;
	s->nfiles++;
	while (s->r.o->keep && s->nfiles > s->r.o->keep) {
		unlink(s->files[0]);
		free(s->files[0]);
		memmove(s->files, s->files + 1, (s->nfiles - 1) * sizeof(*s->files));
		s->nfiles--;
	}
}

/* The period's file is complete: hand it to the hook (which removes it), or keep it. */
static void period_done(struct system_run *s, const char *path)
{
	const struct record_hook *hook = s->r.o->hook;

	s->r.res->periods++;
	if (hook && hook->period) {
		if (hook->period(hook->arg, path))
			s->hook_stop = 1;
		return;
	}
	keep_newest(s, path);
}

/*
 * The period ends at s->cut: its records go into its profile, which is
 * finished, and the next period's profile takes the later ones.  A next
 * profile that cannot be created ends the recording (said in the warning).
 */
static int rotate(struct system_run *s)
{
	struct pdata *old = s->r.pd;
	char done[PATH_MAX], why[160];
	uint64_t cut_real = real_of(s, s->cut);

	uint64_t busy = busy_ns(s); /* read once: the end of one period, the start of the next */

	perf_session__drain_to(s->r.perf, s->cut);
	record_bpf__flush(s->r.bpf, s->cut);
	finish_profile(s, cut_real, busy);
	snprintf(done, sizeof(done), "%s", s->path);
	period_path(s, cut_real, s->path, sizeof(s->path));
	if (create_profile(s, s->path, why, sizeof(why)) < 0) {
		snprintf(s->r.res->warning, sizeof(s->r.res->warning),
			 "the recording stopped after %u periods: %s", s->r.res->periods + 1, why);
		pdata__close(old); /* the session is not drained again (finish_system) */
		s->r.pd = NULL;
		period_done(s, done);
		return -1;
	}
	perf_session__switch(s->r.perf, s->r.pd);
	pdata__close(old);
	start_profile(s, cut_real, busy);
	s->cut += s->period_ns;
	period_done(s, done);
	return 0;
}

/* ---- the loop ------------------------------------------------------------------ */

static int child_ended(struct system_run *s)
{
	if (s->r.child <= 0 || s->r.exited)
		return s->r.exited;
	if (waitpid(s->r.child, &s->r.status, WNOHANG) == s->r.child)
		s->r.exited = 1;
	return s->r.exited;
}

/* The poll's timeout: the next cut (and its margin) or the deadline, at most 50 ms. */
static void set_timeout(struct system_run *s, uint64_t now)
{
	uint64_t until = now + 50000000ull;

	if (s->period_ns && s->cut + CUT_MARGIN_NS < until)
		until = s->cut + CUT_MARGIN_NS;
	if (s->deadline && s->deadline < until)
		until = s->deadline;
	s->r.poll_ms = until > now ? (int)((until - now + 999999) / 1000000) : 1;
	if (s->r.poll_ms < 1)
		s->r.poll_ms = 1;
}

static void system_loop(struct system_run *s)
{
	const struct record_hook *hook = s->r.o->hook;

	for (;;) {
		uint64_t now = pdata__clock_ns(CLOCK_MONOTONIC);
		int ready;

		set_timeout(s, now);
		ready = record_run__poll_once(&s->r, hook ? hook->fd : -1);
		perf_session__drain(s->r.perf, 0);
		record_bpf__flush(s->r.bpf, perf_session__handled_until(s->r.perf));
		if (ready && hook->ready && hook->ready(hook->arg))
			s->hook_stop = 1;
		now = pdata__clock_ns(CLOCK_MONOTONIC);
		while (s->period_ns && now >= s->cut + CUT_MARGIN_NS && !s->hook_stop)
			if (rotate(s) < 0)
				return;
		if (now - s->last_prune >= PRUNE_EVERY_NS) {
			perf_session__prune(s->r.perf);
			s->last_prune = now;
		}
		if (s->r.detached || s->hook_stop || child_ended(s) ||
		    (s->deadline && now >= s->deadline))
			break;
	}
}

/* ---- the command -------------------------------------------------------------- */

/* Start COMMAND as an ordinary child, once the events are on.  Returns 0 or -errno (why). */
static int start_command(struct system_run *s, char *why, size_t whylen)
{
	int err[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(err, O_CLOEXEC) < 0)
		return why_fail(why, whylen, -errno, "cannot start '%s': %s", s->r.o->argv[0],
				strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(err[0]);
		close(err[1]);
		return why_fail(why, whylen, -errno, "cannot start '%s': %s", s->r.o->argv[0],
				strerror(errno));
	}
	if (pid == 0) {
		close(err[0]);
		close(s->r.sfd);
		sigprocmask(SIG_SETMASK, &s->r.oldmask, NULL);
		if (s->reniced) /* the command at the caller's priority */
			setpriority(PRIO_PROCESS, 0, s->nice0);
		execvp(s->r.o->argv[0], s->r.o->argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(err[1]);
	s->r.child = pid;
	while ((n = read(err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		s->r.child = 0;
		s->r.res->exit_status = e == ENOENT || e == ENOTDIR ? 127 : 126;
		return why_fail(why, whylen, -e, "cannot run '%s': %s", s->r.o->argv[0],
				strerror(e));
	}
	return 0;
}

/* ---- setting up ------------------------------------------------------------------ */

static void describe(struct system_run *s)
{
	const struct record_opts *o = s->r.o;
	char cmd[sizeof(s->command) - 64] = "";

	if (o->argv && *o->argv)
		shquote__argv(cmd, sizeof(cmd), o->argv, -1);
	snprintf(s->command, sizeof(s->command), "%s%s%s", "profil record -a", cmd[0] ? " -- " : "",
		 cmd);
	snprintf(s->base_note, sizeof(s->base_note),
		 "%s on %d CPU%s, every task but the idle one (perf_event cpu-clock, per-CPU "
		 "rings)%s; processes described when they first run (/proc for those already "
		 "running); cpu_ns: the CPUs' busy time (/proc/stat: user, nice, system, irq, "
		 "softirq; not steal)%s",
		 s->r.bpf ? "BPF histogram" : "perf_event", s->ncpus, s->ncpus == 1 ? "" : "s",
		 s->r.hz < o->hz ? ", rate capped by perf_event_max_sample_rate" : "",
		 s->reniced ? "; the recorder at nice -10" : "");
}

/*
 * The clock of a whole machine: perf, measured cheapest here (doc/system.md:
 * at 99 and 997 Hz the recorder's work per sample is the same either way and
 * the BPF clock adds a block of bins per (thread, granule) to give and take
 * back); --clock bpf when asked.
 */
static int open_session(struct system_run *s, char *why, size_t whylen)
{
	const struct record_opts *o = s->r.o;
	struct perf_session_opts po = {.hz = s->r.hz,
				       .system = 1,
				       .follow_children = 1,
				       .cpus = s->cpus,
				       .ncpus = s->ncpus,
				       .kernel = 1,
				       .callgraph = record_run__perf_callgraph(o),
				       .stack_bytes = o->stack_bytes};
	int rc;

	if (o->clock == PDATA_CLOCK_BPF && po.callgraph != PDATA_CG_NONE)
		return why_fail(why, whylen, -EINVAL,
				"-a with --clock bpf records flat profiles (its call stacks follow "
				"one command's tree): leave out -g, or take the perf clock");
	if (o->clock == PDATA_CLOCK_BPF) {
		rc = record_bpf__open(&s->r.bpf, s->r.pd, po.callgraph != PDATA_CG_NONE, why,
				      whylen);
		if (rc < 0)
			return rc;
		po.observer = record_bpf__observer(s->r.bpf);
	}
	rc = perf_session__open(&s->r.perf, s->r.pd, &po, NULL, 0, why, whylen);
	if (rc < 0)
		return rc;
	s->r.clock = s->r.bpf ? PDATA_CLOCK_BPF : PDATA_CLOCK_PERF;
	s->r.callgraph = po.callgraph;
	return 0;
}

/* The output: a file, or with --rotate a directory (made 0700 when missing). */
static int prepare_output(struct system_run *s, char *why, size_t whylen)
{
	const struct record_opts *o = s->r.o;
	struct stat st;

	if (!s->period_ns) {
		snprintf(s->path, sizeof(s->path), "%s", o->output);
		return create_profile(s, s->path, why, whylen);
	}
	if (o->hook) { /* the hook's own directory */
		period_path(s, s->real0, s->path, sizeof(s->path));
		return create_profile(s, s->path, why, whylen);
	}
	if (strlen(o->output) >= sizeof(s->dir))
		return why_fail(why, whylen, -ENAMETOOLONG, "the directory name is too long");
	snprintf(s->dir, sizeof(s->dir), "%s", o->output);
	if (mkdir(s->dir, 0700) < 0 && errno != EEXIST)
		return why_fail(why, whylen, -errno, "cannot make the directory %s: %s", s->dir,
				strerror(errno));
	if (lstat(s->dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return why_fail(why, whylen, -ENOTDIR,
				"%s is not a directory (--rotate writes one profile per period "
				"into the directory -o names)",
				s->dir);
	period_path(s, s->real0, s->path, sizeof(s->path));
	return create_profile(s, s->path, why, whylen);
}

static void cleanup(struct system_run *s)
{
	ksyms__cache_free(s->r.ksyms);
	perf_session__close(s->r.perf);
	record_bpf__close(s->r.bpf);
	pdata__close(s->r.pd);
	if (s->r.sfd >= 0)
		close(s->r.sfd);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->cpus);
}

static int fail(struct system_run *s, int rc)
{
	if (s->r.pd)
		unlink(s->path);
	cleanup(s);
	return rc;
}

/* After the loop: the last period, the command's status, the summary. */
static void finish_system(struct system_run *s)
{
	struct record_result *res = s->r.res;
	uint64_t end_mono = pdata__clock_ns(CLOCK_MONOTONIC);
	uint64_t busy = busy_ns(s); /* at the end, not after the last drain */

	if (s->r.pd) {
		perf_session__drain(s->r.perf, 1);
		record_bpf__flush(s->r.bpf, UINT64_MAX);
		finish_profile(s, real_of(s, end_mono), busy);
		if (s->r.o->hook) /* the last, partial period is not shown */
			unlink(s->path);
		else if (s->period_ns)
			period_done(s, s->path);
	}
	if (s->r.child > 0 && !s->r.exited) {
		kill(s->r.child, SIGTERM); /* the recording was stopped: so is its command */
		if (waitpid(s->r.child, &s->r.status, 0) == s->r.child)
			s->r.exited = 1;
	}
	res->exit_status = 0;
	if (s->r.child > 0 && s->r.exited)
		res->exit_status = WIFSIGNALED(s->r.status) ? 128 + WTERMSIG(s->r.status) :
							      WEXITSTATUS(s->r.status);
	res->samples = s->samples;
	res->lost = s->lost;
	res->processes = 0;
	res->clock_name = pdata__clock_name((uint32_t)s->r.clock);
	res->effective_hz = s->r.hz;
	res->hz = s->r.hz;
	res->callgraph_name = pdata__callgraph_name(s->r.callgraph);
	res->ncpus = s->ncpus;
}

int record__system(const struct record_opts *o, struct record_result *res)
{
	struct system_run s = {.r = {.o = o, .res = res, .sfd = -1}};
	unsigned int cap = record_run__max_perf_rate();
	int rc;

	rc = record__system_permitted(res->why, sizeof(res->why));
	if (rc < 0) {
		res->exit_status = 2;
		return rc;
	}
	rc = choose_cpus(&s, res->why, sizeof(res->why));
	if (rc < 0) {
		res->exit_status = 2;
		return fail(&s, rc);
	}
	s.r.hz = cap && o->hz > cap ? cap : o->hz;
	s.period_ns = o->hook ? (uint64_t)o->hook->period_ms * 1000000ull :
				(uint64_t)o->rotate * 1000000000ull;
	s.mono0 = pdata__clock_ns(CLOCK_MONOTONIC);
	s.real0 = pdata__clock_ns(CLOCK_REALTIME);
	s.last_prune = s.mono0;
	s.r.keep_ksyms = 1;
	/*
	 * Ahead of the machine's other tasks (root may): a recorder starved by
	 * 64 busy threads on 2 CPUs took 35 s to read 3 s of stacks, and its
	 * rings overflowed; its own CPU is a few per mille.
	 */
	errno = 0;
	s.nice0 = getpriority(PRIO_PROCESS, 0);
	if (errno)
		s.nice0 = 0;
	s.reniced = s.nice0 > SYSTEM_NICE && setpriority(PRIO_PROCESS, 0, SYSTEM_NICE) == 0;
	if (o->hook)
		snprintf(s.dir, sizeof(s.dir), "%s", o->output);
	rc = prepare_output(&s, res->why, sizeof(res->why));
	if (rc < 0)
		return fail(&s, rc);
	rc = record_run__setup_signals(&s.r);
	if (rc < 0) {
		why_fail(res->why, sizeof(res->why), rc, "cannot watch signals: %s", strerror(-rc));
		return fail(&s, rc);
	}
	rc = open_session(&s, res->why, sizeof(res->why));
	if (rc < 0)
		return fail(&s, rc);
	describe(&s);
	/* the events are on from here: the periods count from now */
	s.mono0 = pdata__clock_ns(CLOCK_MONOTONIC);
	s.real0 = pdata__clock_ns(CLOCK_REALTIME);
	s.cut = s.mono0 + s.period_ns;
	if (o->duration > 0)
		s.deadline = s.mono0 + (uint64_t)(o->duration * 1e9);
	if (o->argv && *o->argv) {
		rc = start_command(&s, res->why, sizeof(res->why));
		if (rc < 0)
			return fail(&s, rc);
	}
	start_profile(&s, s.real0, busy_ns(&s));
	system_loop(&s);
	finish_system(&s);
	cleanup(&s);
	return 0;
}
