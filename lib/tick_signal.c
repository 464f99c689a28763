// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
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

static void sample_tick(struct tick *t)
{
	/* the tick and those the kernel merged into it (the timer's overrun) */
	unsigned int ticks = 1 + (t->si->si_overrun > 0 ? (unsigned int)t->si->si_overrun : 0);
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
	} else if ((tag & 0xff) == CLOCK_TAG_SAMPLE) {
		sample_tick(t);
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

int sig_install(int signo, uint32_t gen)
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
	__atomic_store_n(&sig_gen, gen, __ATOMIC_RELEASE);
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
