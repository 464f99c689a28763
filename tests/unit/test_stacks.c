// SPDX-License-Identifier: MIT
/*
 * The recorder's stack path on synthetic samples: decoding PERF_RECORD_SAMPLE
 * by sample_type (record/perf_sample.c, including records that lie about
 * their sizes), callchain sections, and record/stacks.c's assembly of a
 * sample's stack (kernel frames innermost, the kernel's frame-pointer walk,
 * samples without user registers, the depth limit) into a real profile.
 * The CFI unwinding of real samples is tested by test_unwind_real and
 * tests/e2e/record_callgraph.sh.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "profile/pdata.h"
#include "record/perf_sample.h"
#include "record/stacks.h"
#include "unwind/unwind.h"

#define K(x) (0xffffffff81000000ull + (x)) /* a kernel address */
#define CTX_KERNEL ((uint64_t)PERF_CONTEXT_KERNEL)
#define CTX_USER ((uint64_t)PERF_CONTEXT_USER)

/* A record being built: header + u64 words. */
struct rec {
	uint64_t w[512];
	size_t n; /* words after the header */
};

static void put(struct rec *r, uint64_t v)
{
	r->w[1 + r->n++] = v;
}

static size_t finish(struct rec *r)
{
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE,
				      .size = (uint16_t)((r->n + 1) * 8)};

	memcpy(&r->w[0], &h, sizeof(h));
	return (r->n + 1) * 8;
}

static void test_parse_all_fields(void)
{
	struct perf_sample_layout l = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER,
		.regs_mask = UNWIND_REGS_MASK};
	struct rec r = {0};
	struct perf_sample s;
	size_t size;
	int rc;

	put(&r, 77);		       /* identifier */
	put(&r, 0x401000);	       /* ip */
	put(&r, 100 | (101ull << 32)); /* pid, tid */
	put(&r, 123456789);	       /* time */
	put(&r, 0xadd0);	       /* addr */
	put(&r, 5);		       /* id */
	put(&r, 6);		       /* stream id */
	put(&r, 3);		       /* cpu, res */
	put(&r, 1000000);	       /* period */
	put(&r, 3);		       /* nr */
	put(&r, CTX_KERNEL);
	put(&r, K(0x10));
	put(&r, K(0x20));
	put(&r, PERF_SAMPLE_REGS_ABI_64);
	put(&r, 0x5555);   /* di */
	put(&r, 0x7ff0);   /* bp */
	put(&r, 0x7f00);   /* sp */
	put(&r, 0x401000); /* ip */
	put(&r, 16);	   /* size */
	put(&r, 0x1111);
	put(&r, 0x2222);
	put(&r, 8); /* dyn_size */
	size = finish(&r);
	rc = perf_sample__parse(&l, r.w, size, &s);
	CHECKF("parse_all_fields",
	       rc == 0 && s.ip == 0x401000 && s.pid == 100 && s.tid == 101 && s.time == 123456789 &&
		       s.addr == 0xadd0 && s.id == 5 && s.stream_id == 6 && s.cpu == 3 &&
		       s.period == 1000000 && s.nr == 3 && s.callchain[1] == K(0x10) &&
		       s.abi == PERF_SAMPLE_REGS_ABI_64 && s.regs[0] == 0x5555 &&
		       s.regs[UNWIND_REGS_SP] == 0x7f00 && s.regs[3] == 0x401000 &&
		       s.stack_size == 8 && ((const uint64_t *)s.stack)[0] == 0x1111,
	       "rc=%d ip=%#llx pid=%u tid=%u nr=%llu stack_size=%llu", rc, (unsigned long long)s.ip,
	       s.pid, s.tid, (unsigned long long)s.nr, (unsigned long long)s.stack_size);

	/* every shorter record is refused, never read past */
	rc = 0;
	for (size_t cut = 8; cut < size && !rc; cut += 8) {
		struct rec c = r;
		struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = (uint16_t)cut};

		memcpy(&c.w[0], &h, sizeof(h));
		rc = perf_sample__parse(&l, c.w, cut, &s) == -EBADMSG ? 0 : (int)cut;
	}
	CHECKF("parse_short_records_refused", rc == 0, "a %d-byte record was accepted", rc);
}

