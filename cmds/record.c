// SPDX-License-Identifier: MIT
/*
 * profil record [options] -- COMMAND [ARGS...]
 * profil record [options] -p PID
 *
 * Runs COMMAND (or attaches to PID) and records a profile into a profil.data
 * file (utils/pdata.h).  Clocks: the kernel's perf_event task clock when it
 * is permitted (record_perf.c), else an LD_PRELOAD agent built on libprofil
 * (agent/agent.c; contract in utils/agent_env.h) that samples every thread
 * by its own CPU time and counts straight into the shared file mapping.
 *
 * The program keeps its stdin/stdout/stderr, signal dispositions and exit
 * status; the recorder blocks the signals it watches only in itself,
 * forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT that were sent to it alone (a
 * terminal's Ctrl-C already reaches the whole foreground group) and exits
 * with the program's status (128+N for signal N).
 *
 * What the profile holds (for readers of utils/pdata.h):
 *  - one proc record per process image: a fork gets one (perf: with the
 *    parent's executable mappings copied, as the kernel reports none), an
 *    exec gets one whose parent is the previous image (which ends with
 *    PDATA_END_EXEC);
 *  - end of the command's process: from wait4 (EXITED code / SIGNALED sig);
 *    other processes: perf sees that they ended but not how (UNKNOWN with an
 *    end time), the agent records exit codes itself;
 *  - header: samples, lost (perf ring losses; agent: timer overruns),
 *    cpu_ns (perf: task-clock of the whole tree, user and kernel; agent:
 *    wait4 rusage of the command and its waited-for descendants), period_ns
 *    = cpu_ns / samples (the effective period), nominal_hz (after capping),
 *    clock and clock_note (why this clock, capping, throttling).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "agent_env.h"
#include "cmds.h"
#include "pdata.h"
#include "record.h"
#include "record_bpf.h"
#include "record_events.h"

#define DEFAULT_HZ 997 /* near 1 kHz, prime: cannot run in lock-step with the program */
#define DEFAULT_OUTPUT "profil.data"
#define DEFAULT_GMON "gmon.out"

/* From the report/export side of the project, when it is part of this build. */
int gmon_export(const char *data_path, const char *out_path, char *why, size_t whylen)
	__attribute__((weak));

enum rec_clock { CLK_AUTO, CLK_PERF, CLK_THREAD, CLK_ITIMER, CLK_BPF };

struct record_opts {
	const char *output;
	unsigned int hz;
	enum rec_clock clock;
	pid_t attach_pid;
	int inherit;
	const char *gmon;
	const char *events; /* --events FILE, NULL: none */
	int quiet;
	char **argv; /* COMMAND [ARGS...] */
};

