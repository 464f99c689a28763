// SPDX-License-Identifier: MIT
/*
 * lib_reentry same|other CLOCK: profil()/sprofil() called from a SIGALRM
 * handler while profil() is being called in a loop.
 *
 *   same:  the loop runs in the thread that takes the signal, so the
 *          handler often interrupts a profil() call of its own thread:
 *          those calls must fail with EBUSY (never deadlock), the others
 *          succeed.
 *   other: the loop runs in a second thread (SIGALRM blocked there); the
 *          handler interrupts a thread that is not in the API, so its
 *          calls wait for the lock and succeed (never EBUSY).
 *
 * Prints "RESULT handler_ok=N handler_ebusy=N handler_other=N loop_fail=N
 * loops=N"; stops after LOOPS iterations of the loop.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/profil.h>
#include <sys/time.h>

#include "lib_prog.h"

#define LOOPS 4000

static unsigned short loop_buf[4096], handler_buf[4096];
static struct prof handler_regions[1] = {
	{handler_buf, sizeof(handler_buf), 0, 65536},
};
static volatile sig_atomic_t handler_ok, handler_ebusy, handler_other, handler_calls;
static volatile int loop_fail;

static void on_alarm(int sig)
{
	int saved = errno, rc;

	(void)sig;
	errno = 0;
	if (handler_calls++ % 2)
		rc = profil(handler_buf, sizeof(handler_buf), 0, 65536);
	else
		rc = sprofil(handler_regions, 1, NULL, PROF_USHORT);
	if (rc == 0)
		handler_ok++;
	else if (errno == EBUSY)
		handler_ebusy++;
	else
		handler_other++;
	errno = saved;
}

static void *loop(void *arg)
{
	extern char __executable_start[];

	(void)arg;
	for (int i = 0; i < LOOPS; i++) {
		if (profil(loop_buf, sizeof(loop_buf), (size_t)__executable_start, 65536) < 0)
			loop_fail++;
		if (profil_off() < 0)
			loop_fail++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerval it = {{0, 300}, {0, 300}};
	struct sigaction sa = {.sa_handler = on_alarm};
	pthread_t th;
	sigset_t alrm;
	int other;

	if (argc != 3 || profil_clock_from_name(argv[2], &(enum profil_clock){0}) < 0) {
		fprintf(stderr, "usage: lib_reentry same|other CLOCK\n");
		return 2;
	}
	other = !strcmp(argv[1], "other");
	{
		enum profil_clock c;

		profil_clock_from_name(argv[2], &c);
		profil_set_clock(c, 250);
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	if (other) {
		/* the loop thread never takes the signal: the main thread does */
		pthread_sigmask(SIG_BLOCK, &alrm, NULL);
		pthread_create(&th, NULL, loop, NULL);
		pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		pthread_join(th, NULL);
	} else {
		setitimer(ITIMER_REAL, &it, NULL);
		loop(NULL);
	}
	it = (struct itimerval){{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &it, NULL);
	profil_off();
	printf("RESULT handler_ok=%d handler_ebusy=%d handler_other=%d loop_fail=%d loops=%d\n",
	       (int)handler_ok, (int)handler_ebusy, (int)handler_other, loop_fail, LOOPS);
	return 0;
}
