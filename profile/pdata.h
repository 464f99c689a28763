/* SPDX-License-Identifier: MIT */
/*
 * profil.data: the profile file.  ONE source of truth for its format.
 *
 * While recording, the file is created at its full size up front (space
 * reserved with fallocate, so a full disk is an error at the start, never a
 * SIGBUS later) and mapped MAP_SHARED by every writer: the recorder, and in
 * the fallback path the LD_PRELOAD agent inside every profiled process.
 * Every count is therefore in the page cache from the first sample: the
 * profile survives _exit, abort, SIGSEGV and SIGKILL of the program, and a
 * kill of the recorder loses at most the samples it had not yet read.  When
 * the recorder finishes, it writes a compact copy (every table sized to what
 * it holds) beside the file and renames it over the original
 * (pdata__compact): a finished profile is small, and a process that outlives
 * the recorder keeps writing into the old, unlinked file, never into the
 * finished one.
 *
 * Layout (native byte order, x86_64 little-endian; every area 8-aligned):
 *   [0, 4096)                 struct pdata_header
 *   [table_off, +slots*32)    struct pdata_slot[table_slots]: the sample
 *                             table, an open-addressing hash keyed by
 *                             (proc, tid, pc, stack), lock-free insert/count
 *   [frames_off, +fslots*16)  struct pdata_frame[frame_slots]: call-stack
 *                             nodes, an open-addressing hash keyed by
 *                             (parent, pc); 0 slots in a flat profile
 *   [records_off, +cap)       append-only records (struct pdata_rec + payload)
 *
 * Call stacks are a tree: a frame node is (pc, parent node), node id =
 * slot index + 1, 0 = no parent.  A stack is the id of its innermost node;
 * following the parents gives the PCs from the innermost outwards.  A
 * repeated stack costs nothing new (its nodes exist), a stack that shares a
 * prefix with another stores only the differing frames.  The innermost
 * node's pc equals the sample's pc.  PCs of callers are return addresses
 * (symbolise pc - 1).  Kernel frames (pc >= PDATA_KERNEL_START) come
 * innermost, before the user frames.  A stack cut short (unwinding stopped
 * before the outermost frame) ends with an outermost node whose pc is
 * PDATA_PC_TRUNCATED.
 *
 * Off-CPU time (format 3, `record --off-cpu`): slots of the same table
 * whose kind is an enum pdata_kind other than PDATA_KIND_CPU count the
 * nanoseconds threads spent off the CPU for that reason under that stack
 * (the stack the thread left the CPU with; pc: its innermost frame, the
 * kernel's where kernel frames were taken), not samples; header.offcpu
 * says where they came from and what they hold.  A thread record then
 * also holds the thread's lifetime inside the recording and its off-CPU
 * total (struct pdata_thread: life_ns, offcpu_ns), so that a reader can
 * tell what share of the lifetime each clock could attribute.  A profile
 * without off-CPU time is written as format 2, which readers of format 2
 * read as before; readers of format 3 read both (a format 2 thread record
 * is shorter: its life_ns and offcpu_ns read as 0, unknown).
 *
 * Mapping generations (format 4): code replaced at an address while a
 * process ran (a library dlclose'd and another dlopen'ed where it was, a
 * file rewritten at its path and mapped again) must not be named by what
 * replaced it.  When an executable mapping of another object takes the
 * place of one that a process image had, its writer appends a generation
 * record (struct pdata_gen) with an id of its own, taken from the same
 * counter as proc ids, and from then on counts that image's samples, and
 * records its new mappings, under the generation's id in place of the
 * image's.  A sample key's proc is therefore a proc record's id or a
 * generation's, and a reader resolves every PC of a sample (its stack
 * too) through the mappings in effect in its generation: of the image's
 * mappings that cover the PC and were recorded at that generation or an
 * earlier one, those of the newest generation, then the newest start
 * (pview does).  A profile in which no mapping was replaced holds no
 * generation record and is written as format 2 or 3, which their readers
 * read as before; the first generation record makes the file format 4
 * (which holds format 3's off-CPU slots too, if any).
 *
 * A profile is complete when header.state == PDATA_COMPLETE; a profile
 * left in PDATA_RECORDING was cut short (the recorder itself was killed).
 * Once complete, nothing more goes in: counts (-ESTALE) and new records
 * (NULL) are refused, so a process that outlives the recorder with the file
 * still mapped (a daemon the command left behind) cannot change it.
 *
 * Writers: slot, frame and record updates are atomic and async-signal-safe
 * (pdata__count and pdata__count_stack may be called from a signal
 * handler).  Writers take the layout (offsets, slot counts) from the header
 * once, when they open the file, and never re-read it from the shared
 * mapping.  A record is published by storing its type last (release);
 * readers stop at the first record whose type is still 0.  Duplicated keys
 * in either table are possible under races and must be merged by readers
 * (pview does).
 *
 * Trust: everything in the file is untrusted, including while it is being
 * written (in agent mode every process of the tree can write it).  Opening
 * validates a private copy of the header (pdata__check_header) into a
 * struct pdata_layout, and the offsets and sizes are never read from the
 * file again.  Read-only opens do not map the file at all: the header is a
 * copy taken at open, records, samples and frame nodes are read with pread
 * at the time of the iteration, so a file that changes or shrinks while it
 * is read gives a consistent-as-of-then view or an error, never a crash.
 * Record callbacks get a private copy of each record (pdata__foreach_rec).
 * A process of the tree can therefore falsify the counts and records of
 * this profile, never make the recorder, a reader or another process's
 * agent crash or hang.
 */
