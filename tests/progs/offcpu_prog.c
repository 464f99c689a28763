// SPDX-License-Identifier: MIT
/*
 * The off-CPU tests' program (tests/e2e/record_offcpu.sh): functions that
 * spend their time off the CPU in the ways a program does, each timing
 * itself, so that the tests compare the profile with what the program
 * measured (CLOCK_MONOTONIC less CLOCK_THREAD_CPUTIME_ID around each call:
 * its off-CPU time; the latter alone: its CPU time), never with units of
 * work.  Writes to $OFFCPU_TRUTH (stdout when unset) one line per function:
 *   truth func=NAME wall_ns=W cpu_ns=C off_ns=O
 *
 * offcpu_prog mix MS: sleep_fn nanosleeps MS ms (in steps of 20 ms);
 *   pipe_fn reads MS / 20 bytes from a pipe a child process (feed_fn,
 *   forked just before) writes one every 20 ms; mutex_fn waits for a mutex another thread holds for
 *   MS / 20 periods of 20 ms (taking it between them); burn_fn burns MS ms
 *   of its CPU time.
 * offcpu_prog blocked MS: one thread blocks on a pipe that nobody writes
 *   for the whole run (MS ms of the main thread's sleep), and is never
 *   joined: its interval is still open at the end.
 * offcpu_prog threads N: N threads that each sleep 2 ms once.
 * offcpu_prog exit_offcpu MS: a thread that is off the CPU when the
 *   process exits (exit_group while it sleeps).
 * offcpu_prog forks N: N children, one after another, each sleeping 20 ms
 *   in forked_fn and exiting (each child writes its truth line).
 * offcpu_prog sleep MS: sleep_fn: nanosleeps MS ms in steps of 20 ms.
 * offcpu_prog nap MS: one nanosleep of MS ms, never on the CPU in between
 *   (an interval surely still open when a recording ends during it).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct mark {
	uint64_t wall, cpu;
};

static FILE *truth_out;

static struct mark mark_now(void)
{
	return (struct mark){clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_THREAD_CPUTIME_ID)};
}

static void truth(const char *func, struct mark m)
{
	uint64_t wall = clock_ns(CLOCK_MONOTONIC) - m.wall;
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - m.cpu;

	fprintf(truth_out, "truth func=%s wall_ns=%llu cpu_ns=%llu off_ns=%llu\n", func,
		(unsigned long long)wall, (unsigned long long)cpu,
		(unsigned long long)(wall > cpu ? wall - cpu : 0));
	fflush(truth_out);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0)
		;
}

void sleep_fn(unsigned ms)
{
	struct mark m = mark_now();

	for (unsigned done = 0; done < ms; done += 20)
		sleep_ms(ms - done < 20 ? ms - done : 20);
	truth("sleep_fn", m);
}

/* The child of start_feeder: a byte every 20 ms, n times (its waits are its own). */
void feed_fn(int fd, unsigned n)
{
	struct mark m = mark_now();

	for (unsigned i = 0; i < n; i++) {
		sleep_ms(20);
		if (write(fd, "x", 1) != 1)
			_exit(1);
	}
	truth("feed_fn", m);
	_exit(0);
}

/*
 * A child process that feeds pipe_fn, forked here and not in pipe_fn: a
 * forked child's stack holds its parent's frames, and its sleeps would
 * count under pipe_fn too (rightly: the tree's time in pipe_fn).
 */
static pid_t start_feeder(unsigned n, int *rfd)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd) < 0)
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		feed_fn(fd[1], n);
	}
	close(fd[1]);
	*rfd = fd[0];
	return pid;
}

