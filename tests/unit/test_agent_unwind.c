// SPDX-License-Identifier: MIT
/*
 * The agent's in-handler unwinder (agent/unwind.c), in-process: every walk
 * is compared with libunwind's own unw_step() from the same signal context;
 * the depth limit; a bad stack gives a truncated stack, not a crash; the
 * tables of an unloaded library are retired; a walk on cached rules makes no
 * system call, takes no lock and allocates nothing (counted by interposing
 * those functions, not under ASan which owns malloc); forks while walks run
 * never hang a child.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "agent/unwind.h"
#include "libunwind_ref.h"
#include "tests/progs/cpu_clock.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define NOINLINE __attribute__((noinline))
#define EXPORT __attribute__((visibility("default"))) /* interposes libunwind's calls */

static struct libunwind_ref ref;

static int test_signo;
static volatile uint64_t sink;

/* ---- what the handler records ---------------------------------------------- */

static struct {
	long walks, mismatches, complete, depth_hits, lib_frames, clean_walks, dirty_hits;
	long allocs, phdr_calls;
	uint64_t first_bad[4][8];
	int nbad;
} rec;

static struct {
	int compare;		  /* compare with unw_step (atomic) */
	int count_calls;	  /* count interposed calls per walk: one thread only (atomic) */
	uintptr_t lib_lo, lib_hi; /* a library whose frames we look for */
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH];
	int n;
	unsigned int flags;
} cfg;

/* interposed calls made inside the walk (count_calls mode) */
static __thread int in_walk;
static __thread long calls_lock, calls_alloc, calls_phdr;

static void compare(void *uc, const uint64_t *pcs, int n, unsigned int flags)
{
	uint64_t want[AGENT_UNWIND_MAX_DEPTH];
	int m = libunwind_ref__walk(&ref, uc, want, AGENT_UNWIND_MAX_DEPTH);
	/* complete: the same stack; truncated: a prefix of it (unw_step may guess on) */
	int ok = (flags & AGENT_UNWIND_TRUNCATED) ? n <= m : n == m;

	for (int i = 0; ok && i < n; i++)
		ok = pcs[i] == want[i];
	__atomic_fetch_add(&rec.complete, !(flags & AGENT_UNWIND_TRUNCATED), __ATOMIC_RELAXED);
	if (ok)
		return;
	if (__atomic_fetch_add(&rec.mismatches, 1, __ATOMIC_RELAXED) < 4) {
		int k = __atomic_fetch_add(&rec.nbad, 1, __ATOMIC_RELAXED);

		for (int i = 0; i < 4 && i < n; i++)
			rec.first_bad[k][i] = pcs[i];
		for (int i = 0; i < 4 && i < m; i++)
			rec.first_bad[k][4 + i] = want[i];
	}
}

static void note_lib(const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++)
		if (pcs[i] >= cfg.lib_lo && pcs[i] < cfg.lib_hi) {
			__atomic_fetch_add(&rec.lib_frames, 1, __ATOMIC_RELAXED);
			return;
		}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH];
	struct unwind_stats before, after;
	unsigned int flags;
	long locks = calls_lock, allocs = calls_alloc, phdrs = calls_phdr;
	int saved = errno, n, counting = __atomic_load_n(&cfg.count_calls, __ATOMIC_RELAXED);

	(void)sig;
	(void)si;
	if (counting)
		unwind_get_stats(&before);
	in_walk = 1;
	n = unwind_from_signal(uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	in_walk = 0;
	__atomic_fetch_add(&rec.walks, 1, __ATOMIC_RELAXED);
	if (counting) {
		unwind_get_stats(&after);
		if (after.misses == before.misses) {
			rec.clean_walks++;
			rec.dirty_hits += calls_lock != locks;
		}
		rec.allocs += calls_alloc - allocs;
		rec.phdr_calls += calls_phdr - phdrs;
	}
	if (__atomic_load_n(&cfg.compare, __ATOMIC_RELAXED))
		compare(uc, pcs, n, flags);
	note_lib(pcs, n);
	if (flags & AGENT_UNWIND_DEPTH)
		__atomic_fetch_add(&rec.depth_hits, 1, __ATOMIC_RELAXED);
	memcpy(cfg.pcs, pcs, sizeof(pcs));
	cfg.n = n;
	cfg.flags = flags;
	errno = saved;
}

/* ---- interposed functions (not under ASan) ------------------------------------ */

#if !UNDER_ASAN
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_phdr)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

EXPORT void *malloc(size_t n)
{
	calls_alloc += in_walk;
	return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t m)
{
	calls_alloc += in_walk;
	return __libc_calloc(n, m);
}

