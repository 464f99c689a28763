// SPDX-License-Identifier: MIT
/*
 * `profil record --events FILE`: the prof/profil event stream of the
 * profiled tree, as it happens (events/events.h is the definition).
 *
 * Lifecycle events come from profil.data itself, so every clock gives the
 * same stream: a new process record is a fork (its parent image has
 * another pid) or an exec (same pid, or the command itself); a record
 * whose end is filled in is an exit.  The recorder calls
 * record_events__poll() at every poll round (<= 50 ms), so events trail
 * reality by at most that.  Calls to profil()/sprofil() made by the
 * program through libprofil arrive as datagrams (lib/callmsg.h) on a
 * socket whose other end every process of the tree inherits.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/callmsg.h"
#include "lib/env.h"
#include "events/events.h"
#include "profile/pdata.h"
#include "profil.h"
#include "events/record_events.h"
#include "utils/cgroup.h"
#include "utils/array.h"

struct ev_proc {
	struct {
		uint32_t parent;
		int32_t pid, ppid;
		uint64_t start_ns;
	} head;			       /* copied from the record as published (the image's start) */
	const struct pdata_proc *live; /* the record in the mapping: its end is written later */
	char *exe;
	char comm[PROFIL_COMM_LEN];
	int ended; /* its DISABLE + exit (or exec) events are out */
	/* where it runs (read_where, once: at its record, while it lives) */
	int where_read;
	uint64_t cgroup_id;
	char container_id[sizeof(((struct profil_event *)0)->container_id)];
};

/* An event of the current poll round, with its place in the round (equal times keep it). */
struct pending {
	uint64_t seq;
	struct profil_event ev;
};

struct record_events {
	struct event_writer *w;
	struct pdata *pd;
	int sock[2]; /* [0] the recorder reads, [1] the tree inherits */
	uint64_t off;
	struct ev_proc *procs; /* index = proc id - 1 */
	size_t nprocs;
	uint64_t clock_flags;
	uint32_t clock_event;
	uint64_t calls_lost;
	char hostname[PROFIL_HOSTNAME_LEN];
	struct pending *pending; /* this poll round's events, written in time order at its end */
	size_t npending, pending_cap;
};

int record_events__open(struct record_events **out, const char *path, char *why, size_t whylen)
{
	struct record_events *re = calloc(1, sizeof(*re));
	int err;

	if (!re)
		return -ENOMEM;
	re->sock[0] = re->sock[1] = -1;
	err = event_writer__create(&re->w, path, EVENT_FORMAT_JSON, why, whylen);
	if (err < 0) {
		free(re);
		return err;
	}
	/* the inherited end is not close-on-exec: the whole tree reports through it */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, re->sock) < 0 ||
	    fcntl(re->sock[1], F_SETFD, 0) < 0 || fcntl(re->sock[0], F_SETFL, O_NONBLOCK) < 0) {
		err = errno;
		snprintf(why, whylen, "cannot create the event socket: %s", strerror(err));
		record_events__close(re, NULL, 0);
		return -err;
	}
	gethostname(re->hostname, sizeof(re->hostname) - 1);
	*out = re;
	return 0;
}

void record_events__export_fd(struct record_events *re)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", re->sock[1]);
	setenv(PROFIL_ENV_EVENTS_FD, v, 1);
}

