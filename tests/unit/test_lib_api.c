// SPDX-License-Identifier: MIT
/*
 * libprofil's public API, deterministic: the MANUAL clock and profil_tick()
 * (exact counts, saturation, outside accounting, overflow bin, PROF_UINT),
 * argument errors that change nothing, and faults that turn profiling off.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "profil.h"

#define OFF 0x10000u

static struct profil_stats stats(void)
{
	struct profil_stats st;

	memset(&st, 0xff, sizeof(st));
	if (profil_get_stats(&st, sizeof(st)) < 0)
		memset(&st, 0, sizeof(st));
	return st;
}

/* profil(NULL, ...) through a pointer: glibc's <unistd.h> declares the buffer nonnull. */
static int off(void)
{
	int (*volatile fn)(unsigned short *, size_t, size_t, unsigned int) = profil;

	return fn(NULL, 0, 0, 0);
}

static void *page_map(size_t pages, int prot)
{
	void *p = mmap(NULL, pages * (size_t)sysconf(_SC_PAGESIZE), prot,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void test_exact_counts(void)
{
	unsigned short buf[8] = {0};
	struct profil_stats st;

	CHECK("manual clock accepted", profil_set_clock(PROFIL_CLOCK_MANUAL, 0) == 0);
	CHECK("profil on", profil(buf, sizeof(buf), OFF, 65536) == 0);
	profil_tick(OFF);      /* bin 0 */
	profil_tick(OFF + 1);  /* bin 0: floor(1/2) */
	profil_tick(OFF + 2);  /* bin 1 */
	profil_tick(OFF + 15); /* bin 7, the last */
	profil_tick(OFF + 16); /* past the last bin */
	profil_tick(OFF - 1);  /* below offset */
	st = stats();
	CHECKF("exact bins", buf[0] == 2 && buf[1] == 1 && buf[7] == 1 && buf[2] == 0,
	       "%u %u %u %u", buf[0], buf[1], buf[2], buf[7]);
	CHECKF("samples and outside", st.samples == 6 && st.outside == 2 && st.saturated == 0,
	       "samples %llu outside %llu", (unsigned long long)st.samples,
	       (unsigned long long)st.outside);
	CHECK("stats: manual, active",
	      st.clock == PROFIL_CLOCK_MANUAL && st.active == 1 && !st.fault_disabled);
	CHECK("off returns 0", off() == 0);
	profil_tick(OFF);
	CHECK("no count while off", buf[0] == 2 && stats().active == 0 && stats().samples == 6);
}

static void test_scale(void)
{
	unsigned short buf[4] = {0};

	/* scale 0x4000: i = floor(floor(d / 2) / 4) */
	profil(buf, sizeof(buf), OFF, 0x4000);
	profil_tick(OFF + 7);  /* d/2 = 3 -> 0 */
	profil_tick(OFF + 8);  /* 4 -> 1 */
	profil_tick(OFF + 31); /* 15 -> 3 */
	profil_tick(OFF + 32); /* 16 -> 4: outside */
	CHECKF("scale 0x4000 bins",
	       buf[0] == 1 && buf[1] == 1 && buf[3] == 1 && stats().outside == 1, "%u %u %u %u",
	       buf[0], buf[1], buf[2], buf[3]);
	/* scale 0 turns off */
	CHECK("scale 0 turns off", profil(buf, sizeof(buf), OFF, 0) == 0 && stats().active == 0);
}

static void test_saturation(void)
{
	unsigned short buf[2] = {0};
	struct profil_stats st;

	profil(buf, sizeof(buf), OFF, 65536);
	for (int i = 0; i < 70000; i++)
		profil_tick(OFF);
	st = stats();
	CHECKF("u16 bin saturates at 65535", buf[0] == 65535 && buf[1] == 0, "%u", buf[0]);
	CHECKF("saturated ticks counted", st.saturated == 70000 - 65535 && st.samples == 70000,
	       "%llu", (unsigned long long)st.saturated);
	off();
}

static void test_errors(void)
{
	unsigned short buf[4] = {0}, other[4] = {0};
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned short *ro = page_map(1, PROT_READ), *two = page_map(2, PROT_READ | PROT_WRITE);
	unsigned short *gone = page_map(1, PROT_READ | PROT_WRITE);

	munmap(gone, pg);
	munmap((char *)two + pg, pg); /* two: one writable page, then a hole */

	errno = 0;
	CHECK("EINVAL while off", profil(buf, sizeof(buf), OFF, 65537) == -1 && errno == EINVAL);
	CHECK("EINVAL left it off", stats().active == 0);
	CHECK("65536 accepted", profil(buf, sizeof(buf), OFF, 65536) == 0);
	errno = 0;
	CHECK("EINVAL while on", profil(other, sizeof(other), OFF, 65537) == -1 && errno == EINVAL);
	profil_tick(OFF);
	CHECK("EINVAL left the old session on",
	      stats().active == 1 && buf[0] == 1 && other[0] == 0);

	errno = 0;
	CHECK("EFAULT read-only mapping", profil(ro, 64, OFF, 65536) == -1 && errno == EFAULT);
	errno = 0;
	CHECK("EFAULT unmapped range", profil(gone, 64, OFF, 65536) == -1 && errno == EFAULT);
	errno = 0;
	CHECK("EFAULT range crossing into an unmapped page",
	      profil((unsigned short *)((char *)two + pg - 8), 16, OFF, 65536) == -1 &&
		      errno == EFAULT);
	CHECK("the last page of a mapping is fine",
	      profil((unsigned short *)((char *)two + pg - 8), 8, OFF, 65536) == 0);
	profil(buf, sizeof(buf), OFF, 65536);
	profil_tick(OFF);
	CHECK("EFAULT changed nothing", stats().active == 1 && buf[0] == 2 && ro[0] == 0);
	off();
	errno = 0;
	CHECK("EFAULT while off leaves it off",
	      profil(gone, 64, OFF, 65536) == -1 && errno == EFAULT && stats().active == 0);

	CHECK("re-enabling replaces the session",
	      profil(buf, sizeof(buf), OFF, 65536) == 0 &&
		      profil(other, sizeof(other), OFF, 65536) == 0);
	profil_tick(OFF + 2);
	CHECK("ticks go to the new buffer only", other[1] == 1 && buf[1] == 0);
	off();

	CHECK("profil_set_clock rejects an unknown clock",
	      profil_set_clock((enum profil_clock)42, 0) == -1 && errno == EINVAL);
	CHECK("profil_set_clock rejects 100001 Hz",
	      profil_set_clock(PROFIL_CLOCK_THREAD, 100001) == -1 && errno == EINVAL);
	CHECK("profil_set_signal refuses SIGPROF",
	      profil_set_signal(SIGPROF) == -1 && errno == EINVAL);
	CHECK("profil_set_signal refuses SIGKILL",
	      profil_set_signal(SIGKILL) == -1 && errno == EINVAL);
	CHECK("profil_set_signal refuses SIGSEGV",
	      profil_set_signal(SIGSEGV) == -1 && errno == EINVAL);
	CHECK("profil_set_signal accepts SIGRTMAX-3", profil_set_signal(SIGRTMAX - 3) == 0);
	CHECK("profil_set_signal 0 = default", profil_set_signal(0) == 0);
	CHECK("get_stats size 0",
	      profil_get_stats(&(struct profil_stats){0}, 0) == -1 && errno == EINVAL);
	munmap(ro, pg);
	munmap(two, pg);
}

static void test_sprofil(void)
{
	unsigned short lo16[4] = {0}, ovf[1] = {0};
	unsigned int hi32[4] = {0}, ovf32[1] = {0};
	struct prof p[3];
	struct timeval tv = {7, 7};
	struct profil_stats st;

	p[0] = (struct prof){lo16, sizeof(lo16), OFF, 65536};
	p[1] = (struct prof){ovf, sizeof(ovf), 0, 2};
	p[2] = (struct prof){(void *)8, 4096, OFF * 2, 1}; /* scale < 2: ignored, never checked */
	CHECK("sprofil on", sprofil(p, 3, &tv, PROF_USHORT) == 0);
	CHECK("manual clock period is 0", tv.tv_sec == 0 && tv.tv_usec == 0);
	profil_tick(OFF + 2);
	profil_tick(OFF * 2 + 2); /* the ignored region: overflow */
	profil_tick(1);		  /* below everything: overflow */
	st = stats();
	CHECK("region counted", lo16[1] == 1);
	CHECKF("overflow bin counted the rest", ovf[0] == 2 && st.outside == 2, "%u", ovf[0]);
	CHECK("sprofil while active turns off", sprofil(p, 3, NULL, 0) == 0 && stats().active == 0);
	profil_tick(OFF + 2);
	CHECK("off: nothing counted", lo16[1] == 1);

	p[0] = (struct prof){hi32, sizeof(hi32), OFF, 65536};
	p[1] = (struct prof){ovf32, sizeof(ovf32), 0, 2};
	CHECK("sprofil PROF_UINT", sprofil(p, 2, NULL, PROF_UINT) == 0);
	for (int i = 0; i < 70000; i++)
		profil_tick(OFF + 4); /* PROF_UINT: index = (pc - off) / 4 */
	profil_tick(OFF + 100);
	CHECKF("u32 bins go past 65535", hi32[1] == 70000 && ovf32[0] == 1, "%u %u", hi32[1],
	       ovf32[0]);
	sprofil(NULL, 0, NULL, 0);
	CHECK("off again", stats().active == 0);

	p[0] = (struct prof){NULL, 64, OFF, 65536};
	errno = 0;
	CHECK("sprofil EFAULT on NULL + size", sprofil(p, 1, NULL, 0) == -1 && errno == EFAULT);
	p[0] = (struct prof){lo16, sizeof(lo16), OFF, 65537};
	errno = 0;
	CHECK("sprofil EINVAL on scale 65537", sprofil(p, 1, NULL, 0) == -1 && errno == EINVAL);
	CHECK("errors left it off", stats().active == 0);

	/* *tvp gives the period of the clock to be used */
	profil_set_clock(PROFIL_CLOCK_THREAD, 250);
	p[0] = (struct prof){lo16, sizeof(lo16), OFF, 65536};
	CHECKF("tvp = 4 ms at 250 Hz",
	       sprofil(p, 1, &tv, 0) == 0 && tv.tv_sec == 0 && tv.tv_usec == 4000, "%ld.%06ld",
	       (long)tv.tv_sec, (long)tv.tv_usec);
	CHECK("stats: thread clock, 250 Hz",
	      stats().clock == PROFIL_CLOCK_THREAD && stats().nominal_hz == 250);
	sprofil(NULL, 0, NULL, 0);
	profil_set_clock(PROFIL_CLOCK_MANUAL, 0);
}

static void test_fault(int how)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned short *b = page_map(1, PROT_READ | PROT_WRITE);
	struct profil_stats st;

	profil(b, pg, OFF, 65536);
	profil_tick(OFF);
	if (how)
		mprotect(b, pg, PROT_READ);
	else
		munmap(b, pg);
	profil_tick(OFF);
	profil_tick(OFF);
	st = stats();
	CHECKF(how ? "read-only buffer turns profiling off" : "unmapped buffer turns profiling off",
	       st.fault_disabled == 1 && st.active == 0 && st.samples == 1,
	       "fault_disabled %d active %d samples %llu", st.fault_disabled, st.active,
	       (unsigned long long)st.samples);
	CHECK("off after a fault returns 0", off() == 0);
	if (how)
		munmap(b, pg);
}

static sigjmp_buf segv_env;
static volatile sig_atomic_t segv_seen;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	segv_seen = 1;
	siglongjmp(segv_env, 1);
}

