// SPDX-License-Identifier: MIT
/*
 * The cost of call stacks in the agent's sink, in-process (make bench-stacks):
 *
 *   stackcost [ROUNDS [DEPTH]]
 *
 * 1. A/B/C overhead: the same chunk of work (a recursion DEPTH deep, then
 *    zlib compress2, Debian's libz without frame pointers) run with the
 *    sampler's THREAD clock at 250 Hz off, with the agent's flat sink
 *    (pdata__count) and with its stack sink (unwind_from_signal +
 *    pdata__count_stack), the three in rotated order every round.  A chunk
 *    costs the thread's CPU time (its signal handlers and the kernel's
 *    delivery included).  Printed: median over rounds of chunk/off - 1, the
 *    mean extra CPU per chunk with its standard error, the cost per sample,
 *    and (stacks - off) / (flat - off).
 * 2. The sinks timed from inside (CLOCK_MONOTONIC at entry and exit): ns per
 *    sample, median and p99, with, for reference, the same stack taken with
 *    libunwind's own unw_step() loop (its default cache: a lock and two
 *    sigprocmask() calls per frame), at 250 Hz (the THREAD clock) and, through a
 *    bench-only CLOCK_MONOTONIC timer signalling the thread (the sampler's
 *    signal clocks stop at CONFIG_HZ; the perf clock delivers no context to
 *    unwind from), at 1 kHz and 10 kHz.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <libunwind.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/unwind.h"
#include "lib/sampler.h"
#include "profile/pdata.h"
#include "tests/tools/libunwind_ref.h"

#define NOINLINE __attribute__((noinline))
#define MAX_TIMES (1 << 20)

enum mode { OFF, FLAT, STACKS, UNW_STEP, NMODES };
static const char *const mode_name[] = {"off", "flat", "stacks", "unw_step loop"};
#define NAB (STACKS + 1) /* modes of the A/B/C runs */

static struct libunwind_ref lu;

static struct pdata *pd;
static unsigned char src[1 << 20], dst[(1 << 20) + 4096];
static volatile uint64_t sink_word;
static int depth = 12;

/* in-sink durations, per mode */
static struct {
	uint64_t ns[MAX_TIMES];
	uint64_t n; /* atomic */
	uint64_t frames;
} times[NMODES];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_time(enum mode m, uint64_t ns, int frames)
{
	uint64_t i = __atomic_fetch_add(&times[m].n, 1, __ATOMIC_RELAXED);

	if (i < MAX_TIMES)
		times[m].ns[i] = ns;
	times[m].frames += (uint64_t)frames;
}

/* The agent's flat sink, minus its thread bookkeeping (the same in both modes). */
static void flat_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	uint64_t t0 = mono_ns();

	(void)arg;
	pdata__count(pd, 1, tid, pc, ticks);
	note_time(FLAT, mono_ns() - t0, 1);
}

/* The agent's stack sink (agent_sink_stack), the same way. */
static void stack_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks, void *uc)
{
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH], t0 = mono_ns();
	unsigned int flags;
	int n = 1;

	(void)arg;
	pcs[0] = pc;
	if (uc)
		n = unwind_from_signal(uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	pdata__count_stack(pd, 1, tid, pcs, (unsigned int)n, 0, ticks);
	note_time(STACKS, mono_ns() - t0, n);
}

/* For reference: libunwind's unw_step() loop from the same context. */
static void unw_step_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks, void *uc)
{
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH], t0 = mono_ns();
	int n;

	(void)arg;
	pcs[0] = pc;
	n = libunwind_ref__walk(&lu, uc, pcs, AGENT_UNWIND_MAX_DEPTH);
	pdata__count_stack(pd, 1, tid, pcs, (unsigned int)(n ? n : 1), 0, ticks);
	note_time(UNW_STEP, mono_ns() - t0, n);
}

/* ---- work ------------------------------------------------------------------ */

NOINLINE uint64_t compress_block(void)
{
	uLongf len = sizeof(dst);

	compress2(dst, &len, src, sizeof(src), 6);
	return len;
}

NOINLINE uint64_t nest(int d)
{
	uint64_t r;

	if (d <= 0)
		return compress_block();
	r = nest(d - 1);
	sink_word += r; /* after the call: a real frame per level */
	return r;
}

/* ---- A/B/C ------------------------------------------------------------------- */