static void test_parse_lies(void)
{
	struct perf_sample_layout l = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						      PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN};
	struct perf_sample_layout st = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
						       PERF_SAMPLE_STACK_USER,
					.regs_mask = UNWIND_REGS_MASK};
	struct perf_sample_layout rd = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ};
	struct perf_sample_layout grp = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ,
					 .read_format = PERF_FORMAT_GROUP};
	struct rec r = {0}, q = {0}, z = {0};
	struct perf_sample s;
	size_t size;

	put(&r, 0x401000);
	put(&r, 1);
	put(&r, 2);
	put(&r, ~0ull >> 4); /* nr: far more than the record holds */
	put(&r, CTX_USER);
	size = finish(&r);
	CHECK("parse_huge_nr_refused", perf_sample__parse(&l, r.w, size, &s) == -EBADMSG);

	put(&q, 0x401000);
	put(&q, PERF_SAMPLE_REGS_ABI_64);
	for (int i = 0; i < __builtin_popcountll(UNWIND_REGS_MASK); i++)
		put(&q, (uint64_t)i + 1);
	put(&q, 4096); /* a stack size beyond the record */
	put(&q, 0);
	size = finish(&q);
	CHECK("parse_huge_stack_refused", perf_sample__parse(&st, q.w, size, &s) == -EBADMSG);

	/* no user registers: abi NONE, then an empty stack (no dyn_size) */
	put(&z, 0x401000);
	put(&z, 0);
	put(&z, 0);
	size = finish(&z);
	CHECK("parse_no_regs",
	      perf_sample__parse(&st, z.w, size, &s) == 0 && !s.abi && !s.regs && !s.stack);
	/* the count (read_format 0: one value) after the IP */
	CHECK("parse_read_value",
	      perf_sample__parse(&rd, z.w, size, &s) == 0 && s.ip == 0x401000 && s.read_value == 0);
	CHECK("parse_read_group_unsupported",
	      perf_sample__parse(&grp, z.w, size, &s) == -EOPNOTSUPP);
}

static void test_callchain_sections(void)
{
	const uint64_t chain[] = {CTX_KERNEL, K(1), K(2), K(3), CTX_USER, 0x401000, 0x402000};
	uint64_t pcs[8];
	unsigned int all = 0, n;

	n = perf_callchain__kernel(chain, 7, pcs, 8);
	CHECK("callchain_kernel", n == 3 && pcs[0] == K(1) && pcs[2] == K(3));
	n = perf_callchain__user(chain, 7, pcs, 8, &all);
	CHECK("callchain_user", n == 2 && all == 2 && pcs[0] == 0x401000 && pcs[1] == 0x402000);
	n = perf_callchain__user(chain, 7, pcs, 1, &all);
	CHECK("callchain_user_capped", n == 1 && all == 2);
	n = perf_callchain__kernel(chain + 4, 3, pcs, 8);
	CHECK("callchain_no_kernel_part", n == 0);
}

/* ---- assembly into a profile ------------------------------------------- */

static char dir[] = "/tmp/stacks-test-XXXXXX";

/* A profile in the directory, its path in path: NULL (why on a comment line) when it cannot be. */
static struct pdata *create_profile(const char *name, const struct pdata_create_opts *o, char *path,
				    size_t len)
{
	struct pdata *p = NULL;
	char why[256];

	snprintf(path, len, "%s/%s", dir, name);
	if (pdata__create(&p, path, o, why, sizeof(why)) < 0)
		printf("# %s\n", why);
	return p;
}