/* A fault of the program's own while profiling goes to the program's handler. */
static void test_fault_chain(void)
{
	unsigned short buf[4];
	struct sigaction sa, cur;
	int *volatile bad = (int *)(uintptr_t)16;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	profil(buf, sizeof(buf), OFF, 65536);
	if (sigsetjmp(segv_env, 1) == 0)
		*bad = 1;
	CHECK("program's SIGSEGV handler called while profiling", segv_seen == 1);
	CHECK("profiling still on after the program's fault", stats().active == 1);
	off();
	sigaction(SIGSEGV, NULL, &cur);
	CHECK("SIGSEGV action restored on disable",
	      (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv);
	signal(SIGSEGV, SIG_DFL);
}

static void test_names(void)
{
	enum profil_clock c;

	CHECK("clock names", strcmp(profil_clock_name(PROFIL_CLOCK_PERF), "perf") == 0 &&
				     profil_clock_name((enum profil_clock)9) == NULL);
	CHECK("clock from name", profil_clock_from_name("itimer", &c) == 0 &&
					 c == PROFIL_CLOCK_ITIMER &&
					 profil_clock_from_name("bogus", &c) == -1);
}

int main(void)
{
	test_exact_counts();
	test_scale();
	test_saturation();
	test_errors();
	test_sprofil();
	test_fault(0);
	test_fault(1);
	test_fault_chain();
	test_names();
	return CHECK_DONE();
}
