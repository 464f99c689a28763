/* SPDX-License-Identifier: MIT */
/*
 * profil.data: the profile file.  ONE source of truth for its format.
 *
 * The file is created at its full size up front (space reserved with
 * fallocate, so a full disk is an error at the start, never a SIGBUS
 * later) and mapped MAP_SHARED by every writer: the recorder, and in the
 * fallback path the LD_PRELOAD agent inside every profiled process.  Every
 * count is therefore in the page cache from the first sample: the profile
 * survives _exit, abort, SIGSEGV and SIGKILL of the program, and a kill of
 * the recorder loses at most the samples it had not yet read.
 *
 * Layout (native byte order, x86_64 little-endian):
 *   [0, 4096)                struct pdata_header
 *   [table_off, +slots*24)   struct pdata_slot[table_slots]: the sample
 *                            table, an open-addressing hash keyed by
 *                            (proc, tid, pc), lock-free insert and count
 *   [records_off, +cap)      append-only records (struct pdata_rec + payload)
 *
 * A profile is complete when header.state == PDATA_COMPLETE; a profile
 * left in PDATA_RECORDING was cut short (the recorder itself was killed).
 *
 * Trust: everything in the file is untrusted, including while it is being
 * written (in agent mode every process of the tree can write it).  Opening
 * validates a private copy of the header (pdata__check_header) into a
 * struct pdata_layout, and the offsets and sizes are never read from the
 * file again.  Read-only opens do not map the file at all: the header is a
 * copy taken at open, records and samples are read with pread at the time
 * of the iteration, so a file that changes or shrinks while it is read
 * gives a consistent-as-of-then view or an error, never a crash.  Record
 * callbacks get a private copy of each record (see pdata__foreach_rec).
 *
 * Writers: slot and record updates are atomic and async-signal-safe
 * (pdata__count may be called from a signal handler).  A record is
 * published by storing its type last (release); readers stop at the first
 * record whose type is still 0.  Duplicated keys in the table are possible
 * under races and must be summed by readers (pdata__foreach_sample does not
 * merge; the report does).
 */
#ifndef PROFIL_PDATA_H
#define PROFIL_PDATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PDATA_MAGIC "PROFILDT"
#define PDATA_VERSION 1
#define PDATA_HEADER_SIZE 4096
#define PDATA_DEFAULT_SLOTS (1u << 20)        /* 24 MiB of sample table */
#define PDATA_DEFAULT_RECORDS (8u << 20)      /* 8 MiB of records */
#define PDATA_PROBE_LIMIT 64                  /* slots probed before a sample is dropped */
#define PDATA_REC_MAX 65536                   /* largest record (header + payload) */

enum pdata_state {
	PDATA_RECORDING = 1, /* being written, or the recorder died */
	PDATA_COMPLETE = 2,  /* the recorder finished and flushed */
};

/* How a process (or the whole run) ended. */
enum pdata_end {
	PDATA_END_UNKNOWN = 0, /* still running, or never seen ending */
	PDATA_END_EXITED = 1,  /* exit code in exit_code */
	PDATA_END_SIGNALED = 2, /* killed by signal exit_code */
	PDATA_END_EXEC = 3,    /* replaced by exec: the next image has a new proc record */
	PDATA_END_DETACHED = 4, /* attach mode: the recorder stopped before the process */
};

/* Clock that took the samples (values of enum profil_clock, plus BPF). */
enum pdata_clock {
	PDATA_CLOCK_THREAD = 1,
	PDATA_CLOCK_ITIMER = 2,
	PDATA_CLOCK_PERF = 3,
	PDATA_CLOCK_MANUAL = 4,
	PDATA_CLOCK_BPF = 5,
};

