// SPDX-License-Identifier: MIT
/*
 * html_hostile: hostile strings for the HTML report's browser test.  Its
 * command line (the test passes HTML as an argument), its thread's name and
 * its hottest function's symbol (html_hostile.S) are markup that would run
 * a script if the page inserted them as HTML.  It forks: parent and child
 * each spin in that function for SECONDS of their own CPU time (measured
 * with CLOCK_THREAD_CPUTIME_ID), so the profile has two processes.
 *
 * usage: html_hostile SECONDS [ANY...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void run_hostile(unsigned long n);

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double spin(double seconds)
{
	double t0 = cpu_now(), t;

	while ((t = cpu_now()) - t0 < seconds)
		run_hostile(1000000);
	return t - t0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	int status;
	pid_t child;

	prctl(PR_SET_NAME, "</script><b>x");
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		printf("child %.4f\n", spin(seconds));
		return 0;
	}
	printf("parent %.4f\n", spin(seconds));
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
