// SPDX-License-Identifier: MIT
/*
 * profil.data: create, open, append, count, iterate.  See pdata.h for the
 * format.  Everything on the counting path is plain atomics on the shared
 * mapping, so it is safe in signal handlers and across processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "why.h"
#include "pdata.h"

struct pdata {
	int fd;
	int writable;
	size_t size;
	char *base;		  /* the mapping; NULL for read-only opens (pread) */
	struct pdata_header *hdr; /* in the mapping, or &copy.h */
	struct pdata_layout lay;  /* validated once, never re-read from the file */
	struct pdata_slot *slots; /* mapped only */
	char *records;		  /* mapped only */
	union {
		struct pdata_header h;
		char page[PDATA_HEADER_SIZE];
	} copy; /* the header as read at open */
};

/* ---- overflow-safe arithmetic for untrusted offsets -------------------- */

/* [off, off + len) lies inside [0, size). */
static int span_inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

uint64_t pdata__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t round_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v && r < (1u << 30))
		r <<= 1;
	return r;
}

/* Open path for a fresh profile without following links or clobbering others' files. */
static int open_exclusive(const char *path, char *why, size_t whylen)
{
	struct stat st;
	int fd;

	for (int attempt = 0; attempt < 2; attempt++) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return why_fail(why, whylen, -errno, "cannot create %s: %s", path,
					strerror(errno));
		if (lstat(path, &st) < 0)
			continue; /* vanished meanwhile: try again */
		if (S_ISLNK(st.st_mode))
			return why_fail(why, whylen, -ELOOP,
					"%s is a symbolic link; refusing to follow it", path);
		if (!S_ISREG(st.st_mode))
			return why_fail(why, whylen, -EEXIST, "%s exists and is not a regular file",
					path);
		if (st.st_uid != geteuid())
			return why_fail(why, whylen, -EPERM,
					"%s belongs to another user; refusing to overwrite it",
					path);
		if (unlink(path) < 0)
			return why_fail(why, whylen, -errno, "cannot replace %s: %s", path,
					strerror(errno));
	}
	return why_fail(why, whylen, -EEXIST, "cannot create %s: it keeps reappearing", path);
}

/* Map the whole file shared; every pointer comes from the validated layout. */
static int map_file(struct pdata *p)
{
	p->base = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->base == MAP_FAILED) {
		p->base = NULL;
		return -errno;
	}
	p->hdr = (struct pdata_header *)p->base;
	p->slots = (struct pdata_slot *)(p->base + p->lay.table_off);
	p->records = p->base + p->lay.records_off;
	p->writable = 1;
	return 0;
}

int pdata__create(struct pdata **out, const char *path, const struct pdata_create_opts *opts,
		  char *why, size_t whylen)
{
	uint32_t slots =
		round_pow2(opts && opts->table_slots ? opts->table_slots : PDATA_DEFAULT_SLOTS);
	uint64_t rcap = opts && opts->records_cap ? opts->records_cap : PDATA_DEFAULT_RECORDS;
	uint64_t table_off = PDATA_HEADER_SIZE;
	uint64_t records_off = table_off + (uint64_t)slots * sizeof(struct pdata_slot);
	struct pdata_header hdr;
	struct pdata *p;
	int rc, fd;

	rcap = (rcap + 4095) & ~4095ull;
	fd = open_exclusive(path, why, whylen);
	if (fd < 0)
		return fd;
	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = why_fail(why, whylen, -ENOMEM, "out of memory");
		goto err_close;
	}
	p->fd = fd;
	p->size = records_off + rcap;
	rc = posix_fallocate(fd, 0, (off_t)p->size);
	if (rc == EOPNOTSUPP || rc == EINVAL) /* file systems without fallocate */
		rc = ftruncate(fd, (off_t)p->size) < 0 ? errno : 0;
	if (rc) {
		rc = why_fail(why, whylen, -rc, "cannot reserve %zu bytes for %s: %s", p->size,
			      path, strerror(rc));
		goto err_unlink;
	}
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, PDATA_MAGIC, 8);
	hdr.version = PDATA_VERSION;
	hdr.header_size = PDATA_HEADER_SIZE;
	hdr.file_size = p->size;
	hdr.state = PDATA_RECORDING;
	hdr.start_ns = pdata__now_ns();
	hdr.table_off = table_off;
	hdr.table_slots = slots;
	hdr.records_off = records_off;
	hdr.records_cap = rcap;
	gethostname(hdr.hostname, sizeof(hdr.hostname) - 1);
	if (pwrite(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		rc = why_fail(why, whylen, -EIO, "cannot write %s: %s", path, strerror(errno));
		goto err_unlink;
	}
	rc = pdata__check_header(&hdr, p->size, &p->lay, why, whylen);
	if (rc < 0)
		goto err_unlink;
	rc = map_file(p);
	if (rc < 0) {
		why_fail(why, whylen, rc, "cannot map %s: %s", path, strerror(-rc));
		goto err_unlink;
	}
	*out = p;
	return 0;
err_unlink:
	unlink(path);
	free(p);
err_close:
	close(fd);
	return rc;
}

