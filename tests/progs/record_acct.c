// SPDX-License-Identifier: MIT
/*
 * record_acct MODE [ARGS]: programs whose CPU time is partly the kernel's,
 * or spread over many short processes, for the accounting tests of
 * `profil record` (tests/e2e/record_acct.sh).  Every mode measures itself
 * (record_cpu.h: $RECORD_TRUTH) and the tests compare the profile with that.
 *
 *   halfk MS        user_spin for MS ms of CPU, then read_zero (read(2) of
 *                   /dev/zero, 1 MiB at a time: nearly all system time) for MS ms
 *   trueloop N      fork and exec /bin/true N times, one after the other;
 *                   truth: its own rusage, and "truth children user_ns= sys_ns="
 *   forks N         N children, each ends at once: exit(i % 256), every 7th by
 *                   SIGTERM; then a child that leaves an orphan which exits 42
 *                   after 0.1 s; truth: "truth status pid=P status=S" per child
 *                   (S: the wait status) and "truth orphan pid=P status=S" (as it
 *                   will be: 42 << 8)
 *   threads         main waits; "spinner" spins 3 units, "caller" calls read(2)
 *                   of /dev/zero for 3 units, "napper" sleeps: per-thread truth
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "record_cpu.h"

SPIN_FN(user_spin)

/* read(2) of /dev/zero until the thread has used units * UNIT_NS of CPU time. */
__attribute__((noinline)) void read_zero(unsigned long units)
{
	static char
		buf[1 << 20]; /* clearing 1 MiB dwarfs the system call: nearly all kernel time */
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	uint64_t start = thread_cpu_ns(), now = start;

	while (fd >= 0 && now - start < units * UNIT_NS) {
		for (int i = 0; i < 4; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
		now = thread_cpu_ns();
	}
	if (fd >= 0)
		close(fd);
	truth_add("read_zero", now - start, now - start);
}

/* One line of truth, in one write (O_APPEND: processes and threads do not interleave). */
__attribute__((format(printf, 1, 2))) static void write_line(const char *fmt, ...)
{
	const char *path = getenv("RECORD_TRUTH");
	char line[160];
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static int trueloop(int n)
{
	struct rusage ru;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		write_line("truth children user_ns=%llu sys_ns=%llu\n",
			   (unsigned long long)tv_ns_(ru.ru_utime),
			   (unsigned long long)tv_ns_(ru.ru_stime));
	return 0;
}

static int forks(int n)
{
	pid_t pid;
	int status;

	for (int i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0) {
			if (i % 7 == 3)
				raise(SIGTERM);
			_exit(i % 256);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		write_line("truth status pid=%d status=%d\n", (int)pid, status);
	}
	/* an orphan: its parent ends at once, it ends 0.1 s later with 42 */
	pid = fork();
	if (pid == 0) {
		pid_t orphan = fork();

		if (orphan == 0) {
			usleep(100000);
			_exit(42);
		}
		write_line("truth orphan pid=%d status=%d\n", (int)orphan, 42 << 8);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	write_line("truth status pid=%d status=%d\n", (int)pid, status);
	usleep(400000); /* the orphan ends meanwhile, adopted by whoever is its subreaper */
	return 0;
}

static void *spinner(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	user_spin(3);
	return NULL;
}

static void *caller(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "caller");
	read_zero(3);
	return NULL;
}

static void *napper(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "napper");
	usleep(300000);
	return NULL;
}

/* Every thread's own rusage as it ends: "truth tid=T user_ns= sys_ns=". */
static void thread_truth(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		write_line("truth tid=%d user_ns=%llu sys_ns=%llu\n", (int)syscall(SYS_gettid),
			   (unsigned long long)tv_ns_(ru.ru_utime),
			   (unsigned long long)tv_ns_(ru.ru_stime));
}

static void *with_truth(void *arg)
{
	void *(*fn)(void *) = (void *(*)(void *))arg;

	fn(NULL);
	thread_truth();
	return NULL;
}

static int threads(void)
{
	void *(*fns[])(void *) = {spinner, caller, napper};
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, with_truth, (void *)fns[i]))
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	int rc = 2;

	if (!strcmp(mode, "halfk") && n > 0) {
		/* units of 0.1 s: MS rounded to them */
		unsigned long units = (unsigned long)(n + 50) / 100;

		user_spin(units ? units : 1);
		read_zero(units ? units : 1);
		rc = 0;
	} else if (!strcmp(mode, "trueloop") && n > 0) {
		rc = trueloop((int)n);
	} else if (!strcmp(mode, "forks") && n > 0) {
		rc = forks((int)n);
	} else if (!strcmp(mode, "threads")) {
		rc = threads();
	} else {
		fprintf(stderr, "record_acct: unknown mode '%s'\n", mode);
		return 2;
	}
	truth_write();
	return rc;
}
