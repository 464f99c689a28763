// SPDX-License-Identifier: MIT
/*
 * profile/pview: a profile written by hand through the pdata API, read
 * back: the header, processes (forks, an exec, a placeholder for samples
 * without a proc record), threads merged per tid, maps sorted and looked
 * up through a fork's parent but not across an exec, samples summed by
 * (proc, tid, pc, stack) including slots duplicated by racing writers,
 * stacks as PC lists shared by equal lists, a cut-short stack, a damaged
 * node chain counted flat, kernel symbols; malformed records skipped and
 * counted (thousands of them, and a damaged size that ends the walk);
 * a file cut short or with a wrapped offset: one sentence, no crash;
 * counts whose sums exceed 2^64 saturate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "profile/pview.h"
#include "profile_fixture.h"

#define KTEXT 0xffffffff81000000ull
#define PID 1000

/* The frame node id of the (first) sample at (proc, tid, pc) that has a stack. */
struct node_query {
	uint32_t proc;
	int tid;
	uint64_t pc;
	uint32_t node;
};

static int find_node(void *arg, const struct pdata_sample *s)
{
	struct node_query *q = arg;

	if (s->proc == q->proc && s->tid == q->tid && s->pc == q->pc && s->stack) {
		q->node = s->stack;
		return 1;
	}
	return 0;
}

/* Make node id's parent itself: a loop, as only a damaged file has. */
static void loop_node(struct pdata *pd, uint32_t id)
{
	struct pdata_header *h = pdata__header(pd);
	struct pdata_frame *frames = (struct pdata_frame *)((char *)h + h->frames_off);

	frames[id - 1].parent = PDATA_FRAME_READY | id;
}

static const struct fixture_header hdr = {
	.clock = PDATA_CLOCK_PERF,
	.period_ns = FIXTURE_MS,
	.nominal_hz = 1000,
	.callgraph = PDATA_CG_FP,
	.command = "prog-a --flag",
	.note = "written by test_pview",
	.create = {.table_slots = 256, .frame_slots = 256, .records_cap = 1 << 16},
};

/*
 * Images: 1 pid 1000 /bin/prog-a (maps, threads 100 and 101); 2 pid 1001
 * forked from it, ended by exec; 3 pid 1001 /bin/true, the exec; 4 pid
 * 1002 forked from 1 (no maps); samples of proc 9, which has no record.
 * Malformed: a thread of proc 77, a map that ends before it starts, a
 * kernel symbol in user space, a proc of id 0, a record of type 99, a
 * second record of proc id 1 (6 in all).
 */