void record_events__start(struct record_events *re, struct pdata *pd, int pdata_clock)
{
	re->pd = pd;
	switch (pdata_clock) {
	case PDATA_CLOCK_BPF:
		re->clock_flags = PROF_FLAG_CLOCK_BPF;
		re->clock_event = PROF_EVENT_BPF(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		break;
	case PDATA_CLOCK_THREAD:
		re->clock_flags = PROF_FLAG_CLOCK_THREAD;
		re->clock_event = PROF_EVENT_CLOCK(CLOCK_THREAD_CPUTIME_ID);
		break;
	case PDATA_CLOCK_ITIMER:
		re->clock_flags = PROF_FLAG_CLOCK_PROCESS;
		re->clock_event = PROF_EVENT_CLOCK(CLOCK_PROCESS_CPUTIME_ID);
		break;
	default:
		re->clock_flags = PROF_FLAG_CLOCK_PERF;
		re->clock_event = PROF_EVENT_PERF(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	}
}

/* ---- one round's events, in time order ------------------------------------------------ */

/*
 * A round finds its events process by process (records, then calls, then
 * ends), not in the order they happened: they are held until the round's
 * end and written sorted by time.  Without memory, an event is written at
 * once (out of order, not lost).
 */
static void queue(struct record_events *re, const struct profil_event *ev)
{
	if (array__reserve(&re->pending, &re->pending_cap, re->npending + 1,
			   sizeof(*re->pending))) {
		event_writer__emit(re->w, ev);
		return;
	}
	re->pending[re->npending].seq = re->npending;
	re->pending[re->npending++].ev = *ev;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.timestamp != y->ev.timestamp)
		return x->ev.timestamp < y->ev.timestamp ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_round(struct record_events *re)
{
	qsort(re->pending, re->npending, sizeof(*re->pending), by_time);
	for (size_t i = 0; i < re->npending; i++)
		event_writer__emit(re->w, &re->pending[i].ev);
	re->npending = 0;
}

/* ---- context ---------------------------------------------------------------- */

/* Where pid runs while it lives; else where the recorder does (the tree starts there). */
static void read_where(int32_t pid, uint64_t *cgroup_id, char *container, size_t len)
{
	if (cgroup__event_ctx(pid, cgroup_id, container, len) < 0)
		cgroup__event_ctx(getpid(), cgroup_id, container, len);
}

static void context(struct record_events *re, struct profil_event *ev, uint32_t id,
		    const struct ev_proc *p, uint64_t when)
{
	const char *exe = p->exe, *slash = strrchr(exe, '/');

	memset(ev, 0, sizeof(*ev));
	ev->id = id;
	ev->timestamp = when ? when : profil_event__now_ns();
	ev->thread_start_time = p->head.start_ns;
	ev->pid = ev->host_pid = (uint32_t)p->head.pid;
	ev->tid = ev->host_tid = (uint32_t)p->head.pid;
	ev->ppid = ev->host_ppid = (uint32_t)p->head.ppid;
	ev->uid = (uint32_t)getuid();
	snprintf(ev->comm, sizeof(ev->comm), "%s", p->comm[0] ? p->comm : slash ? slash + 1 : exe);
	snprintf(ev->executable, sizeof(ev->executable), "%s", exe);
	snprintf(ev->hostname, sizeof(ev->hostname), "%s", re->hostname);
	if (!p->where_read) { /* a process the profile does not know (on_call) */
		read_where(p->head.pid, &ev->cgroup_id, ev->container_id, sizeof(ev->container_id));
		return;
	}
	ev->cgroup_id = p->cgroup_id;
	memcpy(ev->container_id, p->container_id, sizeof(ev->container_id));
}

static void emit_prof(struct record_events *re, const struct ev_proc *p, uint64_t flags,
		      uint64_t when)
{
	struct profil_event ev;

	context(re, &ev, PEV_PROF, p, when);
	ev.prof.flags = flags | re->clock_flags;
	ev.prof.nevents = 1;
	ev.prof.events[0] = re->clock_event;
	queue(re, &ev);
}

/* ---- lifecycle from profil.data ------------------------------------------------- */

static struct ev_proc *proc_by_id(struct record_events *re, uint32_t id)
{
	return id >= 1 && id <= re->nprocs && re->procs[id - 1].exe ? &re->procs[id - 1] : NULL;
}

static void emit_exit(struct record_events *re, struct ev_proc *p, int kind, int code,
		      uint64_t when)
{
	struct profil_event ev;

	emit_prof(re, p, PROF_FLAG_DISABLE | PROF_FLAG_ON_EXIT, when);
	context(re, &ev, PEV_SCHED_PROCESS_EXIT, p, when);
	ev.exit.process_group_exit = true;
	if (kind == PDATA_END_EXITED) {
		ev.exit.exit_code = code;
	} else if (kind == PDATA_END_SIGNALED) {
		ev.exit.exit_code = -1;
		ev.exit.signal = code;
	} else {
		ev.exit.exit_code = -1; /* status not observable (see doc/events.md) */
	}
	queue(re, &ev);
	p->ended = 1;
}

static void on_new_proc(struct record_events *re, struct ev_proc *p)
{
	struct ev_proc *parent = proc_by_id(re, p->head.parent);
	struct profil_event ev;

	if (parent && parent->head.pid != p->head.pid) {
		context(re, &ev, PEV_SCHED_PROCESS_FORK, parent, p->head.start_ns);
		ev.fork.parent_pid = ev.fork.parent_tid = (uint32_t)parent->head.pid;
		ev.fork.child_pid = ev.fork.child_tid = (uint32_t)p->head.pid;
		ev.fork.start_time = p->head.start_ns;
		queue(re, &ev);
		emit_prof(re, p, PROF_FLAG_ENABLE | PROF_FLAG_INHERIT_FORK, p->head.start_ns);
		return;
	}
	if (parent && !parent->ended) {
		emit_prof(re, parent, PROF_FLAG_DISABLE | PROF_FLAG_ON_EXEC, p->head.start_ns);
		parent->ended = 1;
	}
	context(re, &ev, PEV_SCHED_PROCESS_EXEC, p, p->head.start_ns);
	snprintf(ev.exec.pathname, sizeof(ev.exec.pathname), "%s", p->exe);
	queue(re, &ev);
	emit_prof(re, p, PROF_FLAG_ENABLE | PROF_FLAG_ON_EXEC, p->head.start_ns);
}

static int on_record(void *arg, const struct pdata_rec *rec)
{
	struct record_events *re = arg;

	if (rec->type == PDATA_REC_PROC) {
		const struct pdata_proc *pr = (const void *)rec;
		const struct pdata_rec *live = pdata__rec_live(rec);
		struct ev_proc *n;

		/*
		 * Damaged (any process of the tree can write the file).  Ids are handed out
		 * in order, one per record: more than the default records area can hold
		 * (8 MiB / 64 bytes) is a lie that would only cost memory (procs[] by id).
		 */
		if (rec->size <= sizeof(*pr) || !live || pr->id == 0 ||
		    pr->id > PDATA_DEFAULT_RECORDS / 64)
			return 0;
		if (pr->id > re->nprocs) {
			n = realloc(re->procs, sizeof(*n) * pr->id);
			if (!n)
				return 0;
			memset(n + re->nprocs, 0, sizeof(*n) * (pr->id - re->nprocs));
			re->procs = n;
			re->nprocs = pr->id;
		}
		if (re->procs[pr->id - 1].live)
			return 0; /* a duplicated id (a damaged file): keep the first */
		re->procs[pr->id - 1].head.parent = pr->parent;
		re->procs[pr->id - 1].head.pid = pr->pid;
		re->procs[pr->id - 1].head.ppid = pr->ppid;
		re->procs[pr->id - 1].head.start_ns = pr->start_ns;
		re->procs[pr->id - 1].live = (const struct pdata_proc *)live;
		re->procs[pr->id - 1].exe = strdup(pr->exe);
		if (!re->procs[pr->id - 1].exe)
			return 0;
		/* once: every event of the image is of this process, even after it has gone */
		read_where(pr->pid, &re->procs[pr->id - 1].cgroup_id,
			   re->procs[pr->id - 1].container_id,
			   sizeof(re->procs[pr->id - 1].container_id));
		re->procs[pr->id - 1].where_read = 1;
		on_new_proc(re, &re->procs[pr->id - 1]);
	} else if (rec->type == PDATA_REC_THREAD) {
		const struct pdata_thread *t = (const void *)rec;
		struct ev_proc *p = rec->size >= sizeof(*t) ? proc_by_id(re, t->proc) : NULL;

		if (p && t->tid == p->head.pid && t->comm[0])
			snprintf(p->comm, sizeof(p->comm), "%.15s", t->comm);
	}
	return 0;
}

/*
 * Exits: the recorder or the agent filled in the end of an image.  final:
 * also the images whose end was never seen; 2: the command's own images
 * too (they go last, after its children).
 */
static void check_ends(struct record_events *re, int final)
{
	int32_t root = pdata__header(re->pd)->root_pid;

	for (size_t i = 0; i < re->nprocs; i++) {
		struct ev_proc *p = &re->procs[i];
		int kind;

		if (!p->live || !p->exe || p->ended)
			continue;
		kind = __atomic_load_n(&p->live->end_kind, __ATOMIC_ACQUIRE);
		if (kind == PDATA_END_EXEC)
			continue; /* its DISABLE|ON_EXEC goes out with the next image */
		if (final == 1 && p->head.pid == root)
			continue;
		if (kind == PDATA_END_EXITED || kind == PDATA_END_SIGNALED) {
			emit_exit(re, p, kind, p->live->end_code, p->live->end_ns);
			continue;
		}
		/* ended with an unknown status: the command's own status comes at the end */
		if ((p->live->end_ns && p->head.pid != root) || final)
			emit_exit(re, p, kind, 0, p->live->end_ns);
	}
}

/* ---- profil()/sprofil() calls ------------------------------------------------------ */

static uint64_t call_clock_flags(int clock)
{
	switch (clock) {
	case PROFIL_CLOCK_THREAD:
		return PROF_FLAG_CLOCK_THREAD;
	case PROFIL_CLOCK_ITIMER:
		return PROF_FLAG_CLOCK_PROCESS;
	case PROFIL_CLOCK_PERF:
		return PROF_FLAG_CLOCK_PERF;
	default:
		return 0;
	}
}

static uint32_t call_clock_event(int clock)
{
	switch (clock) {
	case PROFIL_CLOCK_THREAD:
		return PROF_EVENT_CLOCK(CLOCK_THREAD_CPUTIME_ID);
	case PROFIL_CLOCK_ITIMER:
		return PROF_EVENT_CLOCK(CLOCK_PROCESS_CPUTIME_ID);
	case PROFIL_CLOCK_PERF:
		return PROF_EVENT_PERF(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	default:
		return 0;
	}
}

/* The image of pid that is current: the last one recorded. */
static struct ev_proc *current_image(struct record_events *re, int32_t pid)
{
	for (size_t i = re->nprocs; i > 0; i--)
		if (re->procs[i - 1].exe && re->procs[i - 1].head.pid == pid)
			return &re->procs[i - 1];
	return NULL;
}

static void on_call(struct record_events *re, const struct profil_callmsg *m)
{
	struct ev_proc fallback = {.head = {.pid = m->pid}, .exe = ""};
	struct ev_proc *p = current_image(re, m->pid);
	struct profil_event ev;

	if (!p)
		p = &fallback; /* a process the profile does not know (--no-inherit) */
	context(re, &ev, m->kind == PROFIL_CALL_SPROFIL ? PEV_SPROFIL : PEV_PROFIL, p, m->time_ns);
	ev.tid = ev.host_tid = (uint32_t)m->tid;
	ev.return_value = m->ret;
	if (m->kind == PROFIL_CALL_SPROFIL) {
		ev.sprofil.profp = m->profp;
		ev.sprofil.profcnt = m->profcnt;
		ev.sprofil.tvp = m->tvp;
		ev.sprofil.flags = m->flags;
		ev.sprofil.pc = m->pc;
		ev.sprofil.nregions =
			m->nregions < PROFIL_MAX_REGIONS ? m->nregions : PROFIL_MAX_REGIONS;
		for (uint32_t i = 0; i < ev.sprofil.nregions; i++)
			ev.sprofil.regions[i] =
				(struct profil_region){m->regions[i].base, m->regions[i].size,
						       m->regions[i].off, m->regions[i].scale};
	} else {
		ev.profil.buf = m->buf;
		ev.profil.buflen = m->bufsiz;
		ev.profil.offset = m->offset;
		ev.profil.scale = m->scale;
		ev.profil.pc = m->pc;
	}
	queue(re, &ev);
	if (m->ret != 0)
		return; /* a refused call changes nothing */
	context(re, &ev, PEV_PROF, p, m->time_ns);
	ev.tid = ev.host_tid = (uint32_t)m->tid;
	ev.prof.flags = (m->clock >= 0 ? PROF_FLAG_ENABLE | call_clock_flags(m->clock) :
					 PROF_FLAG_DISABLE) |
			PROF_FLAG_ON_CALL |
			(m->kind == PROFIL_CALL_SPROFIL ? PROF_FLAG_SPROFIL : 0);
	if (m->clock >= 0 && call_clock_event(m->clock)) {
		ev.prof.nevents = 1;
		ev.prof.events[0] = call_clock_event(m->clock);
	}
	queue(re, &ev);
}

static void read_calls(struct record_events *re)
{
	struct profil_callmsg m;
	ssize_t n;

	while ((n = recv(re->sock[0], &m, sizeof(m), MSG_DONTWAIT)) > 0) {
		if ((size_t)n != sizeof(m) || m.magic != PROFIL_CALLMSG_MAGIC)
			continue; /* not ours: ignore */
		on_call(re, &m);
	}
}

void record_events__poll(struct record_events *re)
{
	if (!re || !re->pd)
		return;
	pdata__foreach_rec_from(re->pd, &re->off, on_record, re);
	read_calls(re);
	check_ends(re, 0);
	write_round(re);
}

void record_events__finish(struct record_events *re)
{
	if (!re || !re->pd)
		return;
	pdata__foreach_rec_from(re->pd, &re->off, on_record, re);
	read_calls(re);
	check_ends(re, 1); /* the children first */
	check_ends(re, 2);
	write_round(re);
}

int record_events__close(struct record_events *re, char *why, size_t whylen)
{
	int err = 0;

	if (!re)
		return 0;
	if (re->w)
		err = event_writer__close(re->w, why, whylen);
	for (int i = 0; i < 2; i++)
		if (re->sock[i] >= 0)
			close(re->sock[i]);
	for (size_t i = 0; i < re->nprocs; i++)
		free(re->procs[i].exe);
	free(re->procs);
	free(re->pending);
	free(re);
	return err;
}
