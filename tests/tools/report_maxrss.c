// SPDX-License-Identifier: MIT
/*
 * report_maxrss OUT CMD ARGS...: runs CMD with its stdout in OUT and prints
 * the peak resident set of CMD in KiB (getrusage of the waited child,
 * ru_maxrss), for the memory bounds of the report tests.  Exits with CMD's
 * status (128 + signal when it was killed).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status, fd;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: report_maxrss OUT CMD ARGS...\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("report_maxrss");
		return 2;
	}
	printf("%ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
