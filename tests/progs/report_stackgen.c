// SPDX-License-Identifier: MIT
/*
 * report_stackgen OUT MODE [ARGS]: writes a profile WITH CALL STACKS of
 * itself through the pdata API (pdata__create with frame slots,
 * pdata__count_stack): its real executable mappings, so every frame names
 * one of its own functions, with known counts, so the stack reports and
 * exports are exact.  Until `profil record -g` writes stacks, this is how
 * the tests get them.  Prints "key value" lines the tests need.
 *
 * synthetic  hand-made stacks (leaf PCs at function + 2, callers' return
 *            addresses at function + 9), period 1 ms:
 *              main thread (comm "stackgen"):
 *                50  cg_hot_a <- cg_run <- cg_main
 *                30  cg_hot_b <- cg_run <- cg_main
 *                10  cg_run <- cg_main
 *                25  cg_rec <- cg_rec <- cg_rec <- cg_main        (recursion)
 *                10  cg_leaf <- cg_hot_a <- cg_run <- cg_main
 *                 8  cg_hot_b <- cg_run <- [truncated]            (cut short)
 *                12  k_write <- k_entry <- cg_hot_a <- cg_run <- cg_main
 *                                              (kernel frames, named by ksyms)
 *                 5  cg_hot_b <- [unknown] <- cg_main      (a return address
 *                                               in no mapping)
 *              thread "worker":
 *                40  cg_leaf <- cg_worker
 *              a forked child (comm "stackgen-kid", no maps: its parent's):
 *                20  cg_hot_b <- cg_main
 * real       real stacks: real nested calls of this program take their own
 *            stack with glibc's backtrace() (return addresses as an unwinder
 *            gives them, up to _start through libc), counted n times:
 *                300 real_leaf_a <- real_mid <- real_top <- main <- ...
 *                200 real_leaf_b <- real_top <- main <- ...
 *                100 real_rec <- real_rec <- real_rec <- real_top <- main <- ...
 * deep       one stack of 300 frames (cg_rec 299 times under cg_main), 7
 *            samples: stored as its innermost 255 frames and [truncated]
 * arcmax     two samples of 2^64 - 1 each in the kernel under
 *            cg_hot_a <- cg_run <- cg_main (a damaged or hostile count: the
 *            gmon.out histogram has nothing, its arcs carry the counts)
 * chain [STACKS]
 *            for memory: STACKS (default 600000) distinct stacks of 255
 *            frames, one sample each: 250 frames of cg_rec under cg_main
 *            shared by all, then four frames over 64 functions that make
 *            each stack distinct (readers must cost the profile's nodes,
 *            not stacks x depth)
 * big [STACKS [SAMPLES]]
 *            for timing: STACKS (default 4000) distinct stacks of 4 to 16
 *            frames over 64 functions, in 4 threads, SAMPLES (default
 *            1000000) samples in all
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "tests/tools/profile_fixture.h"

#define NOINLINE __attribute__((noinline, used))
#define KTEXT 0xffffffff81000000ull

static struct pdata *pd;
static uint32_t root_id;
static int main_tid;

/* Functions with bodies of some size (+2 and +9 are inside each), one per line. */
#define WORK(name, k) FIXTURE_WORK(name, k)

WORK(cg_main, 1);
WORK(cg_run, 2);
WORK(cg_hot_a, 3);
WORK(cg_hot_b, 4);
WORK(cg_rec, 5);
WORK(cg_worker, 6);
WORK(cg_leaf, 7);

#define LEAF(f) ((uint64_t)(uintptr_t)(f) + 2)
#define RET(f) ((uint64_t)(uintptr_t)(f) + 9)

/* ---- samples ------------------------------------------------------------------- */

static void count(uint32_t proc, int tid, const uint64_t *pcs, unsigned n, int truncated,
		  uint64_t c)
{
	if (pdata__count_stack(pd, proc, tid, pcs, n, truncated, c) < 0) {
		fprintf(stderr, "report_stackgen: the sample table is full\n");
		exit(1);
	}
}

#define STACK(...) (const uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8

/* ---- synthetic ------------------------------------------------------------------- */

