// SPDX-License-Identifier: MIT
/*
 * report_gen OUT [normal|big|huge|lib|incomplete]: writes a profile of ITSELF with
 * the pdata API: its real executable mappings (from /proc/self/maps), a
 * real worker thread, a real forked child, and samples at the real
 * addresses of known functions with known counts, so report and export
 * tests are exact.  Built as PIE, non-PIE, static and stripped (-rdynamic)
 * variants by mk/report-tests.mk.  Prints what the tests need to know as
 * "key value" lines on stdout.
 *
 * Samples (period 1 ms, so N samples are N ms):
 *   main thread: hot_a 300 (100 at its entry, 150 + a duplicated slot of
 *                50 at entry+2), hot_b 200, lib_hot 150, libc 50,
 *                an unmapped pc 10, [vdso] 5
 *   worker thread: hot_c 80
 *   forked child (no maps of its own: inherits the parent's): hot_b 40
 *   second child, which "execs": its first image ends by exec (no samples),
 *   the new image has no maps recorded, so its 7 samples at hot_c's address
 *   must NOT be named through the previous image's maps ([unknown])
 *   "big": hot_d 70000 at one pc (one gmon bin beyond 65535)
 *   "huge": hot_d 65535 x 4096 at one pc: a gmon.out of 4096 histogram
 *   records, some 80 MB, that takes a while to write (the interrupted export)
 *   "lib": lib_hot 5000 more (the library has the most samples)
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "tests/tools/profile_fixture.h"

#define NOINLINE __attribute__((noinline, used))

int lib_hot(int n);
void *lib_hot_addr(void);
int hot_a(int n);
int hot_c(int n);
int hot_d(int n);

static const int hot_a_line = __LINE__ + 1;
NOINLINE int hot_a(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i;
	return acc;
}

NOINLINE static int hot_b(int n)
{
	volatile int acc = 1;

	for (int i = 0; i < n; i++)
		acc *= 3;
	return acc;
}

NOINLINE int hot_c(int n)
{
	volatile int acc = 2;

	for (int i = 0; i < n; i++)
		acc ^= i;
	return acc;
}

NOINLINE int hot_d(int n)
{
	volatile int acc = 3;

	for (int i = 0; i < n; i++)
		acc -= i;
	return acc;
}

/* The GNU build id of the loaded object holding addr (from its PT_NOTE in memory). */
struct id_query {
	uint64_t addr;
	uint8_t id[20];
	unsigned len;
};

static void note_id(struct id_query *q, const char *p, size_t size)
{
	for (size_t off = 0; off + 12 <= size;) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name = off + 12, desc = name + ((namesz + 3) & ~3u);

		if (desc + descsz > size)
			return;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + name, "GNU", 4)) {
			q->len = descsz < sizeof(q->id) ? descsz : sizeof(q->id);
			memcpy(q->id, p + desc, q->len);
			return;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
}

