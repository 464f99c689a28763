// SPDX-License-Identifier: MIT
/*
 * profil watch [--pid P] [--comm NAME] [--event NAME] [-o FILE] [--format json|table]
 *              [--duration SEC] [--lib PATH]... [--verbose]
 *
 * System-wide view of profiling activity, from eBPF (bpf/watch.bpf.c): the
 * calls to profil()/sprofil() (uprobes on glibc and libprofil), setitimer,
 * timer_create on CPU clocks and perf_event_open (syscall tracepoints),
 * and the fork/exec/exit of the processes that profile themselves.  From
 * these it derives the `prof` events (ENABLE when a process turns a
 * sampling clock on, DISABLE at exec, exit or an explicit stop).  Output:
 * Tracee JSON lines (utils/events.h) or a table.  Ring-buffer drops are
 * reported as events_lost.  Prints "profil watch: ready ..." on stderr
 * once every probe is attached.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"

#ifndef HAVE_BPF

int cmd_watch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "profil watch: built without BPF support (%s)\n", WATCH_NO_BPF_REASON);
	return 2;
}

#else /* HAVE_BPF */

#include <limits.h>
#include <link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "events/event_filter.h"
#include "events/events.h"
#include "bpf/watch.h"
#include "watch.skel.h"

#define CAP_SYS_ADMIN 21
#define CAP_PERFMON 38
#define CAP_BPF 39
#define MAX_LIBS 16

struct watch_opts {
	const char *output;
	enum event_format fmt;
	double duration; /* seconds, 0 = until a signal */
	const char *libs[MAX_LIBS];
	unsigned int nlibs;
	bool verbose;
	unsigned int ringbuf_kb; /* 0 = as built (1 MiB) */
	struct event_filter filter;
};

/* What one process has turned on, as far as we have seen. */
struct proc_state {
	uint32_t tgid;
	uint64_t flags; /* PROF_FLAG_CLOCK_* and PROF_FLAG_SPROFIL */
	uint32_t nsources;
	uint32_t sources[PROF_MAX_EVENTS]; /* PROF_EVENT_* */
	uint64_t source_flag[PROF_MAX_EVENTS];
	bool inheritable[PROF_MAX_EVENTS]; /* perf events opened with attr.inherit */
	bool on;			   /* the last prof event said ENABLE */
	char exe[PROFIL_PATH_LEN];
};

struct watch {
	struct watch_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[4 * (MAX_LIBS + 4) + 8];
	unsigned int nlinks;
	struct event_writer *out;
	const struct watch_opts *opts;
	uint64_t mono_to_real; /* add to a CLOCK_MONOTONIC ns value to get epoch ns */
	uint64_t drops_reported;
	struct proc_state *procs;
	size_t nprocs, cap_procs;
	int write_err;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void watch_usage(FILE *out)
{
	fprintf(out, "usage: profil watch [--pid P] [--comm NAME] [--event NAME] [-o FILE]\n"
		     "                    [--format json|table] [--duration SEC] [--lib PATH]...\n"
		     "  --pid P          only events of process P (processId or hostProcessId)\n"
		     "  --comm NAME      only events of processes named NAME\n"
		     "  --event NAME     only events NAME (prof, profil, sprofil, setitimer, ...)\n"
		     "  -o, --output F   write events to F (default: stdout)\n"
		     "  --format FMT     json (Tracee JSON lines, default) or table\n"
		     "  --duration SEC   stop after SEC seconds (default: at Ctrl-C / SIGTERM)\n"
		     "  --lib PATH       also probe profil()/sprofil() in this library or program\n"
		     "  --ringbuf-kb KB  ring buffer size, a power of two >= 4 (default 1024)\n"
		     "  -v, --verbose    print libbpf diagnostics\n"
		     "Needs root, or CAP_BPF and CAP_PERFMON.\n");
}

static int watch_parse_args(int argc, char **argv, struct watch_opts *o)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"event", required_argument, NULL, 'e'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"duration", required_argument, NULL, 'd'},
		{"lib", required_argument, NULL, 'l'},
		{"verbose", no_argument, NULL, 'v'},
		{"ringbuf-kb", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const names[] = {['p'] = "--pid", ['c'] = "--comm", ['e'] = "--event"};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'c':
		case 'e':
			if (event_filter__add(&o->filter, "profil watch", names[c], optarg))
				return 2;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"profil watch: --format is json or table, not '%s'\n",
					optarg);
				return 2;
			}
			o->fmt = strcmp(optarg, "json") ? EVENT_FORMAT_TABLE : EVENT_FORMAT_JSON;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (!*optarg || *end || !(o->duration > 0)) {
				fprintf(stderr,
					"profil watch: --duration needs a positive number of "
					"seconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			if (o->nlibs == MAX_LIBS) {
				fprintf(stderr, "profil watch: at most %d --lib options\n",
					MAX_LIBS);
				return 2;
			}
			o->libs[o->nlibs++] = optarg;
			break;
		case 'r': {
			unsigned long kb = strtoul(optarg, &end, 10);

			if (!*optarg || *end || kb < 4 || kb > (1ul << 21) || (kb & (kb - 1))) {
				fprintf(stderr,
					"profil watch: --ringbuf-kb needs a power of two from 4 "
					"to 2097152, not '%s'\n",
					optarg);
				return 2;
			}
			o->ringbuf_kb = (unsigned int)kb;
			break;
		}
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			watch_usage(stdout);
			return -1;
		default:
			watch_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil watch: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
}