#ifndef PROFIL_PDATA_H
#define PROFIL_PDATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PDATA_MAGIC "PROFILDT"
#define PDATA_VERSION 4	       /* the newest format this code reads and writes */
#define PDATA_VERSION_CPU 2    /* no off-CPU time, no generations (older readers read it) */
#define PDATA_VERSION_OFFCPU 3 /* with off-CPU time */
#define PDATA_VERSION_GEN 4    /* with mapping generations (PDATA_REC_GEN), off-CPU time or not */
#define PDATA_HEADER_SIZE 4096
#define PDATA_DEFAULT_SLOTS (1u << 20)	 /* 32 MiB of sample table while recording */
#define PDATA_DEFAULT_FRAMES (1u << 20)	 /* 16 MiB of call-stack nodes (with stacks only) */
#define PDATA_DEFAULT_RECORDS (8u << 20) /* 8 MiB of records */
#define PDATA_PROBE_LIMIT 64		 /* slots probed before a sample is dropped */
#define PDATA_MAX_DEPTH 256		 /* frames of one stack, at most */
#define PDATA_REC_MAX 65536		 /* largest record (header + payload) */

/* Kernel text is above this address (x86_64 canonical upper half). */
#define PDATA_KERNEL_START 0xffff800000000000ull
/* Pseudo PC of the outermost node of a stack that was cut short. */
#define PDATA_PC_TRUNCATED 0xfffffffffffffff0ull
/* Pseudo PC of off-CPU time without a place (a thread's total from its switch records). */
#define PDATA_PC_OFFCPU 0xffffffffffffffe0ull

enum pdata_state {
	PDATA_RECORDING = 1, /* being written, or the recorder died */
	PDATA_COMPLETE = 2,  /* the recorder finished and flushed */
};

/* How a process (or the whole run) ended. */
enum pdata_end {
	PDATA_END_UNKNOWN = 0,	/* still running, or never seen ending */
	PDATA_END_EXITED = 1,	/* exit code in exit_code */
	PDATA_END_SIGNALED = 2, /* killed by signal exit_code */
	PDATA_END_EXEC = 3,	/* replaced by exec: the next image has a new proc record */
	PDATA_END_DETACHED = 4, /* attach mode: the recorder stopped before the process */
};

/*
 * Clock that took the samples: the values of libprofil's enum profil_clock
 * (include/profil.h), plus BPF.  The clock ids of every command and the
 * agent's environment, with one table of names (pdata__clock_name,
 * pdata__clock_from_name); 0 is "auto", a request that no file holds.
 */
enum pdata_clock {
	PDATA_CLOCK_AUTO = 0,
	PDATA_CLOCK_THREAD = 1,
	PDATA_CLOCK_ITIMER = 2,
	PDATA_CLOCK_PERF = 3,
	PDATA_CLOCK_MANUAL = 4,
	PDATA_CLOCK_BPF = 5,
};

