/* SPDX-License-Identifier: MIT */
/*
 * The record tests' ground truth: the CPU time each function of a test
 * program spent, measured by the program itself (CLOCK_THREAD_CPUTIME_ID
 * around each call), and its process's user and system time (getrusage).
 * The tests compare the profile's shares with these, never with work units.
 *
 * SPIN_FN(name) defines `void name(unsigned long units)`, which spins until
 * its thread has used units * UNIT_NS of CPU time and adds what it measured
 * to the table.  truth_write() appends, to the file named by $RECORD_TRUTH
 * (nothing when unset), one line per (thread, function):
 *   truth pid=P tid=T func=NAME cpu_ns=N
 * and one for the process:
 *   truth pid=P user_ns=U sys_ns=S
 * With $RECORD_WITNESS set, each SPIN_FN call also runs a tick witness
 * (tick_witness.h) and the function's line ends in witness_ns=W: the CPU
 * time the kernel delivered the witness's CPU-timer ticks for (W well under N:
 * the kernel held ticks back, as it does when every CPU is busy; the thread
 * and itimer clocks cannot sample what it holds).
 * Header-only, for the test programs (no sanitizer, any libc).
 */
#ifndef PROFIL_TESTS_RECORD_CPU_H
#define PROFIL_TESTS_RECORD_CPU_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_clock.h"
#include "tick_witness.h"

#define UNIT_NS 100000000ull /* one work unit: 0.1 s of the thread's CPU time */
#define TRUTH_SLOTS 64

static struct truth_slot {
	int tid;	  /* 0: free; claimed by CAS */
	const char *func; /* written before tid is published... by the claimer only */
	uint64_t ns;	  /* atomic */
	uint64_t witnessed_ns; /* atomic: the part of ns a tick witness got its ticks for */
} truth_table[TRUTH_SLOTS];

static volatile uint64_t truth_sink;

/* Add ns to (this thread, func).  Thread-safe (a fork child starts with an empty table). */
static inline void truth_add(const char *func, uint64_t ns, uint64_t witnessed_ns)
{
	int tid = (int)syscall(SYS_gettid);

	for (int i = 0; i < TRUTH_SLOTS; i++) {
		struct truth_slot *s = &truth_table[i];
		int cur = __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE);

		if (cur == 0) {
			int expected = 0;

			if (!__atomic_compare_exchange_n(&s->tid, &expected, -1, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				cur = expected;
			else {
				s->func = func;
				__atomic_store_n(&s->ns, ns, __ATOMIC_RELAXED);
				__atomic_store_n(&s->witnessed_ns, witnessed_ns, __ATOMIC_RELAXED);
				__atomic_store_n(&s->tid, tid, __ATOMIC_RELEASE);
				return;
			}
		}
		while (cur == -1) /* being claimed by another thread */
			cur = __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE);
		if (cur == tid && !strcmp(s->func, func)) {
			__atomic_add_fetch(&s->ns, ns, __ATOMIC_RELAXED);
			__atomic_add_fetch(&s->witnessed_ns, witnessed_ns, __ATOMIC_RELAXED);
			return;
		}
	}
}

/* A fork child: the parent's measurements are the parent's. */
static inline void truth_forget(void)
{
	memset(truth_table, 0, sizeof(truth_table));
}

/*
 * $RECORD_WITNESS: witness the kernel's CPU-timer ticks of every SPIN_FN
 * call: "process" with the process-wide kind (for the itimer clock), any
 * other value with a timer on the thread's own clock (the thread clock).
 */
static inline int truth_witness_wanted(void)
{
	const char *w = getenv("RECORD_WITNESS");

	return !w || !*w ? 0 : strcmp(w, "process") ? 1 : 2;
}

/* A witness at CONFIG_HZ's period (what the kernel can deliver), or none (w->armed 0). */
static inline void truth_witness_start(struct tick_witness *w)
{
	w->armed = 0;
	if (truth_witness_wanted() == 1)
		tick_witness_start(w, 4000000);
	else if (truth_witness_wanted() == 2 && tick_witness_process_start(4000000) == 0)
		tick_witness_thread_begin();
}

/* The part of NS the witness got its ticks for (all of it without a witness). */
static inline uint64_t truth_witness_stop(struct tick_witness *w, uint64_t ns)
{
	double share;

	if (truth_witness_wanted() == 2) {
		uint64_t credit = tick_witness_thread_end();

		return credit < ns ? credit : ns;
	}
	share = tick_witness_stop(w);
	return share < 0 ? ns : (uint64_t)((double)ns * (share > 1 ? 1 : share));
}

/* Spin, checking the thread's CPU clock about every 0.5 ms of work (a system call). */
#define SPIN_FN(name)                                                                              \
	__attribute__((noinline)) void name(unsigned long units)                                   \
	{                                                                                          \
		struct tick_witness w;                                                             \
		uint64_t start, now, s = 0;                                                        \
                                                                                                   \
		truth_witness_start(&w);                                                           \
		start = now = thread_cpu_ns();                                                     \
		while (now - start < units * UNIT_NS) {                                            \
			for (unsigned long i = 0; i < 1000000; i++)                                \
				s += i ^ (s >> 3);                                                 \
			now = thread_cpu_ns();                                                     \
		}                                                                                  \
		truth_sink += s;                                                                   \
		truth_add(#name, now - start, truth_witness_stop(&w, now - start));                \
	}

static inline uint64_t tv_ns_(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* Append this process's measurements to $RECORD_TRUTH (one write per line, O_APPEND). */
static inline void truth_write(void)
{
	const char *path = getenv("RECORD_TRUTH");
	struct rusage ru;
	char line[256];
	int fd, n;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (int i = 0; i < TRUTH_SLOTS; i++) {
		int tid = __atomic_load_n(&truth_table[i].tid, __ATOMIC_ACQUIRE);

		if (tid <= 0)
			continue;
		n = snprintf(
			line, sizeof(line), "truth pid=%d tid=%d func=%s cpu_ns=%llu",
			(int)getpid(), tid, truth_table[i].func,
			(unsigned long long)__atomic_load_n(&truth_table[i].ns, __ATOMIC_RELAXED));
		if (truth_witness_wanted())
			n += snprintf(line + n, sizeof(line) - (size_t)n, " witness_ns=%llu",
				      (unsigned long long)__atomic_load_n(
					      &truth_table[i].witnessed_ns, __ATOMIC_RELAXED));
		n += snprintf(line + n, sizeof(line) - (size_t)n, "\n");
		if (write(fd, line, (size_t)n) < 0)
			break;
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		n = snprintf(line, sizeof(line), "truth pid=%d user_ns=%llu sys_ns=%llu\n",
			     (int)getpid(), (unsigned long long)tv_ns_(ru.ru_utime),
			     (unsigned long long)tv_ns_(ru.ru_stime));
		if (write(fd, line, (size_t)n) < 0)
			n = 0;
	}
	close(fd);
}

#endif /* PROFIL_TESTS_RECORD_CPU_H */
