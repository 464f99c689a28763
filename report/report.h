/* SPDX-License-Identifier: MIT */
/*
 * The report of a profil.data as an in-memory model, for the writers of
 * `profil report` (text, JSON, CSV: report_text.c, report_json.c) and the
 * HTML page: where every CPU second of the run went.
 *
 * Time comes in three kinds of rows (enum report_kind): samples (count x
 * period), kernel time the kernel accounted to a thread where the kernel
 * was not sampled (perf and bpf clocks without the privilege: one
 * "[kernel]" row per thread, its system time), and CPU time of a process
 * image that neither covers ("[unsampled]": the image's CPU time as the
 * kernel accounted it, minus both), so that a run's seconds add up to the
 * CPU time of its process tree, short processes included.
 *
 * Every piece of time is an item (struct report_item) of one process image
 * and thread.  A view sums the items into rows by keys, perf report's sort
 * keys (comm, dso, sym, pid, tid): the whole run merged (report.run, built
 * at load), and each image's own rows (report__proc, built on demand and
 * released, so that memory follows what is shown, not the number of
 * images).  Filters (pid, tid, comm, dso) select items; percentages are
 * shares of the unfiltered whole (the run, or the image).
 *
 * With report_opts.children (perf report --children), every row also has a
 * total: the samples whose call stack holds the row (any frame of it, the
 * leaf included), counted once per sample however often the row recurs in
 * the stack, summed over the images the row covers.  Rows that are only
 * callers (no self time) are listed too; the dso filter selects rows by the
 * frame's object, the others select samples.  The stacks themselves, the
 * trees and the JSON stacks are report/cgreport.h's.
 *
 * Off-CPU time (profiles recorded with --off-cpu, format 3): the time
 * threads spent off the CPU, by reason, under the stack they left the CPU
 * with, comes as items of kind REPORT_OFFCPU (their ns, their reason, their
 * off-CPU slot for the stack) and adds to the same rows as the samples of
 * the same function (report_row.off_ns), so that every row has its CPU
 * time, its off-CPU time by reason and their sum, the wall time.  Rows are
 * ordered, limited and given as shares by one value (report_opts.value:
 * CPU time, off-CPU time, wall time or one reason's time); the default is
 * wall time in a profile with off-CPU time, else CPU time.  The seconds
 * fields of images, threads, lists and totals stay CPU time; their off-CPU
 * time is beside them (offcpu_ns).
 */
#ifndef PROFIL_REPORT_REPORT_H
#define PROFIL_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/pview.h"
#include "report/resolve.h"

/* What a row's time is. */
enum report_kind {
	REPORT_SAMPLED = 0,   /* samples: count x period */
	REPORT_ACCOUNTED = 1, /* kernel time: a thread's system time as the kernel accounted it */
	REPORT_UNSAMPLED = 2, /* an image's CPU time that its samples and accounted rows miss */
	REPORT_OFFCPU = 3,    /* items only: time off the CPU (it->ns, it->reason); rows of code */
};

/* What rows are ordered, limited and given as shares by (report_opts.value). */
enum report_value {
	REPORT_VALUE_AUTO = 0, /* wall time in a profile with off-CPU time, else CPU time */
	REPORT_VALUE_CPU,      /* CPU time (samples x period, accounted, unsampled) */
	REPORT_VALUE_WALL,     /* CPU time + off-CPU time */
	REPORT_VALUE_OFFCPU,   /* off-CPU time, every reason */
	REPORT_VALUE_SLEEP,    /* off-CPU time of one reason (enum pdata_kind order) */
	REPORT_VALUE_BLOCKED,
	REPORT_VALUE_PREEMPTED,
	REPORT_VALUE_STOPPED,
	REPORT_VALUE_NR,
};

