/* SPDX-License-Identifier: MIT */
/*
 * callgraph: call stacks as stacks of function rows (struct func, the rows
 * of the flat report, report/resolve.h), and what is read off them: the
 * self and total (inclusive) samples of every function, the caller ->
 * callee tree (top-down, from the outermost frame), the callee -> caller
 * tree (bottom-up, from where the samples hit), and both trees around one
 * function (its callers, its callees).
 *
 * A stack is its frames leaf first: frames[0] is where the samples hit,
 * frames[n - 1] the outermost caller.  A stack the unwinder cut short ends
 * with the "[truncated]" row (resolve.c's name of PDATA_PC_TRUNCATED), so
 * what is above it is unknown and shown as such, not as a root of its own.
 *
 * Recursion never counts a sample twice: a function's total counts each
 * sample once however often the function recurs in its stack; a tree node
 * is one path, so it counts each sample once by construction.
 *
 * The model is pure (no I/O); callgraph__add_samples() is the one bridge
 * from a profile view (profile/pview.h) and a resolver.
 */
#ifndef PROFIL_CALLGRAPH_H
#define PROFIL_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "profile/pview.h"
#include "report/resolve.h"

/* Room for the PCs of one sample: a stack's PCs and the "[truncated]" mark. */
#define CALLGRAPH_MAX_PCS (PDATA_MAX_DEPTH + 1)
/* Room for its frames: the functions inlined at those PCs too (as many again, at most). */
#define CALLGRAPH_MAX_FRAMES (2 * PDATA_MAX_DEPTH + 1)

/*
 * The PCs to look up for sample s of v, leaf first, into pcs (room for
 * CALLGRAPH_MAX_PCS): the sampled PC itself, then each caller's return
 * address minus one (inside its call instruction, so the caller's function
 * and line), then PDATA_PC_TRUNCATED when the stack was cut short.  A flat
 * sample gives its PC alone.  Returns the number of PCs (>= 1).
 */
unsigned callgraph__lookup_pcs(const struct pview *v, const struct pv_sample *s, uint64_t *pcs,
			       int *truncated);

/*
 * The frames of sample s of process image p: the function rows of
 * callgraph__lookup_pcs()'s PCs, named by r, each preceded by the
 * functions inlined at it (resolver__frames: a frame of its own each, as
 * perf --inline, pprof and eu-addr2line -i show them), into frames (room
 * for CALLGRAPH_MAX_FRAMES; when a deep stack has more inlined frames than
 * that, the innermost inlined frames of its PCs are left out).  Returns
 * their number (>= 1), or -ENOMEM.
 */
int callgraph__sample_frames(const struct pview *v, struct resolver *r, const struct pv_proc *p,
			     const struct pv_sample *s, const struct func **frames, int *truncated);

/*
 * One distinct stack, and the samples of one thread that had it; its
 * frames, leaf first, by callgraph__frames() (stacks are kept as a tree of
 * nodes shared by the stacks with the same callers, not as frame lists).
 */
struct cg_stack {
	uint32_t node; /* its innermost frame's node */
	uint32_t n;
	int truncated; /* frames[n - 1] is the "[truncated]" row */
	int tid;
	uint64_t count;
	uint64_t off; /* off-CPU nanoseconds under it (callgraph__add_off) */
};

/* Self and total samples of one function row. */
struct cg_total {
	const struct func *f;
	uint64_t self;	/* samples where it is the leaf */
	uint64_t total; /* samples with it anywhere on the stack, once per sample */
};

enum cg_order {
	CG_CALLER = 0, /* top-down: outermost caller first, its callees below */
	CG_CALLEE = 1, /* bottom-up: where the samples hit first, its callers below */
};

/* A node of a tree: one path from the root. */
struct cg_node {
	const struct func *f; /* NULL for the root of a whole graph */
	uint64_t total;	      /* samples through this path */
	uint64_t self;	      /* of which the path ends here */
	uint64_t off_total;   /* off-CPU nanoseconds through this path */
	uint64_t off_self;    /* of which the path ends here */
	uint64_t weight;      /* total and off_total as callgraph__set_weights weighs them */
	struct cg_node **kids;
	size_t nkids; /* sorted: most weight first, then by name */
};

struct callgraph;
struct cg_tree;

struct callgraph *callgraph__new(void);
void callgraph__free(struct callgraph *cg);