static struct pdata *new_profile(const char *name)
{
	struct pdata_create_opts o = {
		.table_slots = 1024, .frame_slots = 1024, .records_cap = 65536};
	char path[256];

	return create_profile(name, &o, path, sizeof(path));
}

/* The one sample's stack in p. */
struct one {
	uint32_t stack;
	uint64_t pc, count;
};

static int take_one(void *arg, const struct pdata_sample *s)
{
	struct one *o = arg;

	o->stack = s->stack;
	o->pc = s->pc;
	o->count += s->count;
	return 0;
}

static int read_stack(struct pdata *p, uint64_t *pcs, unsigned int max, struct one *o)
{
	memset(o, 0, sizeof(*o));
	pdata__foreach_sample(p, take_one, o);
	return pdata__stack(p, o->stack, pcs, max);
}

static void test_fp_with_kernel(void)
{
	/* a kernel-mode sample: its kernel frames, then the user chain, one callchain */
	const uint64_t chain[] = {CTX_KERNEL, K(1), K(2), CTX_USER, 0x401000, 0x402000, 0x403000};
	struct perf_event_attr a = {.exclude_kernel = 0};
	struct perf_sample s = {.ip = K(1), .pid = 7, .tid = 8, .callchain = chain, .nr = 7};
	struct pdata *p = new_profile("fpk");
	struct stacks *st = NULL;
	uint64_t pcs[16];
	struct one o;
	int n;

	if (!p || stacks__new(&st, PDATA_CG_FP, 0) < 0) {
		CHECK("fp_with_kernel_setup", 0);
		return;
	}
	stacks__fill_attr(st, &a);
	CHECK("fp_attr", (a.sample_type & PERF_SAMPLE_CALLCHAIN) && !a.exclude_callchain_kernel &&
				 !a.exclude_callchain_user &&
				 !(a.sample_type & PERF_SAMPLE_STACK_USER));
	stacks__count(st, p, 1, &s);
	n = read_stack(p, pcs, 16, &o);
	CHECKF("fp_kernel_innermost",
	       n == 5 && o.pc == K(1) && pcs[0] == K(1) && pcs[1] == K(2) && pcs[2] == 0x401000 &&
		       pcs[4] == 0x403000 && pdata__header(p)->truncated == 0,
	       "n=%d pc=%#llx truncated=%llu", n, (unsigned long long)o.pc,
	       (unsigned long long)pdata__header(p)->truncated);
	stacks__free(st);
	pdata__close(p);
}

static void test_fp_depth_limit(void)
{
	uint64_t chain[301];
	struct perf_event_attr a = {.exclude_kernel = 1};
	struct perf_sample s = {.ip = 0x400000, .pid = 7, .tid = 8, .callchain = chain};
	struct pdata *p = new_profile("fpd");
	struct stacks *st = NULL;
	uint64_t pcs[PDATA_MAX_DEPTH];
	struct one o;
	int n;

	chain[0] = CTX_USER;
	for (int i = 1; i < 301; i++)
		chain[i] = 0x400000 + (uint64_t)i * 16 - 16;
	s.nr = 301; /* 300 user entries: more than a stack keeps (PDATA_MAX_DEPTH) */
	if (!p || stacks__new(&st, PDATA_CG_FP, 0) < 0) {
		CHECK("fp_depth_setup", 0);
		return;
	}
	stacks__fill_attr(st, &a);
	CHECK("fp_attr_user_only", a.exclude_callchain_kernel == 1);
	stacks__count(st, p, 1, &s);
	n = read_stack(p, pcs, PDATA_MAX_DEPTH, &o);
	CHECKF("fp_depth_limit_truncated",
	       n == PDATA_MAX_DEPTH && pcs[0] == 0x400000 && pcs[n - 1] == PDATA_PC_TRUNCATED &&
		       pdata__header(p)->truncated == 1,
	       "n=%d last=%#llx truncated=%llu", n, n > 0 ? (unsigned long long)pcs[n - 1] : 0,
	       (unsigned long long)pdata__header(p)->truncated);
	stacks__free(st);
	pdata__close(p);
}