int pdata__check_header(const struct pdata_header *h, uint64_t file_size, struct pdata_layout *lay,
			char *why, size_t whylen)
{
	uint64_t table_bytes, table_end;

	if (file_size < PDATA_HEADER_SIZE || memcmp(h->magic, PDATA_MAGIC, 8))
		return why_fail(why, whylen, -EBADMSG, "not a profil data file");
	if (h->version != PDATA_VERSION)
		return why_fail(why, whylen, -EBADMSG,
				"unsupported profil data version %u (this is %u)", h->version,
				PDATA_VERSION);
	if (h->file_size != file_size)
		return why_fail(why, whylen, -EBADMSG,
				"truncated or damaged: %llu bytes, the header says %llu",
				(unsigned long long)file_size, (unsigned long long)h->file_size);
	if (h->header_size != PDATA_HEADER_SIZE)
		return why_fail(why, whylen, -EBADMSG, "damaged header (header size %u)",
				h->header_size);
	if (!is_pow2(h->table_slots) || h->table_off < PDATA_HEADER_SIZE || h->table_off % 8 ||
	    __builtin_mul_overflow((uint64_t)h->table_slots, sizeof(struct pdata_slot),
				   &table_bytes) ||
	    !span_inside(h->table_off, table_bytes, file_size))
		return why_fail(why, whylen, -EBADMSG,
				"damaged header (sample table outside the file)");
	table_end = h->table_off + table_bytes; /* no overflow: inside file_size */
	if (h->records_off < table_end || h->records_off % 8 ||
	    !span_inside(h->records_off, h->records_cap, file_size))
		return why_fail(why, whylen, -EBADMSG,
				"damaged header (records area outside the file)");
	if (h->state != PDATA_RECORDING && h->state != PDATA_COMPLETE)
		return why_fail(why, whylen, -EBADMSG, "damaged header (state %u)", h->state);
	*lay = (struct pdata_layout){
		.file_size = file_size,
		.table_off = h->table_off,
		.table_bytes = table_bytes,
		.table_slots = h->table_slots,
		.records_off = h->records_off,
		.records_cap = h->records_cap,
	};
	return 0;
}

/*
 * Read exactly len bytes at off.  Returns 0, -EBADMSG when the file ends
 * first (it shrank since it was opened), or -errno.
 */
