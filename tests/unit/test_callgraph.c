// SPDX-License-Identifier: MIT
/*
 * report/callgraph.c on made-up stacks of made-up function rows: totals
 * (recursion counted once per sample, direct and through another
 * function), equal stacks summed, the caller and callee trees, the trees
 * around one function, cut-short stacks, saturating counts, bad input, and
 * the PCs a sample's frames are looked up at.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "report/callgraph.h"

#define FN(n)                                                                                      \
	{                                                                                          \
		n, "prog", "/bin/prog", NULL, 0                                                    \
	}
static const struct func A = FN("A"), B = FN("B"), C = FN("C"), R = FN("R"), X = FN("X"),
			 T = {"[truncated]", "[truncated]", "[truncated]", NULL, 0};

/* "NAME:TOTAL(SELF)[KIDS,...]" of a node and its subtree. */
static void dump(const struct cg_node *n, char *buf, size_t len)
{
	size_t at = strlen(buf);

	snprintf(buf + at, len - at, "%s:%llu(%llu)", n->f ? n->f->name : "*",
		 (unsigned long long)n->total, (unsigned long long)n->self);
	if (!n->nkids)
		return;
	strncat(buf, "[", len - strlen(buf) - 1);
	for (size_t k = 0; k < n->nkids; k++) {
		if (k)
			strncat(buf, ",", len - strlen(buf) - 1);
		dump(n->kids[k], buf, len);
	}
	strncat(buf, "]", len - strlen(buf) - 1);
}

static int tree_is(const struct callgraph *cg, enum cg_order order, const char *focus,
		   const char *want, char *got, size_t len)
{
	struct cg_tree *t;

	got[0] = 0;
	if (callgraph__tree(cg, order, focus, &t) < 0) {
		snprintf(got, len, "callgraph__tree failed");
		return 0;
	}
	dump(cg_tree__root(t), got, len);
	cg_tree__free(t);
	return !strcmp(got, want);
}

static const struct cg_total *total_of(const struct cg_total *t, size_t n, const struct func *f)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].f == f)
			return &t[i];
	return NULL;
}

#define ADD(tid, trunc, count, ...)                                                                \
	callgraph__add(cg, tid, (const struct func *const[]){__VA_ARGS__},                         \
		       sizeof((const struct func *[]){__VA_ARGS__}) / sizeof(void *), trunc,       \
		       count)