static void synthetic(void)
{
	struct pdata_proc *kid_proc;
	int status, worker_tid;
	pid_t kid;

	pdata__add_ksym(pd, KTEXT, 0x200, "k_entry");
	pdata__add_ksym(pd, KTEXT + 0x100000, 0x100, "k_write");
	worker_tid = fixture__thread("worker", cg_worker);
	pdata__add_thread(pd, root_id, worker_tid, "worker");

	count(root_id, main_tid, STACK(LEAF(cg_hot_a), RET(cg_run), RET(cg_main)), 0, 50);
	count(root_id, main_tid, STACK(LEAF(cg_hot_b), RET(cg_run), RET(cg_main)), 0, 30);
	count(root_id, main_tid, STACK(LEAF(cg_run), RET(cg_main)), 0, 10);
	count(root_id, main_tid, STACK(LEAF(cg_rec), RET(cg_rec), RET(cg_rec), RET(cg_main)), 0,
	      25);
	count(root_id, main_tid, STACK(LEAF(cg_leaf), RET(cg_hot_a), RET(cg_run), RET(cg_main)), 0,
	      10);
	count(root_id, main_tid, STACK(LEAF(cg_hot_b), RET(cg_run)), 1, 8);
	count(root_id, main_tid,
	      STACK(KTEXT + 0x100010, KTEXT + 0x21, RET(cg_hot_a), RET(cg_run), RET(cg_main)), 0,
	      12);
	count(root_id, main_tid, STACK(LEAF(cg_hot_b), 0x11, RET(cg_main)), 0, 5);
	count(root_id, worker_tid, STACK(LEAF(cg_leaf), RET(cg_worker)), 0, 40);

	kid = fork();
	if (kid == 0) {
		cg_hot_b(1);
		_exit(0);
	}
	waitpid(kid, &status, 0);
	/* a fork: the parent's executable, and no maps of its own (it inherits them) */
	kid_proc = pdata__add_proc(pd, kid, getpid(), root_id, fixture__exe(), pdata__now_ns());
	pdata__add_thread(pd, kid_proc->id, kid, "stackgen-kid");
	count(kid_proc->id, kid, STACK(LEAF(cg_hot_b), RET(cg_main)), 0, 20);
	pdata__end_proc(kid_proc, PDATA_END_EXITED, 0, pdata__now_ns(), NULL);
	printf("worker %d\nchild %d\n", worker_tid, kid);
}

/* ---- real ------------------------------------------------------------------------ */

/* This call's own stack, as an unwinder gives it: [0] is inside the caller. */
NOINLINE static void take_stack(uint64_t c)
{
	void *b[64];
	uint64_t pcs[64];
	int n = backtrace(b, 64);

	/* b[0] is in take_stack itself: the sample is in our caller, at b[1] */
	for (int i = 1; i < n; i++)
		pcs[i - 1] = (uint64_t)(uintptr_t)b[i];
	if (n > 1)
		count(root_id, main_tid, pcs, (unsigned)n - 1, 0, c);
}

NOINLINE int real_leaf_a(int n)
{
	take_stack(300);
	return cg_leaf(n) + 1;
}

NOINLINE int real_leaf_b(int n)
{
	take_stack(200);
	return cg_leaf(n) + 2;
}

NOINLINE int real_rec(int depth)
{
	int r;

	if (depth == 0) {
		take_stack(100);
		return cg_leaf(1);
	}
	r = real_rec(depth - 1);
	return r + 1; /* not a tail call */
}

NOINLINE int real_mid(int n)
{
	return real_leaf_a(n) + 1;
}

NOINLINE int real_top(int n)
{
	int r = real_mid(n);

	r += real_leaf_b(n);
	r += real_rec(2);
	return r + 1;
}

/* ---- deep ---------------------------------------------------------------------- */

static void deep(void)
{
	static uint64_t pcs[300];

	pcs[0] = LEAF(cg_rec);
	for (int i = 1; i < 299; i++)
		pcs[i] = RET(cg_rec);
	pcs[299] = RET(cg_main);
	count(root_id, main_tid, pcs, 300, 0, 7);
}

/* ---- big ------------------------------------------------------------------------- */

