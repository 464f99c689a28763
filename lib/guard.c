// SPDX-License-Identifier: MIT
/*
 * Fault guard (see guard.h).
 *
 * Why a SIGSEGV handler rather than checking the buffer before each write:
 * any check is racy (another thread may munmap between the check and the
 * write), and a write through process_vm_writev() cannot be an atomic
 * saturating increment.  The handler only acts for a thread that is inside
 * guard_call() (an initial-exec TLS flag, async-signal-safe to read); every
 * other fault goes to the program's own disposition.
 *
 * Signal mask: the handler is installed with SA_NODEFER and an empty
 * sa_mask, so while it runs the mask is exactly the mask at the fault,
 * which is the mask at the _setjmp() in guard_call() (nothing in between
 * changes it).  _longjmp() therefore needs no sigprocmask() system call,
 * neither on the fast path (no sigsetjmp(…, 1) per sample) nor on recovery.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "guard.h"

#define TLS_IE __attribute__((tls_model("initial-exec")))

static __thread jmp_buf *guard_env TLS_IE;
static __thread volatile sig_atomic_t guard_depth TLS_IE;

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_refs;
static struct sigaction prev_segv, prev_bus;

static struct sigaction *prev_for(int sig)
{
	return sig == SIGBUS ? &prev_bus : &prev_segv;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *prev = prev_for(sig);

	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, si, uc);
	} else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	} else {
		/* Put the program's disposition back: the instruction faults again and the
		 * kernel does what it would have done without us. */
		sigaction(sig, prev, NULL);
	}
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (guard_depth > 0 && guard_env) {
		guard_depth = 0;
		_longjmp(*guard_env, 1);
	}
	chain(sig, si, uc);
}

int guard_call(void (*fn)(void *), void *arg)
{
	jmp_buf env, *outer = guard_env;
	sig_atomic_t depth = guard_depth;

	if (_setjmp(env)) {
		guard_env = outer;
		guard_depth = depth;
		return -EFAULT;
	}
	guard_env = &env;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_depth = depth + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fn(arg);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_depth = depth;
	guard_env = outer;
	return 0;
}

int guard_install(void)
{
	struct sigaction sa;
	int ret = 0;

	pthread_mutex_lock(&guard_lock);
	if (guard_refs++ > 0)
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &prev_segv) < 0) {
		ret = -errno;
		guard_refs--;
		goto out;
	}
	if (sigaction(SIGBUS, &sa, &prev_bus) < 0) {
		ret = -errno;
		sigaction(SIGSEGV, &prev_segv, NULL);
		guard_refs--;
	}
out:
	pthread_mutex_unlock(&guard_lock);
	return ret;
}

/* Put the previous action back, unless the program has installed its own since. */
static void restore_if_ours(int sig)
{
	struct sigaction cur;

	if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == on_fault)
		sigaction(sig, prev_for(sig), NULL);
}

void guard_remove(void)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_refs > 0 && --guard_refs == 0) {
		restore_if_ours(SIGSEGV);
		restore_if_ours(SIGBUS);
	}
	pthread_mutex_unlock(&guard_lock);
}
