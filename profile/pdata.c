// SPDX-License-Identifier: MIT
/*
 * profil.data: create, open, append, count, iterate, compact.  See pdata.h
 * for the format.  Everything on the counting path is plain atomics on the
 * shared mapping, so it is safe in signal handlers and across processes.
 * The layout (offsets and slot counts) is validated once at open and kept
 * in struct pdata: nothing a writer or reader does afterwards depends on
 * what the shared header says, which any process of the tree may change.
 * Read-only opens never map the file (pread), so a file that shrinks while
 * it is read cannot raise SIGBUS in the reader.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate (release_blocks); the test programs build this file alone */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profil.h"
#include "profile/pdata.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "utils/outfile.h"
#include "utils/sat.h"
#include "utils/why.h"

struct pdata {
	int fd;
	int writable;
	size_t size;
	char *base;		    /* the mapping; NULL for read-only opens (pread) */
	struct pdata_header *hdr;   /* in the mapping, or &copy.h */
	struct pdata_layout lay;    /* validated once, never re-read from the file */
	struct pdata_slot *slots;   /* mapped only */
	struct pdata_frame *frames; /* mapped, or a snapshot read at the first pdata__stack */
	char *records;		    /* mapped only */
	uint64_t probe_limit;	    /* slots an insert may probe; 0 = PDATA_PROBE_LIMIT */
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

uint64_t pdata__clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t pdata__now_ns(void)
{
	return pdata__clock_ns(CLOCK_REALTIME);
}

static uint32_t round_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v && r < (1u << 30))
		r <<= 1;
	return r;
}

/* ---- layout ---------------------------------------------------------------- */

struct layout {
	uint64_t table_off, table_slots;
	uint64_t frames_off, frame_slots;
	uint64_t records_off, records_cap;
	uint64_t size;
};

/* The areas one after another, each 8-aligned (records 4 KiB-aligned). */
static void plan_layout(struct layout *l, uint64_t slots, uint64_t fslots, uint64_t rcap)
{
	l->table_off = PDATA_HEADER_SIZE;
	l->table_slots = slots;
	l->frames_off = l->table_off + slots * sizeof(struct pdata_slot);
	l->frame_slots = fslots;
	l->records_off = (l->frames_off + fslots * sizeof(struct pdata_frame) + 4095) & ~4095ull;
	l->records_cap = rcap;
	l->size = l->records_off + rcap;
}

/* [off, off + n * elem) lies inside the file after the header, 8-aligned; its size in *bytes. */
static int area_inside(uint64_t off, uint64_t n, uint64_t elem, uint64_t size, uint64_t *bytes)
{
	return off >= PDATA_HEADER_SIZE && off % 8 == 0 &&
	       !__builtin_mul_overflow(n, elem, bytes) && span_inside(off, *bytes, size);
}

static int apart(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len)
{
	/* both inside the file, so the sums cannot overflow */
	return a + a_len <= b || b + b_len <= a;
}

int pdata__check_header(const struct pdata_header *h, uint64_t file_size, struct pdata_layout *lay,
			char *why, size_t whylen)
{
	uint64_t table_bytes, frame_bytes = 0;

	if (file_size < PDATA_HEADER_SIZE || memcmp(h->magic, PDATA_MAGIC, 8))
		return why_fail(why, whylen, -EBADMSG, "not a profil data file");
	if (h->version != PDATA_VERSION_CPU && h->version != PDATA_VERSION_OFFCPU &&
	    h->version != PDATA_VERSION_GEN)
		return why_fail(why, whylen, -EBADMSG,
				"written by another version of profil (format %u; this one reads "
				"%u to %u)",
				h->version, PDATA_VERSION_CPU, PDATA_VERSION);
	if (h->file_size != file_size)
		return why_fail(why, whylen, -EBADMSG,
				"truncated or damaged: %llu bytes, the header says %llu",
				(unsigned long long)file_size, (unsigned long long)h->file_size);
	if (h->header_size != PDATA_HEADER_SIZE)
		return why_fail(why, whylen, -EBADMSG, "damaged header (header size %u)",
				h->header_size);
	if (!is_pow2(h->table_slots) ||
	    !area_inside(h->table_off, h->table_slots, sizeof(struct pdata_slot), file_size,
			 &table_bytes))
		return why_fail(why, whylen, -EBADMSG,
				"damaged header (sample table outside the file)");
	if (h->frame_slots && (!is_pow2(h->frame_slots) || h->frame_slots >= PDATA_FRAME_READY ||
			       !area_inside(h->frames_off, h->frame_slots,
					    sizeof(struct pdata_frame), file_size, &frame_bytes) ||
			       !apart(h->frames_off, frame_bytes, h->table_off, table_bytes)))
		return why_fail(why, whylen, -EBADMSG,
				"damaged header (frame table outside the file)");
	if (!area_inside(h->records_off, h->records_cap, 1, file_size, &(uint64_t){0}) ||
	    !apart(h->records_off, h->records_cap, h->table_off, table_bytes) ||
	    (frame_bytes && !apart(h->records_off, h->records_cap, h->frames_off, frame_bytes)))
		return why_fail(why, whylen, -EBADMSG,
				"damaged header (records area outside the file)");
	if (h->state != PDATA_RECORDING && h->state != PDATA_COMPLETE)
		return why_fail(why, whylen, -EBADMSG, "damaged header (state %u)", h->state);
	*lay = (struct pdata_layout){
		.file_size = file_size,
		.table_off = h->table_off,
		.table_bytes = table_bytes,
		.table_slots = h->table_slots,
		.frames_off = h->frame_slots ? h->frames_off : 0,
		.frame_bytes = frame_bytes,
		.frame_slots = h->frame_slots,
		.records_off = h->records_off,
		.records_cap = h->records_cap,
		.version = h->version,
	};
	return 0;
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
	p->frames = p->lay.frame_slots ? (struct pdata_frame *)(p->base + p->lay.frames_off) : NULL;
	p->records = p->base + p->lay.records_off;
	p->writable = 1;
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

/* The layout fields of a header (everything else is left as it is). */
static void set_layout(struct pdata_header *h, const struct layout *l)
{
	h->file_size = l->size;
	h->table_off = l->table_off;
	h->table_slots = (uint32_t)l->table_slots;
	h->frames_off = l->frame_slots ? l->frames_off : 0;
	h->frame_slots = (uint32_t)l->frame_slots;
	h->records_off = l->records_off;
	h->records_cap = l->records_cap;
}

static void init_header(struct pdata_header *h, const struct layout *l, uint32_t offcpu)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, PDATA_MAGIC, 8);
	/* format 4 once a mapping generation is recorded (pdata__add_gen) */
	h->version = offcpu ? PDATA_VERSION_OFFCPU : PDATA_VERSION_CPU;
	h->offcpu = offcpu;
	h->header_size = PDATA_HEADER_SIZE;
	h->state = PDATA_RECORDING;
	set_layout(h, l);
}

