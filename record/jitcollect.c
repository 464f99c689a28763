// SPDX-License-Identifier: MIT
/* JIT code names read while the processes live, into the profile.  See jitcollect.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/jitsyms.h"
#include "record/jitcollect.h"
#include "utils/array.h"
#include "utils/why.h"
#include "utils/procfile.h"

/* Proc ids of a hostile agent-mode file are bounded: beyond this, no JIT names. */
#define MAX_PROC_ID (1u << 22)
/* Opens tried per poll (a file the process has not written yet is looked for again). */
#define OPENS_PER_POLL 16
/* Polls between two looks for a file not there yet. */
#define RETRY_POLLS 4

struct jsym {
	uint64_t start, size;
	uint32_t name; /* offset into names */
	uint32_t seq;
	uint32_t proc;
	uint8_t kind;
	uint8_t hit;
};

enum src_state { SRC_PENDING, SRC_OPEN, SRC_GONE };

struct jsrc {
	uint32_t proc;
	pid_t pid;
	int kind;   /* enum jit_kind */
	char *path; /* jitdump: the path in the process's namespace; perf map: NULL */
	int fd;
	enum src_state state;
	unsigned wait; /* polls before the next look, while pending */
	struct jit_reader rd;
};

struct jitcollect {
	struct pdata *pd;
	uint64_t rec_off; /* the profile's records read so far */
	pid_t *pid_of;	  /* by proc id */
	uint8_t *wanted;  /* by proc id: its perf map is looked for already */
	uint32_t *image;  /* by id: a mapping generation's image (0: the id is an image's) */
	size_t nids;
	struct jsrc *src;
	size_t nsrc;
	struct jsym *syms;
	size_t nsyms, syms_cap;
	char *names;
	size_t names_len, names_cap;
	uint32_t seq;
	int full;	/* a bound was reached: later names are not kept */
	int agent_maps; /* agent clocks: mappings are recorded late, look for every process's map */
};

struct jitcollect *jitcollect__new(struct pdata *pd)
{
	struct jitcollect *j = calloc(1, sizeof(*j));

	if (j) {
		uint32_t clock = pdata__header(pd)->clock;

		j->pd = pd;
		/* the agent writes a JIT's anonymous mappings when the process ends: too late */
		j->agent_maps = clock == PDATA_CLOCK_THREAD || clock == PDATA_CLOCK_ITIMER;
	}
	return j;
}

void jitcollect__free(struct jitcollect *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nsrc; i++) {
		if (j->src[i].state == SRC_OPEN)
			close(j->src[i].fd);
		free(j->src[i].path);
	}
	free(j->src);
	free(j->syms);
	free(j->names);
	free(j->pid_of);
	free(j->wanted);
	free(j->image);
	free(j);
}

/* ---- opening in the process's namespace ----------------------------------------- */

static int open_beneath(int root_fd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return fd >= 0 ? (int)fd : -errno;
	/* no openat2: a path of plain components, none of them a symbolic link */
	if (strstr(path, ".."))
		return -EPERM;
	fd = openat(root_fd, path, how.flags);
	return fd >= 0 ? (int)fd : -errno;
}

int jitcollect__open_in_root(int root_fd, const char *path, uid_t uid)
{
	struct stat st;
	int fd;

	while (*path == '/')
		path++;
	if (!*path)
		return -EINVAL;
	fd = open_beneath(root_fd, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid != uid) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The process's file-system uid and its pid in its own namespace (NSpid), from /proc. */
static int proc_ids(pid_t pid, uid_t *uid, pid_t *nspid)
{
	unsigned long long fsuid, ns;
	int ret = procfile__status_number(pid, "Uid", 10, &fsuid);

	if (ret < 0)
		return ret;
	*uid = (uid_t)fsuid;
	*nspid = procfile__status_number(pid, "NSpid", 10, &ns) == 0 && ns > 0 ? (pid_t)ns : pid;
	return 0;
}

/* Open a source's file while its process lives: 0, -EAGAIN (not there yet) or another -errno. */
static int open_source(struct jsrc *s)
{
	char path[PATH_MAX];
	uid_t uid = 0;
	pid_t nspid = s->pid;
	int root, fd, rc;

	rc = proc_ids(s->pid, &uid, &nspid);
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)s->pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	if (s->kind == JIT_PERF_MAP)
		snprintf(path, sizeof(path), "tmp/perf-%d.map", (int)nspid);
	else
		snprintf(path, sizeof(path), "%s", s->path);
	fd = jitcollect__open_in_root(root, path, uid);
	close(root);
	if (fd == -ENOENT)
		return -EAGAIN;
	if (fd < 0)
		return fd;
	s->fd = fd;
	s->state = SRC_OPEN;
	return 0;
}

/* ---- the names read ---------------------------------------------------------- */