/*
 * What a slot of the sample table counts (pdata_slot.kind): samples of CPU
 * time, or nanoseconds off the CPU by reason (the task state when the
 * thread left the CPU).  Format 3; a format 2 table holds CPU samples only.
 */
enum pdata_kind {
	PDATA_KIND_CPU = 0,	  /* samples of CPU time (count x period_ns) */
	PDATA_KIND_SLEEP = 1,	  /* off the CPU, interruptible sleep (S): count is ns */
	PDATA_KIND_BLOCKED = 2,	  /* off the CPU, uninterruptible (D: disk, page faults): ns */
	PDATA_KIND_PREEMPTED = 3, /* off the CPU, runnable but not running (R): ns */
	PDATA_KIND_STOPPED = 4,	  /* off the CPU, stopped or traced (T): ns */
	PDATA_KIND_NR = 5,
};
#define PDATA_KIND_OFFCPU(k) ((k) >= PDATA_KIND_SLEEP && (k) < PDATA_KIND_NR)

/* Where a profile's off-CPU time comes from (header.offcpu). */
enum pdata_offcpu {
	PDATA_OFFCPU_NONE = 0, /* not recorded */
	PDATA_OFFCPU_BPF = 1,  /* every interval, with reasons and stacks, counted in the kernel */
	PDATA_OFFCPU_SWITCH = 2, /* each thread's totals (switch records): no stacks, reasons */
};

/* How call stacks were taken (header.callgraph). */
enum pdata_callgraph {
	PDATA_CG_NONE = 0,	/* flat profile */
	PDATA_CG_FP = 1,	/* frame pointers */
	PDATA_CG_DWARF = 2,	/* the CFI (.eh_frame/.debug_frame), unwound by the recorder */
	PDATA_CG_LIBUNWIND = 3, /* the CFI, unwound in the sampled thread (agent clocks) */
	PDATA_CG_KERNEL = 4,	/* the CFI, walked in the kernel (BPF); ticks it could not: dwarf */
};

struct pdata_header {
	char magic[8];	      /* PDATA_MAGIC, not NUL-terminated */
	uint32_t version;     /* PDATA_VERSION_CPU, _OFFCPU or _GEN: what the file holds */
	uint32_t header_size; /* PDATA_HEADER_SIZE */
	uint64_t file_size;   /* total size, fixed at creation */
	uint32_t state;	      /* enum pdata_state */
	uint32_t clock;	      /* enum pdata_clock */
	uint32_t nominal_hz;  /* rate asked for */
	uint32_t flags;	      /* PDATA_F_* */
	uint64_t period_ns;   /* CPU time one sample stands for */
	uint64_t start_ns;    /* CLOCK_REALTIME at start */
	uint64_t end_ns;      /* CLOCK_REALTIME at finish, 0 while recording */
	uint64_t samples;     /* atomic: samples taken (counted or dropped) */
	uint64_t lost;	      /* atomic: samples the kernel/clock reported lost */
	uint64_t dropped;     /* atomic: samples not stored because the table was full */
	uint64_t table_off;
	uint32_t table_slots; /* power of two */
	uint32_t next_proc;   /* atomic: last proc id handed out (ids start at 1) */
	uint64_t records_off;
	uint64_t records_cap;
	uint64_t records_used; /* atomic: bytes reserved in the records area */
	int32_t root_pid;      /* the command (or attached process) */
	int32_t end_kind;      /* enum pdata_end of the root process */
	int32_t end_code;      /* exit code or signal of the root process */
	uint32_t processes;    /* number of processes seen (informational) */
	uint64_t cpu_ns;       /* CPU time of all profiled processes, when known */
	uint64_t user_ns;      /* of which user time (the kernel's accounting), 0 unknown */
	uint64_t sys_ns;       /* of which system time (the kernel's accounting), 0 unknown */
	uint64_t frames_off;
	uint32_t frame_slots; /* power of two, or 0 (flat profile) */
	uint32_t callgraph;   /* enum pdata_callgraph */
	uint64_t truncated;   /* atomic: samples whose stack was cut short */
	uint64_t
		stacks_dropped; /* atomic: samples counted without their stack (frame table full) */
	uint64_t throttled;	/* samples the kernel did not take (throttling), when known */
	/* format 3 (zeros in format 2): */
	uint64_t offcpu_ns;   /* off-CPU nanoseconds of every thread (the table's and lost) */
	uint64_t offcpu_lost; /* of which not in the table (no room, or no place) */
	uint32_t offcpu;      /* enum pdata_offcpu */
	uint32_t pad2;
	/* the agent's unwinder (agent/unwind.h), samples whose stack it cut short: */
	uint64_t agent_refused; /* atomic: at CFI it refused (a looping expression, over a bound) */
	uint64_t agent_unwalked; /* atomic: not walked (no stack free, a sandbox, a fork) */
	uint64_t agent_no_room;	 /* atomic: at an object past its table (PDATA_AGENT_MAX_OBJECTS) */
	uint32_t agent_flags;	 /* atomic: PDATA_AGENT_* (what the agents saw) */
	uint32_t agent_pad;
	uint64_t reserved[9];
	char command[2048];   /* command line, quoted as a shell needs it */
	char clock_note[512]; /* how the clock was chosen and what it can see */
	char hostname[64];
};

