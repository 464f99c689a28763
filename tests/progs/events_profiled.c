// SPDX-License-Identifier: MIT
/*
 * Test program for tests/e2e/events_watch.sh: turns profiling on in every
 * way `profil watch` reports, with known arguments, and prints what the
 * test must find (KEY=VALUE lines):
 *   glibc profil(buf, 4096, 0x1234, 0x8000), then profil(NULL, 0, 0, 0);
 *   glibc sprofil() with two regions (PROF_UINT), then sprofil(NULL, 0, NULL, 0);
 *   setitimer(ITIMER_PROF, 20 ms) with SIGPROF ignored;
 *   perf_event_open(task-clock, sampling every 1 ms of CPU, this process);
 *   timer_create(CLOCK_PROCESS_CPUTIME_ID) and timer_create(CLOCK_MONOTONIC);
 *   fork a child that exits with status 3; exit with status 7.
 * With argument "exec PROGRAM": setitimer(ITIMER_PROF) with SIGPROF ignored,
 * then execv(PROGRAM).  With "burst N": N calls setitimer(ITIMER_REAL, 0)
 * as fast as possible (to overflow a small ring buffer).
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/profil.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned short bins[2048]; /* 4096 bytes */

/* noinline: the call's return address lies inside this function */
__attribute__((noinline)) static int call_profil(unsigned short *buf, size_t size, size_t off,
						 unsigned int scale)
{
	int rc = profil(buf, size, off, scale);
	__asm__ volatile("" ::: "memory"); /* keep the call from becoming a tail call */
	return rc;
}

static unsigned int region_bins[2][512];

__attribute__((noinline)) static int call_sprofil(struct prof *p, int n, struct timeval *tv,
						  unsigned int flags)
{
	int rc = sprofil(p, n, tv, flags);
	__asm__ volatile("" ::: "memory");
	return rc;
}

static int exec_profiled(char *prog)
{
	struct itimerval itv = {{0, 20000}, {0, 20000}};
	char *argv[] = {prog, NULL};

	signal(SIGPROF, SIG_IGN); /* stays ignored across exec, as the timer stays armed */
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (setitimer(ITIMER_PROF, &itv, NULL)) {
		perror("setitimer");
		return 1;
	}
	execv(prog, argv);
	perror("execv");
	return 1;
}

static int open_task_clock_sampler(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	struct prof regions[2] = {
		{region_bins[0], sizeof(region_bins[0]), 0x400000, 0x10000},
		{region_bins[1], sizeof(region_bins[1]), 0x7f0000000000, 0x4000},
	};
	struct timeval tv;
	struct itimerval itv = {{0, 20000}, {0, 20000}};
	struct sigevent sev = {.sigev_notify = SIGEV_NONE};
	timer_t cpu_timer, mono_timer;
	pid_t child;
	int status;

	if (argc == 3 && !strcmp(argv[1], "exec"))
		return exec_profiled(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "burst")) {
		struct itimerval zero = {{0, 0}, {0, 0}};

		printf("pid=%d\n", (int)getpid());
		for (int i = atoi(argv[2]); i > 0; i--)
			setitimer(ITIMER_REAL, &zero, NULL);
		return 0;
	}
	printf("pid=%d\nbuf=0x%lx\ncall_profil=0x%lx\n", (int)getpid(), (unsigned long)bins,
	       (unsigned long)(uintptr_t)call_profil);
	fflush(stdout);
	if (call_profil(bins, sizeof(bins), 0x1234, 0x8000) || call_profil(NULL, 0, 0, 0)) {
		perror("profil");
		return 1;
	}
	printf("regions=0x%lx\nrbuf0=0x%lx\nrbuf1=0x%lx\ncall_sprofil=0x%lx\n",
	       (unsigned long)regions, (unsigned long)region_bins[0], (unsigned long)region_bins[1],
	       (unsigned long)(uintptr_t)call_sprofil);
	if (call_sprofil(regions, 2, &tv, PROF_UINT) || call_sprofil(NULL, 0, NULL, 0)) {
		perror("sprofil");
		return 1;
	}
	signal(SIGPROF, SIG_IGN);
	if (setitimer(ITIMER_PROF, &itv, NULL)) {
		perror("setitimer");
		return 1;
	}
	int fd = open_task_clock_sampler();
	printf("perf_fd=%d\n", fd);
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &cpu_timer) ||
	    timer_create(CLOCK_MONOTONIC, &sev, &mono_timer)) {
		perror("timer_create");
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(3);
	printf("child=%d\n", (int)child);
	fflush(stdout);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return 1;
	return 7;
}