/* ---- privileges -------------------------------------------------------------------- */

static uint64_t effective_caps(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long caps = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (f)
		fclose(f);
	return caps;
}

/* 0, or prints what is missing and returns 2. */
static int check_privileges(void)
{
	uint64_t caps = effective_caps();
	bool bpf = caps & (1ull << CAP_BPF), perfmon = caps & (1ull << CAP_PERFMON);

	if ((caps & (1ull << CAP_SYS_ADMIN)) || (bpf && perfmon))
		return 0;
	fprintf(stderr, "profil watch: needs root or CAP_BPF and CAP_PERFMON (missing:%s%s)\n",
		bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
	return 2;
}

/* ---- per-process state ------------------------------------------------------------ */

static struct proc_state *proc_find(struct watch *w, uint32_t tgid)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].tgid == tgid)
			return &w->procs[i];
	return NULL;
}

static struct proc_state *proc_get(struct watch *w, uint32_t tgid)
{
	struct proc_state *p = proc_find(w, tgid);

	if (p)
		return p;
	if (w->nprocs == w->cap_procs) {
		size_t cap = w->cap_procs ? w->cap_procs * 2 : 64;
		struct proc_state *n = realloc(w->procs, cap * sizeof(*n));
		if (!n)
			return NULL;
		w->procs = n;
		w->cap_procs = cap;
	}
	p = &w->procs[w->nprocs++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	return p;
}

static void proc_forget(struct watch *w, uint32_t tgid)
{
	struct proc_state *p = proc_find(w, tgid);

	if (p)
		*p = w->procs[--w->nprocs];
}

static void proc_recompute_flags(struct proc_state *p)
{
	p->flags &= ~PROF_FLAG_CLOCK_MASK;
	for (uint32_t i = 0; i < p->nsources; i++)
		p->flags |= p->source_flag[i];
}

/* True when the source is new. */
static bool proc_add_source(struct proc_state *p, uint32_t src, uint64_t flag, bool inheritable)
{
	for (uint32_t i = 0; i < p->nsources; i++) {
		if (p->sources[i] == src) {
			p->inheritable[i] |= inheritable;
			return false;
		}
	}
	if (p->nsources == PROF_MAX_EVENTS)
		return false; /* keep the first ones; the flags still say which clocks */
	p->sources[p->nsources] = src;
	p->source_flag[p->nsources] = flag;
	p->inheritable[p->nsources] = inheritable;
	p->nsources++;
	proc_recompute_flags(p);
	return true;
}

static bool proc_remove_source(struct proc_state *p, uint32_t src)
{
	for (uint32_t i = 0; i < p->nsources; i++) {
		if (p->sources[i] != src)
			continue;
		p->nsources--;
		p->sources[i] = p->sources[p->nsources];
		p->source_flag[i] = p->source_flag[p->nsources];
		p->inheritable[i] = p->inheritable[p->nsources];
		proc_recompute_flags(p);
		return true;
	}
	return false;
}

/* ---- conversion to struct profil_event --------------------------------------------- */

static void read_exe(uint32_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static void ctx_to_event(struct watch *w, const struct watch_ctx *c, struct profil_event *ev)
{
	struct proc_state *p = proc_find(w, c->host_pid);

	ev->timestamp = c->ts + w->mono_to_real;
	ev->thread_start_time = c->start_time + w->mono_to_real;
	ev->processor_id = c->cpu;
	ev->pid = c->pid;
	ev->tid = c->tid;
	ev->ppid = c->ppid;
	ev->host_pid = c->host_pid;
	ev->host_tid = c->host_tid;
	ev->host_ppid = c->host_ppid;
	ev->uid = c->uid;
	ev->cgroup_id = c->cgroup_id;
	ev->mnt_ns = c->mnt_ns;
	ev->pid_ns = c->pid_ns;
	ev->is_compat = c->is_compat;
	ev->return_value = c->ret;
	memcpy(ev->comm, c->comm, sizeof(ev->comm));
	ev->comm[sizeof(ev->comm) - 1] = '\0';
	memcpy(ev->hostname, c->hostname, sizeof(ev->hostname));
	ev->hostname[sizeof(ev->hostname) - 1] = '\0';
	/* the executable of a process that has exited cannot be read: cache it */
	if (p && !p->exe[0])
		read_exe(c->host_pid, p->exe, sizeof(p->exe));
	if (p)
		snprintf(ev->executable, sizeof(ev->executable), "%s", p->exe);
	else
		read_exe(c->host_pid, ev->executable, sizeof(ev->executable));
}

static void emit(struct watch *w, const struct profil_event *ev)
{
	if (!event_filter__match(&w->opts->filter, ev->pid, ev->host_pid, ev->comm, ev->id))
		return;
	int err = event_writer__emit(w->out, ev);
	if (err && !w->write_err) {
		w->write_err = err;
		fprintf(stderr, "profil watch: writing an event failed: %s\n", strerror(-err));
		stop_requested = 1;
	}
}

/* A prof event for process p, in the context of ev (same process). */
static void emit_prof(struct watch *w, const struct profil_event *ctx, struct proc_state *p,
		      uint64_t flags)
{
	p->on = flags & PROF_FLAG_ENABLE;
	struct profil_event ev = *ctx;

	ev.id = PEV_PROF;
	ev.return_value = 0;
	memset(&ev.prof, 0, sizeof(ev.prof));
	ev.prof.flags = flags | p->flags;
	ev.prof.nevents = p->nsources;
	memcpy(ev.prof.events, p->sources, sizeof(ev.prof.events));
	emit(w, &ev);
}

static void source_on(struct watch *w, const struct profil_event *ctx, uint32_t src, uint64_t flag,
		      bool inheritable)
{
	struct proc_state *p = proc_get(w, ctx->host_pid);

	if (p && proc_add_source(p, src, flag, inheritable))
		emit_prof(w, ctx, p, PROF_FLAG_ENABLE);
}

/*
 * A source is turned off by an explicit call.  Only when it was the last
 * one is profiling off: prof DISABLE|ON_CALL lists what was turned off.
 */
static void source_off(struct watch *w, const struct profil_event *ctx, uint32_t src)
{
	struct proc_state *p = proc_find(w, ctx->host_pid);

	if (!p)
		return;
	if (p->on && p->nsources == 1 && p->sources[0] == src) {
		emit_prof(w, ctx, p, PROF_FLAG_DISABLE | PROF_FLAG_ON_CALL);
		p->flags &= ~PROF_FLAG_SPROFIL;
	}
	proc_remove_source(p, src);
}

/* Every source of p stops (exec, exit, profil(NULL)): prof DISABLE|why. */
static void all_off(struct watch *w, const struct profil_event *ctx, uint64_t why)
{
	struct proc_state *p = proc_find(w, ctx->host_pid);

	if (!p || !p->on)
		return;
	emit_prof(w, ctx, p, PROF_FLAG_DISABLE | why);
	p->nsources = 0;
	p->flags &= ~(PROF_FLAG_CLOCK_MASK | PROF_FLAG_SPROFIL);
}

static uint64_t usec(int64_t sec, int64_t us)
{
	return (uint64_t)sec * 1000000u + (uint64_t)us;
}

static void on_setitimer(struct watch *w, const struct watch_event *e, struct profil_event *ev)
{
	ev->setitimer.which = e->setitimer.which;
	ev->setitimer.interval_us = usec(e->setitimer.interval_sec, e->setitimer.interval_usec);
	ev->setitimer.value_us = usec(e->setitimer.value_sec, e->setitimer.value_usec);
	emit(w, ev);
	if (e->ctx.ret != 0 || !e->setitimer.has_value ||
	    (e->setitimer.which != 1 && e->setitimer.which != 2))
		return;
	if (ev->setitimer.value_us)
		source_on(w, ev, PROF_EVENT_ITIMER(e->setitimer.which), PROF_FLAG_CLOCK_ITIMER,
			  false);
	else
		source_off(w, ev, PROF_EVENT_ITIMER(e->setitimer.which));
}

static void on_timer_create(struct watch *w, const struct watch_event *e, struct profil_event *ev)
{
	int32_t clk = e->timer_create.clockid;
	bool per_thread = clk == 3 || (clk < 0 && (clk & 4));

	ev->timer_create.clockid = clk;
	ev->timer_create.sigev_notify = e->timer_create.sigev_notify;
	ev->timer_create.sigev_signo = e->timer_create.sigev_signo;
	ev->timer_create.sigev_tid = e->timer_create.sigev_tid;
	emit(w, ev);
	if (e->ctx.ret == 0)
		source_on(w, ev, PROF_EVENT_CLOCK(clk),
			  per_thread ? PROF_FLAG_CLOCK_THREAD : PROF_FLAG_CLOCK_PROCESS, false);
}

/* The host tgid of the process a perf event samples, 0 if none in particular. */
static uint32_t perf_target(const struct watch_event *e)
{
	int32_t pid = e->perf.pid;
	char path[64], line[128];
	unsigned int tgid = 0;

	if (pid == 0 || (uint32_t)pid == e->ctx.tid || (uint32_t)pid == e->ctx.pid)
		return e->ctx.host_pid;
	if (pid < 0 || e->ctx.pid != e->ctx.host_pid)
		return 0; /* per-CPU, or a pid of another namespace: no one process */
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

static void on_perf_event_open(struct watch *w, const struct watch_event *e,
			       struct profil_event *ev)
{
	ev->perf_event_open.pid = e->perf.pid;
	ev->perf_event_open.cpu = e->perf.cpu;
	ev->perf_event_open.group_fd = e->perf.group_fd;
	ev->perf_event_open.flags = e->perf.flags;
	ev->perf_event_open.type = e->perf.type;
	ev->perf_event_open.config = e->perf.config;
	ev->perf_event_open.sample_period = e->perf.freq ? 0 : e->perf.sample;
	ev->perf_event_open.sample_freq = e->perf.freq ? e->perf.sample : 0;
	emit(w, ev);
	if (e->ctx.ret < 0 || !e->perf.sample || !e->perf.has_attr)
		return;
	uint32_t target = perf_target(e);
	if (!target)
		return;
	struct profil_event tev = *ev;
	if (target != e->ctx.host_pid) {
		/* another process is sampled: its prof event, and its lifecycle */
		char path[64];
		uint32_t bits = WATCH_TRACK_ENABLED;

		tev.pid = tev.host_pid = tev.tid = tev.host_tid = target;
		tev.ppid = tev.host_ppid = 0;
		snprintf(path, sizeof(path), "/proc/%u/comm", target);
		FILE *f = fopen(path, "r");
		if (!f || !fgets(tev.comm, sizeof(tev.comm), f))
			tev.comm[0] = '\0';
		tev.comm[strcspn(tev.comm, "\n")] = '\0';
		if (f)
			fclose(f);
		read_exe(target, tev.executable, sizeof(tev.executable));
		bpf_map_update_elem(bpf_map__fd(w->skel->maps.tracked), &target, &bits, BPF_ANY);
	}
	source_on(w, &tev, PROF_EVENT_PERF(e->perf.type, e->perf.config), PROF_FLAG_CLOCK_PERF,
		  e->perf.inherit);
}

static void on_profil_call(struct watch *w, const struct watch_event *e, struct profil_event *ev)
{
	bool off;

	ev->from_syscall = e->probe_cookie == WATCH_COOKIE_SYSCALL;
	if (e->id == PEV_PROFIL) {
		ev->profil.buf = e->profil.buf;
		ev->profil.buflen = e->profil.buflen;
		ev->profil.offset = e->profil.offset;
		ev->profil.scale = e->profil.scale;
		ev->profil.pc = e->profil.pc;
		/* glibc: a buffer with scale 0 is on (every tick in bin 0) */
		off = !e->profil.buf || (!e->profil.scale && e->probe_cookie != WATCH_COOKIE_GLIBC);
	} else {
		ev->sprofil.profp = e->sprofil.profp;
		ev->sprofil.profcnt = e->sprofil.profcnt;
		ev->sprofil.tvp = e->sprofil.tvp;
		ev->sprofil.flags = e->sprofil.flags;
		ev->sprofil.pc = e->sprofil.pc;
		ev->sprofil.nregions = e->sprofil.nregions;
		for (uint32_t i = 0; i < e->sprofil.nregions && i < PROFIL_MAX_REGIONS; i++) {
			ev->sprofil.regions[i].base = e->sprofil.regions[i].base;
			ev->sprofil.regions[i].size = e->sprofil.regions[i].size;
			ev->sprofil.regions[i].off = e->sprofil.regions[i].off;
			ev->sprofil.regions[i].scale = e->sprofil.regions[i].scale;
		}
		/* a call while regions are active turns profiling off */
		struct proc_state *st = proc_find(w, e->ctx.host_pid);
		off = e->sprofil.profcnt <= 0 || (st && (st->flags & PROF_FLAG_SPROFIL));
	}
	emit(w, ev);
	if (e->ctx.ret != 0)
		return;
	if (off) {
		all_off(w, ev, PROF_FLAG_ON_CALL);
		return;
	}
	struct proc_state *p = proc_get(w, e->ctx.host_pid);
	if (!p)
		return;
	if (e->id == PEV_SPROFIL)
		p->flags |= PROF_FLAG_SPROFIL;
	/* the clock it uses was reported by its syscalls; if none was seen, still say so */
	if (!p->on)
		emit_prof(w, ev, p, PROF_FLAG_ENABLE);
}

static void on_fork(struct watch *w, const struct watch_event *e, struct profil_event *ev)
{
	struct proc_state *parent = proc_find(w, e->ctx.host_pid), *child;
	bool same_ns = e->ctx.pid == e->ctx.host_pid;

	ev->fork.parent_tid = e->fork.parent_tid;
	ev->fork.parent_pid = e->fork.parent_pid;
	ev->fork.child_tid = e->fork.child_tid;
	ev->fork.child_pid = e->fork.child_pid;
	ev->fork.start_time = e->fork.child_start_time + w->mono_to_real;
	emit(w, ev);

	child = proc_get(w, e->fork.child_pid);
	parent = proc_find(w, e->ctx.host_pid); /* proc_get may have moved it */
	if (!child)
		return;
	if (parent) {
		/* Linux children keep only perf events opened with attr.inherit */
		for (uint32_t i = 0; i < parent->nsources; i++)
			if (parent->inheritable[i])
				proc_add_source(child, parent->sources[i], parent->source_flag[i],
						true);
		snprintf(child->exe, sizeof(child->exe), "%s", parent->exe);
	}
	struct profil_event cev = *ev;
	cev.pid = same_ns ? e->fork.child_pid : 0;
	cev.tid = same_ns ? e->fork.child_tid : 0;
	cev.ppid = e->ctx.pid;
	cev.host_pid = e->fork.child_pid;
	cev.host_tid = e->fork.child_tid;
	cev.host_ppid = e->ctx.host_pid;
	cev.thread_start_time = ev->fork.start_time;
	emit_prof(w, &cev, child,
		  PROF_FLAG_INHERIT_FORK |
			  (child->nsources ? PROF_FLAG_ENABLE : PROF_FLAG_DISABLE));
}

static int handle_event(void *arg, void *data, size_t size)
{
	struct watch *w = arg;
	const struct watch_event *e = data;
	struct profil_event ev = {.id = 0};

	if (size < sizeof(*e))
		return 0;
	ev.id = e->id;
	ctx_to_event(w, &e->ctx, &ev);
	switch (e->id) {
	case PEV_SETITIMER:
		on_setitimer(w, e, &ev);
		break;
	case PEV_TIMER_CREATE:
		on_timer_create(w, e, &ev);
		break;
	case PEV_PERF_EVENT_OPEN:
		on_perf_event_open(w, e, &ev);
		break;
	case PEV_PROFIL:
	case PEV_SPROFIL:
		on_profil_call(w, e, &ev);
		break;
	case PEV_SCHED_PROCESS_FORK:
		on_fork(w, e, &ev);
		break;
	case PEV_SCHED_PROCESS_EXEC:
		all_off(w, &ev, PROF_FLAG_ON_EXEC);
		snprintf(ev.exec.pathname, sizeof(ev.exec.pathname), "%s", e->exec.filename);
		snprintf(ev.executable, sizeof(ev.executable), "%s", e->exec.filename);
		emit(w, &ev);
		proc_forget(w, e->ctx.host_pid);
		break;
	case PEV_SCHED_PROCESS_EXIT:
		all_off(w, &ev, PROF_FLAG_ON_EXIT);
		ev.exit.signal = e->exit.exit_code & 0x7f;
		ev.exit.exit_code = ev.exit.signal ? -1 : (e->exit.exit_code >> 8) & 0xff;
		ev.exit.process_group_exit = true;
		emit(w, &ev);
		proc_forget(w, e->ctx.host_pid);
		break;
	}
	return 0;
}

/* Report ring-buffer drops counted by the BPF side since the last report. */
static void report_drops(struct watch *w)
{
	int ncpus = libbpf_num_possible_cpus();
	uint32_t zero = 0;

	if (ncpus <= 0)
		return;
	uint64_t *per_cpu = calloc((size_t)ncpus, sizeof(*per_cpu)), total = 0;
	if (!per_cpu)
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(w->skel->maps.drops), &zero, per_cpu)) {
		for (int i = 0; i < ncpus; i++)
			total += per_cpu[i];
	}
	free(per_cpu);
	if (total > w->drops_reported) {
		struct profil_event ev = {.id = PEV_EVENTS_LOST};
		ev.timestamp = profil_event__now_ns();
		ev.host_pid = ev.pid = (uint32_t)getpid();
		ev.host_tid = ev.tid = ev.host_pid;
		snprintf(ev.comm, sizeof(ev.comm), "profil");
		ev.events_lost.count = total - w->drops_reported;
		w->drops_reported = total;
		/* never filtered: a filtered stream must still say it is incomplete */
		int err = event_writer__emit(w->out, &ev);
		if (err && !w->write_err)
			w->write_err = err;
		fprintf(stderr, "profil watch: %llu events lost (ring buffer full)\n",
			(unsigned long long)ev.events_lost.count);
	}
}

/* ---- attaching ----------------------------------------------------------------------- */

static int add_link(struct watch *w, struct bpf_link *link)
{
	long err = libbpf_get_error(link);

	if (err)
		return (int)err;
	if (w->nlinks == sizeof(w->links) / sizeof(w->links[0])) {
		bpf_link__destroy(link);
		return -E2BIG;
	}
	w->links[w->nlinks++] = link;
	return 0;
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so.")) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Attach profil/sprofil entry and return probes to one file; returns how many functions. */
static int attach_lib(struct watch *w, const char *path, bool quiet, bool is_libc)
{
	static const struct {
		const char *func;
		bool is_sprofil;
	} funcs[] = {{"profil", false}, {"sprofil", true}};
	int attached = 0;

	for (size_t i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, entry, .func_name = funcs[i].func, .retprobe = false,
			    .bpf_cookie = is_libc ? WATCH_COOKIE_GLIBC : WATCH_COOKIE_OTHER);
		LIBBPF_OPTS(bpf_uprobe_opts, ret, .func_name = funcs[i].func, .retprobe = true);
		struct bpf_program *enter_prog = funcs[i].is_sprofil ?
							 w->skel->progs.sprofil_enter :
							 w->skel->progs.profil_enter;
		int err = add_link(
			w, bpf_program__attach_uprobe_opts(enter_prog, -1, path, 0, &entry));

		if (!err)
			err = add_link(w, bpf_program__attach_uprobe_opts(
						  w->skel->progs.profil_return, -1, path, 0, &ret));
		if (err) {
			if (!quiet)
				fprintf(stderr, "profil watch: cannot probe %s() in %s: %s\n",
					funcs[i].func, path, strerror(-err));
			continue;
		}
		attached++;
	}
	return attached;
}

/* Probe glibc, libprofil next to this program and where it installs, and --lib files. */
static void attach_uprobes(struct watch *w, char *summary, size_t len)
{
	char libc[PATH_MAX] = "", self[PATH_MAX], cand[PATH_MAX + 32], real[PATH_MAX];
	const char *fixed[] = {"/usr/local/lib/libprofil.so.0", "/usr/lib/libprofil.so.0",
			       "/usr/lib/x86_64-linux-gnu/libprofil.so.0"};
	char done[8 + MAX_LIBS][PATH_MAX];
	unsigned int ndone = 0;
	size_t used = 0;
	ssize_t n;

	summary[0] = '\0';
	dl_iterate_phdr(find_libc, libc);
	const char *paths[8 + MAX_LIBS];
	bool quiet[8 + MAX_LIBS];
	unsigned int np = 0;
	if (libc[0]) {
		quiet[np] = false;
		paths[np++] = libc;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		snprintf(cand, sizeof(cand), "%s/libprofil.so", self);
		quiet[np] = true;
		paths[np++] = cand;
	}
	for (size_t i = 0; i < 3; i++) {
		quiet[np] = true;
		paths[np++] = fixed[i];
	}
	for (unsigned int i = 0; i < w->opts->nlibs; i++) {
		quiet[np] = false;
		paths[np++] = w->opts->libs[i];
	}
	for (unsigned int i = 0; i < np; i++) {
		if (!realpath(paths[i], real)) {
			if (!quiet[i])
				fprintf(stderr, "profil watch: cannot probe %s: %s\n", paths[i],
					strerror(errno));
			continue;
		}
		bool seen = false;
		for (unsigned int j = 0; j < ndone; j++)
			seen |= !strcmp(done[j], real);
		if (seen)
			continue;
		snprintf(done[ndone++], PATH_MAX, "%s", real);
		int k = attach_lib(w, real, quiet[i], paths[i] == libc);
		if (k > 0 && used < len)
			used += (size_t)snprintf(summary + used, len - used, "%s%s",
						 used ? "," : "", real);
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int watch_open(struct watch *w)
{
	int err;

	w->skel = watch_bpf__open();
	if (w->skel) {
		w->skel->rodata->self_tgid = (uint32_t)getpid();
		err = 0;
		if (w->opts->ringbuf_kb)
			err = bpf_map__set_max_entries(w->skel->maps.events,
						       w->opts->ringbuf_kb * 1024u);
		if (!err)
			err = watch_bpf__load(w->skel);
		if (err) {
			watch_bpf__destroy(w->skel);
			w->skel = NULL;
			errno = -err;
		}
	}
	if (!w->skel) {
		fprintf(stderr, "profil watch: loading the BPF programs failed: %s%s\n",
			strerror(errno), w->opts->verbose ? "" : " (--verbose says why)");
		return -1;
	}
	struct bpf_program *tps[] = {w->skel->progs.sys_enter, w->skel->progs.sys_exit,
				     w->skel->progs.sched_fork, w->skel->progs.sched_exec,
				     w->skel->progs.sched_exit};
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		err = add_link(w, bpf_program__attach(tps[i]));
		if (err) {
			fprintf(stderr, "profil watch: attaching %s failed: %s\n",
				bpf_program__name(tps[i]), strerror(-err));
			return -1;
		}
	}
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.events), handle_event, w, NULL);
	if (!w->rb) {
		fprintf(stderr, "profil watch: creating the ring buffer failed: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static void watch_close(struct watch *w)
{
	while (w->nlinks)
		bpf_link__destroy(w->links[--w->nlinks]);
	ring_buffer__free(w->rb);
	watch_bpf__destroy(w->skel);
	free(w->procs);
}

static int watch_run(struct watch *w)
{
	uint64_t deadline = w->opts->duration > 0 ? clock_ns(CLOCK_MONOTONIC) +
							    (uint64_t)(w->opts->duration * 1e9) :
						    0;

	while (!stop_requested) {
		int timeout_ms = 100;

		if (deadline) {
			uint64_t now = clock_ns(CLOCK_MONOTONIC);
			if (now >= deadline)
				break;
			if (deadline - now < 100000000ull)
				timeout_ms = (int)((deadline - now) / 1000000u) + 1;
		}
		int n = ring_buffer__poll(w->rb, timeout_ms);
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "profil watch: reading the ring buffer failed: %s\n",
				strerror(-n));
			return 1;
		}
		report_drops(w);
	}
	ring_buffer__consume(w->rb); /* what arrived before the stop */
	report_drops(w);
	return w->write_err ? 1 : 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {.output = "-", .fmt = EVENT_FORMAT_JSON};
	struct watch w = {.opts = &o};
	struct sigaction sa = {.sa_handler = on_signal};
	char probed[2048];
	int rc = watch_parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (check_privileges())
		return 2;
	libbpf_set_print(o.verbose ? libbpf_print : libbpf_quiet);
	w.out = event_writer__open_format(o.output, o.fmt);
	if (!w.out) {
		fprintf(stderr, "profil watch: cannot write %s: %s\n", o.output, strerror(errno));
		return 1;
	}
	rc = 1;
	if (watch_open(&w))
		goto cleanup;
	attach_uprobes(&w, probed, sizeof(probed));
	w.mono_to_real = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "profil watch: ready (profil/sprofil probed in: %s)\n",
		probed[0] ? probed : "none");
	rc = watch_run(&w);
cleanup:
	watch_close(&w);
	if (event_writer__close(w.out) && !rc) {
		fprintf(stderr, "profil watch: closing %s failed\n", o.output);
		rc = 1;
	}
	return rc;
}

#endif /* HAVE_BPF */