struct pdata_header {
	char magic[8];            /* PDATA_MAGIC, not NUL-terminated */
	uint32_t version;         /* PDATA_VERSION */
	uint32_t header_size;     /* PDATA_HEADER_SIZE */
	uint64_t file_size;       /* total size, fixed at creation */
	uint32_t state;           /* enum pdata_state */
	uint32_t clock;           /* enum pdata_clock */
	uint32_t nominal_hz;      /* rate asked for */
	uint32_t flags;           /* PDATA_F_* */
	uint64_t period_ns;       /* CPU time one sample stands for (1e9 / effective clock rate) */
	uint64_t start_ns;        /* CLOCK_REALTIME at start */
	uint64_t end_ns;          /* CLOCK_REALTIME at finish, 0 while recording */
	uint64_t samples;         /* atomic: samples taken (counted or dropped) */
	uint64_t lost;            /* atomic: samples the kernel/clock reported lost */
	uint64_t dropped;         /* atomic: samples not stored because the table was full */
	uint64_t table_off;
	uint32_t table_slots;     /* power of two */
	uint32_t next_proc;       /* atomic: last proc id handed out (ids start at 1) */
	uint64_t records_off;
	uint64_t records_cap;
	uint64_t records_used;    /* atomic: bytes reserved in the records area */
	int32_t root_pid;         /* the command (or attached process) */
	int32_t end_kind;         /* enum pdata_end of the root process */
	int32_t end_code;         /* exit code or signal of the root process */
	uint32_t processes;       /* number of processes seen (informational) */
	uint64_t cpu_ns;          /* CPU time of all profiled processes, when known */
	char command[2048];       /* command line, arguments separated by spaces */
	char clock_note[128];     /* why this clock was chosen, e.g. "perf refused: EACCES" */
	char hostname[64];
};

#define PDATA_F_INHERIT 0x1 /* children were followed */
#define PDATA_F_ATTACH 0x2  /* attached to a running process */

struct pdata_slot {
	uint64_t key;   /* (proc << 32) | tid; 0 = empty.  Claimed first by CAS. */
	uint64_t pc;    /* sampled PC; 0 until the claimer stores it */
	uint64_t count; /* atomic */
};

enum pdata_rec_type {
	PDATA_REC_PROC = 1,   /* struct pdata_proc */
	PDATA_REC_THREAD = 2, /* struct pdata_thread */
	PDATA_REC_MAP = 3,    /* struct pdata_map */
};

struct pdata_rec {
	uint32_t type; /* enum pdata_rec_type; stored last, 0 = not yet published */
	uint32_t size; /* total bytes including this header, multiple of 8 */
};

/* One process image: a fork gets a new one, and so does an exec. */
struct pdata_proc {
	struct pdata_rec rec;
	uint32_t id;          /* proc id used in sample keys, >= 1 */
	uint32_t parent;      /* proc id of the parent image (fork) or previous image (exec), 0 */
	int32_t pid;
	int32_t ppid;
	uint64_t start_ns;    /* CLOCK_REALTIME */
	uint64_t end_ns;      /* written when it ends */
	uint64_t cpu_ns;      /* CPU time of this image when known, else 0 */
	int32_t end_kind;     /* enum pdata_end, written when it ends */
	int32_t end_code;
	char exe[];           /* NUL-terminated path of the executable */
};

struct pdata_thread {
	struct pdata_rec rec;
	uint32_t proc;
	int32_t tid;
	char comm[16];
};

/* An executable mapping of a process image. */
struct pdata_map {
	struct pdata_rec rec;
	uint32_t proc;
	uint32_t prot;        /* PROT_* */
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;       /* file offset of start */
	char path[];          /* NUL-terminated; "[anon]" etc. for non-file mappings */
};

struct pdata;

/*
 * Where the parts of a file are, from a header that passed
 * pdata__check_header(): table_off + table_bytes and records_off +
 * records_cap lie inside file_size, in this order, without overlap.
 */
struct pdata_layout {
	uint64_t file_size;
	uint64_t table_off;
	uint64_t table_bytes; /* table_slots * sizeof(struct pdata_slot) */
	uint32_t table_slots; /* power of two */
	uint64_t records_off;
	uint64_t records_cap;
};

/*
 * Validate a copy of a header against the size of its file, with
 * overflow-safe arithmetic; fill *lay.  Returns 0, or -EBADMSG with one
 * sentence in why.  Pure: no I/O.  New header fields are checked here.
 */
int pdata__check_header(const struct pdata_header *h, uint64_t file_size, struct pdata_layout *lay,
			char *why, size_t whylen);

struct pdata_create_opts {
	uint32_t table_slots;  /* 0 = PDATA_DEFAULT_SLOTS; rounded up to a power of two */
	uint64_t records_cap;  /* 0 = PDATA_DEFAULT_RECORDS */
};

/*
 * Create path for writing: refuses a symbolic link (never followed) and a
 * file owned by another user; replaces the caller's own regular file.
 * Reserves the whole size on disk (ENOSPC at once, not later).  On error
 * returns -errno and writes one sentence to why.
 */