/* ---- creating ---------------------------------------------------------------- */

/* 1 when fd holds the first bytes of a profile (any version), else 0. */
static int pdata__is_profile_fd(int fd)
{
	char magic[8];

	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, PDATA_MAGIC, sizeof(magic));
}

static const char *refuse_non_profile(int fd, const struct stat *st)
{
	(void)st;
	return pdata__is_profile_fd(fd) ? NULL : "not a profile";
}

static const char *refuse_profile_or_program(int fd, const struct stat *st)
{
	return pdata__is_profile_fd(fd) ? "a profile" : outfile__refuse_program(fd, st);
}

const struct outfile_rules pdata__profile_rules = {refuse_non_profile, 1};
const struct outfile_rules pdata__output_rules = {refuse_profile_or_program, 0};

/* Move the caller's previous profile at path to path.old (both checked by the output rules). */
static int keep_old(const char *path, char *why, size_t whylen)
{
	char old[PATH_MAX];
	int rc;

	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return why_fail(why, whylen, -ENAMETOOLONG, "%s: name too long", path);
	rc = outfile__check(old, &pdata__profile_rules, why, whylen);
	if (rc < 0)
		return rc;
	if (rename(path, old) < 0)
		return why_fail(why, whylen, -errno, "cannot move %s to %s: %s", path, old,
				strerror(errno));
	return 0;
}

/*
 * Create path exclusively, moving the caller's previous profile aside.  The
 * profile is recorded in place (the shared mapping must be the final file for
 * a crash to lose nothing), so it is never a temporary file: the name is
 * checked by the output rules (utils/outfile.h), then created O_EXCL.
 */
static int open_fresh(const char *path, unsigned int mode, int *moved, char *why, size_t whylen)
{
	*moved = 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		int rc = outfile__check(path, &pdata__profile_rules, why, whylen), fd;

		if (rc == OUTFILE_REPLACE && !*moved) {
			rc = keep_old(path, why, whylen);
			*moved = rc == 0;
		}
		if (rc < 0)
			return rc;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			/* the umask may have narrowed it: make the mode exact */
			if (fchmod(fd, mode) < 0) {
				rc = -errno;
				close(fd);
				unlink(path);
				return why_fail(why, whylen, rc, "cannot set the mode of %s: %s",
						path, strerror(-rc));
			}
			return fd;
		}
		if (errno != EEXIST)
			return why_fail(why, whylen, -errno, "cannot create %s: %s", path,
					strerror(errno));
	}
	return why_fail(why, whylen, -EEXIST, "cannot create %s: it keeps reappearing", path);
}

/*
 * The file's blocks, allocated before it is mapped: a full file system then
 * fails here (ENOSPC) instead of a store into the mapping (SIGBUS), and a
 * file size limit (ulimit -f) fails with EFBIG (SIGXFSZ held) instead of
 * killing.  File systems without fallocate get ftruncate (a hole).
 */
static int reserve_space(int fd, uint64_t size)
{
	sigset_t old;
	int rc;

	outfile__hold_xfsz(&old);
	rc = posix_fallocate(fd, 0, (off_t)size);
	if (rc == EOPNOTSUPP || rc == EINVAL)
		rc = ftruncate(fd, (off_t)size) < 0 ? errno : 0;
	outfile__release_xfsz(&old);
	return -rc;
}

/* "cannot reserve N bytes for PATH: why" */
static int reserve_failed(char *why, size_t whylen, int rc, uint64_t size, const char *what)
{
	if (rc == -EFBIG)
		return why_fail(
			why, whylen, rc,
			"cannot reserve %llu bytes for %s: over the file size limit (ulimit "
			"-f)",
			(unsigned long long)size, what);
	return why_fail(why, whylen, rc, "cannot reserve %llu bytes for %s: %s",
			(unsigned long long)size, what, strerror(-rc));
}