EXPORT void *realloc(void *p, size_t n)
{
	calls_alloc += in_walk;
	return __libc_realloc(p, n);
}

EXPORT void free(void *p)
{
	calls_alloc += in_walk && p;
	__libc_free(p);
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	calls_lock += in_walk;
	return real_mutex_lock(m);
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	calls_lock += in_walk;
	return real_sigprocmask(how, set, old);
}

EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *arg)
{
	calls_phdr += in_walk;
	return real_phdr(cb, arg);
}

static void resolve_interposed(void)
{
	*(void **)&real_mutex_lock = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	*(void **)&real_sigprocmask = dlsym(RTLD_NEXT, "sigprocmask");
	*(void **)&real_phdr = dlsym(RTLD_NEXT, "dl_iterate_phdr");
}
#else
static void resolve_interposed(void)
{
}
#endif

/* ---- workload ------------------------------------------------------------------ */

static unsigned char src[512 << 10], dst[(512 << 10) + 4096];

NOINLINE uint64_t recurse(int depth, uint64_t n)
{
	uint64_t acc = n;

	if (depth > 0) {
		acc = recurse(depth - 1, n);
		sink += acc; /* after the call: no tail recursion to turn into a loop */
		return acc;
	}
	for (uint64_t i = 0; i < n; i++)
		acc = acc * 6364136223846793005ull + i;
	sink += acc;
	return acc;
}

NOINLINE void zwork(int level)
{
	uLongf len = sizeof(dst);

	compress2(dst, &len, src, sizeof(src), level);
	sink += len;
}

static int arm_timer(timer_t *t)
{
	struct sigevent se = {0};
	struct itimerspec its = {{0, 4000000}, {0, 4000000}};

	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = test_signo;
	se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, t) < 0)
		return -1;
	return timer_settime(*t, 0, &its, NULL);
}

/* Burn CPU in varied, deep stacks under a 250 Hz thread CPU timer. */
/* Work under the sampling timer for `seconds` of this thread's CPU; with zlib: through
 * Debian's zlib too (it allocates).  Returns 0, or 1 if the timer could not be armed. */
static int sampled_loop(double seconds, int with_zlib)
{
	double until = thread_cpu_s() + seconds;
	timer_t t;

	if (arm_timer(&t) < 0)
		return 1;
	while (thread_cpu_s() < until) {
		if (with_zlib) {
			zwork(1);
			zwork(6);
		}
		sink += recurse(30, 200000);
	}
	timer_delete(t);
	return 0;
}