static int start(enum mode m)
{
	struct sampler_config cfg = {.clock = PROFIL_CLOCK_THREAD, .hz = 250};

	if (m == OFF)
		return 0;
	if (m == FLAT)
		cfg.sink = flat_sink;
	else if (m == STACKS)
		cfg.sink_ctx = stack_sink;
	else
		cfg.sink_ctx = unw_step_sink;
	return sampler_start(&cfg, NULL);
}

static uint64_t chunk(enum mode m, uint64_t *samples)
{
	uint64_t before = times[m].n, t0, t1;

	if (start(m) < 0) {
		fprintf(stderr, "stackcost: cannot start the sampler\n");
		exit(1);
	}
	t0 = thread_cpu_ns();
	sink_word += nest(depth);
	sink_word += nest(depth);
	t1 = thread_cpu_ns();
	sampler_stop();
	*samples += times[m].n - before;
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_d(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void mean_se(const double *v, int n, double *mean, double *se)
{
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*se = n > 1 ? __builtin_sqrt(ss / (n - 1) / n) : 0;
}

/* Mean of the middle 80 % (robust to the heavy tails other tenants cause), sorted in place. */
static double trimmed_mean(double *v, int n)
{
	int lo = n / 10, hi = n - n / 10;
	double s = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (int i = lo; i < hi; i++)
		s += v[i];
	return hi > lo ? s / (hi - lo) : 0;
}

static void abc(int rounds)
{
	double *ratio[NAB], *extra[NAB];
	uint64_t samples[NAB] = {0};
	double mean[NAB], se[NAB], trim[NAB], med[NAB];

	for (int m = 0; m < NAB; m++) {
		ratio[m] = calloc((size_t)rounds, sizeof(double));
		extra[m] = calloc((size_t)rounds, sizeof(double));
	}
	for (int r = 0; r < rounds; r++) {
		uint64_t t[NAB];

		for (int k = 0; k < NAB; k++) {
			enum mode m = (enum mode)((r + k) % NAB);

			t[m] = chunk(m, &samples[m]);
		}
		for (int m = 0; m < NAB; m++) {
			ratio[m][r] = (double)t[m] / (double)t[OFF] - 1;
			extra[m][r] = (double)t[m] - (double)t[OFF];
		}
	}
	printf("| sink | median overhead %% | mean extra CPU per chunk (us) | trimmed mean (us) |"
	       " samples per chunk | cost per sample (us): mean, trimmed |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: |\n");
	for (int m = FLAT; m < NAB; m++) {
		double per_chunk = (double)samples[m] / rounds;

		mean_se(extra[m], rounds, &mean[m], &se[m]);
		trim[m] = trimmed_mean(extra[m], rounds);
		med[m] = median_d(ratio[m], rounds);
		printf("| %s | %.3f | %.1f ± %.1f | %.1f | %.1f | %.2f ± %.2f, %.2f |\n",
		       mode_name[m], 100 * med[m], mean[m] / 1e3, se[m] / 1e3, trim[m] / 1e3,
		       per_chunk, mean[m] / 1e3 / per_chunk, se[m] / 1e3 / per_chunk,
		       trim[m] / 1e3 / per_chunk);
	}
	printf("\n(stacks - off) / (flat - off): %.2f (means), %.2f (trimmed means), %.2f "
	       "(medians);"
	       " %d rounds of %.0f ms\n\n",
	       mean[STACKS] / mean[FLAT], trim[STACKS] / trim[FLAT], med[STACKS] / med[FLAT],
	       rounds, (double)samples[FLAT] / rounds * 4); /* 250 Hz: a sample per 4 ms */
}

/* ---- in-sink cost -------------------------------------------------------------- */

static void print_times(const char *clock, unsigned int hz)
{
	for (int m = FLAT; m < NMODES; m++) {
		uint64_t n = times[m].n < MAX_TIMES ? times[m].n : MAX_TIMES;

		if (!n)
			continue;
		qsort(times[m].ns, n, sizeof(uint64_t), cmp_u64);
		printf("| %s | %u | %s | %llu | %llu | %llu | %.1f |\n", clock, hz, mode_name[m],
		       (unsigned long long)n, (unsigned long long)times[m].ns[n / 2],
		       (unsigned long long)times[m].ns[n * 99 / 100],
		       (double)times[m].frames / (double)times[m].n);
	}
}

static void reset_times(void);

static uint64_t saved_n[NMODES];
static uint64_t *saved_ns[NMODES], saved_frames[NMODES];

/* the A/B/C runs' in-sink times were kept aside (saved_*) before the reference run */
static void abc_times_print(void)
{
	for (int m = FLAT; m < NAB; m++) {
		memcpy(times[m].ns, saved_ns[m], saved_n[m] * sizeof(uint64_t));
		times[m].n = saved_n[m];
		times[m].frames = saved_frames[m];
	}
	print_times("THREAD (sampler)", 250);
}

static void reset_times(void)
{
	for (int m = 0; m < NMODES; m++)
		times[m].n = times[m].frames = 0;
}

static enum mode hr_mode;

static void hr_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	int saved = errno;

	(void)sig;
	(void)si;
	if (hr_mode == FLAT)
		flat_sink(NULL, pc, 1, 1);
	else if (hr_mode == STACKS)
		stack_sink(NULL, pc, 1, 1, uc);
	else
		unw_step_sink(NULL, pc, 1, 1, uc);
	errno = saved;
}

/* Bench-only: a CLOCK_MONOTONIC timer signalling this thread at hz, around 0.5 s of work. */
static void hr_run(unsigned int hz, enum mode m)
{
	struct sigevent se = {0};
	struct itimerspec its = {{0, 1000000000 / hz}, {0, 1000000000 / hz}};
	uint64_t until = thread_cpu_ns() + 500000000ull;
	timer_t t;

	hr_mode = m;
	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = SIGRTMIN + 6;
	se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &se, &t) < 0 || timer_settime(t, 0, &its, NULL) < 0) {
		perror("stackcost: timer");
		exit(1);
	}
	while (thread_cpu_ns() < until)
		sink_word += nest(depth);
	timer_delete(t);
}