static void test_model(void)
{
	struct callgraph *cg = callgraph__new();
	struct cg_total *t = NULL;
	struct cg_stack s;
	const struct func *fr[CALLGRAPH_MAX_FRAMES];
	size_t n = 0;
	char got[1024];
	int rc = 0;

	CHECK("new", cg != NULL);
	if (!cg)
		return;
	rc |= ADD(1, 0, 5, &C, &B, &A);
	rc |= ADD(1, 0, 3, &B, &A);
	rc |= ADD(1, 0, 4, &R, &R, &R, &A); /* direct recursion */
	rc |= ADD(1, 0, 2, &R, &X, &R, &A); /* recursion through X */
	rc |= ADD(1, 1, 1, &C, &B, &T);	    /* cut short above B */
	rc |= ADD(1, 0, 2, &C, &B, &A);	    /* the same stack again: summed */
	rc |= ADD(2, 0, 1, &C, &B, &A);	    /* the same stack in another thread: its own */
	CHECK("add", rc == 0);
	CHECK("add_empty",
	      callgraph__add(cg, 1, (const struct func *const[]){&A}, 0, 0, 1) == -EINVAL);
	CHECK("add_null_frame",
	      callgraph__add(cg, 1, (const struct func *const[]){&A, NULL}, 2, 0, 1) == -EINVAL);
	CHECKF("total", callgraph__total(cg) == 18, "%llu",
	       (unsigned long long)callgraph__total(cg));
	CHECKF("nstacks", callgraph__nstacks(cg) == 6, "%zu", callgraph__nstacks(cg));
	callgraph__stack(cg, 0, &s);
	CHECK("stack_summed", s.count == 7 && s.n == 3 && callgraph__frames(cg, &s, fr) == 3 &&
				      fr[0] == &C && fr[2] == &A && s.tid == 1 && !s.truncated);
	callgraph__stack(cg, 4, &s);
	CHECK("stack_truncated",
	      s.truncated && callgraph__frames(cg, &s, fr) == 3 && fr[2] == &T && s.count == 1);

	CHECK("totals_status", callgraph__totals(cg, 0, &t, &n) == 0);
	CHECKF("totals_count", n == 6, "%zu functions", n);
	if (n == 6) {
		/* A: every stack but the cut-short one; R counts each sample once */
		CHECK("total_A", total_of(t, n, &A)->total == 17 && total_of(t, n, &A)->self == 0);
		CHECK("total_B", total_of(t, n, &B)->total == 12 && total_of(t, n, &B)->self == 3);
		CHECK("total_C", total_of(t, n, &C)->total == 9 && total_of(t, n, &C)->self == 9);
		CHECK("total_R_recursion_once",
		      total_of(t, n, &R)->total == 6 && total_of(t, n, &R)->self == 6);
		CHECK("total_X", total_of(t, n, &X)->total == 2 && total_of(t, n, &X)->self == 0);
		CHECK("total_truncated",
		      total_of(t, n, &T)->total == 1 && total_of(t, n, &T)->self == 0);
		CHECK("totals_sorted", t[0].f == &A && t[1].f == &B && t[2].f == &C &&
					       t[3].f == &R && t[4].f == &X && t[5].f == &T);
	}
	free(t);
	CHECK("totals_by_name", callgraph__totals(cg, 1, &t, &n) == 0 && n == 6 && t[0].f == &A &&
					t[1].f == &B && t[2].f == &C && t[3].f == &R &&
					t[4].f == &X && t[5].f == &T);
	free(t);

	/* top-down: the root's children are the outermost frames; self where samples hit */
	CHECKF("tree_caller",
	       tree_is(cg, CG_CALLER, NULL,
		       "*:18(0)[A:17(0)[B:11(3)[C:8(8)],R:6(0)[R:4(0)[R:4(4)],X:2(0)[R:2(2)]]],"
		       "[truncated]:1(0)[B:1(0)[C:1(1)]]]",
		       got, sizeof(got)),
	       "%s", got);
	/* bottom-up: from the leaves outwards; self where a stack ends */
	CHECKF("tree_callee",
	       tree_is(cg, CG_CALLEE, NULL,
		       "*:18(0)[C:9(0)[B:9(0)[A:8(8),[truncated]:1(1)]],R:6(0)[R:4(0)[R:4(0)[A:4(4)"
		       "]],"
		       "X:2(0)[R:2(0)[A:2(2)]]],B:3(0)[A:3(3)]]",
		       got, sizeof(got)),
	       "%s", got);
	/* callers of R: from its innermost occurrence outwards, the root counts 6 once each */
	CHECKF("callers_of_recursive",
	       tree_is(cg, CG_CALLEE, "R", "R:6(6)[R:4(0)[R:4(0)[A:4(4)]],X:2(0)[R:2(0)[A:2(2)]]]",
		       got, sizeof(got)),
	       "%s", got);
	/* callees of R: from its outermost occurrence inwards */
	CHECKF("callees_of_recursive",
	       tree_is(cg, CG_CALLER, "R", "R:6(6)[R:4(0)[R:4(4)],X:2(0)[R:2(2)]]", got,
		       sizeof(got)),
	       "%s", got);
	CHECKF("callers_of_B",
	       tree_is(cg, CG_CALLEE, "B", "B:12(3)[A:11(11),[truncated]:1(1)]", got, sizeof(got)),
	       "%s", got);
	CHECKF("callees_of_B", tree_is(cg, CG_CALLER, "B", "B:12(3)[C:9(9)]", got, sizeof(got)),
	       "%s", got);
	CHECKF("focus_absent", tree_is(cg, CG_CALLER, "nope", "*:0(0)", got, sizeof(got)), "%s",
	       got);
	callgraph__free(cg);
}