struct record_run {
	struct record_opts *o;
	struct pdata *pd;
	struct perf_session *perf;
	struct record_bpf *bpf;	      /* --clock bpf: the kernel-side histogram */
	struct record_events *events; /* --events: the prof/profil event stream */
	int sfd;		      /* signalfd */
	sigset_t oldmask;
	pid_t child;
	int status;
	struct rusage ru;
	int exited;
	int detached;
	unsigned int hz; /* nominal rate in effect (may be capped) */
	int clock;	 /* enum pdata_clock */
	char note[128];
	char exe[PATH_MAX];
	unsigned char ring_hup[64]; /* rings no longer polled (MAX_POLLED_RINGS) */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil record [OPTIONS] -- COMMAND [ARGS...]\n"
		"       profil record [OPTIONS] -p PID\n"
		"\n"
		"  -o, --output FILE   profile to write (default " DEFAULT_OUTPUT ")\n"
		"  -F, --freq HZ       samples per CPU second (default %d)\n"
		"      --clock CLOCK   auto, bpf, perf, thread or itimer (default auto: bpf where\n"
		"                      permitted, else perf, else thread)\n"
		"  -p, --pid PID       attach to a running process and all its threads\n"
		"      --no-inherit    do not follow child processes\n"
		"      --gmon [FILE]   also write a gmon.out for gprof (default " DEFAULT_GMON ")\n"
		"      --events FILE   write the prof/profil event stream as Tracee JSON lines\n"
		"                      (\"-\" = stdout; see doc/events.md)\n"
		"  -q, --quiet         no summary line\n"
		"\n"
		"Exits with COMMAND's exit status (128+N when a signal N ended it).\n"
		"Test hook: %s=EACCES makes perf_event_open look refused.\n",
		DEFAULT_HZ, PROFIL_ENV_SIMULATE_PERF_ERRNO);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int has_double_dash_after(int argc, char **argv, int from)
{
	for (int i = from; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return 1;
	return 0;
}

/* Returns -1 to continue, else the exit status. */
static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"freq", required_argument, NULL, 'F'},
		{"clock", required_argument, NULL, 'c'},  {"pid", required_argument, NULL, 'p'},
		{"no-inherit", no_argument, NULL, 'I'},	  {"gmon", optional_argument, NULL, 'g'},
		{"events", required_argument, NULL, 'E'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	unsigned long v;
	int c;

	o->output = DEFAULT_OUTPUT;
	o->hz = DEFAULT_HZ;
	o->inherit = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:F:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			if (parse_uint(optarg, 1000000, &v) < 0) {
				fprintf(stderr,
					"profil record: bad rate '%s' (expected 1..1000000 Hz)\n",
					optarg);
				return 2;
			}
			o->hz = (unsigned int)v;
			break;
		case 'c':
			if (!strcmp(optarg, "auto"))
				o->clock = CLK_AUTO;
			else if (!strcmp(optarg, "perf"))
				o->clock = CLK_PERF;
			else if (!strcmp(optarg, "bpf"))
				o->clock = CLK_BPF;
			else if (!strcmp(optarg, "thread"))
				o->clock = CLK_THREAD;
			else if (!strcmp(optarg, "itimer"))
				o->clock = CLK_ITIMER;
			else {
				fprintf(stderr,
					"profil record: unknown clock '%s' (auto, bpf, perf, "
					"thread or itimer)\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (parse_uint(optarg, INT_MAX, &v) < 0) {
				fprintf(stderr, "profil record: bad process id '%s'\n", optarg);
				return 2;
			}
			o->attach_pid = (pid_t)v;
			break;
		case 'I':
			o->inherit = 0;
			break;
		case 'g':
			o->gmon = optarg ? optarg : DEFAULT_GMON;
			/* "--gmon FILE -- CMD": a plain word before the "--" is the file name */
			if (!optarg && optind < argc && argv[optind][0] != '-' &&
			    has_double_dash_after(argc, argv, optind + 1))
				o->gmon = argv[optind++];
			break;
		case 'E':
			o->events = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && optopt != '?' && strchr("oFp", optopt))
				fprintf(stderr, "profil record: option -%c needs a value\n",
					optopt);
			else if (optopt)
				fprintf(stderr,
					"profil record: unknown option '-%c' (try 'profil record "
					"--help')\n",
					optopt);
			else
				fprintf(stderr,
					"profil record: unknown option or missing value in '%s' "
					"(try 'profil record --help')\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	o->argv = argv + optind;
	if (o->attach_pid && *o->argv) {
		fprintf(stderr, "profil record: give either a COMMAND or -p PID, not both\n");
		return 2;
	}
	if (!o->attach_pid && !*o->argv) {
		fprintf(stderr, "profil record: no COMMAND given (usage: profil record [OPTIONS] "
				"-- COMMAND [ARGS...])\n");
		return 2;
	}
	if (o->attach_pid && o->clock != CLK_AUTO && o->clock != CLK_PERF) {
		fprintf(stderr,
			"profil record: attaching to a running process needs --clock perf\n");
		return 2;
	}
	return -1;
}

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

static void join_command(char *dst, size_t len, char **argv)
{
	size_t at = 0;

	dst[0] = 0;
	for (int i = 0; argv[i] && at + 1 < len; i++)
		at += snprintf(dst + at, len - at, "%s%s", i ? " " : "", argv[i]);
	if (at >= len && len > 4)
		memcpy(dst + len - 4, "...", 4);
}

static int setup_signals(struct record_run *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask) < 0)
		return -errno;
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->sfd < 0 ? -errno : 0;
}

