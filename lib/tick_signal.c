// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "clock.h"
#include "sampler.h"
#include "tick_signal.h"
#include "tick_stack.h"
#include "thread_table.h"

static int sig_no;
static struct sigaction sig_prev;
static uint32_t sig_gen;     /* atomic */
static uint64_t undelivered; /* atomic: ticks no sink received (sig_lost) */
static uint64_t sig_period;  /* atomic: the clock's period, ns */

/*
 * A process-wide clock's tick (itimer) lands on the thread that used the CPU
 * at the kernel's tick, and the ticks the kernel merged into it (its
 * overrun) are periods of the whole process's CPU time, which other threads
 * may have used: on a busy machine, counted as the receiver's, they moved
 * up to 38 % of a thread's share to another (4 equal threads beside two busy
 * loops).  So such a tick stands for the receiving thread's own CPU time
 * since its previous one, in periods (the remainder carried to its next):
 * every thread's samples add up to its CPU time, and the process's to the
 * process's.  A thread counts from its start (sig_thread_begins: the agent's
 * pthread_create wrapper), the one that starts the clock from then; the
 * first tick of another thread in a session, or a tick in a sandbox (no
 * clock read), keeps the timer's count.
 */
static __thread struct {
	uint32_t gen;	  /* the session these figures belong to */
	uint64_t last_ns; /* the thread's CPU clock at its previous tick */
	int64_t carry_ns; /* CPU time not yet counted (< 1 period; < 0: counted ahead) */
} process_tick __attribute__((tls_model("initial-exec")));

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sig_thread_begins(int at_birth)
{
	uint64_t now = at_birth || sampler_quiet() ? 0 : thread_cpu_ns();

	process_tick.gen = __atomic_load_n(&sig_gen, __ATOMIC_ACQUIRE);
	process_tick.last_ns = now;
	process_tick.carry_ns = 0;
}

static unsigned int process_tick_weight(uint32_t gen, unsigned int timer_ticks)
{
	uint64_t period = __atomic_load_n(&sig_period, __ATOMIC_RELAXED), now;
	int64_t due;
	unsigned int w;

	if (!period || sampler_quiet() || !(now = thread_cpu_ns()))
		return timer_ticks;
	if (process_tick.gen != gen || now < process_tick.last_ns) {
		process_tick.gen = gen;
		process_tick.last_ns = now;
		process_tick.carry_ns = 0;
		return timer_ticks;
	}
	due = (int64_t)(now - process_tick.last_ns) + process_tick.carry_ns;
	process_tick.last_ns = now;
	/* at least 1 (a sample is a tick): what it counts ahead is owed by the next */
	w = due >= (int64_t)period ? (unsigned int)((uint64_t)due / period) : 1;
	if ((uint64_t)due / period > 1000000)
		w = 1000000;
	process_tick.carry_ns = due - (int64_t)((uint64_t)w * period);
	return w;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
	if (sig_prev.sa_flags & SA_SIGINFO) {
		sig_prev.sa_sigaction(sig, si, uc);
	} else if (sig_prev.sa_handler == SIG_IGN) {
		return;
	} else if (sig_prev.sa_handler != SIG_DFL) {
		sig_prev.sa_handler(sig);
	} else {
		/* Not one of our ticks and the program had the default action: let the
		 * default action happen (delivered when this handler returns). */
		sigaction(sig, &sig_prev, NULL);
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	}
}

static uintptr_t interrupted_pc(void *ucv)
{
	ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
#error "interrupted_pc: add this architecture"
#endif
}

struct tick {
	siginfo_t *si;
	void *uc;
	int own_stack; /* running on a stack of the pool (tick_stack.h) */
};

/*
 * The program runs on its sigaltstack (its handler was interrupted): while
 * we run on our stack, a fault in our code (caught by the guard) would
 * make the kernel put the SIGSEGV frame at the top of that alternate stack,
 * over the program's live frames.  So it is off meanwhile (2 system calls,
 * only while the program is in such a handler).
 */