/*
 * Add count samples of thread tid whose stack is frames[0..n) (leaf first;
 * truncated: frames[n - 1] is the "[truncated]" row).  Equal (tid, stack)
 * are summed.  Returns 0, -EINVAL (n == 0, n > CALLGRAPH_MAX_FRAMES or a
 * NULL frame) or -ENOMEM.
 */
int callgraph__add(struct callgraph *cg, int tid, const struct func *const *frames, uint32_t n,
		   int truncated, uint64_t count);

/*
 * The same for ns nanoseconds off the CPU under that stack (a thread left
 * the CPU with it: report/report.h's off-CPU items), kept beside the samples
 * (cg_stack.off, cg_node.off_total): the trees carry both.
 */
int callgraph__add_off(struct callgraph *cg, int tid, const struct func *const *frames, uint32_t n,
		       int truncated, uint64_t ns);

/*
 * How the trees weigh a node to order its kids (cg_node.weight): its
 * samples times per_sample plus its off-CPU nanoseconds times per_off_ns
 * (0 or 1).  The default, (1, 0), orders by samples; (the sampling period
 * in ns, 1) by wall time; (0, 1) by off-CPU time.
 */
void callgraph__set_weights(struct callgraph *cg, uint64_t per_sample, uint64_t per_off_ns);

/* samples x per_sample + off_ns x per_off_ns, saturating. */
uint64_t callgraph__weight_of(uint64_t per_sample, uint64_t per_off_ns, uint64_t samples,
			      uint64_t off_ns);

/* The weight of samples and off-CPU ns as cg weighs them. */
uint64_t callgraph__weigh(const struct callgraph *cg, uint64_t samples, uint64_t off_ns);

/*
 * Add the samples of process image p in v (all its threads, or only thread
 * *tid), naming the PCs of callgraph__lookup_pcs() with r.  Samples with a
 * count of 0 are skipped.  Returns 0 or -ENOMEM.
 */
int callgraph__add_samples(struct callgraph *cg, const struct pview *v, struct resolver *r,
			   const struct pv_proc *p, const int *tid);

/*
 * The same in nanoseconds: each sample as cpu_ns (its period; 0: no CPU
 * samples) and, with offcpu, every off-CPU slot of the image (v->offcpu,
 * its stack the one its thread left the CPU with) as its nanoseconds.
 */
int callgraph__add_weighted(struct callgraph *cg, const struct pview *v, struct resolver *r,
			    const struct pv_proc *p, const int *tid, uint64_t cpu_ns, int offcpu);

/* Sum of the samples added. */
uint64_t callgraph__total(const struct callgraph *cg);

/* The distinct (thread, stack) pairs, in the order they were first added. */
size_t callgraph__nstacks(const struct callgraph *cg);
void callgraph__stack(const struct callgraph *cg, size_t i, struct cg_stack *out);

/* The frames of s, leaf first, into frames (room for CALLGRAPH_MAX_FRAMES).  Returns s->n. */
unsigned callgraph__frames(const struct callgraph *cg, const struct cg_stack *s,
			   const struct func **frames);

/*
 * Self and total of every function on a stack, into a malloc'ed array:
 * most total first (then most self, then by name), or by name
 * (sort_name).  Returns 0 or -ENOMEM.
 */
int callgraph__totals(const struct callgraph *cg, int sort_name, struct cg_total **out, size_t *n);

/*
 * A tree of the stacks.  Without focus: CG_CALLER starts from the
 * outermost frames, CG_CALLEE from the leaves; the root (f NULL) holds
 * every sample.  With focus (a function name): only the stacks that hold a
 * function of that name, and the root is that function: CG_CALLER gives its
 * callees (from its outermost occurrence in each stack inwards), CG_CALLEE
 * its callers (from its innermost occurrence outwards), so with recursion
 * the root still counts each sample once and the recursive calls show as
 * children.  root->f is then the first row of that name met (NULL when
 * none: root->total is 0), and root->self the samples where it is the leaf.
 * Below the root, a node's self is, in a CG_CALLER tree, the samples that
 * hit it there; in a CG_CALLEE tree, the samples whose stack ends there.
 * Returns 0 or -ENOMEM.
 */
int callgraph__tree(const struct callgraph *cg, enum cg_order order, const char *focus,
		    struct cg_tree **out);
const struct cg_node *cg_tree__root(const struct cg_tree *t);
void cg_tree__free(struct cg_tree *t);

#endif /* PROFIL_CALLGRAPH_H */
