// SPDX-License-Identifier: MIT
/*
 * The user half of `profil watch`: load bpf/watch.bpf.c, attach its
 * tracepoints and uprobes, and turn its records into prof/profil events
 * with a per-process state machine (what each process has turned on).
 * See watch.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events/watch.h"
#include "utils/cgroup.h"
#include "utils/array.h"
#include "utils/caps.h"
#include "utils/why.h"
#include "utils/procfile.h"

#ifndef PROFIL_HAVE_BPF

int watch__check(char *why, size_t whylen)
{
	return why_fail(why, whylen, -ENOTSUP, "built without BPF support (%s)",
			WATCH_NO_BPF_REASON);
}

int watch__open(struct watch **out, const struct watch_opts *o, const struct watch_sink *sink,
		char *why, size_t whylen)
{
	(void)out;
	(void)o;
	(void)sink;
	return watch__check(why, whylen);
}

void watch__attach_uprobes(struct watch *w, char *summary, size_t len)
{
	(void)w;
	if (len)
		summary[0] = '\0';
}

int watch__run(struct watch *w, double duration_s, const volatile sig_atomic_t *stop, char *why,
	       size_t whylen)
{
	(void)w;
	(void)duration_s;
	(void)stop;
	return watch__check(why, whylen);
}

void watch__close(struct watch *w)
{
	(void)w;
}

#else /* PROFIL_HAVE_BPF */

#include <limits.h>
#include <link.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/watch.h"
#include "watch.skel.h"

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
	bool container_read;
	char container_id[72]; /* utils/cgroup.h, read once while it lives */
};

struct watch {
	struct watch_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[4 * (WATCH_MAX_LIBS + 4) + 8];
	unsigned int nlinks;
	struct watch_sink sink;
	const struct watch_opts *opts;
	uint64_t mono_to_real; /* add to a CLOCK_MONOTONIC ns value to get epoch ns */
	uint64_t drops_reported;
	struct proc_state *procs;
	size_t nprocs, cap_procs;
};

/* ---- privileges -------------------------------------------------------------------- */

int watch__check(char *why, size_t whylen)
{
	uint64_t caps = caps__effective();
	bool bpf = caps & (1ull << CAPS_BPF), perfmon = caps & (1ull << CAPS_PERFMON);

	if ((caps & (1ull << CAPS_SYS_ADMIN)) || (bpf && perfmon))
		return 0;
	return why_fail(why, whylen, -EPERM, "needs root or CAP_BPF and CAP_PERFMON (missing:%s%s)",
			bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
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
	p = array__push(&w->procs, &w->nprocs, &w->cap_procs, sizeof(*w->procs));
	if (p)
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

/* The container a process runs in (its cgroup path shows it), kept for when it has gone. */
static void container_of(struct proc_state *p, uint32_t host_pid, char *out, size_t len)
{
	uint64_t id;

	if (p && p->container_read) {
		snprintf(out, len, "%s", p->container_id);
		return;
	}
	cgroup__event_ctx((pid_t)host_pid, &id, out, len);
	if (p) {
		snprintf(p->container_id, sizeof(p->container_id), "%s", out);
		p->container_read = true;
	}
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
	container_of(p, c->host_pid, ev->container_id, sizeof(ev->container_id));
}

static void emit(struct watch *w, const struct profil_event *ev)
{
	w->sink.event(w->sink.arg, ev);
}

static void warn(struct watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct watch *w, const char *fmt, ...)
{
	char msg[PATH_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->sink.warn(w->sink.arg, msg);
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
	unsigned long long tgid;

	if (pid == 0 || (uint32_t)pid == e->ctx.tid || (uint32_t)pid == e->ctx.pid)
		return e->ctx.host_pid;
	if (pid < 0 || e->ctx.pid != e->ctx.host_pid)
		return 0; /* per-CPU, or a pid of another namespace: no one process */
	return procfile__status_number(pid, "Tgid", 10, &tgid) == 0 ? (uint32_t)tgid : 0;
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
		emit(w, &ev);
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
				warn(w, "cannot probe %s() in %s: %s", funcs[i].func, path,
				     strerror(-err));
			continue;
		}
		attached++;
	}
	return attached;
}

void watch__attach_uprobes(struct watch *w, char *summary, size_t len)
{
	char libc[PATH_MAX] = "", self[PATH_MAX], cand[PATH_MAX + 32], real[PATH_MAX];
	const char *fixed[] = {"/usr/local/lib/libprofil.so.0", "/usr/lib/libprofil.so.0",
			       "/usr/lib/x86_64-linux-gnu/libprofil.so.0"};
	char done[8 + WATCH_MAX_LIBS][PATH_MAX];
	unsigned int ndone = 0;
	size_t used = 0;
	ssize_t n;

	summary[0] = '\0';
	dl_iterate_phdr(find_libc, libc);
	const char *paths[8 + WATCH_MAX_LIBS];
	bool quiet[8 + WATCH_MAX_LIBS];
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
				warn(w, "cannot probe %s: %s", paths[i], strerror(errno));
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

int watch__open(struct watch **out, const struct watch_opts *o, const struct watch_sink *sink,
		char *why, size_t whylen)
{
	struct watch *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	w->opts = o;
	w->sink = *sink;
	libbpf_set_print(o->verbose ? libbpf_print : libbpf_quiet);

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
		err = -errno;
		why_fail(why, whylen, err, "loading the BPF programs failed: %s%s", strerror(-err),
			 w->opts->verbose ? "" : " (--verbose says why)");
		goto fail;
	}
	struct bpf_program *tps[] = {w->skel->progs.sys_enter, w->skel->progs.sys_exit,
				     w->skel->progs.sched_fork, w->skel->progs.sched_exec,
				     w->skel->progs.sched_exit};
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		err = add_link(w, bpf_program__attach(tps[i]));
		if (err) {
			why_fail(why, whylen, err, "attaching %s failed: %s",
				 bpf_program__name(tps[i]), strerror(-err));
			goto fail;
		}
	}
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.events), handle_event, w, NULL);
	if (!w->rb) {
		err = -errno;
		why_fail(why, whylen, err, "creating the ring buffer failed: %s", strerror(-err));
		goto fail;
	}
	w->mono_to_real = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	*out = w;
	return 0;
fail:
	watch__close(w);
	return err;
}

void watch__close(struct watch *w)
{
	if (!w)
		return;
	while (w->nlinks)
		bpf_link__destroy(w->links[--w->nlinks]);
	ring_buffer__free(w->rb);
	watch_bpf__destroy(w->skel);
	free(w->procs);
	free(w);
}

int watch__run(struct watch *w, double duration_s, const volatile sig_atomic_t *stop, char *why,
	       size_t whylen)
{
	uint64_t deadline =
		duration_s > 0 ? clock_ns(CLOCK_MONOTONIC) + (uint64_t)(duration_s * 1e9) : 0;

	while (!*stop) {
		int timeout_ms = 100;

		if (deadline) {
			uint64_t now = clock_ns(CLOCK_MONOTONIC);
			if (now >= deadline)
				break;
			if (deadline - now < 100000000ull)
				timeout_ms = (int)((deadline - now) / 1000000u) + 1;
		}
		int n = ring_buffer__poll(w->rb, timeout_ms);
		if (n < 0 && n != -EINTR)
			return why_fail(why, whylen, n, "reading the ring buffer failed: %s",
					strerror(-n));
		report_drops(w);
	}
	ring_buffer__consume(w->rb); /* what arrived before the stop */
	report_drops(w);
	return 0;
}

#endif /* PROFIL_HAVE_BPF */