/* header.agent_flags: an agent saw its process enter a sandbox (seccomp) and made no system call
 * from then on (no new threads armed, no mappings read, no stacks walked past the cached frames). */
#define PDATA_AGENT_SECCOMP_STRICT 0x1	  /* seccomp strict mode */
#define PDATA_AGENT_SECCOMP_FILTER 0x2	  /* a seccomp filter installed by the program */
#define PDATA_AGENT_SECCOMP_INHERITED 0x4 /* a filter from before the program started (it ran on) */
#define PDATA_AGENT_MAPS_FULL                                                                      \
	0x8 /* an image had over 16384 executable mappings: the rest unrecorded */
#define PDATA_AGENT_GENS_FULL 0x10 /* an image replaced code past PDATA_GENS_MAX generations */
/* objects the agent's unwinder holds at once (agent/unwind.h) */
#define PDATA_AGENT_MAX_OBJECTS 16384

#define PDATA_F_INHERIT 0x1 /* children were followed */
#define PDATA_F_ATTACH 0x2  /* attached to a running process */
#define PDATA_F_KERNEL 0x4 /* kernel PCs were sampled (else kernel time is per-thread accounting) */
#define PDATA_F_SYSTEM 0x8 /* the whole machine (record -a): cpu_ns is the CPUs' busy time */

struct pdata_slot {
	uint64_t key;	/* (proc << 32) | tid; 0 = empty.  Claimed first by CAS. */
	uint64_t pc;	/* sampled PC; 0 until the claimer stores it (after stack and kind) */
	uint32_t stack; /* innermost frame node of the call stack, 0 = none */
	uint32_t kind;	/* enum pdata_kind (format 2: always 0) */
	uint64_t count; /* atomic: samples, or nanoseconds off the CPU */
};

struct pdata_frame {
	uint64_t pc;	 /* claimed by CAS from 0 */
	uint32_t parent; /* PDATA_FRAME_READY | parent node id (0 = outermost), stored after pc */
	uint32_t pad;
};
#define PDATA_FRAME_READY 0x80000000u

enum pdata_rec_type {
	PDATA_REC_PROC = 1,	/* struct pdata_proc */
	PDATA_REC_THREAD = 2,	/* struct pdata_thread */
	PDATA_REC_MAP = 3,	/* struct pdata_map */
	PDATA_REC_KSYM = 4,	/* struct pdata_ksym */
	PDATA_REC_JITSYM = 5,	/* struct pdata_jitsym (readers before it count it as damaged) */
	PDATA_REC_NOTE = 6,	/* struct pdata_note (format 3) */
	PDATA_REC_PROC_CTX = 7, /* struct pdata_proc_ctx (record -a) */
	PDATA_REC_GEN = 8,	/* struct pdata_gen (format 4) */
};

struct pdata_rec {
	uint32_t type; /* enum pdata_rec_type; stored last, 0 = not yet published */
	uint32_t size; /* total bytes including this header, multiple of 8 */
};

