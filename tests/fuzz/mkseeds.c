// SPDX-License-Identifier: MIT
/*
 * mkseeds DIR: the seed corpus of the profile fuzz target
 * (tests/fuzz/corpus/profile/), written with the pdata API itself: small
 * tables (16-64 slots) so that every file stays under 16 KiB, mappings of
 * binaries every Debian system has (/usr/bin/true, /usr/bin/env: small, so
 * that a run is fast; the ELF target covers big objects), a pseudo mapping,
 * a missing file, forks, an exec, a sample of a process without a record,
 * duplicated keys, a count beyond gprof's 65535, mapping generations.  Not
 * part of the build:
 *   cc -I. -Iinclude -o mkseeds tests/fuzz/mkseeds.c profile/pdata.c utils/outfile.c \
 *	utils/why.c utils/htab.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/pdata.h"

#define TRUE_BIN "/usr/bin/true"
#define ENV_BIN "/usr/bin/env"
#define EXE_AT 0x555555554000ull
#define ENV_AT 0x7ffff7dd0000ull

static struct pdata *start_frames(const char *dir, const char *name, uint32_t slots,
				  uint32_t frames)
{
	struct pdata_create_opts o = {
		.table_slots = slots, .frame_slots = frames, .records_cap = 4096};
	struct pdata *p;
	char path[512], why[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	if (pdata__create(&p, path, &o, why, sizeof(why)) < 0) {
		fprintf(stderr, "mkseeds: %s\n", why);
		exit(1);
	}
	pdata__header(p)->clock = PDATA_CLOCK_PERF;
	pdata__header(p)->nominal_hz = 997;
	pdata__header(p)->period_ns = 1000000;
	snprintf(pdata__header(p)->command, sizeof(pdata__header(p)->command), "%s", TRUE_BIN);
	return p;
}

static struct pdata *start(const char *dir, const char *name, uint32_t slots)
{
	return start_frames(dir, name, slots, 0);
}

static void maps(struct pdata *p, uint32_t proc)
{
	pdata__add_map(p, proc, EXE_AT + 0x2000, EXE_AT + 0x6000, 0x2000, PROT_READ | PROT_EXEC,
		       TRUE_BIN, NULL, 0);
	pdata__add_map(p, proc, ENV_AT + 0x2000, ENV_AT + 0x6000, 0x2000, PROT_READ | PROT_EXEC,
		       ENV_BIN, (const uint8_t *)"\x01\x02\x03\x04", 4);
	pdata__add_map(p, proc, 0x7ffff7fc1000ull, 0x7ffff7fc3000ull, 0, PROT_READ | PROT_EXEC,
		       "[vdso]", NULL, 0);
	pdata__add_map(p, proc, 0x7ffff7000000ull, 0x7ffff7010000ull, 0, PROT_READ | PROT_EXEC,
		       "/nonexistent/libgone.so", NULL, 0);
}

static void finish(struct pdata *p, int complete)
{
	if (complete)
		pdata__finish(p);
	pdata__close(p);
}

int main(int argc, char **argv)
{
	struct pdata_proc *a, *b, *c, *d;
	struct pdata *p;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	/* one process, two threads, every kind of mapping */
	p = start(argv[1], "basic", 32);
	a = pdata__add_proc(p, 100, 1, 0, TRUE_BIN, pdata__now_ns());
	pdata__add_thread(p, a->id, 100, "true");
	pdata__add_thread(p, a->id, 101, "worker");
	maps(p, a->id);
	pdata__count(p, a->id, 100, EXE_AT + 0x2400, 40);
	pdata__count(p, a->id, 100, EXE_AT + 0x3010, 25);
	pdata__count(p, a->id, 101, ENV_AT + 0x2100, 12);
	pdata__count(p, a->id, 101, 0x7ffff7fc1900ull, 3);
	pdata__count(p, a->id, 100, 0x7ffff7000100ull, 2);
	pdata__count(p, a->id, 100, 0x10, 1); /* no mapping */
	pdata__end_proc(a, PDATA_END_EXITED, 0, 2,
			&(struct pdata_cpu){65000000, 60000000, 5000000});
	finish(p, 1);

	/* fork, exec, a process with no record, a run cut short */
	p = start(argv[1], "tree", 64);
	a = pdata__add_proc(p, 200, 1, 0, TRUE_BIN, pdata__now_ns());
	maps(p, a->id);
	b = pdata__add_proc(p, 201, 200, a->id, TRUE_BIN,
			    pdata__now_ns()); /* fork: inherits a's maps */
	pdata__add_thread(p, b->id, 201, "child");
	c = pdata__add_proc(p, 201, 200, b->id, ENV_BIN, pdata__now_ns()); /* exec of b */
	pdata__end_proc(b, PDATA_END_EXEC, 0, 3, &(struct pdata_cpu){1000, 0, 0});
	d = pdata__add_proc(p, 202, 200, a->id, TRUE_BIN, pdata__now_ns());
	pdata__end_proc(d, PDATA_END_SIGNALED, 9, 5, &(struct pdata_cpu){2000, 1000, 1000});
	pdata__count(p, a->id, 200, EXE_AT + 0x2800, 30);
	pdata__count(p, b->id, 201, EXE_AT + 0x2810, 20);
	pdata__count(p, c->id, 201, EXE_AT + 0x2820, 7);
	pdata__count(p, d->id, 202, ENV_AT + 0x3000, 9);
	pdata__count(p, 77, 777, EXE_AT + 0x2830, 5); /* proc 77 has no record */
	finish(p, 0);

	/* duplicated keys and a bin beyond 65535 (gmon writes extra records) */
	p = start(argv[1], "counts", 16);
	a = pdata__add_proc(p, 300, 1, 0, TRUE_BIN, pdata__now_ns());
	maps(p, a->id);
	pdata__count(p, a->id, 300, EXE_AT + 0x2400, 70000);
	pdata__count(p, a->id, 300, EXE_AT + 0x2402, 100);
	pdata__count(p, a->id, 300, EXE_AT + 0x2402, 50);
	pdata__count(p, a->id, 300, ENV_AT + 0x2500, 65535);
	pdata__header(p)->root_pid = 300;
	finish(p, 1);

	/* a count far beyond what gmon's bins hold (the fuzzer found its overflow) */
	p = start(argv[1], "regress-gmon-huge-count", 16);
	a = pdata__add_proc(p, 400, 1, 0, TRUE_BIN, pdata__now_ns());
	maps(p, a->id);
	pdata__count(p, a->id, 400, EXE_AT + 0x2400, 0xfffffffffff00000ull);
	finish(p, 1);

	/* call stacks (one cut short), kernel frames and their names, threads' CPU time */
	p = start_frames(argv[1], "stacks", 32, 64);
	pdata__header(p)->flags |= PDATA_F_KERNEL;
	pdata__header(p)->callgraph = PDATA_CG_DWARF;
	a = pdata__add_proc(p, 500, 1, 0, TRUE_BIN, pdata__now_ns());
	pdata__thread_cpu(pdata__add_thread(p, a->id, 500, "true"),
			  &(struct pdata_cpu){30000000, 20000000, 10000000});
	maps(p, a->id);
	pdata__add_ksym(p, 0xffffffff81000000ull, 0x200, "do_syscall_64");
	pdata__add_ksym(p, 0xffffffff81000200ull, 0, "read_zero [mem]");
	{
		uint64_t s1[] = {EXE_AT + 0x2400, EXE_AT + 0x3010, EXE_AT + 0x2020};
		uint64_t s2[] = {0xffffffff81000210ull, 0xffffffff81000010ull, ENV_AT + 0x2100,
				 EXE_AT + 0x2020};
		uint64_t s3[] = {EXE_AT + 0x2500, EXE_AT + 0x3010};

		pdata__count_stack(p, a->id, 500, s1, 3, 0, 17);
		pdata__count_stack(p, a->id, 500, s2, 4, 0, 9);
		pdata__count_stack(p, a->id, 500, s3, 2, 1, 4);
	}
	finish(p, 1);

	/* mapping generations (format 4): env's text where true's was, then a damaged generation */
	p = start_frames(argv[1], "generations", 32, 64);
	a = pdata__add_proc(p, 600, 1, 0, TRUE_BIN, pdata__now_ns());
	maps(p, a->id);
	{
		uint64_t s1[] = {EXE_AT + 0x2400, EXE_AT + 0x3010};
		struct pdata_gen *g = pdata__add_gen(p, a->id, 1, pdata__now_ns());

		pdata__count_stack(p, a->id, 600, s1, 2, 0, 11);
		pdata__add_map(p, g->id, EXE_AT + 0x2000, EXE_AT + 0x6000, 0x2000,
			       PROT_READ | PROT_EXEC, ENV_BIN, NULL, 0);
		pdata__count_stack(p, g->id, 600, s1, 2, 0, 13);
		pdata__count(p, g->id, 601, EXE_AT + 0x2100, 2);
		g = pdata__add_gen(p, 4242, 2, pdata__now_ns()); /* no such image */
		pdata__count(p, g->id, 600, EXE_AT + 0x2100, 1);
	}
	finish(p, 1);
	return 0;
}
