// SPDX-License-Identifier: MIT
/*
 * Scenarios for the libprofil end-to-end tests.  Usage: lib_scen SCENARIO CLOCK HZ
 * Each prints "key=value" lines that tests/e2e/lib_*.sh check, and exits 0
 * unless the scenario itself says otherwise.
 *   fork     parent and child count into their own copies
 *   exec     exec a CPU-bound image while profiling; it reports leftovers
 *   sigprof  the program's own SIGPROF handler and ITIMER_PROF keep working
 *   errno    errno is never changed by a tick, with threads dying meanwhile
 *   munmap   the buffer is unmapped mid-run
 *   mprotect the buffer is made read-only mid-run
 *   segv     a real fault of the program still kills it with SIGSEGV
 *   churn    300 on/off cycles (all clocks) while threads come and go
 *   concurrent  4 threads calling profil/sprofil/get_stats/off at once, 200 times each
 *   noperf   perf_event_open refused by seccomp (EACCES): AUTO falls back to THREAD, PERF
 *            fails with EACCES and changes nothing
 *   env      (CLOCK "-": keep what PROFIL_CLOCK/PROFIL_HZ/PROFIL_SIGNAL chose) report the
 *            clock, rate and the signal that got a handler
 * (and "spin SECONDS", the image the exec scenario runs)
 */
#include <dirent.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib_prog.h"

HOT_FN(hot_a)
HOT_FN(hot_b)
HOT_FN(hot_c)

static const struct hot_range ranges[3] = {HOT_RANGE(hot_a), HOT_RANGE(hot_b), HOT_RANGE(hot_c)};
static unsigned short *buf;
static uintptr_t lo;
static size_t size;

static void burn(void (*fn)(long), double seconds)
{
	double until = thread_cpu_s() + seconds;

	while (thread_cpu_s() < until)
		fn(10000);
}

/*
 * At least SECONDS of CPU, then on (up to 2 s more) until the clock took MIN
 * samples: on a machine whose CPUs are all busy the kernel can hold a
 * thread's CPU timers for hundreds of ms (doc/libprofil.md), and the checks
 * that use this one are about what happens after a tick, not about rates.
 */
static void burn_until_samples(void (*fn)(long), double seconds, uint64_t min)
{
	struct profil_stats st;

	burn(fn, seconds);
	for (int i = 0; i < 20 && profil_get_stats(&st, sizeof(st)) == 0 && st.samples < min; i++)
		burn(fn, 0.1);
}

static void start(unsigned short *b)
{
	enable_or_skip(profil(b, size, lo, 65536), "profil");
}

static uint64_t in(int i)
{
	return count_range(buf, lo, &ranges[i]);
}

static int scen_fork(void)
{
	int status;
	pid_t pid;

	start(buf);
	burn(hot_a, 0.3);
	pid = fork();
	if (pid == 0) {
		struct profil_stats st;

		burn(hot_b, 0.4);
		profil_get_stats(&st, sizeof(st));
		printf("child_a=%llu child_b=%llu child_active=%d\n", (unsigned long long)in(0),
		       (unsigned long long)in(1), st.active);
		fflush(stdout);
		_exit(0);
	}
	burn(hot_c, 0.4);
	waitpid(pid, &status, 0);
	profil_off();
	printf("parent_a=%llu parent_b=%llu parent_c=%llu child_status=%d\n",
	       (unsigned long long)in(0), (unsigned long long)in(1), (unsigned long long)in(2),
	       status);
	return 0;
}

static void *spin_thread(void *arg)
{
	(void)arg;
	for (;;)
		hot_c(100000);
	return NULL;
}

/* What the exec'd image sees: POSIX timers, perf or eventfd descriptors left by the old one. */
static int leftovers(void)
{
	char line[256], path[300], target[256];
	int n = 0;
	FILE *f = fopen("/proc/self/timers", "r");
	DIR *d;
	struct dirent *e;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "ID:", 3) == 0)
			n++;
	if (f)
		fclose(f);
	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strstr(target, "perf_event") || strstr(target, "eventfd"))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int scen_spin(double seconds)
{
	struct sigaction sa;

	sigaction(SIGRTMAX - 2, NULL, &sa);
	printf("leftovers=%d default_action=%d\n", leftovers(), sa.sa_handler == SIG_DFL);
	fflush(stdout);
	burn(hot_a, seconds);
	printf("spin_done=1\n");
	return 0;
}

