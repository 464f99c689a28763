// SPDX-License-Identifier: MIT
/*
 * record_prog MODE [ARG]: a program with known hot functions for the
 * `profil record` tests.  A unit of work is 0.1 s of the thread's CPU time
 * (record_cpu.h); every function measures the CPU time it spent, and the
 * tests compare the profile with those measurements ($RECORD_TRUTH), so
 * neither the machine's speed, a sanitizer nor other busy processes move
 * the expected shares.
 *
 *   hot [N]         hot_a does 3 units, hot_b 1 unit (about 75 % / 25 %)
 *   threads         4 threads, each thread_spin 2 units (expect 25 % each)
 *   fork            child: child_spin 2 units; parent: parent_spin 2 units, waits
 *   exit N          hot_a 1 unit, then exit(N)
 *   _exit           hot_a 1 unit, then _exit(7) (stdio buffers are lost, the profile not)
 *   segv            hot_a 1 unit, then a NULL store (SIGSEGV)
 *   forever FILE    hot_a 1 unit, write the pid to FILE, spin in hot_b until killed
 *   attach FILE     4 threads wait; the pid goes to FILE; on SIGUSR1 every thread
 *                   runs thread_spin 2 units, then exit 0
 *   dlopen LIB      dlopen(LIB) and call its lib_spin(2 units)
 *   exec PROG       hot_a 1 unit, then execv(PROG, {PROG, "hot", NULL})
 *   execfail        hot_a 1 unit, execv of a missing file (exit 3 unless errno is
 *                   ENOENT), then hot_b 2 units in the same image
 *   die SIG MS      hot_b until the process has used MS ms of CPU, print
 *                   "cpu_ns=N" (its own CPU time) and die by SIG (KILL or SEGV)
 */
#ifndef NO_DLOPEN
#include <dlfcn.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record_cpu.h"

static volatile uintptr_t null_address; /* 0, unknown to the compiler */

SPIN_FN(hot_a)
SPIN_FN(hot_b)
SPIN_FN(thread_spin)
SPIN_FN(child_spin)
SPIN_FN(parent_spin)

static pthread_barrier_t start_line;
static int use_barrier;

static void *thread_main(void *arg)
{
	(void)arg;
	if (use_barrier)
		pthread_barrier_wait(&start_line);
	thread_spin(2);
	return NULL;
}

static void run_threads(int wait_for_usr1, const char *pidfile)
{
	pthread_t t[4];
	sigset_t set;
	int sig;

	use_barrier = wait_for_usr1;
	if (use_barrier) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		pthread_barrier_init(&start_line, NULL, 5);
	}
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	if (use_barrier) {
		FILE *f = fopen(pidfile, "w");

		fprintf(f, "%d\n", getpid());
		fclose(f);
		sigwait(&set, &sig);
		pthread_barrier_wait(&start_line);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static unsigned long long process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Spin until ms of CPU are used, print the CPU time, die by the signal: no exit path runs. */
static void die_after(const char *sig, unsigned long ms)
{
	unsigned long long cpu;

	while ((cpu = process_cpu_ns()) < ms * 1000000ull)
		hot_b(1); /* 0.1 s of CPU per call */
	printf("cpu_ns=%llu\n", cpu);
	fflush(stdout);
	truth_write();
	if (!strcmp(sig, "SEGV"))
		*(volatile int *)null_address = 1;
	raise(SIGKILL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hot";
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;

	atexit(truth_write);
	if (!strcmp(mode, "hot")) {
		hot_a(3 * (n ? n : 1));
		hot_b(1 * (n ? n : 1));
	} else if (!strcmp(mode, "threads")) {
		run_threads(0, NULL);
	} else if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			truth_forget();
			child_spin(2);
			truth_write();
			_exit(0);
		}
		parent_spin(2);
		waitpid(pid, NULL, 0);
	} else if (!strcmp(mode, "exit")) {
		hot_a(1);
		exit((int)n);
	} else if (!strcmp(mode, "_exit")) {
		hot_a(1);
		printf("this line stays in the stdio buffer\n");
		truth_write();
		_exit(7);
	} else if (!strcmp(mode, "segv")) {
		hot_a(1);
		truth_write();
		*(volatile int *)null_address = 1;
	} else if (!strcmp(mode, "forever") && argc > 2) {
		FILE *f;

		hot_a(1);
		f = fopen(argv[2], "w");
		fprintf(f, "%d\n", getpid());
		fclose(f);
		for (;;)
			hot_b(1);
	} else if (!strcmp(mode, "attach") && argc > 2) {
		run_threads(1, argv[2]);
#ifndef NO_DLOPEN
	} else if (!strcmp(mode, "dlopen") && argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*fn)(unsigned long);

		if (!h) {
			fprintf(stderr, "record_prog: %s\n", dlerror());
			return 2;
		}
		fn = (void (*)(unsigned long))dlsym(h, "lib_spin");
		{
			uint64_t t0 = thread_cpu_ns(), ns;

			fn(2);
			ns = thread_cpu_ns() - t0;
			truth_add("lib_spin", ns, ns);
		}
#endif
	} else if (!strcmp(mode, "exec") && argc > 2) {
		char *args[] = { argv[2], "hot", NULL };

		hot_a(1);
		truth_write(); /* exec runs no atexit handler */
		truth_forget();
		execv(argv[2], args);
		perror("execv");
		return 2;
	} else if (!strcmp(mode, "die") && argc > 3) {
		die_after(argv[2], strtoul(argv[3], NULL, 10));
	} else if (!strcmp(mode, "execfail")) {
		char *args[] = { "/nonexistent/record_prog", NULL };

		hot_a(1);
		errno = 0;
		if (execv(args[0], args) != -1 || errno != ENOENT)
			return 3;
		hot_b(2);
	} else {
		fprintf(stderr, "record_prog: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