static int write_profile(const char *path, char *why, size_t whylen)
{
	static const uint8_t bid[4] = {0xde, 0xad, 0xbe, 0xef};
	struct pdata *pd;
	struct pdata_proc *a, *b, *bad;
	struct pdata_thread *t;
	struct pdata_cpu cpu5 = {5 * FIXTURE_MS, 4 * FIXTURE_MS, FIXTURE_MS};
	struct node_query q = {1, 102, 0x1050, 0};
	int rc = fixture__create(&pd, path, &hdr, why, whylen);

	if (rc < 0)
		return rc;
	a = pdata__add_proc(pd, PID, 1, 0, "/bin/prog-a", 111);
	b = pdata__add_proc(pd, PID + 1, PID, a->id, "/bin/prog-a", 222);
	pdata__end_proc(b, PDATA_END_EXEC, 0, 333, NULL);
	pdata__add_proc(pd, PID + 1, PID, b->id, "/bin/true", 333);
	pdata__add_proc(pd, PID + 2, PID, a->id, "/bin/prog-a", 444);
	/* out of order: the view sorts them */
	pdata__add_map(pd, a->id, 0x5000, 0x6000, 0x1000, PROT_READ | PROT_EXEC, "/lib/libx.so",
		       bid, sizeof(bid));
	pdata__add_map(pd, a->id, 0x1000, 0x2000, 0, PROT_READ | PROT_EXEC, "/bin/prog-a", NULL, 0);
	pdata__add_thread(pd, a->id, 101, "worker");
	pdata__add_thread(pd, a->id, 100, "main");
	t = pdata__add_thread(pd, a->id, 101, "renamed");
	pdata__thread_cpu(t, &cpu5);
	pdata__add_thread(pd, a->id, 101, "last"); /* the last name, the largest CPU time */
	pdata__add_ksym(pd, KTEXT + 0x200, 0, "k_nosize");
	pdata__add_ksym(pd, KTEXT, 0x100, "k_sized");

	pdata__add_thread(pd, 77, 7, "orphan");
	pdata__add_map(pd, a->id, 0x3000, 0x3000, 0, PROT_READ | PROT_EXEC, "/empty", NULL, 0);
	pdata__add_ksym(pd, 0x1000, 16, "user_space");
	pdata__add_proc(pd, 5, 1, 0, "/bin/zero", 0)->id = 0;
	pdata__add_proc(pd, 6, 1, 0, "/bin/typeless", 0)->rec.type = 99;
	bad = pdata__add_proc(pd, 7, 1, 0, "/bin/impostor", 0);
	bad->id = a->id;

	pdata__count(pd, 1, 100, 0x1010, 5);
	pdata__count(pd, 1, 100, 0x1010, 7);
	fixture__duplicate_slot(pd, 1, 100, 0x1010, 3);
	pdata__count_stack(pd, 1, 100, (const uint64_t[]){0x1010, 0x1020, 0x1030}, 3, 0, 4);
	pdata__count_stack(pd, 1, 100, (const uint64_t[]){0x1010, 0x1020, 0x1030}, 3, 0, 6);
	pdata__count_stack(pd, 1, 101, (const uint64_t[]){0x1010, 0x1020, 0x1030}, 3, 0, 2);
	pdata__count_stack(pd, 1, 100, (const uint64_t[]){0x1018, 0x1040}, 2, 1, 1);
	pdata__count_stack(pd, 1, 100, (const uint64_t[]){KTEXT + 0x10, 0x1010, 0x1030}, 3, 0, 2);
	pdata__count_stack(pd, 1, 102, (const uint64_t[]){0x1050, 0x1060}, 2, 0, 3);
	pdata__count(pd, 3, PID + 1, 0x1010, 9);
	pdata__count(pd, 4, PID + 2, 0x1010, 20);
	pdata__count(pd, 9, 900, 0x1234, 11);
	pdata__foreach_sample(pd, find_node, &q);
	if (q.node)
		loop_node(pd, q.node);
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

static const struct pv_sample *sample(const struct pview *v, uint32_t proc, int tid, uint64_t pc,
				      uint32_t n)
{
	for (size_t i = 0; i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];

		if (s->proc == proc && s->tid == tid && s->pc == pc &&
		    pview__stack(v, s->stack)->n == n)
			return s;
	}
	return NULL;
}

/* The PCs of stack s are want[0..n). */
static int pcs_are(const struct pview *v, const struct pv_stack *s, const uint64_t *want,
		   uint32_t n, int truncated)
{
	uint64_t pcs[PDATA_MAX_DEPTH];

	return s->n == n && s->truncated == truncated &&
	       pview__stack_pcs(v, s, pcs, PDATA_MAX_DEPTH) == n &&
	       !memcmp(pcs, want, n * sizeof(*want));
}

