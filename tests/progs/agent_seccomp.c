// SPDX-License-Identifier: MIT
/*
 * agent_seccomp MODE SECONDS: a program that enters a sandbox halfway (issue
 * 16, item 10), as a hardened service does; the agent must make no system
 * call the sandbox forbids from then on.  It spins SECONDS of CPU time, half
 * before, half after, then says "MODE done" and exits 0.
 *   strict  prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT): read, write, exit and
 *           sigreturn only (its half is spun by iterations, timed before);
 *           ends with write(2) and exit(2)
 *   filter  syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, ...) as libseccomp
 *           does: openat, timer_create and getdents64 kill the process, the
 *           rest is allowed; then a thread is started, which spins too
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The CPU spun before the sandbox, and after it: two functions, so that a profile tells them apart. */
static __attribute__((noinline)) void spin_before(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += i;
}

static __attribute__((noinline)) void spin_after(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink ^= i; /* not spin_before's code: never folded into it */
}

/* Iterations of spin_before (spin_after's twin) per ns of CPU, measured (before a sandbox forbids the clock). */
static double rate(void)
{
	uint64_t t0 = cpu_ns();

	spin_before(20000000);
	return 20000000.0 / (double)(cpu_ns() - t0 + 1);
}

static void spin_for(void (*spin)(uint64_t), uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		spin(100000);
}

static int run_strict(uint64_t ns)
{
	static const char done[] = "strict done\n";
	uint64_t n = (uint64_t)(rate() * (double)ns);

	spin_for(spin_before, ns);
	fflush(stdout);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) < 0)
		return 3;
	spin_after(n);
	if (write(1, done, sizeof(done) - 1) < 0)
		syscall(SYS_exit, 4);
	syscall(SYS_exit, 0);
	return 0;
}

static void *thread_main(void *arg)
{
	spin_for(spin_after, *(uint64_t *)arg / 4);
	return NULL;
}

static int run_filter(uint64_t ns)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_timer_create, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getdents64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
	pthread_t t;

	spin_for(spin_before, ns / 2);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return 3;
	if (pthread_create(&t, NULL, thread_main, &ns))
		return 4;
	spin_for(spin_after, ns / 2);
	pthread_join(t, NULL);
	printf("filter done\n");
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t ns = argc > 2 ? (uint64_t)(atof(argv[2]) * 1e9) : 0;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "strict"))
		return run_strict(ns / 2);
	if (!strcmp(argv[1], "filter"))
		return run_filter(ns);
	return 2;
}
