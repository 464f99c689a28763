// SPDX-License-Identifier: MIT
/* The process tree of a recording: images, threads, mappings, ends.  See proctree.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/proctree.h"
#include "utils/cgroup.h"
#include "utils/array.h"
#include "utils/procmaps.h"
#include "utils/htab.h"
#include "utils/procfile.h"

/*
 * Both tables are keyed by a pid (tid) and hold a pointer that stays put
 * (htab_obj: the procs' p is a struct pstate *, the threads' a struct tstate *).
 */
static const struct htab_type pid_type = HTAB_U64_TYPE(struct htab_obj);

/* A recording follows a few processes and threads, a build thousands. */
#define PIDS_EXPECTED 1024

struct proctree {
	struct pdata *pd;
	struct htab *procs;    /* pid -> its current image */
	struct htab *threads;  /* tid -> thread */
	struct htab *statuses; /* pid -> wait status not yet written (its end not seen yet) */
	void (*on_proc_maps)(void *arg, pid_t pid);
	void *on_proc_maps_arg;
	int system;	  /* the whole machine: records of sampled images only, with their ctx */
	ino_t self_mntns; /* the recorder's mount namespace */
	uint64_t gens_refused; /* replacements past PDATA_GENS_MAX generations */
};

uint64_t proctree__gens_refused(const struct proctree *t)
{
	return t->gens_refused;
}

struct status_ent {
	uint64_t pid;
	int status;
	int pending; /* 0: taken (the table has no removal) */
};

static const struct htab_type status_type = HTAB_U64_TYPE(struct status_ent);

static void free_pstate(struct pstate *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->exe);
	free(p->cgroup);
	free(p);
}