static void test_procs(const struct pview *v)
{
	const struct pv_proc *a = pview__proc(v, 1), *b = pview__proc(v, 2), *c = pview__proc(v, 3);
	const struct pv_proc *d = pview__proc(v, 4), *ph = pview__proc(v, 9);
	const struct pv_thread *t;
	int sorted = 1;

	CHECK("header copied", v->hdr.period_ns == FIXTURE_MS && v->hdr.clock == PDATA_CLOCK_PERF &&
				       v->hdr.state == PDATA_COMPLETE &&
				       !strcmp(v->hdr.command, "prog-a --flag") &&
				       !strcmp(v->hdr.clock_note, "written by test_pview"));
	CHECK("rate from the period", pview__rate_hz(v) == 1000.0);
	CHECKF("five images (one placeholder)", v->nprocs == 5, "%zu", v->nprocs);
	for (size_t i = 1; i < v->nprocs; i++)
		sorted &= v->procs[i - 1].id < v->procs[i].id;
	CHECK("images sorted by id", sorted);
	CHECK("image 1", a && a->pid == PID && a->ppid == 1 && !a->parent &&
				 !strcmp(a->exe, "/bin/prog-a") && a->start_ns == 111 &&
				 !a->placeholder);
	CHECK("image 2: fork, ended by exec", b && b->parent == 1 && b->pid == PID + 1 &&
						      b->end_kind == PDATA_END_EXEC &&
						      b->end_ns == 333);
	CHECK("image 3: the exec", c && c->parent == 2 && !strcmp(c->exe, "/bin/true"));
	CHECK("the duplicate id is not the image", a && strcmp(a->exe, "/bin/impostor"));
	CHECK("placeholder for samples without a proc record",
	      ph && ph->placeholder && ph->pid == 0 && !strcmp(ph->exe, "") && ph->samples == 11);
	CHECK("samples per image", a && a->samples == 33 && c && c->samples == 9 && d &&
					   d->samples == 20 && b && b->samples == 0);
	CHECK("no image 77", !pview__proc(v, 77));

	CHECK("threads merged per tid",
	      a && a->nthreads == 2 && a->threads[0].tid == 100 && a->threads[1].tid == 101);
	t = a ? pv_proc__thread(a, 101) : NULL;
	CHECK("a thread's last name, largest CPU time", t && !strcmp(t->comm, "last") &&
								t->cpu.cpu_ns == 5 * FIXTURE_MS &&
								t->cpu.sys_ns == FIXTURE_MS);
	t = a ? pv_proc__thread(a, 100) : NULL;
	CHECK("thread 100", t && !strcmp(t->comm, "main") && t->cpu.cpu_ns == 0);
	CHECK("no thread 102", a && !pv_proc__thread(a, 102));
}

static void test_maps(const struct pview *v)
{
	const struct pv_proc *a = pview__proc(v, 1), *c = pview__proc(v, 3), *d = pview__proc(v, 4);
	const struct pv_map *m;

	CHECK("maps sorted, the bad one skipped",
	      a && a->nmaps == 2 && a->maps[0].start == 0x1000 && a->maps[1].start == 0x5000 &&
		      !strcmp(a->maps[0].path, "/bin/prog-a"));
	m = a ? &a->maps[1] : NULL;
	CHECK("map fields", m && m->end == 0x6000 && m->pgoff == 0x1000 &&
				    m->prot == (PROT_READ | PROT_EXEC) && m->build_id_len == 4 &&
				    !memcmp(m->build_id, "\xde\xad\xbe\xef", 4) &&
				    !strcmp(m->path, "/lib/libx.so"));
	CHECK("map_of inside", a && pview__map_of(v, a, 0, 0x1fff) == &a->maps[0] &&
				       pview__map_of(v, a, 0, 0x5000) == &a->maps[1]);
	CHECK("map_of outside", a && !pview__map_of(v, a, 0, 0x2000) &&
					!pview__map_of(v, a, 0, 0xfff) &&
					!pview__map_of(v, a, 0, 0x6000));
	CHECK("a fork child's pc in its parent's map",
	      d && pview__map_of(v, d, 0, 0x1010) == &a->maps[0]);
	CHECK("an exec'd image has none of the previous image's maps",
	      c && !pview__map_of(v, c, 0, 0x1010));
}

