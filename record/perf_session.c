// SPDX-License-Identifier: MIT
/*
 * `profil record`, perf_event clock: the kernel samples the task clock of
 * every thread of the profiled tree and writes PC samples, mmap, comm,
 * fork and exit records into one ring buffer per CPU (per-CPU events with
 * inherit: mmap of an inherited per-task event is EINVAL).  This file
 * reads the rings, puts the records back in time order (a task migrates
 * between CPUs, so a fork on one ring can be followed by the child's
 * samples on another) and writes processes, threads, executable mappings
 * and sample counts into the profile through the process tree
 * (record/proctree.c).
 *
 * Time order: the rings are read in rounds; after round k every record
 * stamped before the newest stamp of round k-1 has been read (a record is
 * stamped before it is written), so those are sorted and processed and
 * the rest wait for the next round.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "record/cpuacct.h"
#include "record/cpulist.h"
#include "record/keepobj.h"
#include "utils/array.h"
#include "record/perf_sample.h"
#include "record/perf_session.h"
#include "record/proctree.h"
#include "record/record.h"
#include "record/stacks.h"
#include "utils/htab.h"

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t data_size;
	size_t map_size;
};

struct qent {
	uint64_t ts;
	uint64_t seq;
	uint32_t chunk; /* where the record waits: chunks[chunk].mem + off */
	uint32_t off;
};

/*
 * The records read from the rings wait for their turn in chunks, which are
 * reused once every record in them is handled: a record is copied once,
 * and the memory stays (with call stacks ~165 MB/s per busy CPU pass
 * through; allocating it afresh every round cost more than the unwinding).
 */
#define CHUNK_BYTES (4u << 20)

struct chunk {
	char *mem;
	size_t used;
	size_t live; /* records in it not yet handled */
};

struct perf_session {
	struct pdata *pd;
	struct perf_session_opts opts;
	int *cpus;
	int ncpus;
	struct ring *rings; /* one per CPU */
	int *ring_fds;
	int *fds; /* every event */
	int nfds, fdcap;
	uint32_t ring_pages;
	uint32_t ring_pages_asked; /* before the mlock limit had its say */
	struct proctree *tree;	   /* the processes and threads the records describe */
	/* reorder queue */
	struct chunk *chunks;
	uint32_t nchunks, cur; /* records are appended to chunks[cur] */
	struct qent *q;
	size_t nq, qcap;
	uint64_t seq;
	uint64_t max_ts_prev, max_ts;
	uint64_t throttled;
	uint64_t throttled_ns;	/* time the events spent throttled */
	struct htab *throttles; /* event id -> time it was throttled */
	uint64_t handled_until; /* records up to this time have been handled */
	int kernel;		/* the events sample kernel PCs */
	int sample_read;	/* the samples carry the count (see fill_attr) */
	uint64_t missed;	/* ticks the threads' runtime was worth beyond their samples */
	struct stacks *stacks;	/* call stacks, NULL: a flat profile */
	struct perf_sample_layout layout; /* what the samples hold */
	struct keepobj *keep; /* the mapped objects held, for a copy of those replaced since */
};

struct throttle_ent {
	uint64_t id;
	uint64_t since;
};

static const struct htab_type throttle_type = HTAB_U64_TYPE(struct throttle_ent);

int perf_errno_is_refusal(int err)
{
	return err == EACCES || err == EPERM || err == ENOSYS || err == ENOENT || err == EOPNOTSUPP;
}

static int simulated_refusal(void)
{
	const char *e = getenv(PROFIL_ENV_SIMULATE_PERF_ERRNO);

	if (!e || !*e)
		return 0;
	if (!strcmp(e, "EACCES"))
		return EACCES;
	if (!strcmp(e, "EPERM"))
		return EPERM;
	if (!strcmp(e, "ENOSYS"))
		return ENOSYS;
	return EACCES;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       unsigned long flags)
{
	int err = simulated_refusal();

	if (err) {
		errno = err;
		return -1;
	}
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC | flags);
}

static void fill_common(struct perf_session *s, struct perf_event_attr *a)
{
	a->mmap = 1;
	a->mmap2 = 1;
	a->build_id = 1; /* MMAP2 records carry the file's build id (Linux >= 5.12) */
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->context_switch = s->opts.context_switch ? 1 : 0;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC; /* one time base for every CPU's ring */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->ring_pages * (uint64_t)getpagesize() / 2);
	if (s->stacks)
		stacks__fill_attr(s->stacks, a);
	s->layout.sample_type = a->sample_type;
	s->layout.regs_mask = a->sample_regs_user;
	s->layout.read_format = a->read_format;
}

/*
 * The whole machine, or a cgroup's tasks: the CPU's clock, whatever runs on
 * it (the task clock of a CPU-wide event would count idle time too),
 * except the idle task.  A cgroup's event runs only while a task of the
 * cgroup does: its clock is their CPU time.
 */
static void fill_system_attr(struct perf_session *s, struct perf_event_attr *a)
{
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 1000000000ull / (s->opts.hz ? s->opts.hz : 1);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->exclude_idle = 1;
	a->exclude_kernel = !s->kernel;
	a->exclude_hv = 1;
	fill_common(s, a);
}

