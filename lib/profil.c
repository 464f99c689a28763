// SPDX-License-Identifier: MIT
/*
 * The public API: profil(), sprofil() and the profil_* extensions.  A
 * session is one set of buffers (a struct hist) counted by the histogram
 * sink; the sampler (sampler.c) runs the clock.  Every public call is
 * serialised by one lock, which pthread_atfork() keeps consistent.
 *
 * Signal handlers may call the API (BSD's profil() is a system call):
 * the lock knows its owner, so a call from a handler that interrupted a
 * call of the same thread fails with EBUSY instead of waiting for itself;
 * a handler on another thread waits like any caller.  Sessions are
 * allocated with mmap, not malloc, so that a handler that interrupted
 * malloc does not deadlock in it either.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "addrcheck.h"
#include "core/hist.h"
#include "callreport.h"
#include "env.h"
#include "guard.h"
#include "profil.h"
#include "sampler.h"

#define API __attribute__((visibility("default")))

struct session {
	struct hist hist;
	struct hist_region *regions;
	struct sampler_info info;
	uint64_t samples, outside, saturated; /* atomic */
	uint64_t merged; /* atomic: ticks the kernel merged into a sample (counted once) */
	int fault;	 /* atomic */
	uint64_t cpu_start_ns, cpu_accum_ns, cpu_fault_ns;
};

/* tid of the holder (0: free) | API_LOCK_WAITERS when someone sleeps on it */
static uint32_t api_lock;
#define API_LOCK_WAITERS 0x80000000u /* above every tid (pid_max <= 2^22) */
static int fork_took_lock;	     /* atfork_prepare took it (written by the holder) */
static struct session *cur;	     /* the session, on or turned off by a fault */
static struct profil_stats last;     /* the last session's statistics, once it is gone */
static enum profil_clock next_clock = PROFIL_CLOCK_AUTO;
static unsigned int next_hz;
static int next_signo;
static uint64_t fork_cpu_ns;

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the API lock ------------------------------------------------------- */