/* Undo open_fresh after a failure: the new file goes, the previous profile comes back. */
static void undo_fresh(const char *path, int fd, int moved)
{
	char old[PATH_MAX];

	unlink(path);
	close(fd);
	if (moved && snprintf(old, sizeof(old), "%s.old", path) < (int)sizeof(old))
		rename(old, path);
}

int pdata__create(struct pdata **out, const char *path, const struct pdata_create_opts *opts,
		  char *why, size_t whylen)
{
	uint32_t slots =
		round_pow2(opts && opts->table_slots ? opts->table_slots : PDATA_DEFAULT_SLOTS);
	uint32_t fslots = opts && opts->frame_slots ? round_pow2(opts->frame_slots) : 0;
	uint64_t rcap = opts && opts->records_cap ? opts->records_cap : PDATA_DEFAULT_RECORDS;
	unsigned int mode = opts && opts->mode ? opts->mode : outfile__mode();
	struct pdata_header hdr;
	struct layout l;
	struct pdata *p;
	int rc, fd, moved;

	plan_layout(&l, slots, fslots, (rcap + 4095) & ~4095ull);
	fd = open_fresh(path, mode, &moved, why, whylen);
	if (fd < 0)
		return fd;
	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = why_fail(why, whylen, -ENOMEM, "out of memory");
		goto err_unlink;
	}
	p->fd = fd;
	p->size = l.size;
	rc = reserve_space(fd, l.size);
	if (rc < 0) {
		reserve_failed(why, whylen, rc, l.size, path);
		goto err_free;
	}
	init_header(&hdr, &l, opts ? opts->offcpu : 0);
	hdr.start_ns = pdata__now_ns();
	gethostname(hdr.hostname, sizeof(hdr.hostname) - 1);
	if (pwrite(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		rc = why_fail(why, whylen, -EIO, "cannot write %s: %s", path, strerror(errno));
		goto err_free;
	}
	rc = pdata__check_header(&hdr, l.size, &p->lay, why, whylen);
	if (rc < 0)
		goto err_free;
	rc = map_file(p);
	if (rc < 0) {
		why_fail(why, whylen, rc, "cannot map %s: %s", path, strerror(-rc));
		goto err_free;
	}
	*out = p;
	return 0;
err_free:
	free(p);
err_unlink:
	undo_fresh(path, fd, moved);
	return rc;
}

/* ---- opening ---------------------------------------------------------------- */

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

	/* O_NONBLOCK: a FIFO named like a profile must not hang the reader */
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

/*
 * The recorder's file after its compact copy replaced it (no name left):
 * its blocks are freed at close.  On a file system mounted with `discard`,
 * each extent is discarded on its own, and every page the recording wrote
 * split the preallocated (unwritten) extent: 4.5 s of wall time and ~65 ms
 * of CPU for a -g profile of a one-second program here, 0.5 s flat.
 * Zeroing the whole range first makes it one unwritten extent again
 * (0.12 s); where the file system cannot, the close frees it as before.
 */
static void release_blocks(int fd, uint64_t size)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0)
		fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, (off_t)size);
}

