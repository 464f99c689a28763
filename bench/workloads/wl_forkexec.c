// SPDX-License-Identifier: MIT
/*
 * Workload "forkexec": the parent does some work of its own and forks+execs
 * itself ("child" argument) many times, two children at a time; each child
 * is a short CPU-bound program.  Each process writes its own truth file:
 * the parent's at $BENCH_TRUTH, child k's at $BENCH_TRUTH.child<k>; the
 * harness sums them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "truth.h"

#define CHILDREN 40
#define PARALLEL 2

volatile uint64_t sink;

SPIN_FN(parent_work, n, sink)
SPIN_FN(child_parse, n ^ 7, sink)
SPIN_FN(child_crunch, n ^ 11, sink)

static int child_main(void)
{
	/* about 17 ms at scale 1: 1/3 parse, 2/3 crunch */
	static const struct work works[] = {{"child_parse", child_parse, 1},
					    {"child_crunch", child_crunch, 2}};

	run_works(work_budget(17), 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid(), works, 2);
	truth_add_thread("child", thread_cpu_seconds());
	truth_write("forkexec-child");
	return 0;
}

static pid_t spawn_child(const char *self, const char *truth, int k)
{
	char path[4096];
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (truth) {
		snprintf(path, sizeof(path), "%s.child%d", truth, k);
		setenv(TRUTH_ENV, path, 1);
	}
	execl(self, self, "child", (char *)NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *truth = getenv(TRUTH_ENV);
	uint64_t slice = work_budget(7);
	int started = 0, running = 0, status, failed = 0;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child_main();
	if (truth)
		truth = strdup(truth);
	while (started < CHILDREN || running > 0) {
		while (running < PARALLEL && started < CHILDREN) {
			if (spawn_child("/proc/self/exe", truth, started) < 0) {
				fprintf(stderr, "forkexec: fork failed\n");
				return 1;
			}
			started++;
			running++;
		}
		/* the parent's own share: about 7 ms per child */
		TIMED("parent_work", parent_work(slice));
		if (wait(&status) > 0) {
			running--;
			failed |= !WIFEXITED(status) || WEXITSTATUS(status);
		}
	}
	truth_add_thread("parent", thread_cpu_seconds());
	truth_write("forkexec");
	return failed;
}