/* Forward a signal sent to the recorder alone; a terminal's already reached the program. */
static void on_signal(struct record_run *r, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGCHLD)
		return;
	if (r->o->attach_pid) {
		r->detached = 1; /* Ctrl-C / SIGTERM ends an attach session */
		return;
	}
	if (si->ssi_code == SI_KERNEL && si->ssi_signo != SIGTERM)
		return;
	if (r->child > 0 && !r->exited)
		kill(r->child, (int)si->ssi_signo);
}

static void drain_signals(struct record_run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		on_signal(r, &si);
}

static void reap_child(struct record_run *r)
{
	if (r->exited || r->child <= 0)
		return;
	if (wait4(r->child, &r->status, WNOHANG, &r->ru) == r->child)
		r->exited = 1;
}

/* Where the agent lives: $PROFIL_AGENT_SO, else next to this binary, else ../lib/profil/. */
static int find_agent(char *out, size_t len)
{
	const char *env = getenv(PROFIL_ENV_AGENT_SO);
	char self[PATH_MAX - 64];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -ENOENT;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	snprintf(out, len, "%s/%s", self, PROFIL_AGENT_SO_NAME);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../lib/profil/%s", self, PROFIL_AGENT_SO_NAME);
	return access(out, R_OK) == 0 ? 0 : -ENOENT;
}

/* What the recorder tells the stopped child: how to exec. */
struct go_msg {
	char mode;  /* 'p' exec as is, 'a' exec with the agent, 'x' give up */
	char clock; /* enum pdata_clock, agent mode */
	unsigned int hz;
};