static void test_saturation_and_ties(void)
{
	struct callgraph *cg = callgraph__new();
	struct cg_total *t = NULL;
	size_t n = 0;
	char got[256];

	ADD(1, 0, UINT64_MAX - 1, &B, &A);
	ADD(1, 0, 5, &B, &A);
	ADD(1, 0, 7, &C, &A);
	CHECK("saturated_total", callgraph__total(cg) == UINT64_MAX);
	/* A and B both saturate: B first, by its self */
	CHECK("saturated_totals", callgraph__totals(cg, 0, &t, &n) == 0 && n == 3 && t[0].f == &B &&
					  t[0].total == UINT64_MAX && t[0].self == UINT64_MAX &&
					  t[1].f == &A && t[1].total == UINT64_MAX &&
					  t[2].f == &C && t[2].total == 7);
	free(t);
	callgraph__free(cg);

	/* equal counts: by name */
	cg = callgraph__new();
	ADD(1, 0, 2, &X, &A);
	ADD(1, 0, 2, &C, &A);
	ADD(1, 0, 2, &B, &A);
	CHECKF("ties_by_name",
	       tree_is(cg, CG_CALLER, NULL, "*:6(0)[A:6(0)[B:2(2),C:2(2),X:2(2)]]", got,
		       sizeof(got)),
	       "%s", got);
	callgraph__free(cg);
}

/* The PCs of a sample: the leaf as sampled, callers at return address - 1, the cut-short mark. */
static void test_lookup_pcs(void)
{
	/*
	 * The view's tree of nodes: stack 1 is 0x1000 <- 0x2005 <- 0 <- 0x3009
	 * (nodes 5..2) under the cut-short mark (node 1); stack 2 is
	 * PDATA_MAX_DEPTH PCs 0x5000 + i (nodes 6 ...) under the mark.
	 */
	static struct pv_frame frames[6 + PDATA_MAX_DEPTH];
	uint64_t stack_pcs[] = {0x1000, 0x2005, 0, 0x3009};
	struct pv_stack stacks[3] = {{0}, {5, 4, 1}, {5 + PDATA_MAX_DEPTH, PDATA_MAX_DEPTH, 1}};
	struct pview v = {
		.stacks = stacks, .nstacks = 3, .frames = frames, .nframes = 6 + PDATA_MAX_DEPTH};
	struct pv_sample flat = {1, 1, 0x1234, 0, 1}, s = {1, 1, 0x1001, 1, 1},
			 d = {1, 1, 0x10, 2, 1};
	uint64_t pcs[CALLGRAPH_MAX_PCS];
	int truncated;
	unsigned n;

	frames[1] = (struct pv_frame){PDATA_PC_TRUNCATED, 0, 1, 1};
	for (unsigned i = 0; i < 4; i++) /* outermost first */
		frames[2 + i] = (struct pv_frame){stack_pcs[3 - i], 1 + i, (uint16_t)(2 + i), 1};
	for (unsigned i = 0; i < PDATA_MAX_DEPTH; i++) /* deep[i] = 0x5000 + i, innermost first */
		frames[6 + i] = (struct pv_frame){0x5000 + PDATA_MAX_DEPTH - 1 - i, i ? 5 + i : 1,
						  (uint16_t)(2 + i), 1};
	n = callgraph__lookup_pcs(&v, &flat, pcs, &truncated);
	CHECK("pcs_flat", n == 1 && pcs[0] == 0x1234 && !truncated);
	/* the leaf is the sample's own PC (the flat report's row) */
	n = callgraph__lookup_pcs(&v, &s, pcs, &truncated);
	CHECKF("pcs_stack",
	       n == 5 && pcs[0] == 0x1001 && pcs[1] == 0x2004 && pcs[2] == 0 && pcs[3] == 0x3008 &&
		       pcs[4] == PDATA_PC_TRUNCATED && truncated,
	       "n %u: %llx %llx %llx %llx", n, (unsigned long long)pcs[0],
	       (unsigned long long)pcs[1], (unsigned long long)pcs[2], (unsigned long long)pcs[3]);
	n = callgraph__lookup_pcs(&v, &d, pcs, &truncated);
	CHECKF("pcs_deepest",
	       n == CALLGRAPH_MAX_PCS && pcs[0] == 0x10 &&
		       pcs[PDATA_MAX_DEPTH - 1] == 0x5000 + PDATA_MAX_DEPTH - 2 &&
		       pcs[PDATA_MAX_DEPTH] == PDATA_PC_TRUNCATED,
	       "n %u", n);
}

int main(void)
{
	test_model();
	test_saturation_and_ties();
	test_lookup_pcs();
	return CHECK_DONE();
}
