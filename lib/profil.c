// SPDX-License-Identifier: MIT
/*
 * The public API: profil(), sprofil() and the profil_* extensions.  A
 * session is one set of buffers (a struct hist) counted by the histogram
 * sink; the sampler (sampler.c) runs the clock.  Every public call is
 * serialised by one mutex, which pthread_atfork() keeps consistent.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	int fault;			      /* atomic */
	uint64_t cpu_start_ns, cpu_accum_ns, cpu_fault_ns;
};

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static struct session *cur;	 /* the session, on or turned off by a fault */
static struct profil_stats last; /* the last session's statistics, once it is gone */
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

static void hist_sink(void *arg, uintptr_t pc, pid_t tid)
{
	struct session *s = arg;
	struct count_call c = {.hist = &s->hist, .pc = pc};

	(void)tid;
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

static void fill_stats(const struct session *s, struct profil_stats *st)
{
	int fault = __atomic_load_n(&s->fault, __ATOMIC_SEQ_CST);
	uint64_t now = fault ? s->cpu_fault_ns : process_cpu_ns();

	memset(st, 0, sizeof(*st));
	st->samples = __atomic_load_n(&s->samples, __ATOMIC_RELAXED);
	st->outside = __atomic_load_n(&s->outside, __ATOMIC_RELAXED);
	st->saturated = __atomic_load_n(&s->saturated, __ATOMIC_RELAXED);
	st->lost = sampler_lost();
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
	free(cur->regions);
	free(cur);
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
	free(s->regions);
	free(s);
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
	if (addr_range_writable(buf, bufsiz) < 0)
		return -EFAULT;
	s = calloc(1, sizeof(*s));
	if (s)
		s->regions = calloc(1, sizeof(*s->regions));
	if (!s || !s->regions) {
		if (s)
			free(s);
		return -ENOMEM;
	}
	ret = hist_build_single(&s->hist, s->regions, &spec);
	if (ret < 0) {
		free(s->regions);
		free(s);
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
	pthread_mutex_lock(&api_lock);
	ret = profil_locked(buf, bufsiz, offset, scale);
	callreport_profil(buf, bufsiz, offset, scale, (uintptr_t)__builtin_return_address(0), ret,
			  cur ? (int)cur->info.clock : -1);
	pthread_mutex_unlock(&api_lock);
	return set_errno(ret);
}

/* The struct prof entries turned into specs; checks scale and writability of used buffers. */
static int read_regions(const struct prof *profp, int profcnt, unsigned int width,
			struct hist_spec *specs)
{
	for (int i = 0; i < profcnt; i++) {
		const struct prof *p = &profp[i];

		if (p->pr_scale > 65536)
			return -EINVAL;
		specs[i] = (struct hist_spec){p->pr_base, p->pr_size, p->pr_off,
					      (uint32_t)p->pr_scale, (uint8_t)width};
	}
	for (int i = 0; i < profcnt; i++) {
		const struct prof *p = &profp[i];
		size_t need = p->pr_size;

		if (p->pr_scale < 2 || p->pr_size < width)
			continue; /* ignored: never written */
		if (p->pr_off == 0 && p->pr_scale == 2)
			need = width; /* the overflow bin */
		if (addr_range_writable(p->pr_base, need) < 0)
			return -EFAULT;
	}
	return 0;
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
	specs = calloc((size_t)profcnt + 1, sizeof(*specs));
	order = calloc((size_t)profcnt + 1, sizeof(*order));
	s = calloc(1, sizeof(*s));
	if (s)
		s->regions = calloc(2 * (size_t)profcnt + 1, sizeof(*s->regions));
	ret = -ENOMEM;
	if (!specs || !order || !s || !s->regions)
		goto cleanup;
	ret = read_regions(profp, profcnt, width, specs);
	if (ret < 0)
		goto cleanup;
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
		free(s->regions);
	free(s);
	free(specs);
	free(order);
	return ret;
}

API int sprofil(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags)
{
	int ret;

	pthread_mutex_lock(&api_lock);
	ret = sprofil_locked(profp, profcnt, tvp, flags);
	callreport_sprofil(profp, profcnt, tvp, flags, (uintptr_t)__builtin_return_address(0), ret,
			   cur ? (int)cur->info.clock : -1);
	pthread_mutex_unlock(&api_lock);
	return set_errno(ret);
}

/* ---- extended API ----------------------------------------------------- */

API int profil_set_clock(enum profil_clock clock, unsigned int hz)
{
	if ((unsigned int)clock > PROFIL_CLOCK_MANUAL || hz > 100000) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&api_lock);
	next_clock = clock;
	next_hz = hz;
	pthread_mutex_unlock(&api_lock);
	return 0;
}

API int profil_set_signal(int signo)
{
	int ret = sampler_check_signal(signo);

	if (ret == 0) {
		pthread_mutex_lock(&api_lock);
		next_signo = signo;
		pthread_mutex_unlock(&api_lock);
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
	pthread_mutex_lock(&api_lock);
	if (cur) {
		fill_stats(cur, &full);
	} else {
		full = last;
		if (!full.samples && !full.nominal_hz && !full.cpu_ns)
			full.clock = next_clock;
	}
	pthread_mutex_unlock(&api_lock);
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

static void atfork_prepare(void)
{
	pthread_mutex_lock(&api_lock);
	fork_cpu_ns = process_cpu_ns();
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&api_lock);
}

/* The child counts into its own copy of the buffers; the sampler re-arms the clock. */
static void atfork_child(void)
{
	pthread_mutex_init(&api_lock, NULL);
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