/* The grouping keys of a view, perf report's --sort keys. */
enum report_key {
	REPORT_KEY_COMM = 1,   /* the command (thread name) */
	REPORT_KEY_DSO = 2,    /* the object: executable, library, [kernel], [vdso], ... */
	REPORT_KEY_SYM = 3,    /* the function (with its object; with --lines, its source line) */
	REPORT_KEY_PID = 4,    /* the process id (every image of it) */
	REPORT_KEY_TID = 5,    /* the thread id */
	REPORT_KEY_CGROUP = 6, /* the cgroup v2 path (record -a), and the container it shows */
};
#define REPORT_MAX_KEYS 6

/* How the profile shows the kernel's time (from the clock and the header's flags). */
enum report_kernel {
	REPORT_KERNEL_SAMPLED = 0,   /* kernel PCs were sampled: [kernel] rows named by symbol */
	REPORT_KERNEL_ACCOUNTED = 1, /* not sampled: per-thread accounted [kernel] rows */
	REPORT_KERNEL_INVISIBLE = 2, /* thread/itimer: ticks land at the user PC after the kernel */
	REPORT_KERNEL_UNKNOWN = 3,   /* a manual clock, or a clock the reader does not know */
};

/* Items to keep: each list empty = no filter on it. */
struct report_filter {
	const int *pids;
	size_t npids;
	const int *tids;
	size_t ntids;
	const char *const *comms; /* exact command names */
	size_t ncomms;
	const char *const *dsos; /* an object's full path or its base name, or [kernel] etc. */
	size_t ndsos;
	/*
	 * cgroups: a path (that cgroup and those below it), a container as
	 * utils/cgroup.h labels it ("docker:0123456789ab", a prefix of it),
	 * or the first digits of a container's id (at least 4)
	 */
	const char *const *cgroups;
	size_t ncgroups;
};

struct report_opts {
	int threads;		   /* per-image rows per thread too */
	int lines;		   /* split by source line (file:line from DWARF) */
	int inline_rows;	   /* a sample's row is the innermost function inlined at its PC */
	int sort_name;		   /* rows by name, else most time first */
	int keys[REPORT_MAX_KEYS]; /* the whole run's grouping (enum report_key) */
	size_t nkeys;		   /* 0: comm, dso, sym */
	long top;		   /* at most this many rows per list, 0 = all */
	double percent_limit;	   /* rows below this share (percent) are not listed */
	int children;		   /* totals beside self (--children): rows by total */
	struct report_filter filter;
	int value;	  /* enum report_value */
	unsigned reasons; /* off-CPU reasons kept: 1 << enum pdata_kind, 0 = all */
};

/* One row: the keys of its view (the others are zero), and its time. */
struct report_row {
	const struct func *f; /* with the sym key: the function (interned) */
	const char *objpath;  /* with the dso or sym key: full path or pseudo name */
	const char *object;   /* with the dso or sym key: the base name */
	const char *comm;     /* with the comm key */
	int pid, tid;	      /* with those keys */
	const char *cgroup;   /* with the cgroup key: the path ("" unknown) */
	int kind;	      /* enum report_kind */
	uint64_t count;	      /* samples (REPORT_SAMPLED rows) */
	uint64_t ns;	      /* CPU time of REPORT_ACCOUNTED and REPORT_UNSAMPLED rows */
	uint64_t total;	      /* with report_opts.children: samples whose stack holds the row */
	/* off-CPU ns: [0] every reason, [k] reason k (enum pdata_kind); totals with children */
	uint64_t off_ns[PDATA_KIND_NR];
	uint64_t off_total[PDATA_KIND_NR];
};

/*
 * A sorted list of rows as it is listed: rows below --percent-limit, beyond
 * --top and [unsampled] rows of at most one period (remainders smaller than
 * one sample) are left out, and said.  With report_opts.children the order
 * and --percent-limit go by the total (hidden_seconds stays self time).
 */