static void test_dwarf_without_regs(void)
{
	const uint64_t chain[] = {CTX_KERNEL, K(5), K(6)};
	struct perf_event_attr a = {.exclude_kernel = 0};
	struct perf_sample user = {.ip = 0x401000, .pid = 7, .tid = 8};
	struct perf_sample kthread = {.ip = K(5), .pid = 7, .tid = 8, .callchain = chain, .nr = 3};
	struct perf_sample compat = {
		.ip = 0x8048000, .pid = 7, .tid = 8, .abi = PERF_SAMPLE_REGS_ABI_32};
	struct pdata *p1 = new_profile("dw1"), *p2 = new_profile("dw2"), *p3 = new_profile("dw3");
	struct stacks *st = NULL;
	uint64_t pcs[16];
	struct one o;
	int n;

	if (!p1 || !p2 || !p3 || stacks__new(&st, PDATA_CG_DWARF, 0) < 0) {
		CHECK("dwarf_setup", 0);
		return;
	}
	stacks__fill_attr(st, &a);
	CHECK("dwarf_attr",
	      (a.sample_type & PERF_SAMPLE_REGS_USER) && (a.sample_type & PERF_SAMPLE_STACK_USER) &&
		      a.sample_regs_user == UNWIND_REGS_MASK && a.sample_stack_user == 16384 &&
		      (a.sample_type & PERF_SAMPLE_CALLCHAIN) && a.exclude_callchain_user);
	stacks__count(st, p1, 1, &user);
	n = read_stack(p1, pcs, 16, &o);
	CHECKF("dwarf_no_regs_pc_alone_truncated",
	       n == 2 && pcs[0] == 0x401000 && pcs[1] == PDATA_PC_TRUNCATED &&
		       pdata__header(p1)->truncated == 1,
	       "n=%d", n);
	stacks__count(st, p2, 1, &kthread);
	n = read_stack(p2, pcs, 16, &o);
	CHECKF("dwarf_kernel_only_complete",
	       n == 2 && pcs[0] == K(5) && pcs[1] == K(6) && pdata__header(p2)->truncated == 0,
	       "n=%d", n);
	stacks__count(st, p3, 1, &compat);
	n = read_stack(p3, pcs, 16, &o);
	CHECKF("dwarf_32bit_truncated",
	       n == 2 && pcs[0] == 0x8048000 && pdata__header(p3)->truncated == 1, "n=%d", n);
	{
		struct stacks_stats ss;

		stacks__stats(st, &ss);
		CHECKF("dwarf_stats", ss.samples == 3 && ss.truncated == 2 && ss.no_regs == 2,
		       "samples=%llu truncated=%llu no_regs=%llu", (unsigned long long)ss.samples,
		       (unsigned long long)ss.truncated, (unsigned long long)ss.no_regs);
	}
	stacks__free(st);
	pdata__close(p1);
	pdata__close(p2);
	pdata__close(p3);
}

static void test_bad_modes(void)
{
	struct stacks *st = NULL;

	CHECK("new_refuses_none", stacks__new(&st, PDATA_CG_NONE, 0) == -EINVAL);
	CHECK("new_refuses_odd_size", stacks__new(&st, PDATA_CG_DWARF, 1001) == -EINVAL);
	CHECK("new_refuses_huge_size", stacks__new(&st, PDATA_CG_DWARF, 65536) == -EINVAL);
}

/* One PC under thousands of stacks (a leaf called from everywhere) fills the table evenly. */
static int sum_counts(void *arg, const struct pdata_sample *s)
{
	*(uint64_t *)arg += s->count;
	return 0;
}

