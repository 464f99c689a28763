/* SPDX-License-Identifier: MIT */
/*
 * POSIX CPU-time timers through the raw system calls: usable from a signal
 * handler (glibc's timer_create() may allocate for SIGEV_THREAD), and the
 * kernel timer id is the handle.
 */
#ifndef PROFIL_PTIMER_H
#define PROFIL_PTIMER_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Linux's CPU clock id of one thread: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED). */
static inline clockid_t ptimer_thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned int)tid) << 3) | 6;
}

/* Create a timer on clock that sends signo with value tag, to thread tid (or to the process if
 * tid == 0).  Returns 0 and the kernel timer id, or -errno. */
static inline int ptimer_create(clockid_t clock, int signo, pid_t tid, void *tag, int *id)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_signo = signo;
	sev.sigev_value.sival_ptr = tag;
	if (tid) {
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev._sigev_un._tid = tid;
	} else {
		sev.sigev_notify = SIGEV_SIGNAL;
	}
	if (syscall(SYS_timer_create, clock, &sev, id) < 0)
		return -errno;
	return 0;
}

static inline int ptimer_arm(int id, uint64_t first_ns, uint64_t period_ns)
{
	struct itimerspec its;

	if (first_ns == 0)
		first_ns = 1;
	its.it_value.tv_sec = (time_t)(first_ns / 1000000000u);
	its.it_value.tv_nsec = (long)(first_ns % 1000000000u);
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

static inline void ptimer_delete(int id)
{
	syscall(SYS_timer_delete, id);
}

/*
 * A clock's probe: 0 when a timer on clock that signals thread tid (0: the
 * process) can be made here, else -errno.
 */
static inline int ptimer_probe(clockid_t clock, pid_t tid)
{
	int id, ret = ptimer_create(clock, SIGRTMAX - 2, tid, NULL, &id);

	if (ret == 0)
		ptimer_delete(id);
	return ret;
}

#endif
