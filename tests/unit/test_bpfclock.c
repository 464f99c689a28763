// SPDX-License-Identifier: MIT
/*
 * The kernel-side histogram clock: a forked child burns two functions for
 * 2/3 and 1/3 of its CPU time; the kernel counts its PCs into the mapped
 * bins; the flushed profile must show the same split.  Needs root or
 * CAP_BPF+CAP_PERFMON (skipped with the reason otherwise).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "record/bpfclock.h"
#include "profile/pdata.h"

#define HZ 4999

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

/*
 * secs of this thread's CPU time in a linear congruential generator x * mul + inc:
 * always inlined, so that the PCs are those of the function it is inlined in.
 */
__attribute__((always_inline)) static inline void burn(double secs, uint64_t x, uint64_t mul,
						       uint64_t inc)
{
	double end = thread_cpu() + secs;

	while (thread_cpu() < end)
		for (int i = 0; i < 20000; i++)
			x = x * mul + inc;
	sink = x;
}

__attribute__((noinline, aligned(64))) static void burn_a(double secs)
{
	burn(secs, 1, 6364136223846793005ull, 1442695040888963407ull);
}

__attribute__((noinline, aligned(64))) static void burn_b(double secs)
{
	burn(secs, 7, 2862933555777941757ull, 3037000493ull);
}

/* Address ranges of the two functions: from each start to the next function start. */
static uintptr_t a_lo, a_hi, b_lo, b_hi;
int main(void);

static void function_ranges(void)
{
	uintptr_t starts[] = {(uintptr_t)burn_a, (uintptr_t)burn_b, (uintptr_t)thread_cpu,
			      (uintptr_t)function_ranges, (uintptr_t)main};
	a_lo = (uintptr_t)burn_a, b_lo = (uintptr_t)burn_b;
	a_hi = b_hi = UINTPTR_MAX;
	for (unsigned i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		if (starts[i] > a_lo && starts[i] < a_hi)
			a_hi = starts[i];
		if (starts[i] > b_lo && starts[i] < b_hi)
			b_hi = starts[i];
	}
	if (a_hi == UINTPTR_MAX)
		a_hi = a_lo + 512;
	if (b_hi == UINTPTR_MAX)
		b_hi = b_lo + 512;
}

struct tally {
	uint64_t a, b, total;
};

static int tally_sample(void *arg, const struct pdata_sample *s)
{
	struct tally *t = arg;
	uint64_t pc = s->pc, count = s->count;

	t->total += count;
	if (pc >= a_lo && pc < a_hi)
		t->a += count;
	else if (pc >= b_lo && pc < b_hi)
		t->b += count;
	return 0;
}

/* Text range of this executable, from /proc/self/maps. */
static int own_text(uintptr_t pc, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3 && perms[2] == 'x' && pc >= s &&
		    pc < e) {
			*lo = s, *hi = e, found = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	char why[256], path[] = "/tmp/bpfclock-test-XXXXXX";
	struct bpfclock *bc;
	struct pdata *pd;
	int fds[64], nfd = 0, go[2], ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), rc, status;
	uintptr_t lo = 0, hi = 0;
	struct tally t = {0};
	struct bpfclock_stats st;

	if (!bpfclock__built()) {
		SKIP("bpf histogram clock", "built without BPF support");
		return 0;
	}
	rc = bpfclock__open(&bc, why, sizeof(why));
	if (rc == -EPERM) {
		SKIP("bpf histogram clock", why);
		return 0;
	}
	CHECKF("the BPF program loads and its bins map", rc == 0, "%s", why);
	if (rc)
		return 1;
	function_ranges();
	CHECK("own text found", own_text((uintptr_t)burn_a, &lo, &hi));

	if (pipe(go) < 0)
		return 1;
	pid_t child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		burn_a(0.8);
		burn_b(0.4);
		_exit(0);
	}
	close(go[0]);
	for (int cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_TASK_CLOCK,
			.sample_period = 1000000000ull / HZ,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
			.inherit = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};
		int fd = (int)syscall(SYS_perf_event_open, &attr, child, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			continue;
		fds[nfd++] = fd;
		CHECKF("attach to the task-clock event", bpfclock__attach(bc, fd) == 0, "cpu %d",
		       cpu);
	}
	CHECK("task-clock events opened", nfd > 0);
	CHECK("region registered",
	      bpfclock__add_region(bc, (uint32_t)child, (uint32_t)child, 1, lo, hi) == 0);
	if (write(go[1], "g", 1) != 1)
		return 1;
	waitpid(child, &status, 0);
	CHECK("child ran normally", WIFEXITED(status) && WEXITSTATUS(status) == 0);

	int tmp = mkstemp(path);
	close(tmp);
	unlink(path);
	rc = pdata__create(
		&pd, path,
		&(struct pdata_create_opts){.table_slots = 1 << 16, .records_cap = 1 << 16}, why,
		sizeof(why));
	CHECKF("pdata", rc == 0, "%s", why);
	if (rc)
		return 1;
	bpfclock__flush(bc, pd);
	bpfclock__stats(bc, &st);
	pdata__foreach_sample(pd, tally_sample, &t);
	double share_a = t.total ? (double)t.a / (double)(t.a + t.b) : 0;
	double expect = 1.2 * HZ; /* 1.2 CPU seconds */
	printf("# ticks %llu binned %llu unresolved %llu, a %llu b %llu (%.1f%% vs 66.7%%)\n",
	       (unsigned long long)st.ticks, (unsigned long long)st.binned,
	       (unsigned long long)st.unresolved, (unsigned long long)t.a, (unsigned long long)t.b,
	       100 * share_a);
	CHECKF("the kernel counted the ticks into the bins", st.binned > 0.9 * st.ticks,
	       "%llu of %llu", (unsigned long long)st.binned, (unsigned long long)st.ticks);
	CHECKF("flushed counts equal the kernel's", t.total == st.binned, "%llu vs %llu",
	       (unsigned long long)t.total, (unsigned long long)st.binned);
	CHECKF("calibration: samples x period within 15 percent of the CPU burnt",
	       t.total > 0.85 * expect && t.total < 1.15 * expect, "%llu samples, expected ~%.0f",
	       (unsigned long long)t.total, expect);
	CHECKF("function shares match the truth within 5 points",
	       share_a > 0.617 && share_a < 0.717, "burn_a %.1f%%", 100 * share_a);
	CHECK("a second flush finds nothing new", bpfclock__flush(bc, pd) == 0);
	for (int i = 0; i < nfd; i++)
		close(fds[i]);
	pdata__close(pd);
	unlink(path);
	bpfclock__close(bc);
	return CHECK_DONE();
}