static ssize_t read_fd(void *src, uint64_t off, void *buf, size_t n)
{
	ssize_t got = pread(*(int *)src, buf, n, (off_t)off);

	return got < 0 ? -errno : got;
}

struct add_ctx {
	struct jitcollect *j;
	const struct jsrc *s;
};

static int add_sym(void *arg, const struct jit_sym *sym)
{
	struct add_ctx *c = arg;
	struct jitcollect *j = c->j;
	size_t len = strlen(sym->name) + 1;

	if (j->nsyms >= JITCOLLECT_MAX_SYMS || j->names_len + len > JITCOLLECT_MAX_NAME_BYTES) {
		j->full = 1;
		return 1;
	}
	if (array__reserve(&j->syms, &j->syms_cap, j->nsyms + 1, sizeof(*j->syms)) ||
	    array__reserve(&j->names, &j->names_cap, j->names_len + len, 1))
		return -ENOMEM;
	memcpy(j->names + j->names_len, sym->name, len);
	j->syms[j->nsyms++] = (struct jsym){sym->start, sym->size,  (uint32_t)j->names_len,
					    j->seq++,	c->s->proc, (uint8_t)c->s->kind,
					    0};
	j->names_len += len;
	return 0;
}

static void read_source(struct jitcollect *j, struct jsrc *s, uint64_t budget, int final)
{
	struct add_ctx c = {j, s};

	if (s->state != SRC_OPEN || j->full)
		return;
	if (jit_reader__read(&s->rd, read_fd, &s->fd, budget, final, add_sym, &c) < 0)
		s->rd.bad = 1;
}

/* ---- following the profile's records ------------------------------------------- */