void pdata__close(struct pdata *p)
{
	if (!p)
		return;
	if (p->base) {
		munmap(p->base, p->size);
		release_blocks(p->fd, p->size);
	} else {
		free(p->frames); /* the snapshot */
	}
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

/* ---- records ---------------------------------------------------------------- */

/*
 * Marked complete: nothing more goes in.  A process that outlives the
 * recorder (a daemon the command left behind, with the agent) keeps its
 * mapping of the file; the finished profile must not change under a reader.
 */
static int finished(const struct pdata *p)
{
	return __atomic_load_n(&p->hdr->state, __ATOMIC_ACQUIRE) == PDATA_COMPLETE;
}

int pdata__finished(const struct pdata *p)
{
	return finished(p);
}

/* Reserve size bytes in the records area; NULL when it is full. */
static struct pdata_rec *reserve(struct pdata *p, size_t size)
{
	uint64_t at;
	struct pdata_rec *rec;

	size = (size + 7) & ~(size_t)7;
	if (!p->base || size > PDATA_REC_MAX || finished(p))
		return NULL;
	at = __atomic_fetch_add(&p->hdr->records_used, size, __ATOMIC_RELAXED);
	/*
	 * records_used is shared (any writer may have damaged it): check without
	 * overflow; past the end it stays there, so every later append fails too
	 */
	if (!span_inside(at, size, p->lay.records_cap) || at % 8)
		return NULL;
	rec = (struct pdata_rec *)(p->records + at);
	rec->size = (uint32_t)size;
	return rec;
}

static void publish(struct pdata_rec *rec, uint32_t type)
{
	__atomic_store_n(&rec->type, type, __ATOMIC_RELEASE);
}

/*
 * Reserve a record of size bytes followed by the string s (NULL: ""), which
 * is copied to its flexible array at offset str_at; NULL when full.
 */
static struct pdata_rec *reserve_str(struct pdata *p, size_t size, size_t str_at, const char *s)
{
	size_t len = strlen(s ? s : "") + 1;
	struct pdata_rec *rec = reserve(p, size + len);

	if (rec)
		memcpy((char *)rec + str_at, s ? s : "", len);
	return rec;
}

struct pdata_proc *pdata__add_proc(struct pdata *p, int pid, int ppid, uint32_t parent,
				   const char *exe, uint64_t start_ns)
{
	struct pdata_proc *proc = (struct pdata_proc *)reserve_str(
		p, sizeof(*proc), offsetof(struct pdata_proc, exe), exe);

	if (!proc)
		return NULL;
	proc->id = __atomic_add_fetch(&p->hdr->next_proc, 1, __ATOMIC_RELAXED);
	proc->parent = parent;
	proc->pid = pid;
	proc->ppid = ppid;
	proc->start_ns = start_ns;
	__atomic_add_fetch(&p->hdr->processes, 1, __ATOMIC_RELAXED);
	publish(&proc->rec, PDATA_REC_PROC);
	return proc;
}

struct pdata_gen *pdata__add_gen(struct pdata *p, uint32_t proc, uint32_t gen, uint64_t start_ns)
{
	struct pdata_gen *g = (struct pdata_gen *)reserve(p, sizeof(*g));

	if (!g)
		return NULL;
	g->id = __atomic_add_fetch(&p->hdr->next_proc, 1, __ATOMIC_RELAXED);
	g->proc = proc;
	g->gen = gen;
	g->start_ns = start_ns;
	/* older readers refuse the file from now on, rather than misname its samples */
	__atomic_store_n(&p->hdr->version, PDATA_VERSION_GEN, __ATOMIC_RELEASE);
	publish(&g->rec, PDATA_REC_GEN);
	return g;
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
				 uint64_t pgoff, uint32_t prot, const char *path,
				 const uint8_t *build_id, unsigned int build_id_len)
{
	struct pdata_map *m = (struct pdata_map *)reserve_str(
		p, sizeof(*m), offsetof(struct pdata_map, path), path);

	if (!m)
		return NULL;
	m->proc = proc;
	m->prot = prot;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	if (build_id && build_id_len) {
		if (build_id_len > sizeof(m->build_id))
			build_id_len = sizeof(m->build_id);
		memcpy(m->build_id, build_id, build_id_len);
		m->build_id_len = build_id_len;
	}
	publish(&m->rec, PDATA_REC_MAP);
	return m;
}

struct pdata_ksym *pdata__add_ksym(struct pdata *p, uint64_t start, uint64_t size, const char *name)
{
	struct pdata_ksym *k = (struct pdata_ksym *)reserve_str(
		p, sizeof(*k), offsetof(struct pdata_ksym, name), name);

	if (!k)
		return NULL;
	k->start = start;
	k->size = size;
	publish(&k->rec, PDATA_REC_KSYM);
	return k;
}

struct pdata_note *pdata__add_note(struct pdata *p, const char *topic, const char *text)
{
	struct pdata_note *n = (struct pdata_note *)reserve_str(
		p, sizeof(*n), offsetof(struct pdata_note, text), text);

	if (!n)
		return NULL;
	strncpy(n->topic, topic ? topic : "", sizeof(n->topic) - 1);
	publish(&n->rec, PDATA_REC_NOTE);
	return n;
}

struct pdata_jitsym *pdata__add_jitsym(struct pdata *p, uint32_t proc, uint32_t kind,
				       uint64_t start, uint64_t size, const char *name)
{
	struct pdata_jitsym *j = (struct pdata_jitsym *)reserve_str(
		p, sizeof(*j), offsetof(struct pdata_jitsym, name), name);

	if (!j)
		return NULL;
	j->proc = proc;
	j->kind = kind;
	j->start = start;
	j->size = size;
	publish(&j->rec, PDATA_REC_JITSYM);
	return j;
}

struct pdata_proc_ctx *pdata__add_proc_ctx(struct pdata *p, uint32_t proc, int nspid,
					   uint32_t flags, const char *cgroup)
{
	struct pdata_proc_ctx *c = (struct pdata_proc_ctx *)reserve_str(
		p, sizeof(*c), offsetof(struct pdata_proc_ctx, cgroup), cgroup);

	if (!c)
		return NULL;
	c->proc = proc;
	c->nspid = nspid;
	c->flags = flags;
	publish(&c->rec, PDATA_REC_PROC_CTX);
	return c;
}

static void store_cpu(struct pdata_cpu *dst, const struct pdata_cpu *src)
{
	__atomic_store_n(&dst->cpu_ns, src->cpu_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->user_ns, src->user_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->sys_ns, src->sys_ns, __ATOMIC_RELAXED);
}

void pdata__end_proc(struct pdata_proc *proc, int end_kind, int end_code, uint64_t end_ns,
		     const struct pdata_cpu *cpu)
{
	proc->end_code = end_code;
	proc->end_ns = end_ns;
	if (cpu && cpu->cpu_ns)
		store_cpu(&proc->cpu, cpu);
	__atomic_store_n(&proc->end_kind, end_kind, __ATOMIC_RELEASE);
}

void pdata__thread_cpu(struct pdata_thread *t, const struct pdata_cpu *cpu)
{
	store_cpu(&t->cpu, cpu);
}

void pdata__proc_cpu(struct pdata_proc *proc, const struct pdata_cpu *cpu)
{
	store_cpu(&proc->cpu, cpu);
}

void pdata__thread_life(struct pdata_thread *t, uint64_t life_ns, uint64_t offcpu_ns)
{
	__atomic_store_n(&t->life_ns, life_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->offcpu_ns, offcpu_ns, __ATOMIC_RELAXED);
}

/* ---- samples and stacks ---------------------------------------------------- */

/*
 * How far an insert may probe: PDATA_PROBE_LIMIT while recording (a bound
 * on a signal handler's work), the whole table when compacting (nothing
 * else inserts into a compact copy, which can then be dense).
 */
static uint64_t probes(const struct pdata *p, uint64_t mask)
{
	return p->probe_limit ? (p->probe_limit < mask + 1 ? p->probe_limit : mask + 1) :
				PDATA_PROBE_LIMIT;
}

/* Count n into the slot of (key, pc, stack, kind); no header counters.  0 or -ENOSPC. */
static int count_slot(struct pdata *p, uint64_t key, uint64_t pc, uint32_t stack, uint32_t kind,
		      uint64_t n)
{
	uint64_t mask = p->lay.table_slots - 1;
	/* every bit of the stack id counts: one PC under thousands of stacks is common */
	uint64_t i =
		htab_hash_combine(htab_hash_combine(key, stack | (uint64_t)kind << 32), pc) & mask;

	if (pc == 0)
		pc = 1; /* 0 marks an unwritten slot */
	for (uint64_t probe = 0; probe < probes(p, mask); probe++, i = (i + 1) & mask) {
		struct pdata_slot *s = &p->slots[i];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);

		if (k == 0) {
			uint64_t expected = 0;

			if (__atomic_compare_exchange_n(&s->key, &expected, key, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				__atomic_add_fetch(&s->count, n, __ATOMIC_RELAXED);
				__atomic_store_n(&s->stack, stack, __ATOMIC_RELAXED);
				__atomic_store_n(&s->kind, kind, __ATOMIC_RELAXED);
				__atomic_store_n(&s->pc, pc, __ATOMIC_RELEASE);
				return 0;
			}
			k = expected;
		}
		/* a slot whose pc is not yet stored does not match: at worst a duplicate key */
		if (k == key && __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE) == pc &&
		    __atomic_load_n(&s->stack, __ATOMIC_RELAXED) == stack &&
		    __atomic_load_n(&s->kind, __ATOMIC_RELAXED) == kind) {
			__atomic_add_fetch(&s->count, n, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -ENOSPC;
}

static uint64_t slot_key(uint32_t proc, int tid)
{
	return ((uint64_t)proc << 32) | (uint32_t)tid;
}

int pdata__count(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint64_t n)
{
	if (!p->base)
		return -EBADF; /* opened read-only */
	if (finished(p))
		return -ESTALE;
	__atomic_add_fetch(&p->hdr->samples, n, __ATOMIC_RELAXED);
	if (count_slot(p, slot_key(proc, tid), pc, 0, PDATA_KIND_CPU, n) < 0) {
		__atomic_add_fetch(&p->hdr->dropped, n, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

/*
 * The node (parent, pc), added if missing.  Returns its id, or 0 when the
 * table is full around it.  A node whose parent is not yet stored does not
 * match: at worst a duplicate node, which readers cannot tell apart.
 */
static uint32_t frame_node(struct pdata *p, uint32_t parent, uint64_t pc)
{
	uint64_t mask = p->lay.frame_slots - 1;
	uint64_t i = htab_hash_combine(parent, pc) & mask;
	uint32_t want = PDATA_FRAME_READY | parent;

	if (pc == 0)
		pc = 1;
	for (uint64_t probe = 0; probe < probes(p, mask); probe++, i = (i + 1) & mask) {
		struct pdata_frame *f = &p->frames[i];
		uint64_t cur = __atomic_load_n(&f->pc, __ATOMIC_ACQUIRE);

		if (cur == 0) {
			uint64_t expected = 0;

			if (__atomic_compare_exchange_n(&f->pc, &expected, pc, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				__atomic_store_n(&f->parent, want, __ATOMIC_RELEASE);
				return (uint32_t)i + 1;
			}
			cur = expected;
		}
		if (cur == pc && __atomic_load_n(&f->parent, __ATOMIC_ACQUIRE) == want)
			return (uint32_t)i + 1;
	}
	return 0;
}

/* The innermost node of the stack, outermost frame first; 0 when the table is full. */
static uint32_t intern_stack(struct pdata *p, const uint64_t *pcs, unsigned int n, int truncated)
{
	uint32_t node = 0;

	if (n > PDATA_MAX_DEPTH - 1) {
		n = PDATA_MAX_DEPTH - 1; /* keep the innermost frames */
		truncated = 1;
	}
	if (truncated && !(node = frame_node(p, 0, PDATA_PC_TRUNCATED)))
		return 0;
	while (n--) {
		node = frame_node(p, node, pcs[n]);
		if (!node)
			return 0;
	}
	return node;
}

int pdata__count_stack(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs, unsigned int n,
		       int truncated, uint64_t count)
{
	uint32_t stack = 0;

	if (!p->base)
		return -EBADF; /* opened read-only */
	if (finished(p))
		return -ESTALE;
	if (n == 0)
		return pdata__count(p, proc, tid, 0, count);
	if (p->lay.frame_slots) {
		stack = intern_stack(p, pcs, n, truncated);
		if (!stack)
			__atomic_add_fetch(&p->hdr->stacks_dropped, count, __ATOMIC_RELAXED);
		else if (truncated || n > PDATA_MAX_DEPTH - 1)
			__atomic_add_fetch(&p->hdr->truncated, count, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&p->hdr->samples, count, __ATOMIC_RELAXED);
	if (count_slot(p, slot_key(proc, tid), pcs[0], stack, PDATA_KIND_CPU, count) < 0) {
		__atomic_add_fetch(&p->hdr->dropped, count, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

int pdata__count_offcpu(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs,
			unsigned int n, int truncated, uint32_t kind, uint64_t ns)
{
	uint32_t stack = 0;

	if (!p->base)
		return -EBADF; /* opened read-only */
	if (p->lay.version == PDATA_VERSION_CPU || !PDATA_KIND_OFFCPU(kind) || n == 0)
		return -EINVAL;
	if (finished(p))
		return -ESTALE;
	__atomic_add_fetch(&p->hdr->offcpu_ns, ns, __ATOMIC_RELAXED);
	if (p->lay.frame_slots && n > 1) {
		stack = intern_stack(p, pcs, n, truncated);
		if (!stack)
			__atomic_add_fetch(&p->hdr->stacks_dropped, 1, __ATOMIC_RELAXED);
	}
	if (count_slot(p, slot_key(proc, tid), pcs[0], stack, kind, ns) < 0) {
		__atomic_add_fetch(&p->hdr->offcpu_lost, ns, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

uint32_t pdata__intern_stack(struct pdata *p, const uint64_t *pcs, unsigned int n, int truncated)
{
	if (!p->base || finished(p) || !n || !p->lay.frame_slots)
		return 0;
	return intern_stack(p, pcs, n, truncated);
}

int pdata__count_interned(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint32_t stack,
			  int truncated, uint64_t count)
{
	if (!p->base)
		return -EBADF;
	if (finished(p))
		return -ESTALE;
	if (!stack)
		__atomic_add_fetch(&p->hdr->stacks_dropped, count, __ATOMIC_RELAXED);
	else if (truncated)
		__atomic_add_fetch(&p->hdr->truncated, count, __ATOMIC_RELAXED);
	__atomic_add_fetch(&p->hdr->samples, count, __ATOMIC_RELAXED);
	if (count_slot(p, slot_key(proc, tid), pc, stack, PDATA_KIND_CPU, count) < 0) {
		__atomic_add_fetch(&p->hdr->dropped, count, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

/* The frame table of a read-only file, read once (nodes are only ever added). */
static int frames_snapshot(struct pdata *p)
{
	int rc;

	if (p->frames || !p->lay.frame_slots)
		return 0;
	p->frames = malloc(p->lay.frame_bytes);
	if (!p->frames)
		return -ENOMEM;
	rc = read_exact(p->fd, p->frames, p->lay.frame_bytes, p->lay.frames_off);
	if (rc < 0) {
		free(p->frames);
		p->frames = NULL;
	}
	return rc;
}

int pdata__stack(struct pdata *p, uint32_t id, uint64_t *pcs, unsigned int max)
{
	unsigned int n = 0;
	int rc = p->base ? 0 : frames_snapshot(p);

	if (rc < 0)
		return rc;
	while (id) {
		const struct pdata_frame *f;
		uint32_t parent;

		if (id > p->lay.frame_slots || n >= PDATA_MAX_DEPTH)
			return -EBADMSG;
		f = &p->frames[id - 1];
		parent = __atomic_load_n(&f->parent, __ATOMIC_ACQUIRE);
		if (!(parent & PDATA_FRAME_READY))
			return -EBADMSG;
		if (n < max)
			pcs[n] = __atomic_load_n(&f->pc, __ATOMIC_RELAXED);
		n++;
		id = parent & ~PDATA_FRAME_READY;
	}
	return (int)(n < max ? n : max);
}

int pdata__frame(struct pdata *p, uint32_t id, uint64_t *pc, uint32_t *parent)
{
	int rc = p->base ? 0 : frames_snapshot(p);
	const struct pdata_frame *f;
	uint32_t up;

	if (rc < 0)
		return rc;
	if (!id || id > p->lay.frame_slots)
		return -EBADMSG;
	f = &p->frames[id - 1];
	up = __atomic_load_n(&f->parent, __ATOMIC_ACQUIRE);
	if (!(up & PDATA_FRAME_READY))
		return -EBADMSG;
	*pc = __atomic_load_n(&f->pc, __ATOMIC_RELAXED);
	*parent = up & ~PDATA_FRAME_READY;
	return 0;
}

uint32_t pdata__frames_used(struct pdata *p)
{
	uint32_t n = 0;

	if (!p->base && frames_snapshot(p) < 0)
		return 0;
	for (uint64_t i = 0; i < p->lay.frame_slots; i++)
		n += __atomic_load_n(&p->frames[i].pc, __ATOMIC_RELAXED) != 0;
	return n;
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

int pdata__seal(struct pdata *p)
{
	struct layout l = {.table_off = p->lay.table_off,
			   .table_slots = p->lay.table_slots,
			   .frames_off = p->lay.frames_off,
			   .frame_slots = p->lay.frame_slots,
			   .records_off = p->lay.records_off,
			   .records_cap = p->lay.records_cap,
			   .size = p->lay.file_size};

	if (!p->base)
		return -EBADF; /* opened read-only */
	/* the layout as created: any process of the tree could have overwritten it */
	memcpy(p->hdr->magic, PDATA_MAGIC, 8);
	/* as created, or format 4 once any writer (an agent's too) recorded a generation */
	if (__atomic_load_n(&p->hdr->version, __ATOMIC_ACQUIRE) != PDATA_VERSION_GEN)
		p->hdr->version = p->lay.version;
	p->hdr->header_size = PDATA_HEADER_SIZE;
	set_layout(p->hdr, &l);
	p->hdr->end_ns = pdata__now_ns();
	__atomic_store_n(&p->hdr->state, PDATA_COMPLETE, __ATOMIC_RELEASE);
	return 0;
}

int pdata__sync(struct pdata *p)
{
	if (!p->base)
		return -EBADF;
	if (msync(p->base, p->size, MS_SYNC) < 0)
		return -errno;
	if (fsync(p->fd) < 0)
		return -errno;
	return 0;
}

int pdata__finish(struct pdata *p)
{
	int rc = pdata__seal(p);

	return rc ? rc : pdata__sync(p);
}

/* ---- iterating --------------------------------------------------------------- */

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

static int visit_slot(const struct pdata_slot *slot, uint32_t version,
		      int (*cb)(void *arg, const struct pdata_sample *s), void *arg)
{
	uint64_t key = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
	struct pdata_sample s;

	s.pc = __atomic_load_n(&slot->pc, __ATOMIC_ACQUIRE);
	s.stack = __atomic_load_n(&slot->stack, __ATOMIC_RELAXED);
	/* format 2 has no kinds: whatever its padding holds, a slot counts samples */
	s.kind = version == PDATA_VERSION_CPU ? PDATA_KIND_CPU :
						__atomic_load_n(&slot->kind, __ATOMIC_RELAXED);
	s.count = __atomic_load_n(&slot->count, __ATOMIC_RELAXED);
	if (!key || !s.pc || !s.count)
		return 0;
	s.proc = (uint32_t)(key >> 32);
	s.tid = (int)(uint32_t)key;
	return cb(arg, &s);
}

int pdata__foreach_sample(struct pdata *p, int (*cb)(void *arg, const struct pdata_sample *s),
			  void *arg)
{
	uint64_t nslots = p->lay.table_slots;
	struct pdata_slot *chunk;
	int rc = 0;

	if (p->base) {
		for (uint64_t i = 0; i < nslots && !rc; i++)
			rc = visit_slot(&p->slots[i], p->lay.version, cb, arg);
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
			rc = visit_slot(&chunk[k], p->lay.version, cb, arg);
	}
	free(chunk);
	return rc;
}

/* ---- compaction --------------------------------------------------------------- */

struct compactor {
	struct pdata *src, *dst;
	uint64_t pcs[PDATA_MAX_DEPTH];
	uint64_t lost; /* samples whose stack could not be read back (damaged nodes) */
	uint64_t full; /* inserts that found no room: the tables must be larger */
};

static int copy_sample(void *arg, const struct pdata_sample *s)
{
	struct compactor *c = arg;
	uint64_t key = slot_key(s->proc, s->tid);
	uint32_t stack = 0;

	if (s->stack && c->dst->lay.frame_slots) {
		int n = pdata__stack(c->src, s->stack, c->pcs, PDATA_MAX_DEPTH);
		int truncated = n > 0 && c->pcs[n - 1] == PDATA_PC_TRUNCATED;

		if (n > 0) {
			stack = intern_stack(c->dst, c->pcs, (unsigned int)(n - truncated),
					     truncated);
			c->full += !stack;
		} else {
			c->lost = sat_add(c->lost, s->count);
		}
	}
	if (count_slot(c->dst, key, s->pc, stack, s->kind, s->count) < 0)
		c->full++;
	return 0;
}

struct used {
	uint64_t samples, records_end;
};

static int count_used(void *arg, const struct pdata_sample *s)
{
	(void)s;
	((struct used *)arg)->samples++;
	return 0;
}

static int find_records_end(void *arg, const struct pdata_rec *rec)
{
	(void)arg;
	(void)rec;
	return 0;
}

static int write_compact(struct pdata *src, int fd, const struct layout *l, uint64_t records_end,
			 char *why, size_t whylen)
{
	struct compactor c = {.src = src};
	struct pdata dst = {.fd = fd, .size = l->size, .probe_limit = UINT64_MAX};
	struct pdata_header hdr;
	int rc;

	rc = reserve_space(fd, l->size); /* no hole to fill through the mapping: no SIGBUS */
	if (rc < 0)
		return reserve_failed(why, whylen, rc, l->size, "the compact copy");
	/* everything the recorder wrote, with the new layout */
	memcpy(&hdr, src->hdr, sizeof(hdr));
	set_layout(&hdr, l);
	hdr.records_used = records_end;
	rc = pdata__check_header(&hdr, l->size, &dst.lay, why, whylen);
	if (rc < 0)
		return rc;
	rc = map_file(&dst);
	if (rc < 0)
		return why_fail(why, whylen, rc, "cannot map the compact copy: %s", strerror(-rc));
	memcpy(dst.base, &hdr, sizeof(hdr));
	rc = read_exact(src->fd, dst.records, records_end, src->lay.records_off);
	c.dst = &dst;
	if (!rc)
		rc = pdata__foreach_sample(src, copy_sample, &c);
	if (rc < 0) {
		munmap(dst.base, dst.size);
		return why_fail(why, whylen, rc, "cannot read the profile back: %s",
				rc == -EBADMSG ? "it shrank" : strerror(-rc));
	}
	if (c.full) {
		munmap(dst.base, dst.size);
		return -EAGAIN; /* the caller tries larger tables */
	}
	dst.hdr->dropped = sat_add(dst.hdr->dropped, c.lost);
	rc = msync(dst.base, dst.size, MS_SYNC) < 0 ? -errno : 0;
	munmap(dst.base, dst.size);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (rc < 0)
		return why_fail(why, whylen, rc, "cannot write the compact copy: %s",
				strerror(-rc));
	return 0;
}

struct compact_job {
	struct pdata *src;
	const struct layout *l;
	uint64_t records_end;
	mode_t mode; /* the profile's */
};

static int fill_compact(int fd, void *arg, char *why, size_t whylen)
{
	const struct compact_job *job = arg;

	if (fchmod(fd, job->mode) < 0)
		return why_fail(why, whylen, -errno, "cannot set the mode of the compact copy: %s",
				strerror(errno));
	return write_compact(job->src, fd, job->l, job->records_end, why, whylen);
}

/* A compact table: at most 89 % full (only the copy inserts into it, probing as far as needed). */
static uint64_t compact_slots(uint64_t used)
{
	uint64_t want = used + used / 8 + 1;

	return round_pow2(want > 16 ? (uint32_t)want : 16);
}

int pdata__compact(struct pdata *p, const char *path, char *why, size_t whylen)
{
	uint64_t slots, fslots;
	struct used u = {0};
	uint64_t records_end = 0;
	uint32_t fused = p->lay.frame_slots ? pdata__frames_used(p) : 0;
	struct stat mine, there;
	struct layout l;

	if (fstat(p->fd, &mine) < 0 || lstat(path, &there) < 0 || mine.st_dev != there.st_dev ||
	    mine.st_ino != there.st_ino)
		return why_fail(why, whylen, -ESTALE,
				"%s is no longer the profile being written; left as it is", path);
	if (pdata__foreach_sample(p, count_used, &u) < 0 ||
	    pdata__foreach_rec_from(p, &records_end, find_records_end, NULL) < 0)
		return why_fail(why, whylen, -EIO, "cannot read %s back to compact it", path);
	slots = compact_slots(u.samples);
	fslots = fused ? compact_slots(fused) : 0;
	for (;;) {
		int rc;

		plan_layout(&l, slots, fslots, (records_end + 4095) & ~4095ull);
		if (l.size >= p->size)
			return 0; /* nothing to gain */
		/* a temporary file beside it, renamed over it: the one writer of whole outputs */
		rc = outfile__write(path, &pdata__profile_rules, fill_compact,
				    &(struct compact_job){p, &l, records_end, mine.st_mode & 07777},
				    why, whylen);
		if (rc != -EAGAIN)
			return rc;
		slots *= 2; /* a probe run too long: twice the room */
		fslots *= 2;
	}
}

/* ---- names ------------------------------------------------------------------- */

/* The header's size is the format's: a new field takes its room from reserved[]. */
_Static_assert(sizeof(struct pdata_header) == 2960, "struct pdata_header changed size");

#define SAME_CLOCK(x) ((int)PDATA_CLOCK_##x == (int)PROFIL_CLOCK_##x)
_Static_assert(SAME_CLOCK(AUTO) && SAME_CLOCK(THREAD) && SAME_CLOCK(ITIMER) && SAME_CLOCK(PERF) &&
		       SAME_CLOCK(MANUAL),
	       "the profile's clock ids are libprofil's (the agent's samples name them)");

static const char *const clock_names[] = {
	[PDATA_CLOCK_AUTO] = "auto",	 [PDATA_CLOCK_THREAD] = "thread",
	[PDATA_CLOCK_ITIMER] = "itimer", [PDATA_CLOCK_PERF] = "perf",
	[PDATA_CLOCK_MANUAL] = "manual", [PDATA_CLOCK_BPF] = "bpf",
};

const char *pdata__clock_name(uint32_t clock)
{
	return ARRAY_NAME(clock_names, clock, "unknown");
}

int pdata__clock_from_name(const char *name, uint32_t *clock)
{
	for (uint32_t c = 0; c < ARRAY_SIZE(clock_names); c++) {
		if (!strcmp(name, clock_names[c])) {
			*clock = c;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pdata__kind_name(uint32_t kind)
{
	static const char *const names[PDATA_KIND_NR] = {"cpu", "sleep", "blocked", "preempted",
							 "stopped"};

	return ARRAY_NAME(names, kind, "unknown");
}

const char *pdata__offcpu_name(uint32_t src)
{
	static const char *const names[] = {
		[PDATA_OFFCPU_NONE] = "none",
		[PDATA_OFFCPU_BPF] = "bpf",
		[PDATA_OFFCPU_SWITCH] = "switch",
	};

	return ARRAY_NAME(names, src, "unknown");
}

const char *pdata__callgraph_name(uint32_t cg)
{
	static const char *const names[] = {
		[PDATA_CG_NONE] = "none",	  [PDATA_CG_FP] = "fp",
		[PDATA_CG_DWARF] = "dwarf",	  [PDATA_CG_LIBUNWIND] = "libunwind",
		[PDATA_CG_KERNEL] = "kernel-cfi",
	};

	return ARRAY_NAME(names, cg, "unknown");
}
