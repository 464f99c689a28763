/* SPDX-License-Identifier: MIT */
/*
 * profile_fixture.h: what the programs that write a profile of themselves
 * through the pdata API share (the unit tests of the model and writers,
 * tests/tools/report_synth, tests/progs/report_gen and report_stackgen):
 *
 *   fixture__create     a profile with the header a recorder writes (clock,
 *                       period, rate, root pid, command, clock note);
 *                       FIXTURE_FP_HEADER the usual one
 *   fixture__own_maps   this process's executable mappings (utils/procmaps)
 *                       as the recorder records them, so that a PC of the
 *                       program's own code names its function
 *   fixture__start      both, and the root image they belong to
 *   fixture__duplicate_slot  a sample slot as racing writers leave them
 *   fixture__finish     the end of the run, finished and closed
 *   fixture__generator  (the generators) fixture__create, this thread named
 *                       as the program's main thread, an error said
 *   fixture__thread     a real thread of the program, run to its end: its tid
 *   FIXTURE_WORK        a function with a body of some size (PC + 2 and
 *                       + 9 are inside it) to point samples and stacks at
 *   fixture__tmpdir     (unit tests) a private directory for the files
 *
 * Header only: the programs of tests/progs link nothing but PDATA_PLAIN
 * (profile/pdata.c, utils/procmaps.c and what they need).
 */
#ifndef PROFIL_TESTS_PROFILE_FIXTURE_H
#define PROFIL_TESTS_PROFILE_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "utils/procmaps.h"

#define FIXTURE_MS 1000000ull

/* A function worth sampling (noinline, kept): PC + 2 and + 9 are inside its body. */
#define FIXTURE_WORK(name, k)                                                                      \
	__attribute__((noinline, used)) int name(int n)                                            \
	{                                                                                          \
		volatile unsigned acc = (k);                                                       \
		for (int i = 0; i < n; i++)                                                        \
			acc = acc * 3 + (unsigned)i;                                               \
		return (int)acc;                                                                   \
	}                                                                                          \
	extern int name##_defined /* so that the use takes a ';' */

/* The header fields a recorder sets; zeros keep pdata's defaults. */
struct fixture_header {
	uint32_t clock;	     /* enum pdata_clock */
	uint64_t period_ns;  /* CPU time of one sample */
	uint32_t nominal_hz; /* rate asked for */
	uint32_t flags;	     /* PDATA_F_* */
	uint32_t callgraph;  /* enum pdata_callgraph */
	const char *command; /* header.command */
	const char *note;    /* header.clock_note */
	struct pdata_create_opts create;
};

/*
 * The header of most unit tests' profiles: the perf clock, one sample of
 * period_ns, frame-pointer stacks, small tables (64 slots and frames, 1 MiB
 * of records); command: a string or NULL.
 */
#define FIXTURE_FP_HEADER(cmd, period)                                                             \
	{                                                                                          \
		.clock = PDATA_CLOCK_PERF, .period_ns = (period), .callgraph = PDATA_CG_FP,        \
		.command = (cmd),                                                                  \
		.create = {.table_slots = 64, .frame_slots = 64, .records_cap = 1 << 20},          \
	}

/*
 * The header of the generators' profiles: the perf clock, one sample is
 * 1 ms of CPU time, hz asked; command, clock note and pdata_create_opts.
 */
#define FIXTURE_GEN_HEADER(hz, cmd, clock_note, opts)                                              \
	{                                                                                          \
		.clock = PDATA_CLOCK_PERF, .period_ns = FIXTURE_MS, .nominal_hz = (hz),            \
		.command = (cmd), .note = (clock_note), .create = (opts),                          \
	}

/* Create path as h says, root pid this process.  0, or -errno with why. */
static inline int fixture__create(struct pdata **pd, const char *path,
				  const struct fixture_header *h, char *why, size_t whylen)
{
	struct pdata_header *ph;
	int rc = pdata__create(pd, path, &h->create, why, whylen);

	if (rc < 0)
		return rc;
	ph = pdata__header(*pd);
	ph->clock = h->clock;
	ph->period_ns = h->period_ns;
	ph->nominal_hz = h->nominal_hz;
	ph->flags = h->flags;
	ph->callgraph = h->callgraph;
	ph->root_pid = getpid();
	snprintf(ph->command, sizeof(ph->command), "%s", h->command ? h->command : "");
	snprintf(ph->clock_note, sizeof(ph->clock_note), "%s", h->note ? h->note : "");
	return 0;
}

/* The path of this program (or "" when /proc/self/exe cannot be read). */
static inline const char *fixture__exe(void)
{
	static char exe[4096];
	ssize_t n;

	if (!exe[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
	}
	return exe;
}

/* Mark the run ended as end_kind/end_code, finish and close.  0, or -errno. */
static inline int fixture__finish(struct pdata *pd, int end_kind, int end_code)
{
	struct pdata_header *ph = pdata__header(pd);
	int rc;

	ph->end_kind = end_kind;
	ph->end_code = end_code;
	rc = pdata__finish(pd);
	pdata__close(pd);
	return rc;
}

/*
 * The start of a generator (tests/progs/report_gen, report_stackgen,
 * tests/tools/report_synth): fixture__create, then this thread named comm,
 * the main thread of the profiled program.  0, or -errno with "prog: why"
 * on stderr.
 */
static inline int fixture__generator(struct pdata **pd, const char *path,
				     const struct fixture_header *h, const char *prog,
				     const char *comm)
{
	char why[256];
	int rc = fixture__create(pd, path, h, why, sizeof(why));

	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return rc;
	}
	prctl(PR_SET_NAME, comm);
	return 0;
}