/*
 * CPU time of a process image or a thread, as far as it is known (0 =
 * unknown).  Sources (the clock note says which): the kernel's accounting
 * (getrusage; BPF: the scheduler's runtime split by utime/stime), or, for
 * an unprivileged perf clock, the task clock split by the samples (user:
 * user samples times the period; system: the rest).
 */
struct pdata_cpu {
	uint64_t cpu_ns;  /* total (user + system) */
	uint64_t user_ns; /* user time */
	uint64_t sys_ns;  /* system time */
};

/* One process image: a fork gets a new one, and so does an exec. */
struct pdata_proc {
	struct pdata_rec rec;
	uint32_t id;	 /* proc id used in sample keys, >= 1 */
	uint32_t parent; /* proc id of the parent image (fork) or previous image (exec), 0 */
	int32_t pid;
	int32_t ppid;
	uint64_t start_ns;    /* CLOCK_REALTIME */
	uint64_t end_ns;      /* written when it ends */
	struct pdata_cpu cpu; /* written when it ends (or at finish) */
	int32_t end_kind;     /* enum pdata_end, written when it ends (last, release) */
	int32_t end_code;
	char exe[]; /* NUL-terminated path of the executable */
};

struct pdata_thread {
	struct pdata_rec rec;
	uint32_t proc;
	int32_t tid;
	char comm[16];
	struct pdata_cpu cpu; /* written when the thread ends (or at finish) */
	/* format 3, with off-CPU time (a format 2 record ends here: read as 0) */
	uint64_t life_ns;   /* lifetime in the recording (creation or start to end), 0 unknown */
	uint64_t offcpu_ns; /* of which off the CPU (every interval), 0 unknown or none */
};
/* The size of a format 2 thread record. */
#define PDATA_THREAD_V2_SIZE 56

/* An executable mapping of a process image. */
struct pdata_map {
	struct pdata_rec rec;
	uint32_t proc;
	uint32_t prot; /* PROT_* */
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;	       /* file offset of start */
	uint8_t build_id[20];  /* GNU build id of the file when known */
	uint32_t build_id_len; /* 0 = unknown */
	char path[];	       /* NUL-terminated; "[anon]" etc. for non-file mappings */
};

/* A kernel function that samples hit (names travel with the profile). */
struct pdata_ksym {
	struct pdata_rec rec;
	uint64_t start; /* address of the symbol */
	uint64_t size;	/* bytes up to the next symbol, 0 unknown */
	char name[];	/* NUL-terminated; "name [module]" for a module's symbol */
};

/*
 * A piece of JIT-compiled code that samples hit, named by the process's
 * perf map or jitdump file (record/jitsyms.h), which the recorder read
 * while the process lived: a report names the code after the files are gone.
 */
struct pdata_jitsym {
	struct pdata_rec rec;
	uint32_t proc;	/* the process image whose code it is */
	uint32_t kind;	/* where the name came from: enum jit_kind (1 perf map, 2 jitdump) */
	uint64_t start; /* runtime address */
	uint64_t size;
	char name[]; /* NUL-terminated */
};

/*
 * What a part of the recorder says about what it recorded, beside the
 * header's clock note (format 3): e.g. the off-CPU time's source, rules
 * and losses.
 */
struct pdata_note {
	struct pdata_rec rec;
	char topic[16]; /* NUL-terminated: "off-cpu" */
	char text[];	/* NUL-terminated */
};

/*
 * Where a process image ran (`record -a`): its cgroup (v2 path, as
 * utils/cgroup.h reads it; the container or service is read from it), its
 * pid in its own pid namespace, and whether its file paths are those of
 * another mount namespace (a reader opens them through /proc/PID/root while
 * the process lives; else by the build ids of its mappings).  At most one
 * per proc; written before the proc's samples are counted.
 */
struct pdata_proc_ctx {
	struct pdata_rec rec;
	uint32_t proc;
	int32_t nspid;	/* its pid in its own pid namespace (the pid when it is the recorder's) */
	uint32_t flags; /* PDATA_CTX_* */
	uint32_t pad;
	char cgroup[]; /* NUL-terminated cgroup v2 path, "" unknown */
};
#define PDATA_CTX_MNTNS 0x1   /* another mount namespace: paths under /proc/PID/root */
#define PDATA_CTX_KTHREAD 0x2 /* a kernel thread (no user space) */

