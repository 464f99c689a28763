/* SPDX-License-Identifier: MIT */
/*
 * The prof/profil event stream: ONE definition of every event, its id, its
 * arguments, the prof FLAGS bits and the EVENTS encoding.  doc/events.md
 * documents this header; bpf/watch.bpf.c includes the first part (ids,
 * flags, encodings), which is plain C with no libc dependency.
 *
 * Event ids: where Tracee has the event, its id is Tracee's
 * (aquasecurity/tracee pkg/events/core_amd64.go @33106d6 for syscalls,
 * pkg/events/core.go @0011074 for the sched_process_* events).  Events
 * Tracee does not have get ids from 10000 up (above Tracee's
 * MaxBuiltinID 9999, the range Tracee leaves to non-builtin events).
 */
#ifndef PROFIL_EVENTS_H
#define PROFIL_EVENTS_H

enum profil_event_id {
	PEV_SETITIMER = 38,	      /* Tracee: x86_64 syscall number */
	PEV_TIMER_CREATE = 222,	      /* Tracee: x86_64 syscall number */
	PEV_PERF_EVENT_OPEN = 298,    /* Tracee: x86_64 syscall number */
	PEV_PROF = 482,		      /* Tracee: i386-only syscall 44 (Prof) */
	PEV_PROFIL = 495,	      /* Tracee: i386-only syscall 98 (Profil) */
	PEV_SCHED_PROCESS_FORK = 714, /* Tracee: SchedProcessFork */
	PEV_SCHED_PROCESS_EXEC = 715, /* Tracee: SchedProcessExec */
	PEV_SCHED_PROCESS_EXIT = 716, /* Tracee: SchedProcessExit */
	PEV_SPROFIL = 10001,	      /* profil's own: sprofil() call */
	PEV_EVENTS_LOST = 10002,      /* profil's own: ring-buffer drops */
};

/*
 * prof FLAGS (unsigned long).  Exactly one of ENABLE/DISABLE is set; the
 * ON_* and INHERIT_FORK bits say why; the CLOCK_* bits say which sampling
 * clocks are (ENABLE) or were (DISABLE) in use.
 */
#define PROF_FLAG_ENABLE (1UL << 0)	     /* profiling turned on (or a clock added) */
#define PROF_FLAG_DISABLE (1UL << 1)	     /* profiling turned off */
#define PROF_FLAG_ON_EXEC (1UL << 2)	     /* ... because the process called execve */
#define PROF_FLAG_ON_EXIT (1UL << 3)	     /* ... because the process exited */
#define PROF_FLAG_INHERIT_FORK (1UL << 4)    /* event of a child forked by a profiled process */
#define PROF_FLAG_ON_CALL (1UL << 5)	     /* explicit call: profil(NULL), setitimer(0), ... */
#define PROF_FLAG_CLOCK_ITIMER (1UL << 8)    /* setitimer(ITIMER_PROF/VIRTUAL) + SIGPROF */
#define PROF_FLAG_CLOCK_PROCESS (1UL << 9)   /* POSIX timer on a process CPU-time clock */
#define PROF_FLAG_CLOCK_THREAD (1UL << 10)   /* POSIX timer on a thread CPU-time clock */
#define PROF_FLAG_CLOCK_PERF (1UL << 11)     /* perf_event_open sampling event */
#define PROF_FLAG_CLOCK_BPF (1UL << 12)	     /* sampled from outside by a BPF perf_event program */
#define PROF_FLAG_FAULT_DISABLED (1UL << 13) /* turned off because the buffer faulted */
#define PROF_FLAG_SPROFIL (1UL << 14)	     /* regions installed by sprofil() */

#define PROF_FLAG_CLOCK_MASK                                                                       \
	(PROF_FLAG_CLOCK_ITIMER | PROF_FLAG_CLOCK_PROCESS | PROF_FLAG_CLOCK_THREAD |               \
	 PROF_FLAG_CLOCK_PERF | PROF_FLAG_CLOCK_BPF)

/*
 * prof EVENTS: array of unsigned int, one per sampling source in use.
 * Bits 31..24 = kind, bits 23..0 = kind-specific value:
 *   kind 1 ITIMER  value = which (ITIMER_REAL 0, ITIMER_VIRTUAL 1, ITIMER_PROF 2)
 *   kind 2 CLOCK   value = clockid for static ids (0..0x7fffff); for a dynamic
 *                  CPU clock (negative clockid of another process/thread)
 *                  0x800000 | (clockid & 7): bit 2 = per-thread, bits 1..0 =
 *                  0 PROF, 1 VIRT, 2 SCHED
 *   kind 3 PERF    value = (perf type & 0xff) << 16 | (perf config & 0xffff)
 *   kind 4 BPF     value = (perf type & 0xff) << 16 | (perf config & 0xffff)
 */