static void *sampled_work(void *arg)
{
	return sampled_loop(*(double *)arg, 1) ? (void *)1 : NULL;
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_matches_unw_step(void)
{
	double seconds = 0.6;
	pthread_t th;
	void *r1, *r2;

	memset(&rec, 0, sizeof(rec));
	__atomic_store_n(&cfg.compare, 1, __ATOMIC_RELAXED);
	pthread_create(&th, NULL, sampled_work, &seconds);
	r1 = sampled_work(&seconds);
	pthread_join(th, &r2);
	__atomic_store_n(&cfg.compare, 0, __ATOMIC_RELAXED);
	CHECKF("walks equal libunwind's unw_step (two threads, shared cache)",
	       !r1 && !r2 && rec.walks >= 40 && rec.mismatches == 0,
	       "walks=%ld mismatches=%ld ours %lx %lx %lx vs %lx %lx %lx", rec.walks,
	       rec.mismatches, (long)rec.first_bad[0][0], (long)rec.first_bad[0][1],
	       (long)rec.first_bad[0][2], (long)rec.first_bad[0][4], (long)rec.first_bad[0][5],
	       (long)rec.first_bad[0][6]);
	CHECKF("walks reach the outermost frame", rec.complete >= rec.walks * 99 / 100,
	       "complete=%ld of %ld", rec.complete, rec.walks);
}

NOINLINE int deep_raise(int depth)
{
	int r;

	if (depth <= 0) {
		raise(test_signo);
		return 0;
	}
	r = deep_raise(depth - 1);
	sink += (uint64_t)r; /* after the call: the recursion stays a recursion */
	return r + 1;
}

static void test_depth_limit(void)
{
	memset(&rec, 0, sizeof(rec));
	sink += (uint64_t)deep_raise(300);
	CHECKF("the depth limit truncates a deeper stack",
	       cfg.n == AGENT_UNWIND_MAX_DEPTH && (cfg.flags & AGENT_UNWIND_DEPTH) &&
		       (cfg.flags & AGENT_UNWIND_TRUNCATED),
	       "n=%d flags=%#x", cfg.n, cfg.flags);
}

NOINLINE void plain_function(void)
{
	sink++;
}

static void test_bad_stack(void)
{
	struct unwind_stats st;
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH];
	unsigned int flags;
	ucontext_t uc;
	void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int n;

	getcontext(&uc);
	/* at the entry of a function whose return address is in a page we cannot read */
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)plain_function;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)page + 64;
	n = unwind_from_signal(&uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	unwind_get_stats(&st);
	CHECKF("a fault in the walk gives a truncated stack",
	       n == 1 && pcs[0] == (uintptr_t)plain_function && (flags & AGENT_UNWIND_FAULT) &&
		       st.faults >= 1,
	       "n=%d flags=%#x faults=%llu", n, flags, (unsigned long long)st.faults);
	/* a stack pointer nowhere near a stack: no crash either */
	uc.uc_mcontext.gregs[REG_RSP] = 8;
	n = unwind_from_signal(&uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	CHECKF("a wild stack pointer gives a truncated stack",
	       n == 1 && (flags & AGENT_UNWIND_TRUNCATED), "n=%d flags=%#x", n, flags);
	munmap(page, 4096);
	memset(&rec, 0, sizeof(rec));
	sink += (uint64_t)deep_raise(3);
	CHECKF("walks work again after a fault", cfg.n > 5 && !(cfg.flags & AGENT_UNWIND_TRUNCATED),
	       "n=%d flags=%#x", cfg.n, cfg.flags);
}

/* The text of the library that holds fn. */
static int lib_range(void *fn, uintptr_t *lo, uintptr_t *hi)
{
	struct link_map *lm = NULL;
	const ElfW(Ehdr) * eh;
	const ElfW(Phdr) * ph;
	Dl_info info;

	if (!fn || !dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return -1;
	eh = info.dli_fbase; /* the first PT_LOAD maps the ELF header */
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			*lo = lm->l_addr + ph[i].p_vaddr;
			*hi = *lo + ph[i].p_memsz;
			return 0;
		}
	return -1;
}

/* Sampled calls into a dlopen'ed library, then dlclose: walks, and walks through it. */
static long lib_round(const char *path, long *walks, int *ok)
{
	uint64_t (*work)(uint64_t) = NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	double until = thread_cpu_s() + 0.25;
	timer_t t;

	if (h)
		*(void **)&work = dlsym(h, "stress_lib_work");
	if (!h || !work || lib_range((void *)work, &cfg.lib_lo, &cfg.lib_hi) < 0 ||
	    arm_timer(&t) < 0) {
		*ok = 0;
		return 0;
	}
	rec.lib_frames = 0;
	*walks = rec.walks;
	/* 0.25 s of CPU, longer (up to 2 s more) until 5 walks: on a busy machine the kernel
	 * merges the timer's expiries into few signals */
	while (thread_cpu_s() < until || (rec.walks - *walks < 5 && thread_cpu_s() < until + 2.0))
		sink += work(100000);
	timer_delete(t);
	*walks = rec.walks - *walks;
	dlclose(h);
	unwind_objects_changed(); /* what the agent's dlclose wrapper does */
	*ok = 1;
	return rec.lib_frames;
}

static void test_dlclose(void)
{
	const char *build = getenv("PROFIL_BUILD");
	struct unwind_stats st;
	char path[4096];
	long first, second, walks1, walks2;
	int ok1, ok2;

	if (!build) {
		SKIP("dlclose retires the library's tables", "PROFIL_BUILD is not set");
		return;
	}
	snprintf(path, sizeof(path), "%s/tests/progs/libstack_stress.so", build);
	memset(&rec, 0, sizeof(rec));
	__atomic_store_n(&cfg.compare, 1, __ATOMIC_RELAXED);
	first = lib_round(path, &walks1, &ok1);
	unwind_get_stats(&st);
	second = lib_round(path, &walks2, &ok2);
	__atomic_store_n(&cfg.compare, 0, __ATOMIC_RELAXED);
	CHECKF("dlclose retires the library's tables", ok1 && st.retired >= 1,
	       "loaded=%d retired=%llu", ok1, (unsigned long long)st.retired);
	/* nearly every sample is in the library: its calls are the whole loop */
	CHECKF("a reloaded library unwinds like unw_step says",
	       ok2 && walks1 >= 5 && walks2 >= 5 && first >= walks1 * 8 / 10 &&
		       second >= walks2 * 8 / 10 && rec.mismatches == 0,
	       "walks through the library: %ld of %ld, then %ld of %ld; mismatches=%ld", first,
	       walks1, second, walks2, rec.mismatches);
}

/* A frame without CFI (hand-written asm): libunwind has no FDE for it. */
__asm__(".text\n"
	".globl nocfi_call\n"
	".type nocfi_call, @function\n"
	"nocfi_call:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call *%rdi\n"
	"	pop %rbp\n"
	"	ret\n"
	".size nocfi_call, .-nocfi_call\n");
void nocfi_call(void (*fn)(void));

NOINLINE void raise_under_nocfi(void)
{
	raise(test_signo);
	sink++;
}

static void test_frame_without_cfi(void)
{
	memset(&rec, 0, sizeof(rec));
	__atomic_store_n(&cfg.count_calls, 1, __ATOMIC_RELAXED);
	nocfi_call(raise_under_nocfi);
	__atomic_store_n(&cfg.count_calls, 0, __ATOMIC_RELAXED);
	CHECKF("a frame without CFI ends the stack (NO_INFO)",
	       cfg.n >= 2 && (cfg.flags & AGENT_UNWIND_NO_INFO) &&
		       cfg.pcs[cfg.n - 1] - (uintptr_t)nocfi_call < 16,
	       "n=%d flags=%#x last=%#lx nocfi_call=%p", cfg.n, cfg.flags,
	       (unsigned long)cfg.pcs[cfg.n - 1], (void *)nocfi_call);
	if (UNDER_ASAN)
		SKIP("... without libunwind falling back on dl_iterate_phdr",
		     "no interposition under ASan");
	else
		CHECKF("... without libunwind falling back on dl_iterate_phdr", rec.phdr_calls == 0,
		       "dl_iterate_phdr calls: %ld", rec.phdr_calls);
}

static void test_hit_path_is_quiet(void)
{
	double seconds = 0.4;

	if (UNDER_ASAN) {
		SKIP("cached walks: no lock, no system call, no allocation",
		     "ASan owns malloc: nothing to interpose");
		return;
	}
	sampled_work(&seconds); /* warm the cache */
	memset(&rec, 0, sizeof(rec));
	__atomic_store_n(&cfg.count_calls, 1, __ATOMIC_RELAXED);
	sampled_work(&seconds);
	__atomic_store_n(&cfg.count_calls, 0, __ATOMIC_RELAXED);
	CHECKF("cached walks: no lock, no system call, no allocation",
	       rec.clean_walks >= 10 && rec.dirty_hits == 0,
	       "walks=%ld without a miss=%ld of which with sigprocmask/mutex calls=%ld", rec.walks,
	       rec.clean_walks, rec.dirty_hits);
	CHECKF("no walk allocates or calls dl_iterate_phdr", rec.allocs == 0 && rec.phdr_calls == 0,
	       "allocations=%ld dl_iterate_phdr=%ld", rec.allocs, rec.phdr_calls);
}

/*
 * Under ASan the child works without zlib, so without malloc: clang 14's ASan
 * allocator is not fork-safe (a child forked while another thread refills
 * its cache deadlocks in the next malloc; seen in this test, in zlib's
 * deflateInit2_, 3 runs in 30).
 */
static void test_fork_while_walking(void)
{
	double seconds = 0.5;
	int bad = 0, forks = 0;
	pthread_t th;
	double until;

	pthread_create(&th, NULL, sampled_work, &seconds);
	until = thread_cpu_s() + 0.3;
	while (thread_cpu_s() < until && forks < 40) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			double child = 0.005;

			alarm(20); /* a hang in a child fails the test instead of blocking it */
			_exit(sampled_loop(child, !UNDER_ASAN) ? 3 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad++;
		forks++;
	}
	pthread_join(th, NULL);
	CHECKF("forks while another thread walks: every child runs and exits",
	       forks >= 10 && bad == 0, "forks=%d bad=%d", forks, bad);
}

int main(void)
{
	struct sigaction sa;
	char why[160];

	resolve_interposed();
	if (libunwind_ref__load(&ref) < 0) {
		SKIP("in-handler unwinder", "libunwind.so.8 is not installed");
		return 0;
	}
	CHECKF("unwind_init", unwind_init(why, sizeof(why)) == 0 && unwind_ready(), "%s", why);
	if (!unwind_ready())
		return CHECK_DONE();
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)((i / 5) ^ (i >> 11) ^ (i * 2654435761u >> 28));
	test_signo = SIGRTMIN + 4;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV); /* the guard must be able to catch a fault */
	sigdelset(&sa.sa_mask, SIGBUS);
	sigaction(test_signo, &sa, NULL);
	test_matches_unw_step();
	test_depth_limit();
	test_bad_stack();
	test_dlclose();
	test_frame_without_cfi();
	test_hit_path_is_quiet();
	test_fork_while_walking();
	return CHECK_DONE();
}