struct report_list {
	struct report_row *rows;
	size_t nrows;	       /* rows listed */
	size_t hidden;	       /* rows left out */
	double hidden_seconds; /* their time */
	double seconds;	       /* every row's time, the listed and the left out */
	double hidden_value;   /* the rows left out: their report_opts.value seconds */
};

/* One piece of time: what the views sum. */
struct report_item {
	const struct pv_proc *p;
	int tid;
	const char *comm;	   /* the thread's name, else the image's */
	const struct func *f;	   /* the function, or the [kernel] / [unsampled] row */
	const struct pv_sample *s; /* the sample or off-CPU slot (its stack: s->stack), or NULL */
	int kind;		   /* enum report_kind */
	uint64_t count;		   /* samples */
	uint64_t ns;		   /* time of the other kinds */
	uint32_t reason;	   /* REPORT_OFFCPU: enum pdata_kind */
};

/* A process image: its time, as the report counts it. */
struct report_image {
	const struct pv_proc *p;
	const char *comm;      /* its main thread's name, else its first thread's, else the exe's */
	struct pdata_cpu cpu;  /* the kernel's accounting: the image's, else its threads' sum */
	uint64_t accounted_ns; /* kernel time from accounting (REPORT_KERNEL_ACCOUNTED) */
	uint64_t unsampled_ns; /* CPU time no sample or accounted row covers */
	double seconds;	       /* samples x period + accounted + unsampled */
	uint64_t offcpu_ns[PDATA_KIND_NR]; /* off-CPU time: [0] all, [k] reason k */
	int shown;			   /* it has items that pass the filters */
	int cgroup_out;			   /* the cgroup filter leaves it out (decided at load) */
	char comm_buf[16];		   /* comm when it is made from the executable's name */
};

/* A thread of an image with time. */
struct report_thread {
	int tid;
	const char *comm;     /* "" when unknown */
	struct pdata_cpu cpu; /* zeros when unknown */
	uint64_t samples;
	double seconds;			   /* all its rows */
	uint64_t offcpu_ns[PDATA_KIND_NR]; /* its off-CPU rows: [0] all, [k] reason k */
	uint64_t life_ns;		   /* its lifetime in the recording (0 unknown) */
	uint64_t offcpu_rec_ns;	 /* its off-CPU total as the recorder counted it (0 unknown) */
	struct report_list list; /* with report_opts.threads: its rows (percentages of the image) */
};

/* An image's own rows: report__proc, then report_proc__release. */
struct report_proc {
	const struct report_image *img;
	struct report_list list;       /* by function (sym) */
	struct report_thread *threads; /* in tid order: threads with time */
	size_t nthreads;
};

/* The whole run. */
struct report_totals {
	uint64_t samples;			 /* all samples (= pview total) */
	uint64_t accounted_ns;			 /* all accounted kernel time */
	uint64_t unsampled_ns;			 /* all unsampled time */
	double seconds;				 /* all of it */
	double shown_seconds;			 /* what passes the filters */
	uint64_t offcpu_ns[PDATA_KIND_NR];	 /* off-CPU time: [0] all, [k] reason k */
	uint64_t shown_offcpu_ns[PDATA_KIND_NR]; /* of which passes the filters */
	size_t images;				 /* process images */
	size_t images_with_time;
	size_t images_shown; /* images with items that pass the filters */
};

struct report {
	struct report_opts o;
	struct pview *v;	     /* the profile as read */
	struct report_image *images; /* one per v->procs, same order */
	struct report_list run;	     /* the whole run, merged by o.keys */
	struct report_totals totals;
	int keys[REPORT_MAX_KEYS]; /* the run's keys (o.keys or the default) */
	size_t nkeys;
	enum report_kernel kernel;
	int value;	 /* enum report_value in effect (never AUTO) */
	int offcpu;	 /* the profile holds off-CPU time (or says why not: v->offcpu_note) */
	double period_s; /* seconds of CPU time per sample, 0 when unknown */
	char **notes;	 /* sentences about the objects and the file */
	size_t nnotes;
	struct resolver *r;
	size_t *sample_start; /* index of each image's first sample in v->samples */
	size_t *offcpu_start; /* index of each image's first off-CPU slot in v->offcpu */
};