static void in_sink_costs(void)
{
	struct sigaction sa;
	static const unsigned int rates[] = {1000, 10000};

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = hr_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigaction(SIGRTMIN + 6, &sa, NULL);
	for (unsigned int i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		reset_times();
		hr_run(rates[i], FLAT);
		hr_run(rates[i], STACKS);
		hr_run(rates[i], UNW_STEP);
		print_times("CLOCK_MONOTONIC timer", rates[i]);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	char why[256], dir[] = "/tmp/stackcost.XXXXXX", path[64];
	struct pdata_create_opts opts = {
		.table_slots = 1u << 16, .frame_slots = 1u << 16, .records_cap = 1u << 20};
	/* a directory of our own: pdata__create makes the file (and refuses to replace one that
	 * is not a profile, such as mkstemp's empty file) */
	int made = mkdtemp(dir) != NULL;

	depth = argc > 2 ? atoi(argv[2]) : depth;
	snprintf(path, sizeof(path), "%s/stackcost.data", dir);
	if (!made || pdata__create(&pd, path, &opts, why, sizeof(why)) < 0) {
		fprintf(stderr, "stackcost: %s\n", made ? why : strerror(errno));
		if (made)
			rmdir(dir);
		return 1;
	}
	unlink(path);
	rmdir(dir);
	if (libunwind_ref__load(&lu) < 0) {
		fprintf(stderr, "stackcost: libunwind.so.8 lacks unw_step\n");
		return 1;
	}
	if (unwind_init(why, sizeof(why)) < 0) {
		fprintf(stderr, "stackcost: %s\n", why);
		return 1;
	}
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)((i / 5) ^ (i >> 11) ^ ((i * 2654435761u) >> 28));
	printf("## depth %d (stack ~%d frames)\n\n", depth, depth + 10);
	abc(2); /* warm up: caches, unwind rules */
	reset_times();
	abc(rounds);
	for (int m = FLAT; m < NAB; m++) {
		saved_n[m] = times[m].n < MAX_TIMES ? times[m].n : MAX_TIMES;
		saved_ns[m] = malloc(saved_n[m] * sizeof(uint64_t) + 1);
		memcpy(saved_ns[m], times[m].ns, saved_n[m] * sizeof(uint64_t));
		saved_frames[m] = times[m].frames;
	}
	printf("| clock | Hz | sink | samples | median ns | p99 ns | frames |\n"
	       "| --- | ---: | --- | ---: | ---: | ---: | ---: |\n");
	reset_times();
	for (int r = 0; r < 10; r++) { /* the reference, apart: not in the overhead table */
		uint64_t samples = 0;

		chunk(UNW_STEP, &samples);
	}
	abc_times_print();
	in_sink_costs();
	printf("\n");
	return 0;
}