static int scen_exec(const char *self)
{
	pthread_t t;

	start(buf);
	pthread_create(&t, NULL, spin_thread, NULL);
	burn(hot_b, 0.1);
	fflush(stdout);
	execl(self, self, "spin", "0.4", (char *)NULL);
	perror("execl");
	return 1;
}

static volatile sig_atomic_t sigprof_count;

static void on_sigprof(int sig)
{
	(void)sig;
	sigprof_count++;
}

static int scen_sigprof(void)
{
	struct itimerval it = {{0, 10000}, {0, 10000}}, now;
	struct sigaction sa, after;
	struct profil_stats st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigprof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	start(buf);
	burn(hot_a, 0.6);
	profil_get_stats(&st, sizeof(st));
	profil_off();
	getitimer(ITIMER_PROF, &now);
	sigaction(SIGPROF, NULL, &after);
	printf("sigprof=%d samples=%llu itimer_armed=%d handler_kept=%d\n", (int)sigprof_count,
	       (unsigned long long)st.samples, now.it_interval.tv_usec == 10000,
	       after.sa_handler == on_sigprof);
	return 0;
}

static void *short_lived(void *arg)
{
	(void)arg;
	hot_c(1000);
	return NULL;
}

static int scen_errno(void)
{
	long bad = 0, checks = 0;
	struct profil_stats st;
	double until;

	start(buf);
	until = thread_cpu_s() + 0.5;
	while (thread_cpu_s() < until) {
		pthread_t t;

		/* dead threads make the reaper's tgkill() fail with ESRCH inside the handler */
		if (checks % 64 == 0 && pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
		errno = 12345;
		for (int i = 0; i < 100; i++) {
			hot_a(200);
			if (errno != 12345)
				bad++;
			checks++;
		}
	}
	profil_get_stats(&st, sizeof(st));
	profil_off();
	printf("errno_changed=%ld checks=%ld samples=%llu\n", bad, checks,
	       (unsigned long long)st.samples);
	return 0;
}

static int scen_unmap(int how)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (size + pg - 1) / pg * pg;
	unsigned short *b =
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct profil_stats before, st;

	start(b);
	burn_until_samples(hot_a, 0.2, 5);
	profil_get_stats(&before, sizeof(before));
	if (how)
		mprotect(b, len, PROT_READ);
	else
		munmap(b, len);
	/* the first tick after the change finds the buffer gone and turns profiling off */
	burn(hot_b, 0.3);
	for (int i = 0; i < 10 && profil_get_stats(&st, sizeof(st)) == 0 && st.active; i++)
		burn(hot_b, 0.2);
	profil_get_stats(&st, sizeof(st));
	printf("samples_before=%llu fault_disabled=%d active=%d off=%d\n",
	       (unsigned long long)before.samples, st.fault_disabled, st.active, profil_off());
	return 0;
}

static int scen_segv(void)
{
	int *volatile bad = (int *)(uintptr_t)8;

	start(buf);
	burn(hot_a, 0.1);
	fflush(stdout);
	*bad = 1;
	printf("survived=1\n");
	return 0;
}

static volatile int churn_stop;

static void *churn_worker(void *arg)
{
	(void)arg;
	while (!churn_stop) {
		pthread_t t;

		hot_b(20000);
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static int scen_churn(void)
{
	static const enum profil_clock clocks[] = {PROFIL_CLOCK_THREAD, PROFIL_CLOCK_PERF,
						   PROFIL_CLOCK_ITIMER, PROFIL_CLOCK_AUTO};
	pthread_t t[3];
	int cycles = 0, fails = 0;

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, churn_worker, NULL);
	for (cycles = 0; cycles < 300; cycles++) {
		profil_set_clock(clocks[cycles % 4], cycles % 2 ? 250 : 5000);
		if (profil(buf, size, lo, 65536) < 0 && errno != EACCES && errno != EPERM)
			fails++;
		burn(hot_a, 0.002);
		if (cycles % 3 == 0 && profil_off() < 0)
			fails++;
	}
	profil_off();
	churn_stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	burn(hot_a, 0.05); /* a stray tick after the last off would kill us now */
	printf("cycles=%d fails=%d\n", cycles, fails);
	return 0;
}

static int scen_env(void)
{
	struct profil_stats st;
	int handled = 0;

	start(buf);
	burn(hot_a, 0.05);
	profil_get_stats(&st, sizeof(st));
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && (sa.sa_flags & SA_SIGINFO))
			handled = sig;
	}
	profil_off();
	printf("clock=%s nominal_hz=%u signal_rtmax_minus=%d\n", profil_clock_name(st.clock),
	       st.nominal_hz, handled ? SIGRTMAX - handled : -1);
	return 0;
}