/*
 * Read the profile at path and build its model: the images' time and the
 * whole run's rows.  Returns 0, or -errno with one sentence in why (a file
 * that cannot be read as a profile, out of memory).
 */
int report__load(struct report **out, const char *path, const struct report_opts *o, char *why,
		 size_t whylen);
void report__free(struct report *rep);

/* The rows of image i (sorted and limited as the options say).  0 or -ENOMEM. */
int report__proc(struct report *rep, size_t i, struct report_proc *out);
void report_proc__release(struct report_proc *pr);

/* Seconds of a row. */
double report__row_seconds(const struct report *rep, const struct report_row *row);

/* Seconds of a row's total (report_opts.children): its samples' and its other time. */
double report__row_total_seconds(const struct report *rep, const struct report_row *row);

/* Off-CPU seconds of a row: every reason (reason 0) or one; self, or total (children). */
double report__row_offcpu_seconds(const struct report_row *row, int reason, int total);

/* The seconds of value (enum report_value) of a row, self or total (children). */
double report__row_value(const struct report *rep, const struct report_row *row, int value,
			 int total);

/* The seconds of value of CPU seconds cpu_s and off-CPU ns off[PDATA_KIND_NR]. */
double report__value_of(int value, double cpu_s, const uint64_t *off);

/* The whole run's seconds of rep->value (every item, filtered or not). */
double report__run_value(const struct report *rep);

/* "cpu", "wall", "off-cpu", "sleep", "blocked", "preempted", "stopped". */
const char *report__value_name(int value);

/* The value named name ("offcpu" too), 0 when none. */
int report__value_parse(const char *name);

/*
 * Each off-CPU item of image i that passes the filters (its stack is
 * it->s->stack, its ns it->ns, its reason it->reason), to cb.  Returns 0,
 * cb's non-zero result, or -ENOMEM.
 */
int report__offcpu_items(struct report *rep, size_t i,
			 int (*cb)(void *arg, const struct report_item *it), void *arg);

/*
 * Each sample item of image i that passes the filters (its stack is
 * it->s->stack), to cb, in the profile's order (by thread).  Returns 0,
 * cb's non-zero result, or -ENOMEM.
 */
int report__sampled_items(struct report *rep, size_t i,
			  int (*cb)(void *arg, const struct report_item *it), void *arg);

/*
 * Each item of image i that is time without samples (REPORT_ACCOUNTED,
 * REPORT_UNSAMPLED: it->ns), to cb, unfiltered: what an exporter adds to
 * the samples so that its seconds are the report's.  Returns 0, cb's
 * non-zero result, or -ENOMEM.
 */
int report__timed_items(struct report *rep, size_t i,
			int (*cb)(void *arg, const struct report_item *it), void *arg);

/* "sampled", "accounted", "unsampled". */
const char *report__kind_name(int kind);

/* "comm", "dso", "sym", "pid", "tid", "cgroup" (NULL for another value). */
const char *report__key_name(int key);

/* The key named name (perf's names; "symbol" is "sym"), 0 when none. */
int report__key_parse(const char *name);

/* 1 when key is one of the whole run's keys. */
int report__has_key(const struct report *rep, int key);

/* 1 when the cgroup path passes the cgroup filter fl (an empty filter passes all). */
int report__cgroup_passes(const struct report_filter *fl, const char *path);

/* one when n is 1, else many. */
const char *report__plural(uint64_t n, const char *one, const char *many);

/* The parent image of p in this profile (a fork's parent, or the image before an exec), or NULL. */
const struct pv_proc *report__parent(const struct report *rep, const struct pv_proc *p);

#endif /* PROFIL_REPORT_REPORT_H */