/*
 * Generations a writer begins per image, at most: each can split every
 * sample of the image in two; past it, replaced code is named by the newest
 * mapping there (as in format 2), and the writer says so.
 */
#define PDATA_GENS_MAX 1024

/*
 * A mapping generation of a process image (format 4, see the top of this
 * file): from start_ns on, the image's samples and new mappings are
 * recorded under id.  Generations of one image are numbered 1, 2, ... in
 * the order they began (the image's own id is generation 0).
 */

struct pdata_gen {
	struct pdata_rec rec;
	uint32_t id;   /* in sample keys and map records, in place of proc; from next_proc */
	uint32_t proc; /* the process image: its proc record's id */
	uint32_t gen;  /* >= 1 */
	uint32_t pad;
	uint64_t start_ns; /* CLOCK_REALTIME */
};

struct pdata;

/*
 * Where the parts of a file are, from a header that passed
 * pdata__check_header(): the sample table, the frame table (when
 * frame_slots != 0) and the records area lie inside file_size, without
 * overlap.
 */
struct pdata_layout {
	uint64_t file_size;
	uint64_t table_off;
	uint64_t table_bytes; /* table_slots * sizeof(struct pdata_slot) */
	uint32_t table_slots; /* power of two */
	uint64_t frames_off;
	uint64_t frame_bytes; /* frame_slots * sizeof(struct pdata_frame) */
	uint32_t frame_slots; /* power of two, or 0 */
	uint64_t records_off;
	uint64_t records_cap;
	uint32_t version; /* PDATA_VERSION_CPU, _OFFCPU (off-CPU kinds allowed) or _GEN (both) */
};

/*
 * Validate a copy of a header against the size of its file, with
 * overflow-safe arithmetic; fill *lay.  Returns 0, or -EBADMSG with one
 * sentence in why.  Pure: no I/O.  New header fields are checked here.
 */
int pdata__check_header(const struct pdata_header *h, uint64_t file_size, struct pdata_layout *lay,
			char *why, size_t whylen);

struct pdata_create_opts {
	uint32_t table_slots; /* 0 = PDATA_DEFAULT_SLOTS; rounded up to a power of two */
	uint32_t frame_slots; /* 0 = a flat profile (no call stacks); rounded up likewise */
	uint64_t records_cap; /* 0 = PDATA_DEFAULT_RECORDS */
	unsigned int mode; /* permission bits of a new file, 0 = outfile__mode() (0600 for root) */
	uint32_t offcpu;   /* enum pdata_offcpu: with off-CPU time (format 3), else format 2 */
};

/*
 * What profil's outputs may replace (utils/outfile.h): where a profile goes,
 * only the caller's own profile (and only a regular file: it is mapped);
 * where an export or an event stream goes, a regular file of the caller's
 * that is neither a profile nor a program (devices, the user's FIFOs and
 * descriptors are written in place).
 */
struct outfile_rules;
extern const struct outfile_rules pdata__profile_rules;
extern const struct outfile_rules pdata__output_rules;

/*
 * Create path for writing, in place (the mapping is the final file): the
 * name is checked by pdata__profile_rules (never a symbolic link, never
 * another user's file, never a file that is not a profile, never a file of
 * the command being recorded), the caller's own previous profile is kept as
 * "path.old" (as perf keeps perf.data.old), and the file is created
 * O_EXCL, mode 0600 when root.  Reserves the whole size on disk (ENOSPC at
 * once, not later).  On error returns -errno and writes one sentence to why.
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
/* build_id may be NULL (len 0); at most 20 bytes are kept. */
struct pdata_map *pdata__add_map(struct pdata *p, uint32_t proc, uint64_t start, uint64_t end,
				 uint64_t pgoff, uint32_t prot, const char *path,
				 const uint8_t *build_id, unsigned int build_id_len);
struct pdata_ksym *pdata__add_ksym(struct pdata *p, uint64_t start, uint64_t size,
				   const char *name);
