/* SPDX-License-Identifier: MIT */
/*
 * pview: a read-only, validated, in-memory view of a profil.data file for
 * the readers (report, export).  Everything the readers use is copied out
 * of the mapping and bound-checked here once: record sizes, string
 * termination, map ranges, proc ids.  Samples with the same (proc, tid,
 * pc, call stack) are summed; call stacks are a tree of (pc, parent)
 * nodes as in the file (equal stacks share one index, equal paths from the
 * outermost frame share their nodes): the view costs the profile's nodes,
 * never stacks x depth.  A profile that changes while it is read (live,
 * or written by a hostile process) gives a correct-as-of read: the tables
 * grow as needed and every loop is bounded.  Proc ids that samples refer to without a proc record get a
 * placeholder process (pid 0, no exe) so no sample is silently lost;
 * thread and map records of unknown procs are malformed and skipped.
 *
 * Mapping generations (profile/pdata.h, format 4) are folded into their
 * process image: a sample, map, thread or JIT record under a generation's
 * id belongs to the image, with that generation number (pv_sample.gen,
 * pv_map.gen); a sample's PCs resolve through the mappings of its
 * generation (pview__map_of).
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
	void *aux;    /* for the reader (e.g. its symbol object), NULL */
	uint32_t gen; /* the mapping generation it was recorded in (0: the image's own) */
	uint32_t seq; /* order of its record in the file */
};

struct pv_thread {
	int tid;
	char comm[16];	      /* NUL-terminated; the last name the thread had */
	struct pdata_cpu cpu; /* CPU time when known (zeros when not) */
	uint32_t seq;	      /* order of its (last) record in the file */
	uint64_t life_ns;     /* format 3: its lifetime inside the recording, 0 unknown */
	uint64_t offcpu_ns;   /* format 3: of which off the CPU (every interval), 0 unknown */
};

/* A piece of JIT code named in the profile (perf map or jitdump, read while the process lived). */
struct pv_jitsym {
	uint64_t start, size; /* runtime addresses, size > 0 */
	char *name;
	uint32_t kind; /* enum jit_kind: where the name came from */
	uint32_t seq;  /* order in the file: a later one wins where code was replaced */
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
	uint64_t samples;      /* sum of its samples */
	uint64_t offcpu_ns;    /* sum of its off-CPU slots (ns) */
	size_t order;	       /* position of its record in the file */
	struct pv_jitsym *jit; /* sorted by start, then seq */
	size_t njit;
	uint32_t gens; /* mapping generations after its own (0: no mapping was ever replaced) */
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
	uint32_t kind;	/* enum pdata_kind: PDATA_KIND_CPU in samples, a reason in offcpu */
	uint32_t gen;	/* the image's mapping generation it was taken in (0: the first) */
	uint64_t count; /* samples; nanoseconds for an off-CPU kind */
};

/* A mapping generation's id (pdata_gen.id) and what it stands for. */
struct pv_gen {
	uint32_t id, proc, gen;
};

/*
 * A node of the call-stack tree: a PC and its caller's node (0: none),
 * shared by every stack with the same path from the outermost frame.  A
 * stack cut short has the PDATA_PC_TRUNCATED mark as its outermost node.
 */
struct pv_frame {
	uint64_t pc;
	uint32_t parent;
	uint16_t depth;	    /* nodes from the outermost to this one, the mark included */
	uint16_t truncated; /* the outermost node is the PDATA_PC_TRUNCATED mark */
};

/*
 * A call stack: its innermost node; its n PCs (pview__stack_pcs) are the
 * sampled PC, then the callers' return addresses, outwards.
 */
struct pv_stack {
	uint32_t node; /* in pview.frames; 0 for the empty stack */
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
	struct pv_sample *samples; /* CPU samples, merged, sorted by (proc, tid, pc, stack, gen) */
	size_t nsamples;
	/* off-CPU time (format 3): merged, sorted by (proc, tid, pc, stack, kind, gen); count is ns */
	struct pv_sample *offcpu;
	size_t noffcpu;
	uint64_t offcpu_total;	 /* sum of their ns */
	char *offcpu_note;	 /* what the recorder says about its off-CPU time ("" none) */
	struct pv_stack *stacks; /* [0] is the empty stack; distinct PC lists */
	size_t nstacks;
	struct pv_frame *frames; /* the stacks' nodes ([0] unused): memory per node, not per PC */
	size_t nframes;
	struct pv_ksym *ksyms; /* sorted by start */
	size_t nksyms;
	uint64_t total;	    /* sum of all sample counts */
	size_t bad_records; /* records ignored as malformed */
	struct pv_gen *gens; /* sorted by id */
	size_t ngens;
};

/* Load path.  Returns 0 or -errno with one sentence in why. */
int pview__load(struct pview **out, const char *path, char *why, size_t whylen);
void pview__free(struct pview *v);

struct pv_proc *pview__proc(const struct pview *v, uint32_t id);

/*
 * The process of sample s: last when it is s's, else looked up (samples come
 * sorted by proc: one lookup per run of them).  NULL: none.
 */
static inline const struct pv_proc *
pview__sample_proc(const struct pview *v, const struct pv_sample *s, const struct pv_proc *last)
{
	return last && last->id == s->proc ? last : pview__proc(v, s->proc);
}
const struct pv_thread *pv_proc__thread(const struct pv_proc *p, int tid);

/*
 * The mapping holding pc in mapping generation gen of this process image
 * (a sample's gen: of the image's mappings that cover pc and were recorded
 * in generation gen or an earlier one, one of the newest generation, then
 * the newest start), or, for a forked child that has no mapping of its own
 * there, in its parent's image (a fork inherits the parent's mappings; an
 * exec does not).
 */
const struct pv_map *pview__map_of(const struct pview *v, const struct pv_proc *p, uint32_t gen,
				   uint64_t pc);

/* The call stack of a sample (s->stack), never NULL: index 0 is the empty stack. */
const struct pv_stack *pview__stack(const struct pview *v, uint32_t stack);

/*
 * The PCs of st, innermost first, into pcs (room for max; PDATA_MAX_DEPTH
 * holds any).  Returns their number: st->n, or max when that is less.
 */
unsigned pview__stack_pcs(const struct pview *v, const struct pv_stack *st, uint64_t *pcs,
			  unsigned max);

/*
 * The JIT code holding pc in process image p (or, for a forked child, in its
 * parent's image, as pview__map_of), or NULL.  Where several named pieces
 * cover pc (code replaced at the same address), the one read last.
 */
const struct pv_jitsym *pview__jitsym(const struct pview *v, const struct pv_proc *p, uint64_t pc);

/* The kernel function holding pc, or NULL. */
const struct pv_ksym *pview__ksym(const struct pview *v, uint64_t pc);

/* Effective sampling rate in Hz (1e9 / period_ns), 0 when unknown. */
double pview__rate_hz(const struct pview *v);

#endif /* PROFIL_PVIEW_H */