/* Reads the n bytes the feeder writes one every 20 ms: blocked in between. */
void pipe_fn(int fd, unsigned n)
{
	struct mark m = mark_now();
	char c;

	for (unsigned i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			break;
	truth("pipe_fn", m);
}

/* n short-lived children, one after another, each sleeping ms in forked_fn and exiting. */
void forked_fn(unsigned ms)
{
	struct mark m = mark_now();

	sleep_ms(ms);
	truth("forked_fn", m);
	_exit(0);
}

static void forks(unsigned n, unsigned ms)
{
	for (unsigned i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			forked_fn(ms);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int holder_go, holder_done;

/* Holds the mutex 20 ms at a time, n times, letting go briefly in between. */
static void *holder(void *arg)
{
	unsigned n = (unsigned)(uintptr_t)arg;

	pthread_mutex_lock(&lock);
	holder_go = 1;
	for (unsigned i = 0; i < n; i++) {
		sleep_ms(20);
		pthread_mutex_unlock(&lock);
		sched_yield();
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	holder_done = 1;
	return NULL;
}

/* Takes the mutex the holder keeps, until the holder is done. */
void mutex_fn(unsigned ms)
{
	unsigned n = ms / 20 ? ms / 20 : 1;
	struct mark m;
	pthread_t t;

	holder_go = holder_done = 0;
	pthread_create(&t, NULL, holder, (void *)(uintptr_t)n);
	while (!holder_go)
		sched_yield();
	m = mark_now();
	while (!holder_done) {
		pthread_mutex_lock(&lock);
		pthread_mutex_unlock(&lock);
	}
	truth("mutex_fn", m);
	pthread_join(t, NULL);
}

static volatile uint64_t sink;

void burn_fn(unsigned ms)
{
	struct mark m = mark_now();

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - m.cpu < ms * 1000000ull)
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i * 7;
	truth("burn_fn", m);
}

static void *block_forever(void *arg)
{
	int *fd = arg;
	char c;
	struct mark m = mark_now();

	fprintf(truth_out, "blocked_start\n");
	fflush(truth_out);
	if (read(fd[0], &c, 1) < 0)
		perror("read");
	truth("block_forever", m); /* never: nobody writes */
	return NULL;
}

static void *sleep_once(void *arg)
{
	(void)arg;
	sleep_ms(2);
	return NULL;
}

static int threads(unsigned n)
{
	unsigned started = 0;
	struct mark m = mark_now();

	for (unsigned i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, sleep_once, NULL) == 0) {
			pthread_detach(t);
			started++;
		}
		/* at most ~200 alive at once: each lives ~2 ms */
		if (i % 200 == 199)
			sleep_ms(3);
	}
	sleep_ms(50);
	fprintf(truth_out, "threads started=%u\n", started);
	truth("threads", m);
	return 0;
}

static void *sleeper(void *arg)
{
	sleep_ms((unsigned)(uintptr_t)arg * 4);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = getenv("OFFCPU_TRUTH");
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	static int fd[2];
	pthread_t t;

	truth_out = path ? fopen(path, "a") : stdout;
	if (!truth_out || argc < 2)
		return 2;
	if (!strcmp(argv[1], "mix")) {
		unsigned n = ms / 20 ? ms / 20 : 1;
		int rfd;
		pid_t feeder;

		sleep_fn(ms);
		feeder = start_feeder(n, &rfd);
		pipe_fn(rfd, n);
		close(rfd);
		waitpid(feeder, NULL, 0);
		mutex_fn(ms);
		burn_fn(ms);
		return 0;
	}
	if (!strcmp(argv[1], "blocked")) {
		if (pipe(fd) < 0)
			return 1;
		pthread_create(&t, NULL, block_forever, fd);
		sleep_fn(ms);
		return 0; /* the blocked thread is still off the CPU: exit_group ends it */
	}
	if (!strcmp(argv[1], "threads"))
		return threads(ms);
	if (!strcmp(argv[1], "exit_offcpu")) {
		pthread_create(&t, NULL, sleeper, (void *)(uintptr_t)ms);
		sleep_fn(ms);
		return 0;
	}
	if (!strcmp(argv[1], "forks")) {
		forks(ms, 20);
		return 0;
	}
	if (!strcmp(argv[1], "sleep")) {
		sleep_fn(ms);
		return 0;
	}
	if (!strcmp(argv[1], "nap")) {
		sleep_ms(ms);
		return 0;
	}
	return 2;
}