int proctree__new(struct proctree **out, struct pdata *pd)
{
	struct proctree *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->pd = pd;
	t->procs = htab__new(&pid_type, PIDS_EXPECTED);
	t->threads = htab__new(&pid_type, PIDS_EXPECTED);
	t->statuses = htab__new(&status_type, 16);
	if (!t->procs || !t->threads || !t->statuses) {
		proctree__free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void proctree__free(struct proctree *t)
{
	struct htab_obj *e;

	if (!t)
		return;
	for (size_t pos = 0; t->procs && (e = htab__next(t->procs, &pos));)
		free_pstate(e->p);
	htab__free(t->procs);
	HTAB_FREE_OWNED(t->threads, struct htab_obj, p);
	htab__free(t->statuses);
	free(t);
}

struct pstate *proctree__find(struct proctree *t, pid_t pid)
{
	uint64_t key = (uint64_t)pid;
	struct htab_obj *e = htab__find(t->procs, &pid_type, &key);

	return e ? e->p : NULL;
}

struct pstate *proctree__set(struct proctree *t, struct pstate *p)
{
	uint64_t key = (uint64_t)p->pid;
	bool fresh;
	struct htab_obj *e = htab__insert(t->procs, &pid_type, &key, &fresh);

	if (!e) {
		free_pstate(p); /* out of memory: the pid stays unknown */
		return NULL;
	}
	if (!fresh && e->p != p)
		free_pstate(e->p);
	e->key = key;
	e->p = p;
	return p;
}

struct pstate *pstate__new(pid_t pid, pid_t ppid, const char *exe)
{
	struct pstate *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->ppid = ppid;
	p->exe = strdup(exe ? exe : "");
	if (!p->exe) {
		free(p);
		return NULL;
	}
	return p;
}

int pstate__remember_map(struct pstate *p, uint64_t start, uint64_t end, uint64_t pgoff,
			 uint32_t prot, const char *path)
{
	if (array__reserve(&p->maps, &p->cap, p->nmaps + 1, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->nmaps].path = strdup(path);
	if (!p->maps[p->nmaps].path)
		return -ENOMEM;
	p->maps[p->nmaps].start = start;
	p->maps[p->nmaps].end = end;
	p->maps[p->nmaps].pgoff = pgoff;
	p->maps[p->nmaps].prot = prot;
	p->maps[p->nmaps].build_id_len = 0;
	p->nmaps++;
	return 0;
}

int pstate__copy_map(struct pstate *p, const struct pmap *m)
{
	int rc = pstate__remember_map(p, m->start, m->end, m->pgoff, m->prot, m->path);

	if (rc == 0 && m->build_id_len <= sizeof(m->build_id)) {
		memcpy(p->maps[p->nmaps - 1].build_id, m->build_id, m->build_id_len);
		p->maps[p->nmaps - 1].build_id_len = m->build_id_len;
		p->maps[p->nmaps - 1].dev = m->dev;
		p->maps[p->nmaps - 1].ino = m->ino;
	}
	return rc;
}

uint32_t pstate__id(const struct pstate *p)
{
	return p->gen_id ? p->gen_id : p->rec ? p->rec->id : 0;
}

/*
 * Is m a mapping of object o?  By build id when both are known, else by
 * device and inode, else by path (a file rewritten at its path without
 * either known is taken for the same).
 */
static int same_object(const struct pmap *m, const struct pobject *o)
{
	if (m->build_id_len && o->build_id_len)
		return m->build_id_len == o->build_id_len &&
		       !memcmp(m->build_id, o->build_id, o->build_id_len);
	if (m->ino && o->ino)
		return m->dev == o->dev && m->ino == o->ino;
	return !strcmp(m->path, o->path);
}

/* Remove remembered mapping i (the order of the others is kept). */
static void forget_map(struct pstate *p, size_t i)
{
	free(p->maps[i].path);
	memmove(&p->maps[i], &p->maps[i + 1], (p->nmaps - i - 1) * sizeof(*p->maps));
	p->nmaps--;
}

/*
 * A new mapping [start, end) takes the place of what it overlaps: the
 * remembered mappings are cut to what is left of them (a mapping split in
 * two keeps its head only: its tail is gone from the table, as from a
 * child's copy; rare, and harmless to naming).  Returns 1 when one of them
 * was of another object than o.
 */
static int replace_overlapped(struct pstate *p, uint64_t start, uint64_t end,
			      const struct pobject *o)
{
	int other = 0;

	for (size_t i = p->nmaps; i-- > 0;) {
		struct pmap *m = &p->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		other |= !same_object(m, o);
		if (m->start >= start && m->end <= end) {
			forget_map(p, i);
		} else if (m->start < start) {
			m->end = start;
		} else {
			m->pgoff += end - m->start;
			m->start = end;
		}
	}
	return other;
}

/* From now on the image's samples and new mappings go under a new generation's id. */
static int begin_generation(struct proctree *t, struct pstate *p)
{
	struct pdata_gen *g;

	if (p->gens >= PDATA_GENS_MAX) {
		t->gens_refused++;
		return 0;
	}
	g = pdata__add_gen(t->pd, p->rec->id, p->gens + 1, pdata__now_ns());
	if (!g)
		return 0; /* the records area is full: named as before, by the newest mapping */
	p->gens++;
	p->gen_id = g->id;
	return 1;
}

int proctree__add_map_obj(struct proctree *t, struct pstate *p, uint64_t start, uint64_t end,
			  uint64_t pgoff, uint32_t prot, const struct pobject *o)
{
	int other = replace_overlapped(p, start, end, o), began = 0;
	struct pmap *m;

	if (pstate__remember_map(p, start, end, pgoff, prot, o->path) < 0)
		return 0;
	m = &p->maps[p->nmaps - 1];
	m->build_id_len =
		o->build_id && o->build_id_len <= sizeof(m->build_id) ? o->build_id_len : 0;
	if (m->build_id_len)
		memcpy(m->build_id, o->build_id, m->build_id_len);
	m->dev = o->dev;
	m->ino = o->ino;
	if (!p->rec)
		return 0; /* no sample yet: the record will hold the mappings as they are then */
	if (other)
		began = begin_generation(t, p);
	pdata__add_map(t->pd, pstate__id(p), start, end, pgoff, prot, o->path, m->build_id,
		       m->build_id_len);
	return began;
}

/* ---- the whole machine: where each process ran ---------------------------- */

static ino_t mntns_of(const char *pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* The last number of the "NSpid:" line of /proc/PID/status: its pid in its own namespace. */
static int read_nspid(pid_t pid)
{
	unsigned long long nspid;

	return procfile__status_number(pid, "NSpid", 10, &nspid) == 0 ? (int)nspid : 0;
}

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h */

/*
 * The fields of /proc/PID/stat after the command (from the state on: the
 * command, in parentheses, may hold spaces and ')'), read into buf; NULL
 * when the file cannot be read.
 */
static char *stat_fields(pid_t pid, char *buf, size_t size)
{
	char path[64], *p = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (fgets(buf, (int)size, f))
		p = strrchr(buf, ')');
	fclose(f);
	return p ? p + 1 : NULL;
}

/* A kernel thread (PF_KTHREAD in /proc/PID/stat's flags): 1, else 0. */
static int is_kthread(pid_t pid)
{
	char buf[512], *p = stat_fields(pid, buf, sizeof(buf));
	unsigned int flags = 0;

	if (p)
		sscanf(p, " %*c %*d %*d %*d %*d %*d %u", &flags);
	return (flags & PF_KTHREAD_FLAG) != 0;
}

/* Where p runs, from /proc while it lives; else what it inherited stays. */
static void read_ctx(struct proctree *t, struct pstate *p)
{
	char cg[CGROUP_PATH_MAX], pid[16];
	ino_t ns;

	if (cgroup__of_pid(p->pid, cg, sizeof(cg)) < 0)
		return; /* gone (or no cgroup v2): what it inherited */
	free(p->cgroup);
	p->cgroup = strdup(cg);
	p->nspid = read_nspid(p->pid);
	snprintf(pid, sizeof(pid), "%d", p->pid);
	ns = mntns_of(pid);
	p->ctx_flags = 0;
	if (ns && t->self_mntns && ns != t->self_mntns)
		p->ctx_flags |= PDATA_CTX_MNTNS;
	if (is_kthread(p->pid))
		p->ctx_flags |= PDATA_CTX_KTHREAD;
}

static void write_ctx(struct proctree *t, struct pstate *p)
{
	read_ctx(t, p);
	pdata__add_proc_ctx(t->pd, p->rec->id, p->nspid, p->ctx_flags, p->cgroup);
}

void proctree__set_system(struct proctree *t)
{
	t->system = 1;
	t->self_mntns = mntns_of("self");
}

void pstate__inherit_ctx(struct pstate *p, const struct pstate *from, int exec)
{
	free(p->cgroup);
	p->cgroup = from->cgroup ? strdup(from->cgroup) : NULL;
	/* a child's pid in a pid namespace is unknown; outside any, it is its pid */
	p->nspid = from->nspid == from->pid ? p->pid : (p->pid == from->pid ? from->nspid : 0);
	p->ctx_flags =
		from->ctx_flags & (exec ? PDATA_CTX_MNTNS : PDATA_CTX_MNTNS | PDATA_CTX_KTHREAD);
}

const char *proctree__host_path(const struct pstate *p, const char *path, char *buf, size_t len)
{
	if (!(p->ctx_flags & PDATA_CTX_MNTNS) || path[0] != '/')
		return path;
	snprintf(buf, len, "/proc/%d/root%s", p->pid, path);
	return buf;
}

void proctree__switch(struct proctree *t, struct pdata *pd)
{
	struct htab_obj *e;

	t->pd = pd;
	proctree__prune(t);
	for (size_t pos = 0; (e = htab__next(t->procs, &pos));) {
		struct pstate *p = e->p;

		/* proc ids are the old file's: the new one numbers its own */
		p->rec = NULL;
		p->parent = 0;
		p->gen_id = 0; /* and its generations begin again */
		p->gens = 0;
		p->sampled = 0;
		p->nearly = 0;
	}
	for (size_t pos = 0; (e = htab__next(t->threads, &pos));) {
		struct tstate *th = e->p;

		th->rec = NULL;
		th->proc = 0;
		memset(&th->cpu, 0, sizeof(th->cpu));
	}
}

/* Rebuild a table without its ended entries (htab has no removal). */
static void prune_table(struct htab *tab, int procs)
{
	size_t n;
	struct htab_obj *all = htab__take(tab, &n);

	for (size_t i = 0; i < n; i++) {
		int ended = procs ? ((struct pstate *)all[i].p)->ended :
				    ((struct tstate *)all[i].p)->ended;
		struct htab_obj *e;
		bool fresh;

		if (!ended && (e = htab__insert(tab, &pid_type, &all[i].key, &fresh))) {
			*e = all[i];
			continue;
		}
		if (procs)
			free_pstate(all[i].p);
		else
			free(all[i].p);
	}
	free(all);
}

static size_t count_ended(struct htab *tab, int procs)
{
	struct htab_obj *e;
	size_t n = 0;

	for (size_t pos = 0; (e = htab__next(tab, &pos));)
		n += procs ? ((struct pstate *)e->p)->ended != 0 :
			     ((struct tstate *)e->p)->ended != 0;
	return n;
}

void proctree__prune(struct proctree *t)
{
	if (!t->system)
		return;
	if (count_ended(t->procs, 1) * 4 >= htab__count(t->procs))
		prune_table(t->procs, 1);
	if (count_ended(t->threads, 0) * 4 >= htab__count(t->threads))
		prune_table(t->threads, 0);
}

void proctree__ensure_rec(struct proctree *t, struct pstate *p)
{
	if (p->rec || (t->system && !p->sampled))
		return;
	p->rec = pdata__add_proc(t->pd, p->pid, p->ppid, p->parent, p->exe, pdata__now_ns());
	if (!p->rec)
		return;
	if (t->system)
		write_ctx(t, p);
	for (size_t i = 0; i < p->nmaps; i++)
		pdata__add_map(t->pd, p->rec->id, p->maps[i].start, p->maps[i].end,
			       p->maps[i].pgoff, p->maps[i].prot, p->maps[i].path,
			       p->maps[i].build_id, p->maps[i].build_id_len);
}

void proctree__on_proc_maps(struct proctree *t, void (*fn)(void *arg, pid_t pid), void *arg)
{
	t->on_proc_maps = fn;
	t->on_proc_maps_arg = arg;
}

struct maps_ctx {
	struct proctree *t;
	struct pstate *p;
};

static int add_proc_map(void *arg, const struct procmap *m)
{
	struct maps_ctx *c = arg;

	if ((m->prot & PROT_EXEC) && strcmp(m->path, "[vsyscall]")) {
		struct pobject o = {.path = *m->path ? m->path : "[anon]",
				    .dev = makedev(m->dev_major, m->dev_minor),
				    .ino = m->inode};

		proctree__add_map_obj(c->t, c->p, m->start, m->end, m->offset, m->prot, &o);
	}
	return 0;
}

void proctree__read_proc_maps(struct proctree *t, struct pstate *p)
{
	struct maps_ctx c = {t, p};

	if (t->on_proc_maps)
		t->on_proc_maps(t->on_proc_maps_arg, p->pid);
	procmaps__for_each(p->pid, add_proc_map, &c);
}

static void read_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n > 0) {
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
	}
}

static char *read_exe(pid_t pid)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

pid_t proc_read_ppid(pid_t pid)
{
	char buf[512], *p = stat_fields(pid, buf, sizeof(buf));
	int ppid = 0;

	if (p)
		sscanf(p, " %*c %d", &ppid);
	return ppid;
}

struct tstate *proctree__find_thread(struct proctree *t, pid_t tid)
{
	uint64_t key = (uint64_t)tid;
	struct htab_obj *e = htab__find(t->threads, &pid_type, &key);

	return e ? e->p : NULL;
}

struct tstate *proctree__get_thread(struct proctree *t, pid_t tid, pid_t pid)
{
	uint64_t key = (uint64_t)tid;
	struct tstate *th = proctree__find_thread(t, tid);
	bool fresh;

	if (th) {
		if (th->pid != pid) { /* tid reused by another process */
			th->pid = pid;
			th->proc = 0;
			th->rec = NULL;
			memset(&th->cpu, 0, sizeof(th->cpu));
		}
		return th;
	}
	th = htab__obj_get(t->threads, &pid_type, key, sizeof(*th), &fresh);
	if (!th)
		return NULL;
	th->tid = tid;
	th->pid = pid;
	return th;
}

void proctree__note_thread(struct proctree *t, struct pstate *p, pid_t tid, const char *comm)
{
	struct tstate *th = proctree__get_thread(t, tid, p->pid);

	if (!th)
		return;
	if (comm && *comm)
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
	if (!th->comm[0])
		read_comm(p->pid, tid, th->comm);
	proctree__ensure_rec(t, p);
	if (!p->rec)
		return;
	if (th->proc != p->rec->id || !th->rec) {
		th->proc = p->rec->id;
		th->rec = pdata__add_thread(t->pd, th->proc, tid, th->comm[0] ? th->comm : p->comm);
		th->cpu.image = p->rec;
		th->cpu.samples = th->cpu.kernel_samples = 0;
		th->cpu.shown = (struct pdata_cpu){0};
	} else if (comm && *comm && strncmp(th->rec->comm, comm, sizeof(th->rec->comm) - 1)) {
		/* renamed (prctl PR_SET_NAME): the record is ours, update it in place */
		snprintf(th->rec->comm, sizeof(th->rec->comm), "%s", comm);
	}
}

struct pstate *proctree__lazy(struct proctree *t, pid_t pid)
{
	struct pstate *p = proctree__find(t, pid);
	struct pstate *parent;
	char *exe;

	if (p)
		return p;
	exe = read_exe(pid);
	p = pstate__new(pid, proc_read_ppid(pid), exe ? exe : "");
	free(exe);
	if (!p)
		return NULL;
	parent = proctree__find(t, p->ppid);
	if (parent && parent->rec)
		p->parent = parent->rec->id;
	read_comm(pid, pid, p->comm);
	if (t->system) /* now, while it lives: its children inherit it */
		read_ctx(t, p);
	p = proctree__set(t, p);
	if (!p)
		return NULL;
	proctree__read_proc_maps(t, p);
	proctree__ensure_rec(t, p);
	return p;
}

struct pdata_proc *proctree__add_root(struct proctree *t, pid_t pid, pid_t ppid, const char *exe,
				      int maps_from_proc)
{
	struct pstate *p = pstate__new(pid, ppid, exe);

	if (!p)
		return NULL;
	p->await_first_exec = !maps_from_proc;
	read_comm(pid, pid, p->comm);
	p = proctree__set(t, p);
	if (!p)
		return NULL;
	proctree__ensure_rec(t, p);
	if (maps_from_proc)
		proctree__read_proc_maps(t, p);
	return p->rec;
}

/* ---- how processes ended -------------------------------------------------- */

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

void proctree__set_status(struct proctree *t, pid_t pid, int status)
{
	struct pstate *p = proctree__find(t, pid);
	uint64_t key = (uint64_t)pid;
	struct status_ent *e;
	bool fresh;

	if (p && p->ended && p->rec) {
		int kind, code;
		uint64_t end = p->rec->end_ns;

		record_decode_status(status, &kind, &code);
		pdata__end_proc(p->rec, kind, code, end ? end : pdata__now_ns(), NULL);
		return;
	}
	e = htab__insert(t->statuses, &status_type, &key, &fresh);
	if (e) {
		e->pid = key;
		e->status = status;
		e->pending = 1;
	}
}

int proctree__take_status(struct proctree *t, pid_t pid, int *status)
{
	uint64_t key = (uint64_t)pid;
	struct status_ent *e = htab__find(t->statuses, &status_type, &key);

	if (!e || !e->pending)
		return 0;
	*status = e->status;
	e->pending = 0;
	return 1;
}

/* A zombie's exit status from /proc/PID/stat (field 52), when its parent has not reaped it. */
int record_zombie_status(pid_t pid, int *status)
{
	char buf[1024], *p = stat_fields(pid, buf, sizeof(buf));
	int field = 2, ok = 0;
	char state = 0;

	if (!p)
		return 0;
	sscanf(p, " %c", &state);
	for (char *tok = strtok(p, " \n"); tok; tok = strtok(NULL, " \n")) {
		if (++field == 52 && state == 'Z') {
			*status = atoi(tok);
			ok = 1;
		}
	}
	return ok;
}