static void fill_attr(struct perf_session *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	if (s->opts.system || s->opts.by_cgroup) {
		fill_system_attr(s, a);
		return;
	}
	/* task-clock counts nanoseconds: one sample per 1e9/hz ns of CPU time */
	a->sample_period = 1000000000ull / (s->opts.hz ? s->opts.hz : 1);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->disabled = !s->opts.attach;
	a->enable_on_exec = !s->opts.attach;
	a->inherit = 1;
	a->inherit_thread = !s->opts.follow_children;
	a->exclude_kernel = !s->kernel;
	a->exclude_hv = 1;
	/* each inherited thread's count at its exit: a PERF_RECORD_READ */
	a->inherit_stat = s->opts.thread_cpu ? 1 : 0;
	/*
	 * With the count in the samples (and inherit), the kernel (6.12 on) never
	 * swaps two threads' contexts at a switch: every inherited thread then
	 * exits holding its own, and its READ record comes (a swap leaves one
	 * thread with the parent's events, whose exit reports nothing).
	 */
	if (s->sample_read)
		a->sample_type |= PERF_SAMPLE_READ;
	fill_common(s, a);
}

static int push_fd(struct perf_session *s, int fd)
{
	if (s->nfds == s->fdcap) {
		int cap = s->fdcap ? s->fdcap * 2 : 16;
		int *n = realloc(s->fds, sizeof(int) * cap);

		if (!n)
			return -ENOMEM;
		s->fds = n;
		s->fdcap = cap;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

/* Map the ring of the first event on a CPU, as large as the mlock limit allows. */
static int map_ring(struct perf_session *s, struct ring *r, int fd)
{
	long page = getpagesize();

	for (uint32_t pages = s->ring_pages; pages >= 4; pages /= 2) {
		size_t len = (size_t)(pages + 1) * page;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (m == MAP_FAILED) {
			if (errno == EPERM || errno == ENOMEM)
				continue;
			return -errno;
		}
		r->fd = fd;
		r->meta = m;
		r->data = (char *)m + page;
		r->data_size = (uint64_t)pages * page;
		r->map_size = len;
		if (pages < s->ring_pages)
			s->ring_pages = pages; /* the next CPUs will not get more either */
		return 0;
	}
	return -EPERM;
}

/*
 * The ring size the locked-memory limit allows for every CPU at once
 * (perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK), found on dummy events
 * of the recorder itself before the real ones are opened: their wakeup
 * watermark is half the ring, and a watermark set for a larger ring than
 * the one mapped would wake the recorder only when the ring is full.
 */
static void fit_ring_pages(struct perf_session *s)
{
	struct perf_event_attr a = {.size = sizeof(a),
				    .type = PERF_TYPE_SOFTWARE,
				    .config = PERF_COUNT_SW_DUMMY,
				    .disabled = 1,
				    .exclude_kernel = 1,
				    .exclude_hv = 1};
	size_t page = (size_t)getpagesize();
	int *fds = malloc(sizeof(int) * (size_t)s->ncpus);
	void **maps = calloc((size_t)s->ncpus, sizeof(void *));
	int n = 0;

	for (; fds && maps && n < s->ncpus; n++) {
		fds[n] = sys_perf_event_open(&a, 0, s->cpus[n], 0);
		if (fds[n] < 0)
			break;
	}
	/* every CPU at the same size: the first must not take what the last needs */
	for (uint32_t pages = s->ring_pages; n == s->ncpus && pages >= 4; pages /= 2) {
		size_t len = (pages + 1) * page;
		int ok = 1;

		for (int i = 0; i < n && ok; i++) {
			maps[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
			ok = maps[i] != MAP_FAILED;
			if (!ok)
				maps[i] = NULL;
		}
		for (int i = 0; i < n; i++) {
			if (maps[i])
				munmap(maps[i], len);
			maps[i] = NULL;
		}
		if (ok) {
			s->ring_pages = pages;
			break;
		}
	}
	for (int i = 0; fds && i < n; i++)
		close(fds[i]);
	free(fds);
	free(maps);
}

/* One event of tid (or -1: every task, or a cgroup's fd with PERF_FLAG_PID_CGROUP) on CPU cpu. */
static int open_one(struct perf_session *s, pid_t tid, int cpu, unsigned long flags)
{
	struct perf_event_attr attr;
	int fd;

	fill_attr(s, &attr);
	fd = sys_perf_event_open(&attr, tid, cpu, flags);
	if (fd < 0 && s->kernel && (errno == EACCES || errno == EPERM)) {
		s->kernel = 0; /* kernel profiling is not permitted here: user PCs only */
		fill_attr(s, &attr);
		fd = sys_perf_event_open(&attr, tid, cpu, flags);
	}
	if (fd < 0 && s->sample_read && errno == EINVAL) {
		s->sample_read = 0; /* a kernel before 6.12: no inherit with SAMPLE_READ */
		fill_attr(s, &attr);
		fd = sys_perf_event_open(&attr, tid, cpu, flags);
	}
	if (fd < 0 && errno == EINVAL) { /* a kernel without build ids in MMAP2 */
		attr.build_id = 0;
		fd = sys_perf_event_open(&attr, tid, cpu, flags);
	}
	return fd;
}

static int open_tid(struct perf_session *s, pid_t tid, char *why, size_t whylen)
{
	unsigned long flags = s->opts.by_cgroup ? PERF_FLAG_PID_CGROUP : 0;

	for (int i = 0; i < s->ncpus; i++) {
		int fd = open_one(s, tid, s->cpus[i], flags), rc;

		if (fd < 0) {
			rc = -errno;
			if (rc == -ESRCH && s->opts.attach)
				return 0; /* the thread ended meanwhile */
			snprintf(why, whylen, "perf_event_open(%s, cpu %d): %s",
				 s->opts.by_cgroup ? "cpu-clock, cgroup" :
				 s->opts.system	   ? "cpu-clock" :
						     "task-clock",
				 s->cpus[i], strerror(-rc));
			return rc;
		}
		rc = push_fd(s, fd);
		if (rc < 0) {
			close(fd);
			snprintf(why, whylen, "out of memory");
			return rc;
		}
		if (s->opts.observer && s->opts.observer->event_fd) {
			rc = s->opts.observer->event_fd(s->opts.observer->arg, fd);
			if (rc < 0) {
				snprintf(why, whylen,
					 "cannot attach the BPF program to the event: %s",
					 strerror(-rc));
				return rc;
			}
		}
		if (!s->rings[i].meta) {
			rc = map_ring(s, &s->rings[i], fd);
			if (rc < 0) {
				snprintf(why, whylen, "cannot map the perf ring buffer: %s",
					 strerror(-rc));
				return rc;
			}
			s->ring_fds[i] = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) < 0) {
			rc = -errno;
			snprintf(why, whylen, "cannot share the perf ring buffer: %s",
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int perf_session__add_tids(struct perf_session *s, const pid_t *tids, int ntids, char *why,
			   size_t whylen)
{
	for (int i = 0; i < ntids; i++) {
		int rc = open_tid(s, tids[i], why, whylen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Pages of each CPU's ring.  Flat: 1 MiB, ~0.3 s of samples at 100 kHz.
 * With stacks, 0.2 s of samples at the rate asked (a dwarf sample is the
 * stack copy plus ~300 bytes: at 10 kHz ~165 MB/s per busy CPU; the poll
 * loop drains every 50 ms at the latest), between 1 and 16 MiB, and at
 * most 256 MiB for all CPUs together.  Less when the mlock limit says so.
 */
static uint32_t ring_pages_for(const struct perf_session_opts *o, int ncpus)
{
	uint64_t record =
		o->callgraph == PDATA_CG_DWARF ?
			(o->stack_bytes ? o->stack_bytes : RECORD_STACK_BYTES_DEFAULT) + 512 :
			1024;
	/* the whole machine: a second of samples (its recorder competes with every task) */
	uint64_t want = (uint64_t)o->hz * record / (o->system ? 1 : 5);
	uint64_t cap = (256ull << 20) / (uint64_t)ncpus;
	uint64_t page = (uint64_t)getpagesize();
	uint32_t pages = 256;

	if (o->callgraph == PDATA_CG_NONE)
		return 256;
	if (cap > 16ull << 20)
		cap = 16ull << 20;
	while ((uint64_t)pages * page < want && (uint64_t)pages * 2 * page <= cap)
		pages *= 2;
	return pages;
}

static int copy_cpus(const int *cpus, int n, int **out)
{
	if (n <= 0)
		return 0;
	*out = malloc(sizeof(int) * (size_t)n);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, cpus, sizeof(int) * (size_t)n);
	return n;
}

/* A process's mappings were read from /proc: the unwinder reads them too. */
static void on_proc_maps(void *arg, pid_t pid)
{
	struct perf_session *s = arg;
	const struct perf_session_observer *o = s->opts.observer;
	struct pstate *p;

	stacks__proc_maps(s->stacks, pid);
	if (!o || !o->proc_maps)
		return;
	p = proctree__find(s->tree, pid);
	if (p)
		proctree__ensure_rec(s->tree, p);
	if (p && p->rec)
		o->proc_maps(o->arg, pid, pstate__id(p));
}

int perf_session__open(struct perf_session **out, struct pdata *pd,
		       const struct perf_session_opts *opts, const pid_t *tids, int ntids,
		       char *why, size_t whylen)
{
	struct perf_session *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (opts->by_cgroup && (opts->thread_cpu || opts->system || opts->attach)) {
		snprintf(why, whylen, "a cgroup's events count no thread's CPU time");
		free(s);
		return -EINVAL;
	}
	s->pd = pd;
	s->opts = *opts;
	s->kernel = opts->kernel;
	s->sample_read = opts->thread_cpu;
	/* 256 pages = 1 MiB per CPU: ~0.3 s of samples at 100 kHz; less if mlock is limited */
	s->ring_pages = 256;
	if (opts->callgraph != PDATA_CG_NONE) {
		rc = stacks__new(&s->stacks, opts->callgraph, opts->stack_bytes);
		if (rc < 0) {
			snprintf(why, whylen, "%s",
				 rc == -EINVAL ? "bad call-graph mode or stack size" :
						 "out of memory");
			free(s);
			return rc;
		}
	}
	rc = opts->system && opts->cpus ? copy_cpus(opts->cpus, opts->ncpus, &s->cpus) :
					  cpulist__read("online", &s->cpus);
	if (rc <= 0) {
		snprintf(why, whylen, "cannot list the online CPUs");
		stacks__free(s->stacks);
		free(s);
		return rc < 0 ? rc : -ENODEV;
	}
	s->ncpus = rc;
	s->ring_pages = s->ring_pages_asked = ring_pages_for(opts, s->ncpus);
	s->rings = calloc(s->ncpus, sizeof(*s->rings));
	s->ring_fds = calloc(s->ncpus, sizeof(int));
	s->throttles = htab__new(&throttle_type, 16);
	s->keep = keepobj__new();
	if (!s->rings || !s->ring_fds || !s->throttles || proctree__new(&s->tree, pd) < 0) {
		snprintf(why, whylen, "out of memory");
		perf_session__close(s);
		return -ENOMEM;
	}
	if (s->stacks)
		proctree__on_proc_maps(s->tree, on_proc_maps, s);
	if (opts->system)
		proctree__set_system(s->tree);
	if (geteuid() != 0) /* root locks what it needs */
		fit_ring_pages(s);
	if (opts->system) /* every task of each CPU */
		rc = open_tid(s, -1, why, whylen);
	else if (opts->by_cgroup) /* the cgroup's tasks on each CPU */
		rc = open_tid(s, opts->cgroup_fd, why, whylen);
	else
		rc = perf_session__add_tids(s, tids, ntids, why, whylen);
	if (rc < 0) {
		perf_session__close(s);
		return rc;
	}
	*out = s;
	return 0;
}

const int *perf_session__fds(struct perf_session *s, int *n)
{
	*n = s->ncpus;
	return s->ring_fds;
}

uint32_t perf_session__ring_pages(struct perf_session *s)
{
	return s->ring_pages;
}

struct stacks *perf_session__stacks(struct perf_session *s)
{
	return s->stacks;
}

int perf_session__ring_limited(struct perf_session *s)
{
	return s->ring_pages < s->ring_pages_asked;
}

uint64_t perf_session__throttled(struct perf_session *s)
{
	return s->throttled;
}

uint64_t perf_session__throttled_samples(struct perf_session *s)
{
	return s->throttled_ns / (1000000000ull / (s->opts.hz ? s->opts.hz : 1));
}

uint64_t perf_session__missed_samples(struct perf_session *s)
{
	return s->missed;
}

int perf_session__keep_objects(struct perf_session *s, char *note, size_t len)
{
	return keepobj__store(s->keep, note, len);
}

uint64_t perf_session__gens_refused(struct perf_session *s)
{
	return proctree__gens_refused(s->tree);
}

int perf_session__kernel(struct perf_session *s)
{
	return s->kernel;
}

uint64_t perf_session__handled_until(struct perf_session *s)
{
	return s->handled_until;
}

static uint64_t period_ns(const struct perf_session *s)
{
	return 1000000000ull / (s->opts.hz ? s->opts.hz : 1);
}

void perf_session__account(struct perf_session *s, const struct procacct_event *e)
{
	uint64_t missed = cpuacct__segment(s->tree, e, period_ns(s));

	/* every tick of a thread is a sample (the kernel sampled, none binned): what lacks was skipped */
	if (s->kernel && s->opts.thread_cpu_split)
		s->missed += missed;
}

void perf_session__thread_total(struct perf_session *s, pid_t tid, uint64_t ns)
{
	struct tstate *th = proctree__find_thread(s->tree, tid);

	if (th && th->rec)
		cpuacct__task_clock(th, ns, 1, period_ns(s), s->opts.thread_cpu_split);
}

void perf_session__set_status(struct perf_session *s, pid_t pid, int status)
{
	proctree__set_status(s->tree, pid, status);
}

uint64_t perf_session__cpu_ns(struct perf_session *s)
{
	uint64_t total = 0;

	for (int i = 0; i < s->nfds; i++) {
		uint64_t v;

		if (read(s->fds[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			total += v;
	}
	return total;
}

static uint64_t record_time(const struct perf_event_header *h);

/* A task began (fork, exec) or ended (exit), for the observer. */
static void observe_task(struct perf_session *s, const struct perf_event_header *h, pid_t pid,
			 pid_t tid, int begin)
{
	const struct perf_session_observer *o = s->opts.observer;

	if (o && o->task)
		o->task(o->arg, pid, tid, record_time(h), begin);
}

/* PERF_RECORD_SWITCH: {sample_id_all: pid, tid, time}. */
static void on_switch(struct perf_session *s, const struct perf_event_header *h)
{
	const struct perf_session_observer *o = s->opts.observer;
	const uint32_t *ids = (const void *)(h + 1);

	if (!o || !o->switched || h->size < sizeof(*h) + 16)
		return;
	o->switched(o->arg, (pid_t)ids[0], (pid_t)ids[1], record_time(h),
		    (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0,
		    (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0);
}

/* Process pid's mappings are about to go (perf_session_opts.forgetting). */
static void forgetting(struct perf_session *s, pid_t pid, uint64_t time)
{
	if (s->opts.forgetting)
		s->opts.forgetting(s->opts.forgetting_arg, pid, time);
}

static void observe_end(struct perf_session *s, pid_t pid)
{
	const struct perf_session_observer *o = s->opts.observer;

	if (o && o->image_end)
		o->image_end(o->arg, pid);
}

struct pdata_proc *perf_session__add_root(struct perf_session *s, pid_t pid, pid_t ppid,
					  const char *exe, int maps_from_proc)
{
	return proctree__add_root(s->tree, pid, ppid, exe, maps_from_proc);
}

struct pdata_proc *perf_session__image(struct perf_session *s, pid_t pid, pid_t tid,
				       struct pdata_thread **thread)
{
	struct pstate *p = proctree__lazy(s->tree, pid);
	struct tstate *t;

	if (thread)
		*thread = NULL;
	if (!p)
		return NULL;
	proctree__ensure_rec(s->tree, p);
	if (!p->rec || !thread)
		return p->rec;
	t = proctree__find_thread(s->tree, tid);
	if (!t || t->proc != p->rec->id || !t->rec) {
		proctree__note_thread(s->tree, p, tid, NULL);
		t = proctree__find_thread(s->tree, tid);
	}
	*thread = t && t->proc == p->rec->id ? t->rec : NULL;
	return p->rec;
}

uint32_t perf_session__counting_id(struct perf_session *s, pid_t pid, uint32_t image)
{
	struct pstate *p = proctree__find(s->tree, pid);

	return p && p->rec && p->rec->id == image ? pstate__id(p) : image;
}

/* ---- record handlers ----------------------------------------------------- */

struct sample_body {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
};

struct task_body {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* The recorder's walk of a ring sample, to the observer (the in-kernel walk's cross-check). */
static void observe_user_stack(struct perf_session *s, pid_t tid, uint64_t time)
{
	const struct perf_session_observer *o = s->opts.observer;
	const uint64_t *pcs;
	unsigned int n, flags;
	uint64_t sp;

	if (!o || !o->user_stack)
		return;
	n = stacks__last_user(s->stacks, &sp, &pcs, &flags);
	if (n)
		o->user_stack(o->arg, tid, time, sp, pcs, n, flags);
}

static void on_sample(struct perf_session *s, const struct perf_event_header *h)
{
	struct perf_sample smp;
	const struct perf_sample *b = &smp;
	struct pstate *p;

	if (perf_sample__parse(&s->layout, h, h->size, &smp) < 0)
		return;
	p = proctree__lazy(s->tree, (pid_t)b->pid);
	if (!p) {
		__atomic_add_fetch(&pdata__header(s->pd)->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	p->sampled = 1; /* the whole machine describes the processes that have samples */
	/*
	 * The command's exec: the kernel is sampled from the events' enabling,
	 * before its COMM.  A cgroup's events are on before the exec: a user PC
	 * then is the recorder's child's, not the command's.
	 */
	if (b->ip < PDATA_KERNEL_START && p->await_first_exec && s->opts.by_cgroup)
		return;
	/*
	 * A cgroup's events sample a thread past its exit too (released: its
	 * tid reads -1), which per-thread events, gone at its exit, did not: its
	 * last kernel instructions, in its CPU time from the accounting.
	 */
	if (s->opts.by_cgroup && (int32_t)b->tid == -1)
		return;
	if (b->ip < PDATA_KERNEL_START)
		p->await_first_exec = 0;
	if (!p->rec && !p->exe[0] && b->ip >= PDATA_KERNEL_START &&
	    !(p->ctx_flags & PDATA_CTX_KTHREAD) && /* a kernel thread has no mapping to wait for */
	    p->nearly < sizeof(p->early) / sizeof(p->early[0])) {
		/* an exec'd image in the kernel before its first mapping names it: later */
		p->early[p->nearly].tid = (pid_t)b->tid;
		p->early[p->nearly++].pc = b->ip;
		return;
	}
	proctree__ensure_rec(s->tree, p);
	if (!p->rec) { /* the records area is full: count what cannot be stored */
		__atomic_add_fetch(&pdata__header(s->pd)->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	{
		struct tstate *t = proctree__find_thread(s->tree, (pid_t)b->tid);

		if (!t || t->proc != p->rec->id || !t->rec) {
			proctree__note_thread(s->tree, p, (pid_t)b->tid, NULL);
			t = proctree__find_thread(s->tree, (pid_t)b->tid);
		}
		if (t)
			cpuacct__sample(t, b->ip);
	}
	/* in the image's mapping generation now: the records are handled in time order */
	if (s->stacks) {
		stacks__count(s->stacks, s->pd, pstate__id(p), b);
		observe_user_stack(s, (pid_t)b->tid, b->time);
	} else {
		pdata__count(s->pd, pstate__id(p), (int)b->tid, b->ip, 1);
	}
	if (s->opts.observer && s->opts.observer->sample)
		s->opts.observer->sample(s->opts.observer->arg, p->pid, (pid_t)b->tid,
					 pstate__id(p), b->ip);
}

/* Count the samples an exec'd image took before it had a record. */
static void count_early(struct perf_session *s, struct pstate *p)
{
	for (unsigned int i = 0; p->rec && i < p->nearly; i++) {
		struct tstate *t;

		proctree__note_thread(s->tree, p, p->early[i].tid, NULL);
		pdata__count(s->pd, pstate__id(p), p->early[i].tid, p->early[i].pc, 1);
		t = proctree__find_thread(s->tree, p->early[i].tid);
		if (t)
			cpuacct__sample(t, p->early[i].pc);
	}
	p->nearly = 0;
}

static void on_mmap2(struct perf_session *s, const struct perf_event_header *h)
{
	const struct perf_record_mmap2 {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char filename[];
	} *b = (const void *)(h + 1);
	size_t max = h->size - sizeof(*h) - sizeof(*b);
	char path[PATH_MAX];
	struct pobject o;
	struct pstate *p;

	if (h->size < sizeof(*h) + sizeof(*b) || !(b->prot & PROT_EXEC))
		return;
	snprintf(path, sizeof(path), "%.*s", (int)strnlen(b->filename, max), b->filename);
	p = proctree__lazy(s->tree, (pid_t)b->pid);
	if (!p)
		return;
	p->await_first_exec = 0;
	if (!p->rec) {
		/* the first mapping of an exec'd image (after its COMM exec) is its executable */
		if (path[0] == '/' && (!p->exe || !p->exe[0])) {
			free(p->exe);
			p->exe = strdup(path);
		}
		if (!p->exe)
			p->exe = strdup("");
		proctree__ensure_rec(s->tree, p);
		count_early(s, p);
	}
	/* the kernel names anonymous executable memory (JIT code) "//anon" */
	if (!path[0] || !strncmp(path, "//anon", 6))
		snprintf(path, sizeof(path), "[anon]");
	/* with attr.build_id the kernel puts {u8 size, 3 reserved, id[20]} where maj.. were */
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		o = (struct pobject){path, (const uint8_t *)&b->maj + 4, *(const uint8_t *)&b->maj};
	else
		o = (struct pobject){.path = path, .dev = makedev(b->maj, b->min), .ino = b->ino};
	keepobj__map(s->keep, (pid_t)b->pid, b->addr, b->addr + b->len, path, o.build_id,
		     o.build_id_len);
	if (proctree__add_map_obj(s->tree, p, b->addr, b->addr + b->len, b->pgoff, b->prot, &o) &&
	    s->opts.observer && s->opts.observer->generation)
		s->opts.observer->generation(s->opts.observer->arg, (pid_t)b->pid, pstate__id(p));
	if (s->stacks) {
		/* a record with a build id has no device and inode: the file is known by its id */
		int by_id = (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
		uint8_t id_len = by_id ? *(const uint8_t *)&b->maj : 0;

		char host[PATH_MAX + 32];

		stacks__map(s->stacks, (pid_t)b->pid, b->addr, b->addr + b->len, b->pgoff,
			    by_id ? 0 : makedev(b->maj, b->min), by_id ? 0 : b->ino,
			    (const uint8_t *)&b->maj + 4, id_len <= 20 ? id_len : 0,
			    proctree__host_path(p, path, host, sizeof(host)));
		if (s->opts.observer && s->opts.observer->map && p->rec)
			s->opts.observer->map(s->opts.observer->arg, (pid_t)b->pid, pstate__id(p),
					      b->addr, b->addr + b->len, b->pgoff,
					      by_id ? 0 : makedev(b->maj, b->min),
					      by_id ? 0 : b->ino, path);
	}
}

static void on_exec(struct perf_session *s, const struct perf_event_header *h, pid_t pid,
		    const char *comm)
{
	struct pstate *old = proctree__find(s->tree, pid);
	struct pstate *p;
	struct tstate *t;

	observe_task(s, h, pid, pid, 1);
	if (old && old->await_first_exec) {
		old->await_first_exec = 0; /* the command's own exec: its image is registered */
		snprintf(old->comm, sizeof(old->comm), "%s", comm);
		proctree__note_thread(s->tree, old, pid, comm);
		return;
	}
	if (old) {
		struct tstate *th = proctree__find_thread(s->tree, pid);

		if (th && th->pid == pid && th->rec)
			cpuacct__leave(th); /* the exec'ing thread leaves its image */
		proctree__ensure_rec(s->tree, old);
		if (old->rec)
			pdata__end_proc(old->rec, PDATA_END_EXEC, 0, pdata__now_ns(), NULL);
		observe_end(s, pid);
	}
	if (s->stacks) {
		forgetting(s, pid, record_time(h));
		stacks__forget(s->stacks, pid); /* the new image's mappings follow */
	}
	p = pstate__new(pid, old ? old->ppid : proc_read_ppid(pid), "");
	if (!p)
		return;
	p->parent = old && old->rec ? old->rec->id : 0;
	if (old)
		pstate__inherit_ctx(p, old, 1);
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	/* the thread is renamed by the exec: its record in the new image must not take the old name */
	t = proctree__get_thread(s->tree, pid, pid);
	if (t)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	/* the record waits for the first mapping, which names the executable */
	proctree__set(s->tree, p);
}

static void on_comm(struct perf_session *s, const struct perf_event_header *h)
{
	const struct {
		uint32_t pid, tid;
		char comm[];
	} *b = (const void *)(h + 1);
	char comm[16];
	struct pstate *p;

	if (h->size < sizeof(*h) + 8)
		return;
	snprintf(comm, sizeof(comm), "%.*s", (int)strnlen(b->comm, h->size - sizeof(*h) - 8),
		 b->comm);
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		on_exec(s, h, (pid_t)b->pid, comm);
		return;
	}
	p = proctree__find(s->tree, (pid_t)b->pid);
	if (!p)
		return;
	if (p->pid == (pid_t)b->tid)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	if (p->rec)
		proctree__note_thread(s->tree, p, (pid_t)b->tid, comm);
	else {
		struct tstate *t = proctree__get_thread(s->tree, (pid_t)b->tid, p->pid);

		if (t)
			snprintf(t->comm, sizeof(t->comm), "%s", comm);
	}
}

static void on_fork(struct perf_session *s, const struct perf_event_header *h)
{
	const struct task_body *b = (const void *)(h + 1);
	struct pstate *parent, *child;
	struct tstate *pt;
	char comm[16] = "";

	if (h->size < sizeof(*h) + sizeof(*b))
		return;
	parent = proctree__lazy(s->tree, (pid_t)b->ppid);
	pt = proctree__find_thread(s->tree, (pid_t)b->ptid);
	if (pt)
		snprintf(comm, sizeof(comm), "%s", pt->comm);
	else if (parent)
		snprintf(comm, sizeof(comm), "%s", parent->comm);
	if (b->pid == b->ppid || s->opts.follow_children)
		observe_task(s, h, (pid_t)b->pid, (pid_t)b->tid, 1);
	if (b->pid == b->ppid) { /* a new thread */
		if (parent)
			proctree__note_thread(s->tree, parent, (pid_t)b->tid, comm);
		return;
	}
	if (!s->opts.follow_children)
		return; /* reported by the parent's events, but not followed */
	child = pstate__new((pid_t)b->pid, (pid_t)b->ppid, parent ? parent->exe : "");
	if (!child)
		return;
	snprintf(child->comm, sizeof(child->comm), "%s", comm);
	if (parent) {
		proctree__ensure_rec(s->tree, parent);
		child->parent = parent->rec ? parent->rec->id : 0;
		pstate__inherit_ctx(child, parent, 0);
		/* a fork copies the address space; the kernel reports no mappings for it */
		for (size_t i = 0; i < parent->nmaps; i++)
			pstate__copy_map(child, &parent->maps[i]);
	}
	if (s->stacks)
		stacks__fork(s->stacks, (pid_t)b->ppid, (pid_t)b->pid);
	child = proctree__set(s->tree, child);
	if (!child)
		return;
	proctree__ensure_rec(s->tree, child);
	proctree__note_thread(s->tree, child, (pid_t)b->tid, comm);
	if (s->opts.observer && s->opts.observer->fork && child->rec)
		s->opts.observer->fork(s->opts.observer->arg, (pid_t)b->ppid, (pid_t)b->pid,
				       child->rec->id);
}

static void mark_thread_ended(struct perf_session *s, pid_t tid)
{
	struct tstate *t = proctree__find_thread(s->tree, tid);

	if (t)
		t->ended = 1;
}

static void on_exit_rec(struct perf_session *s, const struct perf_event_header *h)
{
	const struct task_body *b = (const void *)(h + 1);
	struct pstate *p;

	if (h->size < sizeof(*h) + sizeof(*b))
		return;
	mark_thread_ended(s, (pid_t)b->tid);
	observe_task(s, h, (pid_t)b->pid, (pid_t)b->tid, 0);
	if (b->pid != b->tid) { /* a thread */
		if (s->opts.observer && s->opts.observer->thread_end)
			s->opts.observer->thread_end(s->opts.observer->arg, (pid_t)b->tid);
		return;
	}
	if (s->stacks) {
		forgetting(s, (pid_t)b->pid, record_time(h));
		stacks__forget(s->stacks, (pid_t)b->pid);
	}
	p = proctree__find(s->tree, (pid_t)b->pid);
	if (!p || p->ended)
		return;
	p->ended = 1;
	if (p->nearly) {
		proctree__ensure_rec(s->tree, p);
		count_early(s, p);
	}
	observe_end(s, p->pid);
	if (s->opts.observer && s->opts.observer->exited)
		s->opts.observer->exited(s->opts.observer->arg, p->pid);
	/*
	 * The exit status is not in the record.  A process its parent has not
	 * reaped yet shows it in /proc (best effort: a shell reaps at once);
	 * the recorder fills it in for the command itself.
	 */
	if (p->rec && !p->rec->end_kind) {
		int status, kind = PDATA_END_UNKNOWN, code = 0;

		/* the recorder's own wait (an adopted orphan) may have told already */
		if (proctree__take_status(s->tree, p->pid, &status) ||
		    record_zombie_status(p->pid, &status))
			record_decode_status(status, &kind, &code);
		pdata__end_proc(p->rec, kind, code, pdata__now_ns(), NULL);
	}
}

/* PERF_RECORD_READ (inherit_stat): an inherited thread's count on one CPU, at its exit. */
static void on_read(struct perf_session *s, const struct perf_event_header *h)
{
	const struct {
		uint32_t pid, tid;
		uint64_t value; /* read_format 0: the count alone */
	} *b = (const void *)(h + 1);
	struct tstate *th;

	if (h->size < sizeof(*h) + sizeof(*b) || !s->opts.thread_cpu)
		return;
	th = proctree__find_thread(s->tree, (pid_t)b->tid);
	if (!th || th->pid != (pid_t)b->pid || !th->rec) {
		struct pstate *p = proctree__find(s->tree, (pid_t)b->pid);

		if (p && p->rec)
			proctree__note_thread(s->tree, p, (pid_t)b->tid, NULL);
		th = proctree__find_thread(s->tree, (pid_t)b->tid);
	}
	if (th && th->rec)
		cpuacct__task_clock(th, b->value, 0, period_ns(s), s->opts.thread_cpu_split);
}

/* THROTTLE / UNTHROTTLE: {time, id, stream_id}; the time in between is time not sampled. */
static void on_throttle(struct perf_session *s, const struct perf_event_header *h)
{
	const uint64_t *b = (const void *)(h + 1);
	struct throttle_ent *e;
	bool fresh;

	if (h->size < sizeof(*h) + 24)
		return;
	e = htab__insert(s->throttles, &throttle_type, &b[1], &fresh);
	if (!e)
		return;
	e->id = b[1];
	if (h->type == PERF_RECORD_THROTTLE) {
		s->throttled++;
		e->since = b[0];
	} else if (e->since && b[0] > e->since) {
		s->throttled_ns += b[0] - e->since;
		e->since = 0;
	}
}

static void on_lost(struct perf_session *s, const struct perf_event_header *h)
{
	const uint64_t *b = (const void *)(h + 1);

	if (h->size >= sizeof(*h) + 16)
		__atomic_add_fetch(&pdata__header(s->pd)->lost, b[1], __ATOMIC_RELAXED);
}

typedef void (*record_handler)(struct perf_session *s, const struct perf_event_header *h);

/* What each type of record does; the types not named here are passed over. */
static const record_handler handlers[] = {
	[PERF_RECORD_SAMPLE] = on_sample,     [PERF_RECORD_MMAP2] = on_mmap2,
	[PERF_RECORD_COMM] = on_comm,	      [PERF_RECORD_FORK] = on_fork,
	[PERF_RECORD_EXIT] = on_exit_rec,     [PERF_RECORD_LOST] = on_lost,
	[PERF_RECORD_THROTTLE] = on_throttle, [PERF_RECORD_UNTHROTTLE] = on_throttle,
	[PERF_RECORD_READ] = on_read,	      [PERF_RECORD_SWITCH] = on_switch,
};

static void handle(struct perf_session *s, const struct perf_event_header *h)
{
	if (h->type < ARRAY_SIZE(handlers) && handlers[h->type])
		handlers[h->type](s, h);
}

/* ---- rings and the reorder queue ------------------------------------------ */

static uint64_t record_time(const struct perf_event_header *h)
{
	uint64_t t = 0;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size >= sizeof(*h) + sizeof(struct sample_body))
			t = ((const struct sample_body *)(h + 1))->time;
	} else if (h->size >= sizeof(*h) + 16) {
		/* sample_id_all: {pid, tid}, time at the very end */
		memcpy(&t, (const char *)h + h->size - 8, 8);
	}
	return t;
}

/* A chunk with room for bytes more (the current one, a free one, or a new one). */
static int chunk_reserve(struct perf_session *s, size_t bytes)
{
	struct chunk *n;

	if (s->nchunks && s->chunks[s->cur].used + bytes <= CHUNK_BYTES)
		return 0;
	for (uint32_t i = 0; i < s->nchunks; i++) {
		if (!s->chunks[i].live) {
			s->chunks[i].used = 0;
			s->cur = i;
			return 0;
		}
	}
	n = realloc(s->chunks, (s->nchunks + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->chunks = n;
	n[s->nchunks] = (struct chunk){.mem = malloc(CHUNK_BYTES)};
	if (!n[s->nchunks].mem)
		return -ENOMEM;
	s->cur = s->nchunks++;
	return 0;
}

static int queue_reserve(struct perf_session *s, size_t bytes)
{
	if (chunk_reserve(s, bytes) < 0)
		return -ENOMEM;
	if (array__reserve(&s->q, &s->qcap, s->nq + 1, sizeof(*s->q)))
		return -ENOMEM;
	return 0;
}

static void read_ring(struct perf_session *s, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	uint64_t mask = r->data_size - 1;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t at = tail & mask;
		char *dst;
		size_t first;

		first = r->data_size - at;
		if (first >= sizeof(h)) {
			memcpy(&h, r->data + at, sizeof(h));
		} else {
			memcpy(&h, r->data + at, first);
			memcpy((char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (queue_reserve(s, h.size) < 0) {
			tail += h.size; /* out of memory: drop it, keep the ring moving */
			continue;
		}
		dst = s->chunks[s->cur].mem + s->chunks[s->cur].used;
		if (first >= h.size) {
			memcpy(dst, r->data + at, h.size);
		} else {
			memcpy(dst, r->data + at, first);
			memcpy(dst + first, r->data, h.size - first);
		}
		s->q[s->nq].chunk = s->cur;
		s->q[s->nq].off = (uint32_t)s->chunks[s->cur].used;
		s->q[s->nq].seq = s->seq++;
		s->q[s->nq].ts = record_time((const struct perf_event_header *)dst);
		if (s->q[s->nq].ts > s->max_ts)
			s->max_ts = s->q[s->nq].ts;
		s->nq++;
		s->chunks[s->cur].used += (h.size + 7) & ~7u;
		s->chunks[s->cur].live++;
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const struct perf_event_header *queued(const struct perf_session *s, size_t i)
{
	return (const struct perf_event_header *)(s->chunks[s->q[i].chunk].mem + s->q[i].off);
}

/* Handle the queued records stamped up to limit, in time order; the rest waits. */
static void handle_upto(struct perf_session *s, uint64_t limit)
{
	size_t i;

	if (!s->nq)
		return;
	qsort(s->q, s->nq, sizeof(*s->q), cmp_qent);
	for (i = 0; i < s->nq && s->q[i].ts <= limit; i++) {
		handle(s, queued(s, i));
		s->chunks[s->q[i].chunk].live--;
	}
	/* the rest waits, in time order, where it is */
	memmove(s->q, s->q + i, (s->nq - i) * sizeof(*s->q));
	s->nq -= i;
}

static void read_rings(struct perf_session *s)
{
	for (int c = 0; c < s->ncpus; c++)
		if (s->rings[c].meta)
			read_ring(s, &s->rings[c]);
}

void perf_session__drain(struct perf_session *s, int final)
{
	uint64_t limit;

	read_rings(s);
	limit = final ? UINT64_MAX : s->max_ts_prev;
	s->max_ts_prev = s->max_ts;
	s->handled_until = limit;
	handle_upto(s, limit);
}

void perf_session__drain_to(struct perf_session *s, uint64_t t)
{
	read_rings(s);
	if (t > s->handled_until)
		s->handled_until = t;
	handle_upto(s, t);
}

void perf_session__switch(struct perf_session *s, struct pdata *pd)
{
	s->pd = pd;
	proctree__switch(s->tree, pd);
	s->throttled = 0;
	s->throttled_ns = 0;
	s->missed = 0;
}

void perf_session__prune(struct perf_session *s)
{
	proctree__prune(s->tree);
}

const int *perf_session__cpus(struct perf_session *s, int *n)
{
	*n = s->ncpus;
	return s->cpus;
}

void perf_session__close(struct perf_session *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ncpus; i++)
		if (s->rings[i].meta)
			munmap(s->rings[i].meta, s->rings[i].map_size);
	for (int i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	proctree__free(s->tree);
	htab__free(s->throttles);
	stacks__free(s->stacks);
	keepobj__free(s->keep);
	free(s->fds);
	free(s->rings);
	free(s->ring_fds);
	free(s->cpus);
	for (uint32_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i].mem);
	free(s->chunks);
	free(s->q);
	free(s);
}
