// SPDX-License-Identifier: MIT
/*
 * report_synth OUT MODE [N]: writes a profile with known numbers through the
 * pdata API, for the tests of the whole run's view, the kernel's and the
 * short processes' time (tests/e2e/report_view.sh).  Like report_gen it
 * samples its own functions at their real addresses (its maps come from
 * /proc/self/maps), so names are exact.  Period 1 ms: N samples are N ms.
 *
 * Modes acct (perf clock, kernel not sampled: accounted), thread (thread
 * clock: the kernel invisible), ksampled (kernel sampled, named by ksym
 * records), attach (acct, recorded by attaching):
 *   root image, pid = this process, comm "synth":
 *     main thread "synth":  CPU 500 ms (user 400, system 100);
 *                           hot_a 300, hot_b 90 (ksampled: + kernel 80 in
 *                           do_syscall_64, 20 in clear_page_erms)
 *     thread "worker":      CPU 250 ms (user 200, system 50); hot_c 200
 *                           (ksampled: + kernel 50 in do_syscall_64)
 *   child image (forked, renamed "cruncher"): CPU 200 ms (user 150, system
 *     50); hot_b 100, hot_d 50 (ksampled: + kernel 50 in do_syscall_64)
 *   100 short processes: a fork of the root (no thread record: it is
 *     "synth"), CPU 0.3 ms (user 0.1, system 0.2), then its exec of
 *     /usr/bin/true ("true"), CPU 0.6 ms (user 0.2, system 0.4); no samples
 *   the tree: 1040 ms (user 780, system 260); throttled 3, lost 2
 * Mode hostile: a command, thread names and an executable path with
 *   newlines, quotes, backslashes and tabs; 1 sample.
 * Mode many N: the root and N images (each with its own maps and thread,
 *   3 samples), for the memory bound.
 * Prints "key value" lines: pid, worker, kid, short_first (the pid of the
 * first short process), exe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "profile_fixture.h"

#define MS 1000000ull
#define SHORT_PROCS 100
#define SHORT_PID0 4000000
#define KSYM_SYSCALL 0xffffffff81000000ull
#define KSYM_CLEAR 0xffffffff81001000ull

FIXTURE_WORK(hot_a, 0);
FIXTURE_WORK(hot_b, 1);
FIXTURE_WORK(hot_c, 2);
FIXTURE_WORK(hot_d, 3);

static struct pdata_cpu cpu(uint64_t user, uint64_t sys)
{
	return (struct pdata_cpu){user + sys, user, sys};
}

static void thread_cpu(struct pdata_thread *t, uint64_t user, uint64_t sys)
{
	struct pdata_cpu c = cpu(user, sys);

	pdata__thread_cpu(t, &c);
}

static void end_proc(struct pdata_proc *p, int kind, int code, uint64_t user, uint64_t sys)
{
	struct pdata_cpu c = cpu(user, sys);

	pdata__end_proc(p, kind, code, pdata__now_ns(), &c);
}

static void short_processes(struct pdata *pd, uint32_t root, const char *exe)
{
	for (int i = 0; i < SHORT_PROCS; i++) {
		int pid = SHORT_PID0 + i;
		struct pdata_proc *f =
			pdata__add_proc(pd, pid, getpid(), root, exe, pdata__now_ns());
		struct pdata_proc *e;
		struct pdata_thread *t;

		end_proc(f, PDATA_END_EXEC, 0, MS / 10, MS / 5);
		e = pdata__add_proc(pd, pid, getpid(), f->id, "/usr/bin/true", pdata__now_ns());
		t = pdata__add_thread(pd, e->id, pid, "true");
		thread_cpu(t, MS / 5, 2 * MS / 5);
		end_proc(e, PDATA_END_EXITED, 0, MS / 5, 2 * MS / 5);
	}
}

static void kernel_syms(struct pdata *pd)
{
	pdata__add_ksym(pd, KSYM_SYSCALL, 0x1000, "do_syscall_64");
	pdata__add_ksym(pd, KSYM_CLEAR, 0x100, "clear_page_erms");
}

static int accounting(struct pdata *pd, const char *mode, const char *exe)
{
	struct pdata_header *h = pdata__header(pd);
	int me = getpid(), tid = gettid(), ks = !strcmp(mode, "ksampled");
	struct pdata_proc *root, *kid;
	struct pdata_thread *tm, *tw, *tk;
	pid_t k;
	int status, worker_tid;

	h->clock = !strcmp(mode, "thread") ? PDATA_CLOCK_THREAD : PDATA_CLOCK_PERF;
	h->flags = PDATA_F_INHERIT | (ks ? PDATA_F_KERNEL : 0) |
		   (!strcmp(mode, "attach") ? PDATA_F_ATTACH : 0);
	root = pdata__add_proc(pd, me, getppid(), 0, exe, pdata__now_ns());
	fixture__own_maps(pd, root->id, NULL, NULL);
	if (ks)
		kernel_syms(pd);
	worker_tid = fixture__thread(NULL, NULL);
	tm = pdata__add_thread(pd, root->id, tid, "synth");
	tw = pdata__add_thread(pd, root->id, worker_tid, "worker");
	thread_cpu(tm, 400 * MS, 100 * MS);
	thread_cpu(tw, 200 * MS, 50 * MS);
	pdata__count(pd, root->id, tid, (uint64_t)hot_a + 1, 300);
	pdata__count(pd, root->id, tid, (uint64_t)hot_b + 1, 90);
	pdata__count(pd, root->id, worker_tid, (uint64_t)hot_c + 1, 200);
	if (ks) {
		pdata__count(pd, root->id, tid, KSYM_SYSCALL + 0x10, 80);
		pdata__count(pd, root->id, tid, KSYM_CLEAR + 0x8, 20);
		pdata__count(pd, root->id, worker_tid, KSYM_SYSCALL + 0x20, 50);
	}

	k = fork();
	if (k == 0)
		_exit(0);
	waitpid(k, &status, 0);
	kid = pdata__add_proc(pd, k, me, root->id, exe, pdata__now_ns());
	tk = pdata__add_thread(pd, kid->id, k, "cruncher");
	thread_cpu(tk, 150 * MS, 50 * MS);
	pdata__count(pd, kid->id, k, (uint64_t)hot_b + 2, 100);
	pdata__count(pd, kid->id, k, (uint64_t)hot_d + 1, 50);
	if (ks)
		pdata__count(pd, kid->id, k, KSYM_SYSCALL + 0x30, 50);
	end_proc(kid, PDATA_END_EXITED, 0, 150 * MS, 50 * MS);

	short_processes(pd, root->id, exe);
	end_proc(root, PDATA_END_EXITED, 0, 600 * MS, 150 * MS);
	h->cpu_ns = 1040 * MS;
	h->user_ns = 780 * MS;
	h->sys_ns = 260 * MS;
	h->throttled = 3;
	h->lost = 2;
	printf("pid %d\nworker %d\nkid %d\nshort_first %d\n", me, worker_tid, k, SHORT_PID0);
	return 0;
}

static int hostile(struct pdata *pd, const char *exe)
{
	struct pdata_header *h = pdata__header(pd);
	struct pdata_proc *root;
	char bad_exe[4200];

	snprintf(h->command, sizeof(h->command),
		 "sh -c 'printf \"a\\nb\"'\n# injected: line\t\"quoted\" back\\slash \x01 end");
	snprintf(h->clock_note, sizeof(h->clock_note), "note\n# injected note");
	snprintf(bad_exe, sizeof(bad_exe), "%s\n# injected exe", exe);
	root = pdata__add_proc(pd, getpid(), getppid(), 0, bad_exe, pdata__now_ns());
	fixture__own_maps(pd, root->id, NULL, NULL);
	pdata__add_thread(pd, root->id, gettid(), "a\n# b,\"c\"");
	pdata__count(pd, root->id, gettid(), (uint64_t)hot_a + 1, 1);
	end_proc(root, PDATA_END_EXITED, 0, MS, 0);
	printf("pid %d\n", getpid());
	return 0;
}

static int many(struct pdata *pd, const char *exe, int n)
{
	struct pdata_header *h = pdata__header(pd);
	struct pdata_proc *root = pdata__add_proc(pd, getpid(), getppid(), 0, exe, pdata__now_ns());
	fixture__own_maps(pd, root->id, NULL, NULL);
	for (int i = 0; i < n; i++) {
		struct pdata_proc *p = pdata__add_proc(pd, SHORT_PID0 + i, getpid(), root->id, exe,
						       pdata__now_ns());
		char comm[16];

		if (!p) {
			fprintf(stderr, "report_synth: the records area is full at image %d\n", i);
			return 1;
		}
		fixture__own_maps(pd, p->id, NULL, NULL);
		snprintf(comm, sizeof(comm), "img%d", i % 50);
		thread_cpu(pdata__add_thread(pd, p->id, SHORT_PID0 + i, comm), 2 * MS, MS);
		pdata__count(pd, p->id, SHORT_PID0 + i, (uint64_t)hot_a + 1, 2);
		pdata__count(pd, p->id, SHORT_PID0 + i, (uint64_t)hot_b + 1 + (i % 7), 1);
		end_proc(p, PDATA_END_EXITED, 0, 2 * MS, MS);
	}
	end_proc(root, PDATA_END_EXITED, 0, 0, 0);
	h->cpu_ns = (uint64_t)n * 3 * MS;
	printf("pid %d\n", getpid());
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";
	int n = argc > 3 ? atoi(argv[3]) : 0;
	struct pdata_create_opts opts = {.table_slots = 1u << 16, .records_cap = 8u << 20};
	const char *exe = fixture__exe();
	struct pdata *pd;
	char command[256];
	struct fixture_header gen;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: report_synth OUT acct|thread|ksampled|attach|hostile|many "
				"[N]\n");
		return 2;
	}
	if (n > 0)
		opts.records_cap = (uint64_t)(n + 16) * 4096;
	snprintf(command, sizeof(command), "report_synth %s", mode);
	gen = (struct fixture_header)FIXTURE_GEN_HEADER(1000, command, "synthetic profile", opts);
	if (fixture__generator(&pd, argv[1], &gen, "report_synth", "synth") < 0)
		return 1;
	if (!strcmp(mode, "hostile"))
		rc = hostile(pd, exe);
	else if (!strcmp(mode, "many"))
		rc = many(pd, exe, n);
	else
		rc = accounting(pd, mode, exe);
	printf("exe %s\n", exe);
	hot_a(1), hot_b(1), hot_c(1), hot_d(1);
	if (rc) {
		pdata__close(pd);
		return 1;
	}
	return fixture__finish(pd, PDATA_END_EXITED, 0) < 0;
}
