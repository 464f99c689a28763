// SPDX-License-Identifier: MIT
/*
 * profil.data: create, open, append, count, iterate.  See pdata.h for the
 * format.  Everything on the counting path is plain atomics on the shared
 * mapping, so it is safe in signal handlers and across processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "utils/why.h"
#include "profile/pdata.h"

struct pdata {
	int fd;
	int writable;
	size_t size;
	char *base;
	struct pdata_header *hdr;
	struct pdata_slot *slots;
	char *records;
};

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

static int map_file(struct pdata *p, int writable)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);

	p->base = mmap(NULL, p->size, prot, MAP_SHARED, p->fd, 0);
	if (p->base == MAP_FAILED)
		return -errno;
	p->hdr = (struct pdata_header *)p->base;
	p->slots = (struct pdata_slot *)(p->base + p->hdr->table_off);
	p->records = p->base + p->hdr->records_off;
	p->writable = writable;
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
	rc = map_file(p, 1);
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

/* Every offset and size in the header must lie inside the file. */
static int validate(const struct pdata_header *h, size_t size, char *why, size_t whylen)
{
	uint64_t table_end;

	if (size < PDATA_HEADER_SIZE || memcmp(h->magic, PDATA_MAGIC, 8))
		return why_fail(why, whylen, -EBADMSG, "not a profil data file");
	if (h->version != PDATA_VERSION)
		return why_fail(why, whylen, -EBADMSG,
				"unsupported profil data version %u (this is %u)", h->version,
				PDATA_VERSION);
	if (h->file_size != size)
		return why_fail(why, whylen, -EBADMSG,
				"truncated or damaged: %zu bytes, the header says %llu", size,
				(unsigned long long)h->file_size);
	if (h->header_size != PDATA_HEADER_SIZE || h->table_off < PDATA_HEADER_SIZE ||
	    h->table_slots == 0 || (h->table_slots & (h->table_slots - 1)))
		return why_fail(why, whylen, -EBADMSG, "damaged header (sample table)");
	table_end = h->table_off + (uint64_t)h->table_slots * sizeof(struct pdata_slot);
	if (table_end > size || h->records_off < table_end || h->records_off > size ||
	    h->records_cap > size - h->records_off)
		return why_fail(why, whylen, -EBADMSG, "damaged header (layout outside the file)");
	if (h->state != PDATA_RECORDING && h->state != PDATA_COMPLETE)
		return why_fail(why, whylen, -EBADMSG, "damaged header (state %u)", h->state);
	return 0;
}

int pdata__open_fd(struct pdata **out, int fd, int writable, char *why, size_t whylen)
{
	struct pdata_header hdr;
	struct stat st;
	struct pdata *p;
	ssize_t n;
	int rc;

	if (fstat(fd, &st) < 0)
		return why_fail(why, whylen, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return why_fail(why, whylen, -EBADMSG, "not a regular file");
	n = pread(fd, &hdr, sizeof(hdr), 0);
	if (n < 0)
		return why_fail(why, whylen, -errno, "cannot read: %s", strerror(errno));
	if ((size_t)n < sizeof(hdr))
		return why_fail(why, whylen, -EBADMSG, "%s",
				n == 0 ? "empty file" : "truncated: shorter than its header");
	rc = validate(&hdr, (size_t)st.st_size, why, whylen);
	if (rc < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	p->fd = fd;
	p->size = (size_t)st.st_size;
	rc = map_file(p, writable);
	if (rc < 0) {
		free(p);
		return why_fail(why, whylen, rc, "cannot map: %s", strerror(-rc));
	}
	*out = p;
	return 0;
}

int pdata__open(struct pdata **out, const char *path, int writable, char *why, size_t whylen)
{
	char inner[200];
	int fd, rc;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
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
	at = __atomic_fetch_add(&p->hdr->records_used, size, __ATOMIC_RELAXED);
	if (at + size > p->hdr->records_cap) {
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
	uint64_t mask = p->hdr->table_slots - 1;
	uint64_t i = slot_hash(key, pc) & mask;

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

int pdata__finish(struct pdata *p)
{
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

int pdata__foreach_rec_from(struct pdata *p, uint64_t *offset,
			    int (*cb)(void *arg, const struct pdata_rec *rec), void *arg)
{
	uint64_t used = __atomic_load_n(&p->hdr->records_used, __ATOMIC_ACQUIRE);
	uint64_t at = *offset;

	if (used > p->hdr->records_cap)
		used = p->hdr->records_cap;
	while (at + sizeof(struct pdata_rec) <= used) {
		const struct pdata_rec *rec = (const struct pdata_rec *)(p->records + at);
		uint32_t type = __atomic_load_n(&rec->type, __ATOMIC_ACQUIRE);
		int rc;

		/* unpublished or damaged: stop, everything before it is good */
		if (type == 0 || rec->size < sizeof(*rec) || rec->size % 8 || rec->size > used - at)
			break;
		rc = cb(arg, rec);
		at += rec->size;
		*offset = at;
		if (rc)
			return rc;
	}
	return 0;
}

int pdata__foreach_sample(struct pdata *p,
			  int (*cb)(void *arg, uint32_t proc, int tid, uint64_t pc, uint64_t count),
			  void *arg)
{
	for (uint64_t i = 0; i < p->hdr->table_slots; i++) {
		const struct pdata_slot *s = &p->slots[i];
		uint64_t key = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		uint64_t pc = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
		uint64_t count = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
		int rc;

		if (!key || !pc || !count)
			continue;
		rc = cb(arg, (uint32_t)(key >> 32), (int)(uint32_t)key, pc, count);
		if (rc)
			return rc;
	}
	return 0;
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