static void futex(uint32_t *word, int op, uint32_t val)
{
	syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/*
 * Take the API lock: 0, or -EBUSY when this thread holds it already (a
 * signal handler that interrupted an API call of its own thread).
 * Async-signal-safe: atomics, gettid and futex.
 */
static int api_lock_take(void)
{
	uint32_t me = (uint32_t)gettid(), cur_word = 0;

	while (!__atomic_compare_exchange_n(&api_lock, &cur_word, me, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if ((cur_word & ~API_LOCK_WAITERS) == me)
			return -EBUSY;
		if (!(cur_word & API_LOCK_WAITERS) &&
		    !__atomic_compare_exchange_n(&api_lock, &cur_word, cur_word | API_LOCK_WAITERS,
						 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue; /* it changed: look again */
		futex(&api_lock, FUTEX_WAIT, cur_word | API_LOCK_WAITERS);
		cur_word = 0;
	}
	return 0;
}

static void api_lock_release(void)
{
	if (__atomic_exchange_n(&api_lock, 0, __ATOMIC_RELEASE) & API_LOCK_WAITERS)
		futex(&api_lock, FUTEX_WAKE, INT_MAX);
}

/* Zeroed memory from the kernel: a handler that interrupted malloc may call the API. */
static void *page_zalloc(size_t n)
{
	size_t *p;

	if (n > SIZE_MAX - 16)
		return NULL;
	p = mmap(NULL, n + 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	p[0] = n + 16;
	return p + 2;
}

static void page_free(void *ptr)
{
	size_t *p = ptr;

	if (p)
		munmap(p - 2, p[-2]);
}

static void *page_calloc(size_t n, size_t size)
{
	return size && n > SIZE_MAX / size ? NULL : page_zalloc(n * size);
}

/* [p, p + len) meets the mapping of a page_zalloc() block. */
static int page_overlaps(const void *block, const void *p, size_t len)
{
	const size_t *b = block;
	uintptr_t lo, hi, start = (uintptr_t)p;

	if (!b)
		return 0;
	lo = (uintptr_t)(b - 2);
	hi = lo + b[-2];
	return start < hi && start + len > lo;
}

/* ---- the histogram sink (signal handler or perf helper context) ------- */

struct count_call {
	const struct hist *hist;
	uintptr_t pc;
	enum hist_outcome outcome;
};

static void count_one(void *arg)
{
	struct count_call *c = arg;

	c->outcome = hist_count(c->hist, c->pc);
}

static void session_fault(struct session *s)
{
	if (__atomic_exchange_n(&s->fault, 1, __ATOMIC_SEQ_CST))
		return;
	s->cpu_fault_ns = process_cpu_ns();
	sampler_fault_stop();
}

/* One count per sample, as BSD's profil(): ticks the kernel merged are in the stats' lost. */
static void hist_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	struct session *s = arg;
	struct count_call c = {.hist = &s->hist, .pc = pc};

	(void)tid;
	if (ticks > 1)
		__atomic_fetch_add(&s->merged, ticks - 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&s->fault, __ATOMIC_RELAXED))
		return;
	if (guard_call(count_one, &c) < 0) {
		session_fault(s);
		return;
	}
	__atomic_fetch_add(&s->samples, 1, __ATOMIC_RELAXED);
	if (c.outcome == HIST_SATURATED)
		__atomic_fetch_add(&s->saturated, 1, __ATOMIC_RELAXED);
	else if (c.outcome == HIST_OUTSIDE || c.outcome == HIST_OVERFLOW)
		__atomic_fetch_add(&s->outside, 1, __ATOMIC_RELAXED);
}

/* ---- sessions (under api_lock) ---------------------------------------- */

/*
 * The caller's buffer must be writable memory that is not ours: our pages
 * come from mmap and may fill a hole the caller left (a buffer it
 * unmapped), which must stay EFAULT.
 */
static int buffer_writable(const void *p, size_t len)
{
	if (len && cur && (page_overlaps(cur, p, len) || page_overlaps(cur->regions, p, len)))
		return -EFAULT;
	return addr_range_writable(p, len);
}

static void fill_stats(const struct session *s, struct profil_stats *st)
{
	int fault = __atomic_load_n(&s->fault, __ATOMIC_SEQ_CST);
	uint64_t now = fault ? s->cpu_fault_ns : process_cpu_ns();

	memset(st, 0, sizeof(*st));
	st->samples = __atomic_load_n(&s->samples, __ATOMIC_RELAXED);
	st->outside = __atomic_load_n(&s->outside, __ATOMIC_RELAXED);
	st->saturated = __atomic_load_n(&s->saturated, __ATOMIC_RELAXED);
	st->lost = sampler_lost() + __atomic_load_n(&s->merged, __ATOMIC_RELAXED);
	st->cpu_ns = s->cpu_accum_ns + (now > s->cpu_start_ns ? now - s->cpu_start_ns : 0);
	st->effective_hz = st->cpu_ns ? (double)st->samples * 1e9 / (double)st->cpu_ns : 0.0;
	st->nominal_hz = s->info.hz;
	st->period_us = s->info.period_us;
	st->clock = s->info.clock;
	st->active = !fault;
	st->fault_disabled = fault;
	st->threads = sampler_threads();
}

static void session_end(void)
{
	if (!cur)
		return;
	fill_stats(cur, &last); /* lost and threads while the clock still runs */
	sampler_stop();		/* no sink call in flight after this */
	last.active = 0;
	last.threads = 0;
	guard_remove();
	page_free(cur->regions);
	page_free(cur);
	cur = NULL;
}

static struct sampler_config next_config(struct session *s)
{
	struct sampler_config c = {
		.clock = next_clock,
		.hz = next_hz,
		.signo = next_signo,
		.sink = hist_sink,
		.sink_arg = s,
	};
	return c;
}

/* Start counting into s (its hist is built).  Takes ownership of s. */
static int session_begin(struct session *s)
{
	struct sampler_config c = next_config(s);
	int ret = guard_install();

	if (ret < 0)
		goto fail;
	s->cpu_start_ns = process_cpu_ns();
	cur = s;
	ret = sampler_start(&c, &s->info);
	if (ret == 0)
		return 0;
	cur = NULL;
	guard_remove();
fail:
	page_free(s->regions);
	page_free(s);
	return ret;
}

static int set_errno(int ret)
{
	if (ret >= 0)
		return 0;
	errno = -ret;
	return -1;
}

/* ---- profil / sprofil ------------------------------------------------- */

static int profil_locked(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	struct hist_spec spec = {buf, bufsiz, offset, scale, 2};
	struct session *s;
	int ret;

	if (!buf || scale == 0) {
		session_end();
		return 0;
	}
	if (scale > 65536)
		return -EINVAL;
	if (buffer_writable(buf, bufsiz) < 0)
		return -EFAULT;
	s = page_calloc(1, sizeof(*s));
	if (s)
		s->regions = page_calloc(1, sizeof(*s->regions));
	if (!s || !s->regions) {
		page_free(s);
		return -ENOMEM;
	}
	ret = hist_build_single(&s->hist, s->regions, &spec);
	if (ret < 0) {
		page_free(s->regions);
		page_free(s);
		return ret;
	}
	session_end(); /* re-enabling replaces the old session */
	return session_begin(s);
}

API int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	int ret;

	/* glibc's <unistd.h> declares buf nonnull: hide the value from the optimiser so that the
	 * documented buf == NULL (turn off) is not compiled away. */
	__asm__("" : "+r"(buf));
	ret = api_lock_take();
	if (ret < 0)
		return set_errno(ret);
	ret = profil_locked(buf, bufsiz, offset, scale);
	callreport_profil(buf, bufsiz, offset, scale, (uintptr_t)__builtin_return_address(0), ret,
			  cur ? (int)cur->info.clock : -1);
	api_lock_release();
	return set_errno(ret);
}

/*
 * Scales and writability of the buffers that would be written, before
 * anything is allocated (memory we map must not fill a hole of the
 * caller's and pass the check).
 */
static int check_regions(const struct prof *profp, int profcnt, unsigned int width)
{
	for (int i = 0; i < profcnt; i++)
		if (profp[i].pr_scale > 65536)
			return -EINVAL;
	for (int i = 0; i < profcnt; i++) {
		const struct prof *p = &profp[i];
		size_t need = p->pr_size;

		if (p->pr_scale < 2 || p->pr_size < width)
			continue; /* ignored: never written */
		if (p->pr_off == 0 && p->pr_scale == 2)
			need = width; /* the overflow bin */
		if (buffer_writable(p->pr_base, need) < 0)
			return -EFAULT;
	}
	return 0;
}

/* The struct prof entries turned into specs (checked by check_regions). */
static void read_regions(const struct prof *profp, int profcnt, unsigned int width,
			 struct hist_spec *specs)
{
	for (int i = 0; i < profcnt; i++) {
		const struct prof *p = &profp[i];

		specs[i] = (struct hist_spec){p->pr_base, p->pr_size, p->pr_off,
					      (uint32_t)p->pr_scale, (uint8_t)width};
	}
}

static void period_to_timeval(unsigned int period_us, struct timeval *tvp)
{
	if (!tvp)
		return;
	tvp->tv_sec = period_us / 1000000;
	tvp->tv_usec = period_us % 1000000;
}

static int sprofil_locked(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags)
{
	unsigned int width = (flags & PROF_UINT) ? 4 : 2;
	struct sampler_info info;
	struct sampler_config c;
	struct hist_spec *specs = NULL;
	size_t *order = NULL;
	struct session *s = NULL;
	int ret;

	if (cur && !__atomic_load_n(&cur->fault, __ATOMIC_SEQ_CST)) {
		session_end(); /* any call while active turns profiling off */
		return 0;
	}
	if (profcnt < 0 || (profcnt > 0 && !profp))
		return -EINVAL;
	ret = check_regions(profp, profcnt, width);
	if (ret < 0)
		return ret;
	specs = page_calloc((size_t)profcnt + 1, sizeof(*specs));
	order = page_calloc((size_t)profcnt + 1, sizeof(*order));
	s = page_calloc(1, sizeof(*s));
	if (s)
		s->regions = page_calloc(2 * (size_t)profcnt + 1, sizeof(*s->regions));
	ret = -ENOMEM;
	if (!specs || !order || !s || !s->regions)
		goto cleanup;
	read_regions(profp, profcnt, width, specs);
	ret = hist_build_multi(&s->hist, s->regions, order, specs, (size_t)profcnt);
	if (ret < 0)
		goto cleanup;
	c = next_config(s);
	ret = sampler_resolve(&c, &info);
	if (ret < 0)
		goto cleanup;
	session_end(); /* a session that a fault turned off */
	if (s->hist.nregions == 0 && !s->hist.overflow) {
		period_to_timeval(info.period_us, tvp);
		ret = 0; /* nothing to profile */
		goto cleanup;
	}
	ret = session_begin(s);
	s = NULL;
	if (ret == 0)
		period_to_timeval(cur->info.period_us, tvp);
cleanup:
	if (s)
		page_free(s->regions);
	page_free(s);
	page_free(specs);
	page_free(order);
	return ret;
}

API int sprofil(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags)
{
	int ret;

	ret = api_lock_take();
	if (ret < 0)
		return set_errno(ret);
	ret = sprofil_locked(profp, profcnt, tvp, flags);
	callreport_sprofil(profp, profcnt, tvp, flags, (uintptr_t)__builtin_return_address(0), ret,
			   cur ? (int)cur->info.clock : -1);
	api_lock_release();
	return set_errno(ret);
}

/* ---- extended API ----------------------------------------------------- */

API int profil_set_clock(enum profil_clock clock, unsigned int hz)
{
	if ((unsigned int)clock > PROFIL_CLOCK_MANUAL || hz > 100000) {
		errno = EINVAL;
		return -1;
	}
	if (api_lock_take() < 0) {
		errno = EBUSY;
		return -1;
	}
	next_clock = clock;
	next_hz = hz;
	api_lock_release();
	return 0;
}

API int profil_set_signal(int signo)
{
	int ret = sampler_check_signal(signo);

	if (ret == 0) {
		ret = api_lock_take();
		if (ret == 0) {
			next_signo = signo;
			api_lock_release();
		}
	}
	return set_errno(ret);
}

API void profil_tick(uintptr_t pc)
{
	sampler_deliver(pc, 0);
}

API int profil_get_stats(struct profil_stats *st, size_t size)
{
	struct profil_stats full;

	if (!st || size == 0 || size > sizeof(full)) {
		errno = EINVAL;
		return -1;
	}
	if (api_lock_take() < 0) {
		errno = EBUSY;
		return -1;
	}
	if (cur) {
		fill_stats(cur, &full);
	} else {
		full = last;
		if (!full.samples && !full.nominal_hz && !full.cpu_ns)
			full.clock = next_clock;
	}
	api_lock_release();
	memcpy(st, &full, size);
	return 0;
}

static const char *const clock_names[] = {
	[PROFIL_CLOCK_AUTO] = "auto",	  [PROFIL_CLOCK_THREAD] = "thread",
	[PROFIL_CLOCK_ITIMER] = "itimer", [PROFIL_CLOCK_PERF] = "perf",
	[PROFIL_CLOCK_MANUAL] = "manual",
};

API const char *profil_clock_name(enum profil_clock clock)
{
	if ((unsigned int)clock > PROFIL_CLOCK_MANUAL)
		return NULL;
	return clock_names[clock];
}

API int profil_clock_from_name(const char *name, enum profil_clock *clock)
{
	for (unsigned int i = 0; name && clock && i <= PROFIL_CLOCK_MANUAL; i++) {
		if (strcmp(name, clock_names[i]) == 0) {
			*clock = (enum profil_clock)i;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

/* ---- fork and the environment ----------------------------------------- */

/*
 * fork from a signal handler that interrupted an API call of the same
 * thread: the lock is that call's; the fork goes on without taking it.
 */
static void atfork_prepare(void)
{
	int took = api_lock_take() == 0;

	fork_took_lock = took;
	fork_cpu_ns = process_cpu_ns();
}

static void atfork_parent(void)
{
	if (fork_took_lock)
		api_lock_release();
}

/* The child counts into its own copy of the buffers; the sampler re-arms the clock. */
static void atfork_child(void)
{
	__atomic_store_n(&api_lock, 0, __ATOMIC_RELAXED); /* the child's only thread has no call */
	if (cur && !__atomic_load_n(&cur->fault, __ATOMIC_SEQ_CST)) {
		cur->cpu_accum_ns += fork_cpu_ns - cur->cpu_start_ns;
		cur->cpu_start_ns = process_cpu_ns();
	}
}

/* "60", "SIGRTMAX-2", "RTMIN+3", "SIGUSR1"... Returns the number or -1. */
static int parse_signal(const char *v)
{
	char *end;
	long n;

	if (strncmp(v, "SIG", 3) == 0)
		v += 3;
	if (strcmp(v, "USR1") == 0)
		return SIGUSR1;
	if (strcmp(v, "USR2") == 0)
		return SIGUSR2;
	if (strncmp(v, "RTMAX", 5) == 0 || strncmp(v, "RTMIN", 5) == 0) {
		int base = v[4] == 'X' ? SIGRTMAX : SIGRTMIN;

		if (!v[5])
			return base;
		n = strtol(v + 5, &end, 10);
		return *end ? -1 : base + (int)n;
	}
	n = strtol(v, &end, 10);
	return (*v && !*end && n > 0 && n < 1000) ? (int)n : -1;
}

static void read_env(void)
{
	const char *v;
	char *end;

	v = secure_getenv(PROFIL_ENV_SIGNAL);
	if (v && *v) {
		int sig = parse_signal(v);

		if (sig < 0 || sampler_check_signal(sig) < 0)
			fprintf(stderr, "libprofil: ignoring %s=%s: not a usable signal\n",
				PROFIL_ENV_SIGNAL, v);
		else
			next_signo = sig;
	}
	v = secure_getenv(PROFIL_ENV_CLOCK);
	if (v && *v) {
		enum profil_clock c;

		if (profil_clock_from_name(v, &c) < 0)
			fprintf(stderr,
				"libprofil: ignoring %s=%s: not one of auto, thread, itimer, perf, "
				"manual\n",
				PROFIL_ENV_CLOCK, v);
		else
			next_clock = c;
	}
	v = secure_getenv(PROFIL_ENV_HZ);
	if (v && *v) {
		unsigned long hz = strtoul(v, &end, 10);

		if (*end || hz == 0 || hz > 100000)
			fprintf(stderr, "libprofil: ignoring %s=%s: not a rate from 1 to 100000\n",
				PROFIL_ENV_HZ, v);
		else
			next_hz = (unsigned int)hz;
	}
}

__attribute__((constructor)) static void profil_init(void)
{
	read_env();
	callreport_init();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