static void *api_hammer(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	struct profil_stats st;
	long bad = 0;

	for (int i = 0; i < 200; i++) {
		struct prof p = {buf, size, lo, 65536};

		switch ((i + id) % 4) {
		case 0:
			bad += profil(buf, size, lo, 65536) != 0;
			break;
		case 1:
			bad += sprofil(&p, 1, NULL, 0) != 0;
			break;
		case 2:
			bad += profil_get_stats(&st, sizeof(st)) != 0;
			break;
		default:
			bad += profil_off() != 0;
		}
		hot_c(2000);
	}
	return (void *)bad;
}

static int scen_concurrent(void)
{
	pthread_t t[4];
	struct profil_stats st;
	long bad = 0;

	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, api_hammer, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad += (long)r;
	}
	profil_off();
	profil_get_stats(&st, sizeof(st));
	burn(hot_a, 0.05);
	printf("calls=800 failed=%ld active=%d\n", bad, st.active);
	return 0;
}

/* Make perf_event_open fail with EACCES, as a container's seccomp profile does. */
static int refuse_perf(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int scen_noperf(void)
{
	struct profil_stats st;
	int perf_ret, perf_errno;

	if (refuse_perf() < 0) {
		printf("seccomp=unavailable\n");
		return 0;
	}
	profil_set_clock(PROFIL_CLOCK_PERF, 1000);
	errno = 0;
	perf_ret = profil(buf, size, lo, 65536);
	perf_errno = errno;
	profil_get_stats(&st, sizeof(st));
	printf("perf_ret=%d perf_eacces=%d active_after=%d\n", perf_ret, perf_errno == EACCES,
	       st.active);
	profil_set_clock(PROFIL_CLOCK_AUTO, 250);
	start(buf);
	burn(hot_a, 0.3);
	profil_get_stats(&st, sizeof(st));
	profil_off();
	/* ticks: the samples and the ticks the kernel merged into them (a loaded machine merges
	 * many: 14 samples in 0.3 s of CPU seen under ASan with two busy processes) */
	printf("auto_clock=%s samples=%llu ticks=%llu\n", profil_clock_name(st.clock),
	       (unsigned long long)st.samples, (unsigned long long)(st.samples + st.lost));
	return 0;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	/* a hang fails the test (killed by SIGALRM) instead of eating the suite's time */
	alarm(120);
	buf = cover(ranges, 3, &lo, &size);
	if (strcmp(s, "spin") == 0 && argc == 3)
		return scen_spin(atof(argv[2]));
	if (argc != 4) {
		fprintf(stderr, "usage: lib_scen SCENARIO CLOCK HZ\n");
		return 2;
	}
	if (strcmp(argv[2], "-") != 0)
		choose_clock(argv[2], (unsigned int)atoi(argv[3]));
	if (strcmp(s, "fork") == 0)
		return scen_fork();
	if (strcmp(s, "exec") == 0)
		return scen_exec(argv[0]);
	if (strcmp(s, "sigprof") == 0)
		return scen_sigprof();
	if (strcmp(s, "errno") == 0)
		return scen_errno();
	if (strcmp(s, "munmap") == 0)
		return scen_unmap(0);
	if (strcmp(s, "mprotect") == 0)
		return scen_unmap(1);
	if (strcmp(s, "segv") == 0)
		return scen_segv();
	if (strcmp(s, "churn") == 0)
		return scen_churn();
	if (strcmp(s, "env") == 0)
		return scen_env();
	if (strcmp(s, "noperf") == 0)
		return scen_noperf();
	if (strcmp(s, "concurrent") == 0)
		return scen_concurrent();
	fprintf(stderr, "lib_scen: unknown scenario %s\n", s);
	return 2;
}
