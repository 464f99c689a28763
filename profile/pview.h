/* SPDX-License-Identifier: MIT */
/*
 * pview: a read-only, validated, in-memory view of a profil.data file for
 * the readers (report, export).  Everything the readers use is copied out
 * of the mapping and bound-checked here once: record sizes, string
 * termination, map ranges, proc ids.  Samples with the same (proc, tid,
 * pc, call stack) are summed; call stacks are copied out as PC lists (equal
 * lists share one index).  A profile that changes while it is read (live,
 * or written by a hostile process) gives a correct-as-of read: the tables
 * grow as needed and every loop is bounded.  Proc ids that samples refer to without a proc record get a
 * placeholder process (pid 0, no exe) so no sample is silently lost;
 * thread and map records of unknown procs are malformed and skipped.
 */
#ifndef PROFIL_PVIEW_H
#define PROFIL_PVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "profile/pdata.h"

struct pv_map {
	uint64_t start, end, pgoff; /* [start, end), end > start */
	uint32_t prot;
	uint8_t build_id[20];
	uint32_t build_id_len; /* 0 = unknown */
	char *path;
	void *aux; /* for the reader (e.g. its symbol object), NULL */
};

struct pv_thread {
	int tid;
	char comm[16];	      /* NUL-terminated; the last name the thread had */
	struct pdata_cpu cpu; /* CPU time when known (zeros when not) */
	uint32_t seq;	      /* order of its (last) record in the file */
};

struct pv_proc {
	uint32_t id, parent; /* parent: proc id or 0 */
	int pid, ppid;
	char *exe; /* "" when unknown */
	int end_kind, end_code;
	uint64_t start_ns, end_ns;
	struct pdata_cpu cpu; /* CPU time of the image when known (zeros when not) */
	int placeholder;      /* referenced but no proc record */
	struct pv_map *maps;  /* sorted by start */
	size_t nmaps;
	struct pv_thread *threads; /* sorted by tid, one per tid */
	size_t nthreads;
	uint64_t samples; /* sum of its samples */
	size_t order;	  /* position of its record in the file */
	/* where it ran (a PDATA_REC_PROC_CTX record; whole-machine profiles) */
	char *cgroup;	    /* cgroup v2 path, "" unknown (never NULL) */
	int nspid;	    /* its pid in its own pid namespace, 0 unknown */
	uint32_t ctx_flags; /* PDATA_CTX_* */
};

struct pv_sample {
	uint32_t proc;
	int tid;
	uint64_t pc;
	uint32_t stack; /* index of its call stack in the view (pview__stack), 0 = none */
	uint64_t count;
};

/* A call stack: pcs[0] is the sampled PC, then the callers' return addresses, outwards. */
struct pv_stack {
	const uint64_t *pcs;
	uint32_t n;
	int truncated; /* the unwinding stopped before the outermost frame */
};

/* A kernel function named in the profile. */
struct pv_ksym {
	uint64_t start, size;
	char *name;
};

struct pview {
	struct pdata_header hdr; /* copy; strings NUL-terminated */
	struct pv_proc *procs;	 /* sorted by id */
	size_t nprocs;
	struct pv_sample *samples; /* merged, sorted by (proc, tid, pc, stack) */
	size_t nsamples;
	struct pv_stack *stacks; /* [0] is the empty stack; distinct PC lists */
	size_t nstacks;
	uint64_t *stack_pcs;   /* storage of every stack's PCs */
	struct pv_ksym *ksyms; /* sorted by start */
	size_t nksyms;
	uint64_t total;	    /* sum of all sample counts */
	size_t bad_records; /* records ignored as malformed */
};

/* Load path.  Returns 0 or -errno with one sentence in why. */
int pview__load(struct pview **out, const char *path, char *why, size_t whylen);
void pview__free(struct pview *v);

struct pv_proc *pview__proc(const struct pview *v, uint32_t id);
const struct pv_thread *pv_proc__thread(const struct pv_proc *p, int tid);

/*
 * The mapping holding pc in this process image, or, for a forked child
 * that has no mapping of its own there, in its parent's image (a fork
 * inherits the parent's mappings; an exec does not).
 */
const struct pv_map *pview__map_of(const struct pview *v, const struct pv_proc *p, uint64_t pc);

/* The call stack of a sample (s->stack), never NULL: index 0 is the empty stack. */
const struct pv_stack *pview__stack(const struct pview *v, uint32_t stack);

/* The kernel function holding pc, or NULL. */
const struct pv_ksym *pview__ksym(const struct pview *v, uint64_t pc);

/* Effective sampling rate in Hz (1e9 / period_ns), 0 when unknown. */
double pview__rate_hz(const struct pview *v);

#endif /* PROFIL_PVIEW_H */