/* In the child, agent mode: hand the open profile and the configuration to the agent. */
static void child_setup_agent(struct record_run *r, const struct go_msg *m, const char *agent)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 2];
	int fd = pdata__fd(r->pd);
	struct stat st;

	/* the agent marks it close-on-exec itself when children are not followed */
	fcntl(fd, F_SETFD, 0);
	if (fstat(fd, &st) < 0)
		_exit(126);
	/* "fd:dev:ino": the agent checks that the number still names this file */
	snprintf(buf, sizeof(buf), "%d:%llu:%llu", fd, (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv(PROFIL_ENV_AGENT_FD, buf, 1);
	setenv(PROFIL_ENV_AGENT_CLOCK, m->clock == PDATA_CLOCK_ITIMER ? "itimer" : "thread", 1);
	snprintf(buf, sizeof(buf), "%u", m->hz);
	setenv(PROFIL_ENV_AGENT_HZ, buf, 1);
	setenv(PROFIL_ENV_AGENT_INHERIT, r->o->inherit ? "1" : "0", 1);
	unsetenv(PROFIL_ENV_AGENT_PARENT);
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", agent, old);
	else
		snprintf(buf, sizeof(buf), "%s", agent);
	setenv("LD_PRELOAD", buf, 1);
}

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
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		if (read(go[0], &m, sizeof(m)) != (ssize_t)sizeof(m) || m.mode == 'x')
			_exit(127);
		close(go[0]);
		if (m.mode == 'a')
			child_setup_agent(r, &m, agent_path);
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

static void set_note(struct record_run *r, const char *fmt, const char *a, const char *b)
{
	snprintf(r->note, sizeof(r->note), fmt, a, b);
}

static unsigned int max_perf_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned int v = 0;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Returns 0 with perf on, 1 to use the agent, or -errno (why filled). */
static int choose_clock_for_child(struct record_run *r, char *why, size_t whylen)
{
	struct perf_session_opts po = {.hz = r->hz, .follow_children = r->o->inherit};
	const char *simulated = getenv(PROFIL_ENV_SIMULATE_PERF_ERRNO);
	int rc;

	if (r->o->clock == CLK_THREAD || r->o->clock == CLK_ITIMER) {
		r->clock = r->o->clock == CLK_ITIMER ? PDATA_CLOCK_ITIMER : PDATA_CLOCK_THREAD;
		set_note(r, "%s clock asked for (--clock)%s",
			 r->o->clock == CLK_ITIMER ? "itimer" : "thread", "");
		return 1;
	}
	/* auto: the kernel-side histogram where permitted (root, CAP_BPF+CAP_PERFMON) */
	if (r->o->clock == CLK_BPF || r->o->clock == CLK_AUTO) {
		char bwhy[256];

		rc = record_bpf__open(&r->bpf, r->pd, bwhy, sizeof(bwhy));
		if (rc < 0 && r->o->clock == CLK_BPF) {
			snprintf(why, whylen, "%s", bwhy);
			return rc;
		}
		po.observer = record_bpf__observer(r->bpf);
	}
	rc = perf_session__open(&r->perf, r->pd, &po, &r->child, 1, why, whylen);
	if (rc == 0) {
		r->clock = r->bpf ? PDATA_CLOCK_BPF : PDATA_CLOCK_PERF;
		set_note(r,
			 r->bpf ? "BPF histogram on task-clock, %s%s" :
				  "perf_event task-clock, %s%s",
			 r->o->inherit ? "per-CPU rings, inherit" : "per-CPU rings, threads only",
			 r->hz < r->o->hz ? ", rate capped by perf_event_max_sample_rate" : "");
		return 0;
	}
	record_bpf__close(r->bpf);
	r->bpf = NULL;
	if (r->o->clock == CLK_PERF || r->o->clock == CLK_BPF)
		return rc;
	/* auto: anything perf cannot do here (refused, or e.g. no ring memory) falls back */
	r->clock = PDATA_CLOCK_THREAD;
	snprintf(r->note, sizeof(r->note), "perf %s: %s%s; LD_PRELOAD agent, thread clock",
		 perf_errno_is_refusal(-rc) ? "refused" : "failed",
		 strerrorname_np(-rc) ? strerrorname_np(-rc) : "error",
		 simulated && *simulated ? " (simulated)" : "");
	return 1;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* Proc records of pid (the agent writes them in fallback mode): the latest image. */
struct find_proc_arg {
	pid_t pid;
	struct pdata_proc *found;
};

static int find_proc_cb(void *arg, const struct pdata_rec *rec)
{
	struct find_proc_arg *a = arg;

	/* the record in the mapping (rec is a copy): its end is written later */
	if (rec->type == PDATA_REC_PROC && rec->size >= sizeof(struct pdata_proc) &&
	    ((const struct pdata_proc *)rec)->pid == a->pid)
		a->found = (struct pdata_proc *)pdata__rec_live(rec);
	return 0;
}

static struct pdata_proc *latest_proc(struct pdata *pd, pid_t pid)
{
	struct find_proc_arg a = {pid, NULL};

	pdata__foreach_rec(pd, find_proc_cb, &a);
	return a.found;
}

void record_decode_status(int status, int *kind, int *code)
{
	if (WIFSIGNALED(status)) {
		*kind = PDATA_END_SIGNALED;
		*code = WTERMSIG(status);
	} else {
		*kind = PDATA_END_EXITED;
		*code = WEXITSTATUS(status);
	}
}

static void finish_header(struct record_run *r, uint64_t cpu_ns)
{
	struct pdata_header *h = pdata__header(r->pd);
	uint64_t samples = __atomic_load_n(&h->samples, __ATOMIC_RELAXED);

	h->clock = (uint32_t)r->clock;
	h->nominal_hz = r->hz;
	h->cpu_ns = cpu_ns;
	/* the CPU time one sample stands for, at the rate actually achieved */
	if (samples && cpu_ns)
		h->period_ns = cpu_ns / samples;
	else
		h->period_ns = 1000000000ull / r->hz;
	if (r->perf && perf_session__throttled(r->perf)) {
		size_t at = strlen(r->note);

		snprintf(r->note + at, sizeof(r->note) - at, "; kernel throttled it %llu times",
			 (unsigned long long)perf_session__throttled(r->perf));
	}
	if (r->bpf) {
		size_t at = strlen(r->note);

		snprintf(r->note + at, sizeof(r->note) - at, "; ");
		at = strlen(r->note);
		record_bpf__describe(r->bpf, r->note + at, sizeof(r->note) - at);
	}
	snprintf(h->clock_note, sizeof(h->clock_note), "%s", r->note);
}

static void summary(struct record_run *r, const char *why_incomplete)
{
	struct pdata_header *h = pdata__header(r->pd);
	struct stat st;
	double eff = h->cpu_ns ? (double)h->samples * 1e9 / (double)h->cpu_ns : 0;
	char thr[64] = "", cap[64] = "";

	if (r->o->quiet)
		return;
	if (r->perf && perf_session__throttled(r->perf))
		snprintf(thr, sizeof(thr), ", throttled %llu times",
			 (unsigned long long)perf_session__throttled(r->perf));
	if (stat(r->o->output, &st) < 0)
		st.st_size = 0;
	if (r->hz < r->o->hz)
		snprintf(cap, sizeof(cap), ", capped at %u by the kernel", r->hz);
	fprintf(stderr,
		"profil record: %llu samples, %llu lost, %u process%s, clock %s at %.1f Hz "
		"effective "
		"(%u Hz asked%s%s), %s (%.1f MiB)%s%s\n",
		(unsigned long long)h->samples, (unsigned long long)(h->lost + h->dropped),
		h->processes, h->processes == 1 ? "" : "es", pdata__clock_name((uint32_t)r->clock),
		eff, r->o->hz, cap, thr, r->o->output, mib((uint64_t)st.st_size),
		why_incomplete ? ": " : "", why_incomplete ? why_incomplete : "");
}

static void export_gmon(struct record_run *r)
{
	char why[256] = "";

	if (!r->o->gmon)
		return;
	if (!gmon_export) {
		fprintf(stderr, "profil record: gmon export is not in this build; %s not written\n",
			r->o->gmon);
		return;
	}
	if (gmon_export(r->o->output, r->o->gmon, why, sizeof(why)) < 0)
		fprintf(stderr, "profil record: %s\n", why[0] ? why : "gmon export failed");
}

static int exit_status_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

#define MAX_POLLED_RINGS 64

/*
 * Wait for a signal, a ring at its watermark, extra_fd (the pidfd when
 * attached) or 50 ms (bounding the reorder delay; rings past the first 64
 * CPUs are drained on the timeout), then read signals and the rings.  A
 * ring whose event hung up (its thread ended, attach mode) still receives
 * the other threads' records but would make poll return at once forever:
 * it is no longer polled.  Returns 1 when extra_fd is ready.
 */
static int poll_once(struct record_run *r, int extra_fd)
{
	struct pollfd pfd[MAX_POLLED_RINGS + 2];
	int map[MAX_POLLED_RINGS + 2];
	int n = 0, nring = 0, extra_ready = 0;
	const int *rfds = r->perf ? perf_session__fds(r->perf, &nring) : NULL;

	pfd[n++] = (struct pollfd){.fd = r->sfd, .events = POLLIN};
	if (extra_fd >= 0)
		pfd[n++] = (struct pollfd){.fd = extra_fd, .events = POLLIN};
	for (int i = 0; i < nring && i < MAX_POLLED_RINGS; i++) {
		if (r->ring_hup[i])
			continue;
		map[n] = i;
		pfd[n++] = (struct pollfd){.fd = rfds[i], .events = POLLIN};
	}
	if (poll(pfd, (nfds_t)n, 50) < 0 && errno != EINTR)
		return 0;
	if (pfd[0].revents)
		drain_signals(r);
	if (extra_fd >= 0 && pfd[1].revents)
		extra_ready = 1;
	for (int k = extra_fd >= 0 ? 2 : 1; k < n; k++)
		if (pfd[k].revents & (POLLHUP | POLLERR))
			r->ring_hup[map[k]] = 1;
	return extra_ready;
}

static void run_loop(struct record_run *r)
{
	while (!r->exited) {
		poll_once(r, -1);
		reap_child(r);
		if (r->perf)
			perf_session__drain(r->perf, 0);
		record_bpf__flush(r->bpf);
		record_events__poll(r->events);
	}
}

static int record_command(struct record_opts *o)
{
	struct record_run r = {.o = o, .sfd = -1};
	char why[512] = "", agent[PATH_MAX] = "", cmdline[2048];
	int go_w = -1, err_r = -1, use_agent, rc, exec_errno = 0, have_agent;
	struct go_msg msg = {0};
	struct pdata_proc *root;
	struct pdata_header *h;
	unsigned int cap;
	uint64_t cpu_ns;

	rc = resolve_command(o->argv[0], r.exe, sizeof(r.exe));
	if (rc < 0) {
		fprintf(stderr, "profil: cannot run '%s': %s\n", o->argv[0], strerror(-rc));
		return rc == -ENOENT || rc == -ENOTDIR ? 127 : 126;
	}
	r.hz = o->hz;
	cap = max_perf_rate();
	if (o->clock != CLK_THREAD && o->clock != CLK_ITIMER && cap && r.hz > cap)
		r.hz = cap;
	rc = pdata__create(&r.pd, o->output, NULL, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil record: %s\n", why);
		return 1;
	}
	pdata__exit_on_truncation(r.pd, "profil record", o->output);
	if (o->events) {
		rc = record_events__open(&r.events, o->events, why, sizeof(why));
		if (rc < 0) {
			fprintf(stderr, "profil record: %s\n", why);
			goto fail_unlink;
		}
		record_events__export_fd(r.events);
	}
	have_agent = find_agent(agent, sizeof(agent)) == 0;
	if (setup_signals(&r) < 0 || spawn_stopped(&r, &go_w, &err_r, agent) < 0) {
		fprintf(stderr, "profil record: cannot start '%s': %s\n", o->argv[0],
			strerror(errno));
		goto fail_unlink;
	}
	use_agent = choose_clock_for_child(&r, why, sizeof(why));
	if (use_agent < 0) {
		fprintf(stderr, "profil record: %s\n", why);
		goto fail_kill;
	}
	if (use_agent) {
		r.hz = o->hz;
		if (!have_agent) {
			fprintf(stderr,
				"profil record: %s%sthe fallback agent %s is not installed next to "
				"profil\n",
				r.note, "; ", PROFIL_AGENT_SO_NAME);
			goto fail_kill;
		}
	}
	h = pdata__header(r.pd);
	join_command(cmdline, sizeof(cmdline), o->argv);
	snprintf(h->command, sizeof(h->command), "%s", cmdline);
	h->root_pid = r.child;
	h->clock = (uint32_t)r.clock;
	h->nominal_hz = r.hz;
	h->flags = o->inherit ? PDATA_F_INHERIT : 0;
	snprintf(h->clock_note, sizeof(h->clock_note), "%s", r.note);
	if (!use_agent)
		perf_session__add_root(r.perf, r.child, getpid(), r.exe, 0);
	if (r.events)
		record_events__start(r.events, r.pd, r.clock);
	msg.mode = use_agent ? 'a' : 'p';
	msg.clock = (char)r.clock;
	msg.hz = r.hz;
	if (write(go_w, &msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		fprintf(stderr, "profil record: cannot start '%s': %s\n", o->argv[0],
			strerror(errno));
		goto fail_kill;
	}
	close(go_w);
	go_w = -1;
	/* the error pipe closes on a successful exec, else it carries errno */
	while ((rc = (int)read(err_r, &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	close(err_r);
	err_r = -1;
	if (rc == (int)sizeof(exec_errno)) {
		waitpid(r.child, NULL, 0);
		fprintf(stderr, "profil: cannot run '%s': %s\n", o->argv[0], strerror(exec_errno));
		perf_session__close(r.perf);
		record_bpf__close(r.bpf);
		pdata__close(r.pd);
		unlink(o->output);
		return exec_errno == ENOENT ? 127 : 126;
	}

	run_loop(&r);

	if (r.perf) {
		perf_session__drain(r.perf, 1);
		cpu_ns = perf_session__cpu_ns(r.perf);
	} else {
		cpu_ns = (uint64_t)(r.ru.ru_utime.tv_sec + r.ru.ru_stime.tv_sec) * 1000000000ull +
			 (uint64_t)(r.ru.ru_utime.tv_usec + r.ru.ru_stime.tv_usec) * 1000ull;
	}
	record_bpf__flush(r.bpf);
	root = latest_proc(r.pd, r.child);
	if (!root) {
		/* the agent never ran (a static program cannot LD_PRELOAD) */
		root = pdata__add_proc(r.pd, r.child, getpid(), 0, r.exe, h->start_ns);
		if (use_agent && !o->quiet)
			fprintf(stderr,
				"profil record: the agent did not load into '%s' (statically "
				"linked?): no samples\n",
				o->argv[0]);
	}
	{
		int kind, code;

		record_decode_status(r.status, &kind, &code);
		h->end_kind = kind;
		h->end_code = code;
		if (root)
			pdata__end_proc(root, kind, code, pdata__now_ns(), 0);
	}
	finish_header(&r, cpu_ns);
	record_events__finish(r.events);
	record_events__close(r.events);
	rc = pdata__finish(r.pd);
	summary(&r, rc < 0 ? strerror(-rc) : NULL);
	if (rc < 0)
		fprintf(stderr, "profil record: cannot flush %s: %s\n", o->output, strerror(-rc));
	perf_session__close(r.perf);
	record_bpf__close(r.bpf);
	pdata__close(r.pd);
	if (rc == 0)
		export_gmon(&r);
	return exit_status_of(r.status);

fail_kill:
	if (go_w >= 0) {
		msg.mode = 'x'; /* the child exits without running anything */
		if (write(go_w, &msg, sizeof(msg)) < 0)
			msg.mode = 0;
		close(go_w);
	}
	if (err_r >= 0)
		close(err_r);
	if (r.child > 0)
		waitpid(r.child, NULL, 0);
	perf_session__close(r.perf);
	record_bpf__close(r.bpf);
fail_unlink:
	record_events__close(r.events);
	pdata__close(r.pd);
	unlink(o->output);
	return 1;
}

/* ---- attach ----------------------------------------------------------------- */

static int list_tids(pid_t pid, pid_t **out)
{
	char path[64];
	struct dirent *d;
	pid_t *tids = NULL;
	int n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (tid <= 0)
			continue;
		if (n == cap) {
			pid_t *nt = realloc(tids, sizeof(pid_t) * (cap = cap ? cap * 2 : 64));

			if (!nt) {
				free(tids);
				closedir(dir);
				return -ENOMEM;
			}
			tids = nt;
		}
		tids[n++] = tid;
	}
	closedir(dir);
	*out = tids;
	return n;
}

/* Open events for every thread, again until no new thread appeared meanwhile. */
static int attach_threads(struct record_run *r, pid_t pid, char *why, size_t whylen)
{
	struct perf_session_opts po = {.hz = r->hz, .follow_children = r->o->inherit, .attach = 1};
	pid_t *done = NULL;
	int ndone = 0, rc = 0;

	for (int round = 0; round < 16; round++) {
		pid_t *tids = NULL, *fresh;
		int n = list_tids(pid, &tids), nf = 0;

		if (n < 0) {
			snprintf(why, whylen, "no process %d: %s", pid, strerror(-n));
			rc = n;
			break;
		}
		fresh = malloc(sizeof(pid_t) * (n ? n : 1));
		for (int i = 0; fresh && i < n; i++) {
			int known = 0;

			for (int j = 0; j < ndone && !known; j++)
				known = done[j] == tids[i];
			if (!known)
				fresh[nf++] = tids[i];
		}
		free(tids);
		if (!fresh) {
			rc = -ENOMEM;
			break;
		}
		if (!nf) {
			free(fresh);
			break;
		}
		if (!r->perf)
			rc = perf_session__open(&r->perf, r->pd, &po, fresh, nf, why, whylen);
		else
			rc = perf_session__add_tids(r->perf, fresh, nf, why, whylen);
		if (rc == 0) {
			pid_t *nd = realloc(done, sizeof(pid_t) * (ndone + nf));

			if (nd) {
				memcpy(nd + ndone, fresh, sizeof(pid_t) * nf);
				done = nd;
				ndone += nf;
			}
		}
		free(fresh);
		if (rc < 0)
			break;
	}
	free(done);
	return rc;
}

static void read_cmdline(pid_t pid, char *dst, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	dst[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, dst, len - 1);
	close(fd);
	if (n <= 0)
		return;
	dst[n] = 0;
	for (ssize_t i = 0; i < n - 1; i++)
		if (!dst[i])
			dst[i] = ' ';
}

/* A zombie's exit status from /proc/PID/stat (field 52), when its parent has not reaped it. */
int record_zombie_status(pid_t pid, int *status)
{
	char path[64], buf[1024], *p;
	FILE *f;
	int field = 2, ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		char state = 0;

		sscanf(p + 1, " %c", &state);
		for (char *tok = strtok(p + 1, " \n"); tok; tok = strtok(NULL, " \n")) {
			if (++field == 52 && state == 'Z') {
				*status = atoi(tok);
				ok = 1;
			}
		}
	}
	fclose(f);
	return ok;
}

static int record_attach(struct record_opts *o)
{
	struct record_run r = {.o = o, .sfd = -1};
	pid_t pid = o->attach_pid;
	char why[512] = "", exe[PATH_MAX], path[64];
	struct pdata_proc *root;
	struct pdata_header *h;
	int pidfd, status = 0, have_status = 0, rc;
	unsigned int cap = max_perf_rate();
	ssize_t n;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		fprintf(stderr, "profil record: cannot attach to process %d: %s\n", pid,
			strerror(errno));
		return 1;
	}
	r.hz = cap && o->hz > cap ? cap : o->hz;
	r.clock = PDATA_CLOCK_PERF;
	rc = pdata__create(&r.pd, o->output, NULL, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil record: %s\n", why);
		close(pidfd);
		return 1;
	}
	pdata__exit_on_truncation(r.pd, "profil record", o->output);
	if (setup_signals(&r) < 0) {
		fprintf(stderr, "profil record: cannot watch signals: %s\n", strerror(errno));
		goto fail;
	}
	rc = attach_threads(&r, pid, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "profil record: cannot attach to process %d: %s%s\n", pid, why,
			perf_errno_is_refusal(-rc) ? " (attaching needs perf events)" : "");
		goto fail;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	h = pdata__header(r.pd);
	read_cmdline(pid, h->command, sizeof(h->command));
	h->root_pid = pid;
	h->clock = PDATA_CLOCK_PERF;
	h->nominal_hz = r.hz;
	h->flags = PDATA_F_ATTACH | (o->inherit ? PDATA_F_INHERIT : 0);
	set_note(&r, "perf_event task-clock, attached to running threads%s%s",
		 r.hz < o->hz ? ", rate capped by perf_event_max_sample_rate" : "", "");
	root = perf_session__add_root(r.perf, pid, 0, exe, 1);

	for (;;) {
		int gone = poll_once(&r, pidfd);

		perf_session__drain(r.perf, 0);
		if (r.detached)
			break;
		if (gone) {
			have_status = record_zombie_status(pid, &status);
			r.exited = 1;
			break;
		}
	}
	perf_session__drain(r.perf, 1);
	if (r.detached) {
		h->end_kind = PDATA_END_DETACHED;
	} else if (have_status) {
		record_decode_status(status, &h->end_kind, &h->end_code);
	} else {
		h->end_kind = PDATA_END_UNKNOWN; /* it ended; its parent took the status */
	}
	root = latest_proc(r.pd, pid) ? latest_proc(r.pd, pid) : root;
	if (root)
		pdata__end_proc(root, h->end_kind, h->end_code, pdata__now_ns(), 0);
	finish_header(&r, perf_session__cpu_ns(r.perf));
	rc = pdata__finish(r.pd);
	summary(&r, rc < 0 ? strerror(-rc) : NULL);
	perf_session__close(r.perf);
	pdata__close(r.pd);
	close(pidfd);
	if (rc < 0) {
		fprintf(stderr, "profil record: cannot flush %s: %s\n", o->output, strerror(-rc));
		return 1;
	}
	export_gmon(&r);
	return 0;
fail:
	perf_session__close(r.perf);
	pdata__close(r.pd);
	unlink(o->output);
	close(pidfd);
	return 1;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {0};
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.attach_pid)
		return record_attach(&o);
	return record_command(&o);
}