static void test_samples(const struct pview *v)
{
	const uint64_t abc[] = {0x1010, 0x1020, 0x1030}, cut[] = {0x1018, 0x1040},
		       kern[] = {KTEXT + 0x10, 0x1010, 0x1030};
	const struct pv_sample *flat = sample(v, 1, 100, 0x1010, 0);
	const struct pv_sample *st = sample(v, 1, 100, 0x1010, 3);
	const struct pv_sample *other = sample(v, 1, 101, 0x1010, 3);
	const struct pv_sample *tr = sample(v, 1, 100, 0x1018, 2);
	const struct pv_sample *k = sample(v, 1, 100, KTEXT + 0x10, 3);
	const struct pv_sample *loop = sample(v, 1, 102, 0x1050, 0);
	int sorted = 1;

	CHECKF("samples merged by (proc, tid, pc, stack)", v->nsamples == 9, "%zu", v->nsamples);
	CHECKF("total", v->total == 73, "%llu", (unsigned long long)v->total);
	for (size_t i = 1; i < v->nsamples; i++) {
		const struct pv_sample *x = &v->samples[i - 1], *y = &v->samples[i];

		sorted &= x->proc < y->proc ||
			  (x->proc == y->proc &&
			   (x->tid < y->tid ||
			    (x->tid == y->tid &&
			     (x->pc < y->pc || (x->pc == y->pc && x->stack < y->stack)))));
	}
	CHECK("samples sorted by (proc, tid, pc, stack)", sorted);
	CHECKF("flat counts and a duplicated slot summed",
	       flat && flat->count == 15 && !flat->stack, "%llu",
	       flat ? (unsigned long long)flat->count : 0ull);
	CHECK("the same stack twice summed", st && st->count == 10);
	CHECK("a stack as its PC list", st && pcs_are(v, pview__stack(v, st->stack), abc, 3, 0));
	CHECK("equal PC lists share one stack",
	      st && other && other->count == 2 && other->stack == st->stack);
	CHECK("a cut-short stack: its PCs, and truncated",
	      tr && tr->count == 1 && pcs_are(v, pview__stack(v, tr->stack), cut, 2, 1));
	CHECK("kernel frames innermost",
	      k && k->count == 2 && pcs_are(v, pview__stack(v, k->stack), kern, 3, 0));
	CHECK("a looping node chain counts flat", loop && loop->count == 3);
	CHECKF("stacks: the empty one and three", v->nstacks == 4, "%zu", v->nstacks);
	CHECK("stack 0 is empty", pview__stack(v, 0)->n == 0 && !pview__stack(v, 0)->truncated);
	CHECK("a stack index out of range is the empty stack", pview__stack(v, 1000)->n == 0);
	CHECK("placeholder's sample",
	      sample(v, 9, 900, 0x1234, 0) && sample(v, 9, 900, 0x1234, 0)->count == 11);
}

static void test_ksyms(const struct pview *v)
{
	const struct pv_ksym *k;

	CHECK("kernel symbols sorted, the user-space one skipped",
	      v->nksyms == 2 && v->ksyms[0].start == KTEXT && v->ksyms[1].start == KTEXT + 0x200);
	k = pview__ksym(v, KTEXT + 0xff);
	CHECK("inside a sized symbol", k && !strcmp(k->name, "k_sized"));
	CHECK("past a sized symbol's end", !pview__ksym(v, KTEXT + 0x100));
	k = pview__ksym(v, KTEXT + 0x123456);
	CHECK("a symbol without a size reaches up to anything", k && !strcmp(k->name, "k_nosize"));
	CHECK("below the first", !pview__ksym(v, KTEXT - 1));
}

/* Thousands of malformed records, then a record whose size is damaged: the walk stops there. */
static void test_bounded(const char *path)
{
	struct fixture_header h = hdr;
	struct pview *v = NULL;
	struct pdata *pd;
	struct pdata_proc *p;
	char why[512] = "";
	int rc;

	h.create.records_cap = 1 << 20;
	unlink(path);
	rc = fixture__create(&pd, path, &h, why, sizeof(why));
	CHECKF("create (bounded)", rc == 0, "%s", why);
	if (rc)
		return;
	p = pdata__add_proc(pd, PID, 1, 0, "/bin/prog-a", 0);
	for (int i = 0; i < 5000; i++)
		pdata__add_thread(pd, 1000 + (uint32_t)i, i, "orphan");
	pdata__add_thread(pd, p->id, 100, "seen");
	pdata__add_thread(pd, p->id, 101, "cut")->rec.size = 4; /* not a record size */
	pdata__add_thread(pd, p->id, 102, "unseen");
	pdata__count(pd, p->id, 100, 0x1000, 1);
	fixture__finish(pd, PDATA_END_EXITED, 0);
	rc = pview__load(&v, path, why, sizeof(why));
	CHECKF("5000 malformed records: loads", rc == 0, "%s", why);
	CHECKF("each counted", v && v->bad_records == 5000, "%zu", v ? v->bad_records : 0);
	CHECK("the good records before a damaged size are kept, none after",
	      v && v->nprocs == 1 && v->procs[0].nthreads == 1 &&
		      v->procs[0].threads[0].tid == 100 && v->total == 1);
	pview__free(v);
}