static int grow_ids(struct jitcollect *j, uint32_t id)
{
	size_t n = j->nids ? j->nids : 64;
	pid_t *p;
	uint8_t *w;
	uint32_t *im;

	while (n <= id)
		n *= 2;
	p = realloc(j->pid_of, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	j->pid_of = p;
	w = realloc(j->wanted, n);
	if (!w)
		return -ENOMEM;
	j->wanted = w;
	im = realloc(j->image, n * sizeof(*im));
	if (!im)
		return -ENOMEM;
	j->image = im;
	memset(p + j->nids, 0, (n - j->nids) * sizeof(*p));
	memset(w + j->nids, 0, n - j->nids);
	memset(im + j->nids, 0, (n - j->nids) * sizeof(*im));
	j->nids = n;
	return 0;
}

/* The process image of a sample's or mapping's id (a mapping generation's is its image's). */
static uint32_t image_of(const struct jitcollect *j, uint32_t id)
{
	return id < j->nids && j->image[id] ? j->image[id] : id;
}

static void add_source(struct jitcollect *j, uint32_t proc, int kind, const char *path)
{
	struct jsrc *n, *s;

	if (j->nsrc >= JITCOLLECT_MAX_FILES || proc >= j->nids || !j->pid_of[proc])
		return;
	n = realloc(j->src, (j->nsrc + 1) * sizeof(*n));
	if (!n)
		return;
	j->src = n;
	s = &j->src[j->nsrc];
	memset(s, 0, sizeof(*s));
	s->proc = proc;
	s->pid = j->pid_of[proc];
	s->kind = kind;
	s->rd.kind = kind;
	s->fd = -1;
	if (path && !(s->path = strdup(path)))
		return;
	j->nsrc++;
}

/* "jit-PID.dump": the name a jitdump writer maps (PROT_EXEC) for profilers to see. */
static int is_jitdump(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return !strncmp(base, "jit-", 4) && n > 9 && !strcmp(base + n - 5, ".dump");
}

static void on_map(struct jitcollect *j, const struct pdata_map *m)
{
	uint32_t proc = image_of(j, m->proc);

	if (!(m->prot & PROT_EXEC) || proc >= j->nids || !j->pid_of[proc])
		return;
	if (m->path[0] == '/' && is_jitdump(m->path)) {
		add_source(j, proc, JIT_DUMP, m->path);
	} else if (m->path[0] != '/' && !j->wanted[proc] && strcmp(m->path, "[vdso]") &&
		   strcmp(m->path, "[vsyscall]")) {
		j->wanted[proc] = 1; /* anonymous code: a JIT's, perhaps */
		add_source(j, proc, JIT_PERF_MAP, NULL);
	}
}

static int on_rec(void *arg, const struct pdata_rec *rec)
{
	struct jitcollect *j = arg;

	if (rec->type == PDATA_REC_PROC) {
		const struct pdata_proc *p = (const struct pdata_proc *)rec;

		if (p->id && p->id < MAX_PROC_ID && p->pid > 0 &&
		    (p->id < j->nids || grow_ids(j, p->id) == 0)) {
			j->pid_of[p->id] = p->pid;
			if (j->agent_maps && !j->wanted[p->id]) {
				j->wanted[p->id] = 1;
				add_source(j, p->id, JIT_PERF_MAP, NULL);
			}
		}
	} else if (rec->type == PDATA_REC_GEN && rec->size >= sizeof(struct pdata_gen)) {
		const struct pdata_gen *g = (const struct pdata_gen *)rec;

		if (g->id && g->id < MAX_PROC_ID && g->proc < j->nids && j->pid_of[g->proc] &&
		    (g->id < j->nids || grow_ids(j, g->id) == 0) && !j->pid_of[g->id])
			j->image[g->id] = g->proc;
	} else if (rec->type == PDATA_REC_MAP && rec->size > sizeof(struct pdata_map)) {
		on_map(j, (const struct pdata_map *)rec);
	}
	return 0;
}

/*
 * The records published since the last poll, read with pread through a
 * read-only view opened now (its header copy says how far they go): a file
 * the profiled tree cut short is then an error here, not a SIGBUS in the
 * recorder's mapping while the tree still runs.
 */
static void follow_records(struct jitcollect *j)
{
	int fd = dup(pdata__fd(j->pd));
	struct pdata *ro = NULL;
	char why[160];

	if (fd < 0)
		return;
	if (pdata__open_fd(&ro, fd, 0, why, sizeof(why)) < 0) {
		close(fd);
		return;
	}
	pdata__foreach_rec_from(ro, &j->rec_off, on_rec, j);
	pdata__close(ro);
}

void jitcollect__poll(struct jitcollect *j)
{
	int opens = 0;

	if (!j)
		return;
	follow_records(j);
	for (size_t i = 0; i < j->nsrc; i++) {
		struct jsrc *s = &j->src[i];

		if (s->state == SRC_PENDING && !(s->wait && s->wait--) &&
		    opens++ < OPENS_PER_POLL) {
			int rc = open_source(s);

			s->wait = RETRY_POLLS;
			if (rc < 0 && rc != -EAGAIN)
				s->state = SRC_GONE;
		}
		if (s->state == SRC_GONE) { /* the process ended before its file was found */
			free(s->path);
			j->src[i--] = j->src[--j->nsrc];
			continue;
		}
		read_source(j, s, JITCOLLECT_POLL_BYTES, 0);
	}
}

/* ---- into the profile ------------------------------------------------------------ */

static int cmp_sym(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The piece of code of proc holding pc that was named last, or NULL. */
static struct jsym *find_sym(struct jitcollect *j, uint32_t proc, uint64_t pc)
{
	size_t lo = 0, hi = j->nsyms;
	struct jsym *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct jsym *s = &j->syms[mid];

		if (s->proc < proc || (s->proc == proc && s->start <= pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k > 0 && k + 16 > lo; k--) {
		struct jsym *s = &j->syms[k - 1];

		if (s->proc != proc)
			break;
		if (pc - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best;
}

static void mark(struct jitcollect *j, uint32_t proc, uint64_t pc)
{
	struct jsym *s;

	if (pc >= PDATA_KERNEL_START)
		return;
	s = find_sym(j, proc, pc);
	if (s)
		s->hit = 1;
}

static int mark_sample(void *arg, const struct pdata_sample *s)
{
	struct jitcollect *j = arg;
	uint64_t stack[PDATA_MAX_DEPTH];
	uint32_t proc = image_of(j, s->proc);
	int n;

	mark(j, proc, s->pc);
	if (s->stack) {
		n = pdata__stack(j->pd, s->stack, stack, PDATA_MAX_DEPTH);
		/* callers' return addresses: the call is just before */
		for (int i = 1; i < n; i++)
			if (stack[i])
				mark(j, proc, stack[i] - 1);
	}
	return 0;
}

int jitcollect__store(struct jitcollect *j, size_t *files, char *why, size_t whylen)
{
	int stored = 0;

	*files = 0;
	if (!j)
		return 0;
	jitcollect__poll(j);
	for (size_t i = 0; i < j->nsrc; i++) {
		read_source(j, &j->src[i], UINT64_MAX, 1);
		*files += j->src[i].state == SRC_OPEN && j->src[i].rd.symbols;
	}
	if (!j->nsyms)
		return 0;
	qsort(j->syms, j->nsyms, sizeof(*j->syms), cmp_sym);
	if (pdata__foreach_sample(j->pd, mark_sample, j) < 0)
		return why_fail(why, whylen, -EIO, "cannot read the samples back");
	for (size_t i = 0; i < j->nsyms; i++) {
		const struct jsym *s = &j->syms[i];

		if (!s->hit)
			continue;
		if (!pdata__add_jitsym(j->pd, s->proc, s->kind, s->start, s->size,
				       j->names + s->name))
			return why_fail(why, whylen, -ENOSPC,
					"the profile's records area is full after %d JIT names",
					stored);
		stored++;
	}
	return stored;
}