static void test_one_pc_many_stacks(void)
{
	struct pdata_create_opts o = {
		.table_slots = 4096, .frame_slots = 8192, .records_cap = 65536};
	char path[256];
	struct pdata *p = create_profile("many", &o, path, sizeof(path));
	uint64_t total = 0;

	if (!p) {
		CHECK("many_stacks_setup", 0);
		return;
	}
	for (uint64_t i = 0; i < 2000; i++) {
		uint64_t pcs[3] = {0x401000, 0x500000 + i * 16, 0x600000};

		pdata__count_stack(p, 1, 1, pcs, 3, 0, 1);
	}
	pdata__foreach_sample(p, sum_counts, &total);
	CHECKF("one_pc_many_stacks_all_counted",
	       total == 2000 && pdata__header(p)->dropped == 0 &&
		       pdata__header(p)->stacks_dropped == 0,
	       "counted %llu of 2000, dropped %llu, stacks dropped %llu", (unsigned long long)total,
	       (unsigned long long)pdata__header(p)->dropped,
	       (unsigned long long)pdata__header(p)->stacks_dropped);
	pdata__close(p);
}

static struct pdata *shared;

/* Every sample's stack reads back: its PC, then its caller. */
static int check_two_frames(void *arg, const struct pdata_sample *s)
{
	uint64_t pcs[4];
	int n = pdata__stack(shared, s->stack, pcs, 4);

	*(int *)arg += n != 2 || pcs[0] != s->pc || pcs[1] < 0x500000;
	return 0;
}

/* Compaction packs the tables densely (to the next power of two above 1.125x) and loses nothing. */
static void test_compact_dense(void)
{
	struct pdata_create_opts o = {
		.table_slots = 16384, .frame_slots = 16384, .records_cap = 65536};
	char path[256], why[256];
	struct pdata *p = create_profile("dense", &o, path, sizeof(path));
	uint64_t total = 0;
	int bad = 0;

	if (!p) {
		CHECK("dense_setup", 0);
		return;
	}
	/* 3600 distinct stacks of 2 frames: 3600 slots (of 4096), 3601 frame nodes */
	for (uint64_t i = 0; i < 3600; i++) {
		uint64_t st[2] = {0x401000 + (i % 7) * 4, 0x500000 + i * 16};

		pdata__count_stack(p, 1, 1, st, 2, 0, 1);
	}
	if (pdata__finish(p) < 0 || pdata__compact(p, path, why, sizeof(why)) < 0) {
		CHECKF("dense_compact", 0, "%s", why);
		pdata__close(p);
		return;
	}
	pdata__close(p);
	if (pdata__open(&p, path, 0, why, sizeof(why)) < 0) {
		CHECKF("dense_reopen", 0, "%s", why);
		return;
	}
	pdata__foreach_sample(p, sum_counts, &total);
	shared = p;
	pdata__foreach_sample(p, check_two_frames, &bad);
	CHECKF("compact_dense_and_complete",
	       total == 3600 && pdata__header(p)->dropped == 0 &&
		       pdata__header(p)->table_slots == 4096 &&
		       pdata__header(p)->frame_slots == 8192 && !bad,
	       "counted %llu of 3600, dropped %llu, %u slots, %u frame slots, %d bad stacks",
	       (unsigned long long)total, (unsigned long long)pdata__header(p)->dropped,
	       pdata__header(p)->table_slots, pdata__header(p)->frame_slots, bad);
	pdata__close(p);
}

static void remove_dir(void)
{
	const char *names[] = {"fpk", "fpd", "dw1", "dw2", "dw3", "many", "dense", "dense.old"};
	char path[256];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_parse_all_fields();
	test_parse_lies();
	test_callchain_sections();
	test_bad_modes();
	if (!mkdtemp(dir)) {
		CHECK("mkdtemp", 0);
		return CHECK_DONE();
	}
	test_fp_with_kernel();
	test_fp_depth_limit();
	test_dwarf_without_regs();
	test_one_pc_many_stacks();
	test_compact_dense();
	remove_dir();
	return CHECK_DONE();
}