/* Counts of 2^63 in two slots: every sum saturates, none wraps (a damaged or hostile file). */
static void test_saturation(void)
{
	struct fixture_header h = hdr;
	struct pview *v = NULL;
	struct pdata *pd;
	char path[256], why[512] = "";
	int rc;

	fixture__path(path, sizeof(path), "huge.data");
	rc = fixture__create(&pd, path, &h, why, sizeof(why));
	if (rc == 0) {
		pdata__add_proc(pd, PID, 1, 0, "/bin/prog-a", 0);
		pdata__count(pd, 1, 100, 0x1000, 1ull << 63);
		pdata__count(pd, 1, 101, 0x1000, 1ull << 63);
		fixture__duplicate_slot(pd, 1, 100, 0x1000, 1ull << 63);
		rc = fixture__finish(pd, PDATA_END_EXITED, 0);
	}
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("huge counts: load", rc == 0, "%d %s", rc, why);
	CHECK("huge counts: a sample, an image's and the total saturate",
	      v && v->nsamples == 2 && v->samples[0].count == UINT64_MAX &&
		      v->samples[1].count == 1ull << 63 && v->procs[0].samples == UINT64_MAX &&
		      v->total == UINT64_MAX);
	pview__free(v);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		rc = write(out, buf, (size_t)n) == n ? 0 : -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static int one_sentence(const char *why, const char *path, const char *has)
{
	return !strncmp(why, path, strlen(path)) && strstr(why, has) && !strchr(why, '\n');
}

/* A copy of good, its header field at off set to val (8 bytes). */
static int damaged(const char *good, const char *path, size_t off, uint64_t val)
{
	int fd, rc;

	if (copy_file(good, path) < 0 || (fd = open(path, O_WRONLY)) < 0)
		return -1;
	rc = pwrite(fd, &val, sizeof(val), (off_t)off) == sizeof(val) ? 0 : -1;
	close(fd);
	return rc;
}

static void test_damaged(const char *good)
{
	char path[256], why[512];
	struct pview *v = NULL;
	struct stat st;
	int rc;

	fixture__path(path, sizeof(path), "damaged.data");
	stat(good, &st);
	rc = copy_file(good, path) == 0 ? truncate(path, st.st_size - 4096) : -1;
	why[0] = 0;
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("cut short: -EBADMSG and one sentence",
	       rc == -EBADMSG && !v && one_sentence(why, path, "truncated"), "%d '%s'", rc, why);

	why[0] = 0;
	rc = damaged(good, path, offsetof(struct pdata_header, table_off), UINT64_MAX - 7);
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("wrapped sample table offset: one sentence",
	       rc == -EBADMSG && !v && one_sentence(why, path, "sample table outside"), "%d '%s'",
	       rc, why);

	why[0] = 0;
	rc = damaged(good, path, offsetof(struct pdata_header, records_off),
		     UINT64_MAX - PDATA_HEADER_SIZE + 8);
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("wrapped records offset: one sentence",
	       rc == -EBADMSG && !v && one_sentence(why, path, "records area outside"), "%d '%s'",
	       rc, why);

	why[0] = 0;
	rc = damaged(good, path, offsetof(struct pdata_header, records_used), UINT64_MAX - 3);
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("a wrapped records_used is bounded by the area", rc == 0 && v && v->nprocs == 5,
	       "%d '%s'", rc, why);
	pview__free(v);
	v = NULL;

	why[0] = 0;
	rc = pview__load(&v, "/nonexistent/profil.data", why, sizeof(why));
	CHECKF("missing file: -ENOENT, one sentence",
	       rc == -ENOENT && !v && strstr(why, "/nonexistent/profil.data") && !strchr(why, '\n'),
	       "%d '%s'", rc, why);
}

int main(void)
{
	char path[256], why[512] = "";
	struct pview *v = NULL;
	int rc;

	fixture__path(path, sizeof(path), "pview.data");
	rc = write_profile(path, why, sizeof(why));
	CHECKF("write the profile", rc == 0, "%d %s", rc, why);
	rc = pview__load(&v, path, why, sizeof(why));
	CHECKF("load", rc == 0 && v, "%d %s", rc, why);
	if (!v)
		return CHECK_DONE();
	CHECKF("six malformed records skipped", v->bad_records == 6, "%zu", v->bad_records);
	test_procs(v);
	test_maps(v);
	test_samples(v);
	test_ksyms(v);
	pview__free(v);
	test_damaged(path);
	fixture__path(path, sizeof(path), "bounded.data");
	test_bounded(path);
	test_saturation();
	return CHECK_DONE();
}