/* topic: at most 15 bytes kept. */
struct pdata_note *pdata__add_note(struct pdata *p, const char *topic, const char *text);
struct pdata_jitsym *pdata__add_jitsym(struct pdata *p, uint32_t proc, uint32_t kind,
				       uint64_t start, uint64_t size, const char *name);

/* Where process image proc ran (cgroup path may be NULL: unknown). */
struct pdata_proc_ctx *pdata__add_proc_ctx(struct pdata *p, uint32_t proc, int nspid,
					   uint32_t flags, const char *cgroup);

/*
 * A new mapping generation gen (>= 1) of process image proc (a proc
 * record's id), beginning at start_ns; the file becomes format 4.  The
 * caller counts the image's samples and records its new mappings under the
 * returned record's id from then on.  NULL when the area is full.
 */
struct pdata_gen *pdata__add_gen(struct pdata *p, uint32_t proc, uint32_t gen, uint64_t start_ns);

/* Record the end of a process image; cpu may be NULL (unknown). */
void pdata__end_proc(struct pdata_proc *proc, int end_kind, int end_code, uint64_t end_ns,
		     const struct pdata_cpu *cpu);

/* Record a thread's CPU time (when it ends, or at finish). */
void pdata__thread_cpu(struct pdata_thread *t, const struct pdata_cpu *cpu);

/* Record a thread's lifetime inside the recording and its off-CPU total (format 3). */
void pdata__thread_life(struct pdata_thread *t, uint64_t life_ns, uint64_t offcpu_ns);

/* Record a process image's CPU time (its threads' accounting may come after its end). */
void pdata__proc_cpu(struct pdata_proc *proc, const struct pdata_cpu *cpu);

/*
 * Add n samples at (proc, tid, pc).  Lock-free and async-signal-safe.
 * Returns 0, or -ENOSPC when the table is full (counted in header.dropped).
 */
int pdata__count(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint64_t n);

/*
 * Add n samples with their call stack: pcs[0] is the sampled PC, pcs[1..]
 * the return addresses of its callers, outwards (kernel frames first when
 * the kernel was sampled).  truncated: the unwinding stopped before the
 * outermost frame.  Without a frame table (a flat profile), or when the
 * frame table is full, the sample is counted flat (the latter in
 * header.stacks_dropped).  Lock-free and async-signal-safe.  Returns 0, or
 * -ENOSPC when the sample table is full.
 */
int pdata__count_stack(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs, unsigned int n,
		       int truncated, uint64_t count);

/*
 * The same in two steps, for a writer that counts one stack many times (the
 * recorder's in-kernel stacks): the stack's innermost node (0: no frame
 * table, or it is full), then n samples with that node (pc: pcs[0];
 * truncated as the stack was interned; n > PDATA_MAX_DEPTH - 1 counts as
 * truncated, pass it so).  Same accounting as pdata__count_stack.
 */
uint32_t pdata__intern_stack(struct pdata *p, const uint64_t *pcs, unsigned int n, int truncated);
int pdata__count_interned(struct pdata *p, uint32_t proc, int tid, uint64_t pc, uint32_t stack,
			  int truncated, uint64_t count);

/*
 * Add ns nanoseconds off the CPU (kind: PDATA_KIND_SLEEP .. _STOPPED) with
 * the stack the thread left the CPU with (as pdata__count_stack; n >= 1).
 * Counted in header.offcpu_ns; what finds no room also in
 * header.offcpu_lost.  Only in a profile created with off-CPU time
 * (-EINVAL otherwise).  Returns 0, or -ENOSPC when the table is full.
 */
int pdata__count_offcpu(struct pdata *p, uint32_t proc, int tid, const uint64_t *pcs,
			unsigned int n, int truncated, uint32_t kind, uint64_t ns);

/* "cpu", "sleep", "blocked", "preempted", "stopped" for an enum pdata_kind, else "unknown". */
const char *pdata__kind_name(uint32_t kind);

/* "none", "bpf", "switch" for an enum pdata_offcpu, else "unknown". */
const char *pdata__offcpu_name(uint32_t src);