static int altstack_off(void *uc, stack_t *saved)
{
	const stack_t off = {.ss_flags = SS_DISABLE};

	if (!(((ucontext_t *)uc)->uc_stack.ss_flags & SS_ONSTACK))
		return 0;
	if (sampler_quiet())
		return -1; /* no system call: no walk either */
	return sigaltstack(&off, saved) == 0 ? 1 : -1;
}

static void sample_tick(struct tick *t, uint32_t gen, int process_wide)
{
	/* the tick and those the kernel merged into it (the timer's overrun) */
	unsigned int ticks = 1 + (t->si->si_overrun > 0 ? (unsigned int)t->si->si_overrun : 0);

	if (process_wide)
		ticks = process_tick_weight(gen, ticks);
	/* no walk on the program's stack, nor in a sandbox (a miss makes system calls) */
	void *uc = t->own_stack && !sampler_quiet() ? t->uc : NULL;
	stack_t saved;
	int off = uc ? altstack_off(uc, &saved) : 0;

	if (off < 0)
		uc = NULL;
	if (!sampler_deliver_ctx(interrupted_pc(t->uc), sampler_tid(), ticks, uc))
		__atomic_fetch_add(&undelivered, ticks, __ATOMIC_RELAXED);
	if (off > 0)
		sigaltstack(&saved, NULL);
}

/* The handler's work, on a stack of the pool (or, when none is free, in place: light work). */
static void tick_body(void *arg)
{
	struct tick *t = arg;
	uintptr_t tag = (uintptr_t)t->si->si_value.sival_ptr;
	uint32_t gen = __atomic_load_n(&sig_gen, __ATOMIC_ACQUIRE);

	if ((uint32_t)(tag >> 8) != gen) {
		/* a tick of a session already stopped: drop it */
	} else if ((tag & 0xff) == CLOCK_TAG_SAMPLE || (tag & 0xff) == CLOCK_TAG_PROCESS) {
		sample_tick(t, gen, (tag & 0xff) == CLOCK_TAG_PROCESS);
	} else if ((tag & 0xff) == CLOCK_TAG_DISCOVER && !sampler_quiet()) {
		threads_discover(t->own_stack);
	}
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	uintptr_t tag = (uintptr_t)si->si_value.sival_ptr;
	struct tick t = {si, uc, 1};

	if (si->si_code != SI_TIMER ||
	    (tag & ~((uintptr_t)0xffffffffffUL)) != (uintptr_t)clock_tag(0, 0)) {
		chain(sig, si, uc);
	} else if (tick_stack_run(tick_body, &t) < 0) {
		t.own_stack = 0;
		tick_body(&t);
	}
	errno = saved_errno;
}

int sig_install(int signo, uint32_t gen, uint64_t period_ns)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_tick;
	/* Full mask like glibc: a tick never interrupts another tick or the program's handlers'
	 * view of errno.  SA_RESTART: the program's system calls are not interrupted. */
	/* Not SA_ONSTACK: the program's alternate stack is its own (8 KiB is common); the work
	 * runs on a stack of our pool (tick_stack.h). */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	struct sigaction old;
	int ret = tick_stacks_init();

	if (ret < 0)
		return ret;
	__atomic_store_n(&undelivered, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sig_period, period_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&sig_gen, gen, __ATOMIC_RELEASE);
	sig_thread_begins(0); /* the caller's CPU time counts from now */
	if (sigaction(signo, &sa, &old) < 0)
		return -errno;
	/* Still installed from a session that did not restore: keep the program's real previous. */
	if (!(sig_no == signo && (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_tick))
		sig_prev = old;
	sig_no = signo;
	return 0;
}

void sig_restore(void)
{
	struct sigaction cur;

	__atomic_store_n(&sig_gen, 0, __ATOMIC_RELEASE);
	if (!sig_no)
		return;
	if (sigaction(sig_no, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == on_tick)
		sigaction(sig_no, &sig_prev, NULL);
	sig_no = 0;
}

uint64_t sig_lost(void)
{
	return __atomic_load_n(&undelivered, __ATOMIC_RELAXED);
}