int pdata__create(struct pdata **out, const char *path, const struct pdata_create_opts *opts,
		  char *why, size_t whylen);

/*
 * Open an existing profile, read-only (readers: read with pread, never
 * mapped; pdata__header() is the copy taken at open) or for writing
 * (agents: mapped shared).  Validates the header (pdata__check_header)
 * once.  Refuses anything but a regular file without blocking (a FIFO).
 * On error returns -errno (-EBADMSG for a corrupt or truncated file) and
 * one sentence in why.
 */
int pdata__open(struct pdata **out, const char *path, int writable, char *why, size_t whylen);

/* Map an already open descriptor (agents inherit it); same checks as pdata__open. */
int pdata__open_fd(struct pdata **out, int fd, int writable, char *why, size_t whylen);

void pdata__close(struct pdata *p);
struct pdata_header *pdata__header(struct pdata *p);
int pdata__fd(struct pdata *p);

/*
 * Append records; return the new record (in the mapping) or NULL when the
 * area is full (or the record would exceed PDATA_REC_MAX).
 */
struct pdata_proc *pdata__add_proc(struct pdata *p, int pid, int ppid, uint32_t parent,
				   const char *exe, uint64_t start_ns);
struct pdata_thread *pdata__add_thread(struct pdata *p, uint32_t proc, int tid, const char *comm);
struct pdata_map *pdata__add_map(struct pdata *p, uint32_t proc, uint64_t start, uint64_t end,
				 uint64_t pgoff, uint32_t prot, const char *path);

/* Record the end of a process image. */
void pdata__end_proc(struct pdata_proc *proc, int end_kind, int end_code, uint64_t end_ns,
		     uint64_t cpu_ns);

/*
 * Add n samples at (proc, tid, pc).  Lock-free and async-signal-safe.
 * Returns 0, or -ENOSPC when the table is full (counted in header.dropped).
 */
int pdata__count(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint64_t n);

/*
 * For the recorder, whose mapping any process of the tree may cut short
 * (ftruncate of the inherited descriptor): from now on a SIGBUS in p's
 * mapping prints "PREFIX: PATH was truncated while it was being written
 * (by a process of the profiled tree?); the profile is lost" and exits
 * with status 1, instead of a crash.  Other SIGBUS keep their default.
 * One profile per process.  Returns 0 or -errno.
 */
int pdata__exit_on_truncation(struct pdata *p, const char *prefix, const char *path);

/* Mark complete (state, end time) and flush to disk.  Returns 0 or -errno. */
int pdata__finish(struct pdata *p);

/*
 * Iterate published records in order; stop early when cb returns non-zero
 * (and return that value).  cb gets a private copy of the record: its
 * type and size are the validated ones (8 <= size <= PDATA_REC_MAX, a
 * multiple of 8), and at least 8 zero bytes follow it, so a string field
 * is always terminated somewhere.  The walk stops at the first record
 * that is unpublished or damaged.  Returns 0, cb's value, -ENOMEM, or
 * -EBADMSG / -errno when a read-only file could not be read (it shrank).
 */
int pdata__foreach_rec(struct pdata *p, int (*cb)(void *arg, const struct pdata_rec *rec),
		       void *arg);

/* The same from byte *offset of the records area, which is advanced past every record visited. */
int pdata__foreach_rec_from(struct pdata *p, uint64_t *offset,
			    int (*cb)(void *arg, const struct pdata_rec *rec), void *arg);

/*
 * Inside a record callback of a mapped (writable) profile: the record in
 * the mapping that rec is the copy of, for fields written later (the end
 * of a process).  NULL for read-only opens.  Only for the rec a callback
 * was given, and only during the callback.
 */
struct pdata_rec *pdata__rec_live(const struct pdata_rec *rec);

/*
 * Iterate non-empty sample slots (duplicates of a key possible: sum them).
 * Returns 0, cb's non-zero value, -ENOMEM, or -EBADMSG / -errno when a
 * read-only file could not be read (it shrank).
 */
int pdata__foreach_sample(struct pdata *p,
			  int (*cb)(void *arg, uint32_t proc, int tid, uint64_t pc, uint64_t count),
			  void *arg);

/* "thread", "itimer", "perf", "manual", "bpf" for an enum pdata_clock, else "unknown". */
const char *pdata__clock_name(uint32_t clock);

/* Realtime clock in ns (for start/end stamps). */
uint64_t pdata__now_ns(void);

#endif /* PROFIL_PDATA_H */