#define PROF_EVENT_KIND_ITIMER 1u
#define PROF_EVENT_KIND_CLOCK 2u
#define PROF_EVENT_KIND_PERF 3u
#define PROF_EVENT_KIND_BPF 4u
#define PROF_EVENT_KIND(e) ((unsigned int)(e) >> 24)
#define PROF_EVENT_VALUE(e) ((unsigned int)(e)&0xffffffu)
#define PROF_EVENT_ITIMER(which)                                                                   \
	((PROF_EVENT_KIND_ITIMER << 24) | ((unsigned int)(which)&0xffffffu))
#define PROF_EVENT_CLOCK(clockid)                                                                  \
	((PROF_EVENT_KIND_CLOCK << 24) |                                                           \
	 ((int)(clockid) < 0 ? 0x800000u | ((unsigned int)(clockid)&7u) :                          \
			       ((unsigned int)(clockid)&0x7fffffu)))
#define PROF_EVENT_PERF(type, config)                                                              \
	((PROF_EVENT_KIND_PERF << 24) | (((unsigned int)(type)&0xffu) << 16) |                     \
	 ((unsigned int)(config)&0xffffu))
#define PROF_EVENT_BPF(type, config)                                                               \
	((PROF_EVENT_KIND_BPF << 24) | (((unsigned int)(type)&0xffu) << 16) |                      \
	 ((unsigned int)(config)&0xffffu))

/* Array sizes shared by the BPF side and the user-space event. */
#define PROF_MAX_EVENTS 8      /* prof EVENTS entries */
#define PROFIL_MAX_REGIONS 8   /* sprofil regions copied into an event */
#define PROFIL_COMM_LEN 16     /* TASK_COMM_LEN */
#define PROFIL_HOSTNAME_LEN 65 /* __NEW_UTS_LEN + 1 */
#define PROFIL_PATH_LEN 256    /* executable / exec pathname (truncated) */

#ifndef __bpf__ /* ---- user space only below ---------------------------------------- */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Default event stream file of `profil events` (and of record's event log). */
#define PROFIL_EVENTS_DEFAULT_PATH "profil.events"

struct profil_region { /* one struct prof of sprofil() */
	uint64_t base, size, off, scale;
};

/*
 * One event.  Fill the context (zero what you do not know: the writer
 * prints 0 / "" for it), set id, and fill the union member named after
 * the event.  Strings are NUL-terminated; the writer escapes them.
 */
struct profil_event {
	uint32_t id;		    /* enum profil_event_id */
	uint64_t timestamp;	    /* ns since the epoch (CLOCK_REALTIME) */
	uint64_t thread_start_time; /* ns since the epoch */
	uint32_t processor_id;
	uint32_t pid, tid, ppid;		/* as seen in the task's pid namespace */
	uint32_t host_pid, host_tid, host_ppid; /* as seen from the initial namespace */
	uint32_t uid;
	uint64_t cgroup_id;
	uint32_t mnt_ns, pid_ns; /* namespace inode numbers */
	bool is_compat;		 /* 32-bit task */
	bool from_syscall; /* profil/sprofil/prof seen as the (i386) syscall: "syscall" = name */
	int64_t return_value;
	char comm[PROFIL_COMM_LEN];
	char executable[PROFIL_PATH_LEN];
	char hostname[PROFIL_HOSTNAME_LEN];
	char container_id[72]; /* the container's full id ("" none: utils/cgroup.h) */
	union {
		struct { /* PEV_PROFIL */
			uint64_t buf, buflen, offset;
			uint32_t scale;
			uint64_t pc; /* caller's PC (return address of the call) */
		} profil;
		struct { /* PEV_SPROFIL */
			uint64_t profp;
			int32_t profcnt;
			uint64_t tvp;
			uint32_t flags;
			uint64_t pc;
			uint32_t nregions; /* regions[] copied, <= PROFIL_MAX_REGIONS */
			struct profil_region regions[PROFIL_MAX_REGIONS];
		} sprofil;
		struct {		/* PEV_PROF */
			uint64_t flags; /* PROF_FLAG_* */
			uint32_t nevents;
			uint32_t events[PROF_MAX_EVENTS]; /* PROF_EVENT_* */
		} prof;
		struct { /* PEV_SCHED_PROCESS_EXEC */
			char pathname[PROFIL_PATH_LEN];
		} exec;
		struct { /* PEV_SCHED_PROCESS_FORK */
			uint32_t parent_tid, parent_pid, child_tid, child_pid;
			uint64_t start_time; /* child, ns since the epoch */
		} fork;
		struct {		   /* PEV_SCHED_PROCESS_EXIT */
			int32_t exit_code; /* exit status (0..255), or -1 if killed */
			int32_t signal;	   /* terminating signal, 0 if it exited */
			bool process_group_exit;
		} exit;
		struct { /* PEV_SETITIMER */
			int32_t which;
			uint64_t interval_us, value_us;
		} setitimer;
		struct { /* PEV_TIMER_CREATE */
			int32_t clockid;
			int32_t sigev_notify, sigev_signo, sigev_tid;
		} timer_create;
		struct { /* PEV_PERF_EVENT_OPEN */
			int32_t pid, cpu, group_fd;
			uint64_t flags;
			uint32_t type;
			uint64_t config;
			uint64_t sample_period, sample_freq; /* one of them is 0 */
		} perf_event_open;
		struct { /* PEV_EVENTS_LOST */
			uint64_t count;
		} events_lost;
	};
};