static int find_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct id_query *q = arg;
	int holds = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && q->addr >= info->dlpi_addr + ph->p_vaddr &&
		    q->addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
			holds = 1;
	}
	for (int i = 0; holds && i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			note_id(q, (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
				info->dlpi_phdr[i].p_memsz);
	return holds;
}

/* What the mappings of this process give the samples: libc's and [vdso]'s PCs. */
struct seen_maps {
	uint64_t libc_pc, vdso_pc;
	char *libc_path;
	size_t len;
};

/* Each executable mapping as it is recorded: its build id, and libc's and [vdso]'s PCs. */
static void see_map(void *arg, struct fixture_map *fm)
{
	struct seen_maps *s = arg;
	const struct procmap *m = fm->m;

	/* REPORT_GEN_BUILD_IDS=1: record build ids, as the perf session does */
	if (getenv("REPORT_GEN_BUILD_IDS") && m->path[0] == '/') {
		struct id_query q = {.addr = m->start};

		dl_iterate_phdr(find_id, &q);
		memcpy(fm->build_id, q.id, q.len);
		fm->build_id_len = q.len;
	}
	if (strstr(m->path, "/libc.so")) {
		s->libc_pc = m->start + 0x40;
		snprintf(s->libc_path, s->len, "%s", m->path);
	}
	if (!strcmp(m->path, "[vdso]"))
		s->vdso_pc = m->start + 0x10;
}

static int find_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr; /* the first entry is the main program */
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "normal";
	struct pdata_create_opts opts = {.table_slots = 4096, .records_cap = 1 << 20};
	struct pdata *pd;
	struct pdata_header *h;
	struct pdata_proc *root, *child, *pre, *post;
	uint64_t libc_pc, vdso_pc, bias = 0;
	const char *exe = fixture__exe();
	char libc_path[4096] = "", command[4200];
	struct fixture_header gen;
	struct seen_maps seen = {0, 0, libc_path, sizeof(libc_path)};
	int status, me = getpid(), tid = gettid(), worker_tid;
	pid_t kid, kid2;

	if (argc < 2) {
		fprintf(stderr, "usage: report_gen OUT [normal|big|huge|lib|incomplete]\n");
		return 2;
	}
	snprintf(command, sizeof(command), "report_gen %s %s", argv[1], mode);
	gen = (struct fixture_header)FIXTURE_GEN_HEADER(997, command, "test generator", opts);
	if (fixture__generator(&pd, argv[1], &gen, "report_gen", "report_gen") < 0)
		return 1;
	h = pdata__header(pd);

	root = pdata__add_proc(pd, me, getppid(), 0, exe, pdata__now_ns());
	fixture__own_maps(pd, root->id, see_map, &seen);
	libc_pc = seen.libc_pc;
	vdso_pc = seen.vdso_pc;
	pdata__add_thread(pd, root->id, tid, "report_gen");
	worker_tid = fixture__thread("worker", hot_c);
	pdata__add_thread(pd, root->id, worker_tid, "worker");

	pdata__count(pd, root->id, tid, (uint64_t)hot_a, 100);
	pdata__count(pd, root->id, tid, (uint64_t)hot_a + 2, 100);
	pdata__count(pd, root->id, tid, (uint64_t)hot_a + 2, 50);
	fixture__duplicate_slot(pd, root->id, tid, (uint64_t)hot_a + 2, 50);
	pdata__count(pd, root->id, tid, (uint64_t)hot_b + 1, 200);
	pdata__count(pd, root->id, tid, (uint64_t)lib_hot_addr() + 3, 150);
	if (libc_pc)
		pdata__count(pd, root->id, tid, libc_pc, 50);
	pdata__count(pd, root->id, tid, 0x10, 10);
	if (vdso_pc)
		pdata__count(pd, root->id, tid, vdso_pc, 5);
	pdata__count(pd, root->id, worker_tid, (uint64_t)hot_c + 1, 80);
	if (!strcmp(mode, "big"))
		pdata__count(pd, root->id, tid, (uint64_t)hot_d, 70000);
	if (!strcmp(mode, "huge"))
		pdata__count(pd, root->id, tid, (uint64_t)hot_d, 65535ull * 4096);
	if (!strcmp(mode, "lib"))
		pdata__count(pd, root->id, tid, (uint64_t)lib_hot_addr() + 3, 5000);

	kid = fork();
	if (kid == 0) {
		hot_b(1);
		_exit(3);
	}
	waitpid(kid, &status, 0);
	child = pdata__add_proc(pd, kid, me, root->id, exe, pdata__now_ns());
	pdata__add_thread(pd, child->id, kid, "report_gen");
	pdata__count(pd, child->id, kid, (uint64_t)hot_b + 4, 40);
	pdata__end_proc(child, PDATA_END_EXITED, WEXITSTATUS(status), pdata__now_ns(), NULL);

	kid2 = fork();
	if (kid2 == 0)
		_exit(0);
	waitpid(kid2, &status, 0);
	pre = pdata__add_proc(pd, kid2, me, root->id, exe, pdata__now_ns());
	pdata__end_proc(pre, PDATA_END_EXEC, 0, pdata__now_ns(), NULL);
	post = pdata__add_proc(pd, kid2, me, pre->id, "/bin/true", pdata__now_ns());
	pdata__count(pd, post->id, kid2, (uint64_t)hot_c, 7);
	pdata__end_proc(post, PDATA_END_EXITED, 0, pdata__now_ns(), NULL);

	dl_iterate_phdr(find_bias, &bias);
	printf("pid %d\nchild %d\nexecer %d\ntid %d\nworker %d\nexe %s\n", me, kid, kid2, tid,
	       worker_tid, exe);
	printf("libc %s\nhot_a_line %d\nfile %s\n", libc_path[0] ? libc_path : "none", hot_a_line,
	       __FILE__);
	printf("hot_b_vaddr 0x%llx\n", (unsigned long long)((uint64_t)hot_b - bias));
	hot_a(1);
	lib_hot(1);
	hot_d(1);
	if (!strcmp(mode, "incomplete")) {
		/* the program was SIGKILLed and the recorder died: never finished */
		pdata__end_proc(root, PDATA_END_SIGNALED, 9, pdata__now_ns(), NULL);
		h->end_kind = PDATA_END_SIGNALED;
		h->end_code = 9;
		pdata__close(pd);
		return 0;
	}
	pdata__end_proc(root, PDATA_END_EXITED, 0, pdata__now_ns(), NULL);
	return fixture__finish(pd, PDATA_END_EXITED, 0) < 0;
}