struct fixture_thread {
	const char *name; /* its comm, or NULL: the creator's */
	int (*work)(int); /* called with 10, or NULL */
	int tid;
};

static inline void *fixture__thread_main(void *arg)
{
	struct fixture_thread *t = arg;

	if (t->name)
		prctl(PR_SET_NAME, t->name);
	t->tid = gettid();
	if (t->work)
		t->work(10);
	return NULL;
}

/*
 * A thread of this program that runs and ends before the call returns:
 * named name (NULL: the creator's name), calling work(10) (NULL: nothing).
 * Its tid, to record its samples under; 0 when it could not be started.
 */
static inline int fixture__thread(const char *name, int (*work)(int))
{
	struct fixture_thread t = {name, work, 0};
	pthread_t th;

	if (pthread_create(&th, NULL, fixture__thread_main, &t) == 0)
		pthread_join(th, NULL);
	return t.tid;
}

/*
 * A mapping about to be recorded: what the observer of fixture__own_maps
 * sees, and where it may put the build id to record with it.
 */
struct fixture_map {
	const struct procmap *m;
	uint8_t build_id[20];
	unsigned build_id_len;
};

typedef void (*fixture_map_fn)(void *arg, struct fixture_map *fm);

struct fixture_maps_walk {
	struct pdata *pd;
	uint32_t proc;
	fixture_map_fn see;
	void *arg;
	unsigned added;
};

static inline int fixture__add_map(void *arg, const struct procmap *m)
{
	struct fixture_maps_walk *w = arg;
	struct fixture_map fm = {.m = m};

	if (!(m->prot & PROT_EXEC))
		return 0;
	if (w->see)
		w->see(w->arg, &fm);
	if (pdata__add_map(w->pd, w->proc, m->start, m->end, m->offset, PROT_READ | PROT_EXEC,
			   m->path[0] ? m->path : "[anon]", fm.build_id_len ? fm.build_id : NULL,
			   fm.build_id_len))
		w->added++;
	return 0;
}

/*
 * This process's executable mappings into proc's record, as the recorder
 * sees them; see (may be NULL) looks at each first.  Returns the number of
 * mappings recorded, or -errno (/proc/self/maps cannot be read).
 */
static inline int fixture__own_maps(struct pdata *pd, uint32_t proc, fixture_map_fn see, void *arg)
{
	struct fixture_maps_walk w = {pd, proc, see, arg, 0};
	int rc = procmaps__for_each(0, fixture__add_map, &w);

	return rc < 0 ? rc : (int)w.added;
}

/*
 * fixture__create, then the root image: pid (its parent 1), this program,
 * and its own executable mappings into *proc.  0, or -errno with why (no
 * mapping could be recorded: the profile is closed).
 */
static inline int fixture__start(struct pdata **pd, const char *path,
				 const struct fixture_header *h, int pid, struct pdata_proc **proc,
				 char *why, size_t whylen)
{
	int rc = fixture__create(pd, path, h, why, whylen);

	if (rc < 0)
		return rc;
	*proc = pdata__add_proc(*pd, pid, 1, 0, fixture__exe(), pdata__now_ns());
	rc = *proc ? fixture__own_maps(*pd, (*proc)->id, NULL, NULL) : -ENOSPC;
	if (rc <= 0) {
		snprintf(why, whylen, "%s: no executable mapping of this process recorded (%d)",
			 path, rc);
		pdata__close(*pd);
		return rc < 0 ? rc : -ENOENT;
	}
	return 0;
}

/*
 * A second slot of an existing key (proc, tid, pc) in a profile being
 * written, as two racing writers can leave one: readers must sum them.
 */
static inline void fixture__duplicate_slot(struct pdata *pd, uint32_t proc, int tid, uint64_t pc,
					   uint64_t n)
{
	struct pdata_header *h = pdata__header(pd);
	struct pdata_slot *slots = (struct pdata_slot *)((char *)h + h->table_off);

	for (uint32_t i = h->table_slots; i-- > 0;) {
		if (slots[i].key)
			continue;
		slots[i].key = ((uint64_t)proc << 32) | (uint32_t)tid;
		slots[i].pc = pc;
		slots[i].count = n;
		h->samples += n;
		return;
	}
}

/* ---- unit tests: a private directory, removed at exit ---------------------------- */

static char fixture_dir[64];

static inline void fixture__rmdir(void)
{
	DIR *d = fixture_dir[0] ? opendir(fixture_dir) : NULL;
	struct dirent *e;
	char p[sizeof(fixture_dir) + 256];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", fixture_dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	if (fixture_dir[0])
		rmdir(fixture_dir);
}

/* The directory (made at the first call; NULL when it cannot be). */
static inline const char *fixture__tmpdir(void)
{
	if (!fixture_dir[0]) {
		snprintf(fixture_dir, sizeof(fixture_dir), "/tmp/profil-unit-XXXXXX");
		if (!mkdtemp(fixture_dir)) {
			fixture_dir[0] = 0;
			return NULL;
		}
		atexit(fixture__rmdir);
	}
	return fixture_dir;
}

/* A path name in the directory (a static buffer per call site is the caller's). */
static inline char *fixture__path(char *buf, size_t len, const char *name)
{
	const char *d = fixture__tmpdir();

	snprintf(buf, len, "%s/%s", d ? d : "/nonexistent", name);
	return buf;
}

#endif /* PROFIL_TESTS_PROFILE_FIXTURE_H */