static int read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	char *at = buf;

	while (len) {
		ssize_t n = pread(fd, at, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		at += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int pdata__open_fd(struct pdata **out, int fd, int writable, char *why, size_t whylen)
{
	struct stat st;
	struct pdata *p;
	int rc;

	if (fstat(fd, &st) < 0)
		return why_fail(why, whylen, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return why_fail(why, whylen, -EBADMSG, "not a regular file");
	if (st.st_size == 0)
		return why_fail(why, whylen, -EBADMSG, "empty file");
	if ((uint64_t)st.st_size < PDATA_HEADER_SIZE)
		return why_fail(why, whylen, -EBADMSG, "truncated: shorter than its header");
	p = calloc(1, sizeof(*p));
	if (!p)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	p->fd = fd;
	p->size = (size_t)st.st_size;
	rc = read_exact(fd, p->copy.page, sizeof(p->copy.page), 0);
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "cannot read: %s",
			      rc == -EBADMSG ? "it shrank while being opened" : strerror(-rc));
		goto fail;
	}
	rc = pdata__check_header(&p->copy.h, (uint64_t)st.st_size, &p->lay, why, whylen);
	if (rc < 0)
		goto fail;
	p->hdr = &p->copy.h;
	if (writable) {
		rc = map_file(p);
		if (rc < 0) {
			why_fail(why, whylen, rc, "cannot map: %s", strerror(-rc));
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	free(p);
	return rc;
}

int pdata__open(struct pdata **out, const char *path, int writable, char *why, size_t whylen)
{
	char inner[200];
	int fd, rc;

	/* O_NONBLOCK: a FIFO at path must not hang the open (it is refused as not regular) */
	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return why_fail(why, whylen, -errno, "cannot open %s: %s", path, strerror(errno));
	rc = pdata__open_fd(out, fd, writable, inner, sizeof(inner));
	if (rc < 0) {
		close(fd);
		return why_fail(why, whylen, rc, "%s: %s", path, inner);
	}
	return 0;
}

void pdata__close(struct pdata *p)
{
	if (!p)
		return;
	if (p->base)
		munmap(p->base, p->size);
	close(p->fd);
	free(p);
}

struct pdata_header *pdata__header(struct pdata *p)
{
	return p->hdr;
}

int pdata__fd(struct pdata *p)
{
	return p->fd;
}

/* Reserve size bytes in the records area; NULL when it is full. */
static struct pdata_rec *reserve(struct pdata *p, size_t size)
{
	uint64_t at;
	struct pdata_rec *rec;

	size = (size + 7) & ~(size_t)7;
	if (!p->base || size > PDATA_REC_MAX)
		return NULL;
	at = __atomic_fetch_add(&p->hdr->records_used, size, __ATOMIC_RELAXED);
	/* records_used is shared (any writer may have damaged it): check without overflow */
	if (!span_inside(at, size, p->lay.records_cap)) {
		/* leave records_used past the end: every later append fails too */
		return NULL;
	}
	rec = (struct pdata_rec *)(p->records + at);
	rec->size = (uint32_t)size;
	return rec;
}

static void publish(struct pdata_rec *rec, uint32_t type)
{
	__atomic_store_n(&rec->type, type, __ATOMIC_RELEASE);
}

struct pdata_proc *pdata__add_proc(struct pdata *p, int pid, int ppid, uint32_t parent,
				   const char *exe, uint64_t start_ns)
{
	size_t len = strlen(exe ? exe : "") + 1;
	struct pdata_proc *proc = (struct pdata_proc *)reserve(p, sizeof(*proc) + len);

	if (!proc)
		return NULL;
	proc->id = __atomic_add_fetch(&p->hdr->next_proc, 1, __ATOMIC_RELAXED);
	proc->parent = parent;
	proc->pid = pid;
	proc->ppid = ppid;
	proc->start_ns = start_ns;
	memcpy(proc->exe, exe ? exe : "", len);
	__atomic_add_fetch(&p->hdr->processes, 1, __ATOMIC_RELAXED);
	publish(&proc->rec, PDATA_REC_PROC);
	return proc;
}

struct pdata_thread *pdata__add_thread(struct pdata *p, uint32_t proc, int tid, const char *comm)
{
	struct pdata_thread *t = (struct pdata_thread *)reserve(p, sizeof(*t));

	if (!t)
		return NULL;
	t->proc = proc;
	t->tid = tid;
	strncpy(t->comm, comm ? comm : "", sizeof(t->comm) - 1);
	publish(&t->rec, PDATA_REC_THREAD);
	return t;
}

struct pdata_map *pdata__add_map(struct pdata *p, uint32_t proc, uint64_t start, uint64_t end,
				 uint64_t pgoff, uint32_t prot, const char *path)
{
	size_t len = strlen(path ? path : "") + 1;
	struct pdata_map *m = (struct pdata_map *)reserve(p, sizeof(*m) + len);

	if (!m)
		return NULL;
	m->proc = proc;
	m->prot = prot;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	memcpy(m->path, path ? path : "", len);
	publish(&m->rec, PDATA_REC_MAP);
	return m;
}

void pdata__end_proc(struct pdata_proc *proc, int end_kind, int end_code, uint64_t end_ns,
		     uint64_t cpu_ns)
{
	proc->end_code = end_code;
	proc->end_ns = end_ns;
	if (cpu_ns)
		proc->cpu_ns = cpu_ns;
	__atomic_store_n(&proc->end_kind, end_kind, __ATOMIC_RELEASE);
}

static uint64_t slot_hash(uint64_t key, uint64_t pc)
{
	uint64_t h = (pc ^ (key * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return h ^ (h >> 32);
}

int pdata__count(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint64_t n)
{
	uint64_t key = ((uint64_t)proc << 32) | (uint32_t)tid;
	uint64_t mask = p->lay.table_slots - 1;
	uint64_t i = slot_hash(key, pc) & mask;

	if (!p->base)
		return -EBADF; /* opened read-only */
	__atomic_add_fetch(&p->hdr->samples, n, __ATOMIC_RELAXED);
	if (pc == 0)
		pc = 1; /* 0 marks an unwritten slot */
	for (int probe = 0; probe < PDATA_PROBE_LIMIT; probe++, i = (i + 1) & mask) {
		struct pdata_slot *s = &p->slots[i];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);

		if (k == 0) {
			uint64_t expected = 0;

			if (__atomic_compare_exchange_n(&s->key, &expected, key, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				__atomic_add_fetch(&s->count, n, __ATOMIC_RELAXED);
				__atomic_store_n(&s->pc, pc, __ATOMIC_RELEASE);
				return 0;
			}
			k = expected;
		}
		/* a slot whose pc is not yet stored does not match: at worst a duplicate key */
		if (k == key && __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE) == pc) {
			__atomic_add_fetch(&s->count, n, __ATOMIC_RELAXED);
			return 0;
		}
	}
	__atomic_add_fetch(&p->hdr->dropped, n, __ATOMIC_RELAXED);
	return -ENOSPC;
}

static struct {
	const char *lo, *hi; /* the watched mapping */
	char msg[512];
	size_t len;
} truncation;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *at = si->si_addr;

	(void)uc;
	if (at >= truncation.lo && at < truncation.hi) {
		ssize_t n = write(STDERR_FILENO, truncation.msg, truncation.len);

		(void)n;
		_exit(1);
	}
	/* not the profile: the default action when the access faults again */
	signal(sig, SIG_DFL);
}

int pdata__exit_on_truncation(struct pdata *p, const char *prefix, const char *path)
{
	struct sigaction sa;
	int n;

	if (!p->base)
		return -EINVAL;
	n = snprintf(truncation.msg, sizeof(truncation.msg),
		     "%s: %s was truncated while it was being written (by a process of the "
		     "profiled tree?); the profile is lost\n",
		     prefix, path);
	truncation.len = n < 0				    ? 0 :
			 (size_t)n < sizeof(truncation.msg) ? (size_t)n :
							      sizeof(truncation.msg) - 1;
	truncation.lo = p->base;
	truncation.hi = p->base + p->size;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) < 0 ? -errno : 0;
}

int pdata__finish(struct pdata *p)
{
	if (!p->base)
		return -EBADF; /* opened read-only */
	/* the layout as created: any process of the tree could have overwritten it */
	memcpy(p->hdr->magic, PDATA_MAGIC, 8);
	p->hdr->version = PDATA_VERSION;
	p->hdr->header_size = PDATA_HEADER_SIZE;
	p->hdr->file_size = p->lay.file_size;
	p->hdr->table_off = p->lay.table_off;
	p->hdr->table_slots = p->lay.table_slots;
	p->hdr->records_off = p->lay.records_off;
	p->hdr->records_cap = p->lay.records_cap;
	p->hdr->end_ns = pdata__now_ns();
	__atomic_store_n(&p->hdr->state, PDATA_COMPLETE, __ATOMIC_RELEASE);
	if (msync(p->base, p->size, MS_SYNC) < 0)
		return -errno;
	if (fsync(p->fd) < 0)
		return -errno;
	return 0;
}

int pdata__foreach_rec(struct pdata *p, int (*cb)(void *arg, const struct pdata_rec *rec),
		       void *arg)
{
	uint64_t at = 0;

	return pdata__foreach_rec_from(p, &at, cb, arg);
}

/*
 * The private copy a record callback gets: the live record's address,
 * then the record, then zeros (a string field always ends).
 */
struct rec_copy {
	struct pdata_rec *live;
	struct pdata_rec rec; /* then the rest of the record, then 8 zero bytes */
};

/* A copy buffer for records of up to max bytes (allocated to size: small files, small buffers). */
static struct rec_copy *rec_copy_new(uint64_t max)
{
	return malloc(offsetof(struct rec_copy, rec) + max + 8);
}

/* A read-only file's records area seen through a window read with pread. */
#define REC_WINDOW (4 * PDATA_REC_MAX)

struct rec_window {
	char *buf;
	uint64_t off, len; /* [off, off + len) of the records area is in buf */
};

/* Pointer to [at, at + len) of the records area (len <= PDATA_REC_MAX, at + len <= used). */
static int window_get(struct pdata *p, struct rec_window *w, uint64_t at, uint64_t len,
		      uint64_t used, const char **ptr)
{
	uint64_t n;
	int rc;

	if (at < w->off || at + len > w->off + w->len) {
		n = used - at < REC_WINDOW ? used - at : REC_WINDOW;
		w->len = 0;
		rc = read_exact(p->fd, w->buf, n, p->lay.records_off + at);
		if (rc < 0)
			return rc;
		w->off = at;
		w->len = n;
	}
	*ptr = w->buf + (at - w->off);
	return 0;
}

/* The record at byte at: its validated copy in c, or 1 when the walk ends there. */
static int next_rec(struct pdata *p, struct rec_window *w, uint64_t at, uint64_t used,
		    struct rec_copy *c)
{
	const struct pdata_rec *rec;
	const char *ptr;
	uint32_t type, size;
	int rc;

	if (p->base) {
		rec = (const struct pdata_rec *)(p->records + at);
		type = __atomic_load_n(&rec->type, __ATOMIC_ACQUIRE);
		size = __atomic_load_n(&rec->size, __ATOMIC_RELAXED);
	} else {
		rc = window_get(p, w, at, sizeof(*rec), used, &ptr);
		if (rc < 0)
			return rc;
		rec = (const struct pdata_rec *)ptr;
		type = rec->type;
		size = rec->size;
	}
	/* unpublished or damaged: stop, everything before it is good */
	if (type == 0 || size < sizeof(*rec) || size % 8 || size > PDATA_REC_MAX ||
	    size > used - at)
		return 1;
	if (p->base) {
		c->live = (struct pdata_rec *)(p->records + at);
		memcpy(&c->rec, p->records + at, size);
	} else {
		rc = window_get(p, w, at, size, used, &ptr);
		if (rc < 0)
			return rc;
		c->live = NULL;
		memcpy(&c->rec, ptr, size);
	}
	/* the size and type checked above, whatever the bytes say now */
	c->rec.type = type;
	c->rec.size = size;
	memset((char *)&c->rec + size, 0, 8);
	return 0;
}

int pdata__foreach_rec_from(struct pdata *p, uint64_t *offset,
			    int (*cb)(void *arg, const struct pdata_rec *rec), void *arg)
{
	uint64_t used = __atomic_load_n(&p->hdr->records_used, __ATOMIC_ACQUIRE);
	struct rec_window w = {0};
	struct rec_copy *c = NULL;
	uint64_t at = *offset, left;
	int rc = 0;

	if (used > p->lay.records_cap)
		used = p->lay.records_cap;
	if (at > used || used - at < sizeof(struct pdata_rec))
		return 0;
	left = used - at; /* no record, no window needs more */
	c = rec_copy_new(left < PDATA_REC_MAX ? left : PDATA_REC_MAX);
	if (!p->base)
		w.buf = malloc(left < REC_WINDOW ? left : REC_WINDOW);
	if (!c || (!p->base && !w.buf)) {
		rc = -ENOMEM;
		goto out;
	}
	while (at <= used && sizeof(struct pdata_rec) <= used - at) {
		rc = next_rec(p, &w, at, used, c);
		if (rc) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		at += c->rec.size;
		*offset = at;
		rc = cb(arg, &c->rec);
		if (rc)
			break;
	}
out:
	free(w.buf);
	free(c);
	return rc;
}

struct pdata_rec *pdata__rec_live(const struct pdata_rec *rec)
{
	const struct rec_copy *c =
		(const void *)((const char *)rec - offsetof(struct rec_copy, rec));

	return c->live;
}

#define SAMPLE_CHUNK 4096 /* slots read at once from a read-only file */

static int visit_slot(const struct pdata_slot *s,
		      int (*cb)(void *arg, uint32_t proc, int tid, uint64_t pc, uint64_t count),
		      void *arg)
{
	uint64_t key = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
	uint64_t pc = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
	uint64_t count = __atomic_load_n(&s->count, __ATOMIC_RELAXED);

	if (!key || !pc || !count)
		return 0;
	return cb(arg, (uint32_t)(key >> 32), (int)(uint32_t)key, pc, count);
}

int pdata__foreach_sample(struct pdata *p,
			  int (*cb)(void *arg, uint32_t proc, int tid, uint64_t pc, uint64_t count),
			  void *arg)
{
	uint64_t nslots = p->lay.table_slots;
	struct pdata_slot *chunk;
	int rc = 0;

	if (p->base) {
		for (uint64_t i = 0; i < nslots && !rc; i++)
			rc = visit_slot(&p->slots[i], cb, arg);
		return rc;
	}
	chunk = malloc((nslots < SAMPLE_CHUNK ? nslots : SAMPLE_CHUNK) * sizeof(*chunk));
	if (!chunk)
		return -ENOMEM;
	for (uint64_t i = 0; i < nslots && !rc; i += SAMPLE_CHUNK) {
		uint64_t n = nslots - i < SAMPLE_CHUNK ? nslots - i : SAMPLE_CHUNK;

		rc = read_exact(p->fd, chunk, n * sizeof(*chunk),
				p->lay.table_off + i * sizeof(*chunk));
		for (uint64_t k = 0; k < n && !rc; k++)
			rc = visit_slot(&chunk[k], cb, arg);
	}
	free(chunk);
	return rc;
}

const char *pdata__clock_name(uint32_t clock)
{
	switch (clock) {
	case PDATA_CLOCK_THREAD:
		return "thread";
	case PDATA_CLOCK_ITIMER:
		return "itimer";
	case PDATA_CLOCK_PERF:
		return "perf";
	case PDATA_CLOCK_MANUAL:
		return "manual";
	case PDATA_CLOCK_BPF:
		return "bpf";
	default:
		return "unknown";
	}
}
