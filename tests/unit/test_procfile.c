// SPDX-License-Identifier: MIT
/* utils/procfile: one number from a kernel file, or the caller's default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "utils/procfile.h"

/* The number procfile__number reads from a file holding text (default -7). */
static long long number_of(const char *text)
{
	char path[] = "/tmp/test_procfile.XXXXXX";
	int fd = mkstemp(path);
	long long v = -99;

	if (fd < 0)
		return v;
	if (write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		v = procfile__number(path, -7);
	close(fd);
	unlink(path);
	return v;
}

int main(void)
{
	CHECK("sysctl_value", number_of("127\n") == 127);
	CHECK("negative_value", number_of("-1\n") == -1); /* perf_event_paranoid can be -1 */
	CHECK("first_field", number_of("4194304 12 3\n") == 4194304); /* schedstat */
	CHECK("large_value", number_of("9000000000000000000\n") == 9000000000000000000ll);
	CHECK("empty_file_default", number_of("") == -7);
	CHECK("not_a_number_default", number_of("x1\n") == -7);
	CHECK("missing_file_default", procfile__number("/proc/self/no_such_file", 5) == 5);
	CHECK("real_sysctl", procfile__number("/proc/sys/kernel/pid_max", 0) > 0);
	return CHECK_DONE();
}