/*
 * For the recorder, whose mapping any process of the tree may cut short
 * (ftruncate of the inherited descriptor): from now on a SIGBUS in p's
 * mapping prints "PREFIX: PATH was truncated while it was being written
 * (by a process of the profiled tree?); the profile is lost" and exits
 * with status 1, instead of a crash.  Other SIGBUS keep their default.
 * One profile per process.  Returns 0 or -errno.
 */
int pdata__exit_on_truncation(struct pdata *p, const char *prefix, const char *path);

/*
 * Mark complete (state, end time, the layout as created: a process of the
 * tree may have overwritten it) and flush to disk.  Returns 0 or -errno.
 */
int pdata__finish(struct pdata *p);

/*
 * pdata__finish in two steps: seal marks complete, sync flushes to disk.
 * The recorder seals, compacts (the compact copy is flushed itself), and
 * syncs only a full-size file that stays the profile: flushing one that a
 * compact copy replaces writes every dirty page for nothing (~13 ms of a
 * -g recording of a one-second program here).
 */
int pdata__seal(struct pdata *p);
int pdata__sync(struct pdata *p);

/*
 * 1 when the profile is marked complete (nothing more goes in), else 0.
 * Reads the shared header: a writer calls it where it may fault (the agent:
 * under its fault guard).  Async-signal-safe.
 */
int pdata__finished(const struct pdata *p);

/*
 * Replace the finished profile at path (the file p maps) by a compact copy:
 * the same content, every table sized to what it holds, written to a
 * temporary file beside path and renamed over it.  p stays usable (it maps
 * the old file).  Returns 0 or -errno with one sentence in why; on error
 * path is left as it was.
 */
int pdata__compact(struct pdata *p, const char *path, char *why, size_t whylen);

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

/* One non-empty slot of the sample table. */
struct pdata_sample {
	uint32_t proc;
	int tid;
	uint64_t pc;
	uint32_t stack; /* innermost frame node, 0 = none */
	uint32_t kind;	/* enum pdata_kind: PDATA_KIND_CPU, or off-CPU (count is ns) */
	uint64_t count;
};

/*
 * Iterate non-empty sample slots (duplicates of a key possible: sum them).
 * Returns 0, cb's non-zero value, -ENOMEM, or -EBADMSG / -errno when a
 * read-only file could not be read (it shrank).
 */
int pdata__foreach_sample(struct pdata *p, int (*cb)(void *arg, const struct pdata_sample *s),
			  void *arg);

/*
 * The PCs of stack node id, innermost first, into pcs[max].  Returns the
 * number of PCs (0 for id 0), or -EBADMSG for an id outside the table, a
 * node not yet written, or a chain longer than PDATA_MAX_DEPTH (a loop in
 * a damaged file); -ENOMEM or -errno when a read-only file's frame table
 * (read once, at the first call) cannot be read.
 */
int pdata__stack(struct pdata *p, uint32_t id, uint64_t *pcs, unsigned int max);

/*
 * One stack node: its pc and its parent node id (0: the outermost).
 * Returns 0, or -EBADMSG for an id outside the table or a node not yet
 * written; -ENOMEM or -errno as pdata__stack.  Readers that walk every
 * stack once per node (not per stack) use it.
 */
int pdata__frame(struct pdata *p, uint32_t id, uint64_t *pc, uint32_t *parent);

/* Frame nodes in use (for statistics and compaction). */
uint32_t pdata__frames_used(struct pdata *p);

/* "auto", "thread", "itimer", "perf", "manual", "bpf" for an enum pdata_clock, else "unknown". */
const char *pdata__clock_name(uint32_t clock);
/* The enum pdata_clock of a name of pdata__clock_name's.  0, or -EINVAL. */
int pdata__clock_from_name(const char *name, uint32_t *clock);

/* "none", "fp", "dwarf", "libunwind", "kernel-cfi" for an enum pdata_callgraph, else "unknown". */
const char *pdata__callgraph_name(uint32_t cg);

/* Clock clk (CLOCK_MONOTONIC: the perf rings' and BPF's time) in ns. */
uint64_t pdata__clock_ns(clockid_t clk);

/* Realtime clock in ns (for start/end stamps). */
uint64_t pdata__now_ns(void);

#endif /* PROFIL_PDATA_H */