#define BIGF8(k)                                                                                   \
	WORK(bigf_##k##0, k##0);                                                                   \
	WORK(bigf_##k##1, k##1);                                                                   \
	WORK(bigf_##k##2, k##2);                                                                   \
	WORK(bigf_##k##3, k##3);                                                                   \
	WORK(bigf_##k##4, k##4);                                                                   \
	WORK(bigf_##k##5, k##5);                                                                   \
	WORK(bigf_##k##6, k##6);                                                                   \
	WORK(bigf_##k##7, k##7)
BIGF8(1);
BIGF8(2);
BIGF8(3);
BIGF8(4);
BIGF8(5);
BIGF8(6);
BIGF8(7);
BIGF8(8);
#define BIGP8(k)                                                                                   \
	bigf_##k##0, bigf_##k##1, bigf_##k##2, bigf_##k##3, bigf_##k##4, bigf_##k##5, bigf_##k##6, \
		bigf_##k##7
static int (*const bigfs[64])(int) = {BIGP8(1), BIGP8(2), BIGP8(3), BIGP8(4),
				      BIGP8(5), BIGP8(6), BIGP8(7), BIGP8(8)};

static void big(long stacks, long samples)
{
	uint64_t x = 88172645463325252ull, pcs[16], left = (uint64_t)samples;
	int tids[4] = {main_tid};

	for (int t = 1; t < 4; t++) {
		tids[t] = fixture__thread(NULL, NULL);
		pdata__add_thread(pd, root_id, tids[t], "bigworker");
	}
	for (long s = 0; s < stacks; s++) {
		unsigned depth = 4 + (unsigned)(s % 13);
		uint64_t c = left / (uint64_t)(stacks - s);

		for (unsigned d = 0; d < depth; d++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			pcs[d] = d ? RET(bigfs[x % 64]) : LEAF(bigfs[x % 64]);
		}
		pcs[depth - 1] = RET(cg_main); /* one root, as a real program */
		if (c)
			count(root_id, tids[s % 4], pcs, depth, 0, c);
		left -= c;
	}
}

/* ---- arcmax -------------------------------------------------------------------- */

static void arcmax(void)
{
	pdata__add_ksym(pd, KTEXT, 0x200, "k_entry");
	count(root_id, main_tid, STACK(KTEXT + 0x21, RET(cg_hot_a), RET(cg_run), RET(cg_main)), 0,
	      UINT64_MAX);
	count(root_id, main_tid, STACK(KTEXT + 0x31, RET(cg_hot_a), RET(cg_run), RET(cg_main)), 0,
	      UINT64_MAX);
}

/* ---- chain ------------------------------------------------------------------------ */

static void chain(long stacks)
{
	uint64_t pcs[PDATA_MAX_DEPTH - 1];
	unsigned n = PDATA_MAX_DEPTH - 1;

	for (unsigned d = 4; d + 1 < n; d++)
		pcs[d] = RET(cg_rec);
	pcs[n - 1] = RET(cg_main);
	for (long s = 0; s < stacks; s++) {
		pcs[0] = LEAF(bigfs[s % 64]);
		for (unsigned d = 1; d < 4; d++)
			pcs[d] = RET(bigfs[(s >> (6 * d)) % 64]);
		count(root_id, main_tid, pcs, n, 0, 1);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "synthetic";
	int is_big = !strcmp(mode, "big"), is_chain = !strcmp(mode, "chain");
	long stacks = (is_big || is_chain) && argc > 3 ? atol(argv[3]) : is_chain ? 600000 : 4000;
	struct pdata_create_opts opts = {
		.table_slots = 4096, .frame_slots = 4096, .records_cap = 1 << 20};
	const char *exe = fixture__exe();
	struct pdata_header *h;
	struct pdata_proc *root;
	char why[256], command[4200];
	struct fixture_header gen;

	if ((is_big || is_chain) && (stacks < 1 || stacks > 10000000)) {
		fprintf(stderr, "report_stackgen: %s wants 1 to 10000000 stacks\n", mode);
		return 2;
	}
	if (is_big) { /* room for every slot and node, at most half full */
		opts.table_slots = (uint32_t)(2 * stacks);
		opts.frame_slots = (uint32_t)(32 * stacks);
	} else if (is_chain) { /* each stack adds at most 4 nodes to the shared chain */
		opts.table_slots = (uint32_t)(2 * stacks);
		opts.frame_slots = (uint32_t)(8 * stacks + 1024);
	}
	if (argc < 3) {
		fprintf(stderr,
			"usage: report_stackgen OUT synthetic|real|deep|arcmax|chain|big [STACKS "
			"[SAMPLES]]\n");
		return 2;
	}
	snprintf(command, sizeof(command), "report_stackgen %s %s", argv[1], mode);
	gen = (struct fixture_header)FIXTURE_GEN_HEADER(1000, command, "test generator", opts);
	gen.flags = PDATA_F_KERNEL;
	gen.callgraph = PDATA_CG_DWARF;
	if (fixture__generator(&pd, argv[1], &gen, "report_stackgen", "stackgen") < 0)
		return 1;
	main_tid = gettid();
	h = pdata__header(pd);
	root = pdata__add_proc(pd, getpid(), getppid(), 0, exe, pdata__now_ns());
	root_id = root->id;
	fixture__own_maps(pd, root_id, NULL, NULL);
	pdata__add_thread(pd, root_id, main_tid, "stackgen");

	if (!strcmp(mode, "synthetic")) {
		synthetic();
	} else if (!strcmp(mode, "real")) {
		real_top(1);
	} else if (!strcmp(mode, "deep")) {
		deep();
	} else if (!strcmp(mode, "arcmax")) {
		arcmax();
	} else if (is_chain) {
		chain(stacks);
	} else if (is_big) {
		big(stacks, argc > 4 ? atol(argv[4]) : 1000000);
	} else {
		fprintf(stderr, "report_stackgen: unknown mode '%s'\n", mode);
		return 2;
	}
	printf("pid %d\ntid %d\nexe %s\n", getpid(), main_tid, exe);
	pdata__end_proc(root, PDATA_END_EXITED, 0, pdata__now_ns(), NULL);
	h->end_kind = PDATA_END_EXITED;
	/* as the recorder leaves it: finished, every table sized to what it holds */
	if (pdata__finish(pd) < 0 || pdata__compact(pd, argv[1], why, sizeof(why)) < 0) {
		fprintf(stderr, "report_stackgen: cannot finish %s: %s\n", argv[1], why);
		return 1;
	}
	pdata__close(pd);
	return 0;
}