/* Argument descriptions, for the writer and the documentation. */
enum profil_arg_kind {
	PARG_U32,
	PARG_I32,
	PARG_U64,
	PARG_I64,
	PARG_PTR,
	PARG_BOOL,
	PARG_STR,
	PARG_U32_ARRAY, /* count at count_offset (u32), elements at offset */
	PARG_REGIONS,	/* sprofil regions: count at count_offset */
	PARG_CLOCKID,	/* an int32 clockid, printed as its decoded name */
};

struct profil_arg_def {
	const char *name;
	const char *type; /* Tracee-style C type name */
	enum profil_arg_kind kind;
	unsigned int offset;	   /* in struct profil_event */
	unsigned int count_offset; /* arrays only */
};

struct profil_event_def {
	uint32_t id;
	const char *name;
	const char *syscall; /* Tracee "syscall" field, "" when not a syscall */
	unsigned int nargs;
	const struct profil_arg_def *args;
};

const struct profil_event_def *profil_event_def__by_name(const char *name);
/* All definitions, for listings. */
const struct profil_event_def *profil_event_defs(unsigned int *count);

/* Decoded names: clock ids, prof FLAGS, EVENTS entries (into buf, returns buf). */
const char *profil_clockid_str(int32_t clockid, char *buf, size_t len);
const char *profil_prof_flags_str(uint64_t flags, char *buf, size_t len);
const char *profil_prof_event_str(uint32_t ev, char *buf, size_t len);

/* ---- the Tracee JSON writer ---------------------------------------------------------- */

enum event_format {
	EVENT_FORMAT_JSON,  /* one Tracee JSON object per line */
	EVENT_FORMAT_TABLE, /* aligned columns: time pid comm event args */
};

struct event_writer;

/*
 * Open a writer on path, a stream written while a program runs, through
 * utils/outfile.h with pdata__output_rules ("-" and /dev/stdout: stdout;
 * never through a symbolic link, never another user's file, a profile or a
 * program; a new file is created O_EXCL, mode 0600 for root; an existing
 * regular file of the caller's is truncated).  Each event is written with
 * one write(2) of a whole line, so a crash never leaves a half line behind
 * an emitted event.  Returns 0, or -errno with one sentence in why.
 */
int event_writer__create(struct event_writer **out, const char *path, enum event_format fmt,
			 char *why, size_t whylen);
/* event_writer__create in JSON; NULL with errno set on failure. */
struct event_writer *event_writer__open(const char *path);
/*
 * Write one event.  Returns 0 or -errno (-EINVAL for an unknown id).  The
 * first write error stops the stream: every later call returns it, a file
 * of the caller's is cut back to its last whole event, and
 * event_writer__why() says so in one sentence.
 */
int event_writer__emit(struct event_writer *w, const struct profil_event *ev);
/* The sentence of the write error that stopped the stream, or NULL. */
const char *event_writer__why(const struct event_writer *w);
/*
 * Sync (a file of the caller's) and close.  Returns 0, or the error that
 * stopped the stream (or the sync's) as -errno with one sentence in why.
 */
int event_writer__close(struct event_writer *w, char *why, size_t whylen);

/*
 * Render one event as a JSON object (no newline) into a malloc'ed string.
 * Returns 0 or -errno; *out must be freed.
 */
int profil_event__to_json(const struct profil_event *ev, char **out, size_t *len);

/* Current time in the event timestamp clock (ns since the epoch). */
uint64_t profil_event__now_ns(void);

/* ---- the table format, from parsed JSON (shared by `events` and `watch`) ------------- */

struct json_object;
/* Print the header line of the table. */
void event_table__header(FILE *out);
/* Print one event (a parsed Tracee JSON object) as a table row. */
void event_table__row(FILE *out, struct json_object *ev);

#endif /* !__bpf__ */
#endif /* PROFIL_EVENTS_H */
