// SPDX-License-Identifier: MIT
/* utils/procfile: one number from a kernel file, or the caller's default; a line of /proc/PID/status. */
#include <errno.h>
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

/* procfile__status: this process's own lines, a key that is not there, a process that is not there */
static void test_procfile_status(void)
{
	unsigned long long tgid = 0, nspid = 0, fsuid = 0, uid;
	char name[64] = "";
	int missing = procfile__status(0, "NoSuchKey", name, sizeof(name));

	CHECKF("procfile: Tgid, NSpid and Uid of this process",
	       procfile__status_number(0, "Tgid", 10, &tgid) == 0 && tgid == (unsigned)getpid() &&
		       procfile__status_number(getpid(), "NSpid", 10, &nspid) == 0 && nspid > 0 &&
		       procfile__status_number(0, "Uid", 10, &fsuid) == 0 &&
		       fsuid == (unsigned)getuid(),
	       "tgid %llu nspid %llu fsuid %llu", tgid, nspid, fsuid);
	CHECKF("procfile: a text value without its white space",
	       procfile__status(0, "State", name, sizeof(name)) == 0 && name[0] == 'R' &&
		       name[strlen(name) - 1] != '\n',
	       "State '%s'", name);
	CHECKF("procfile: no such key, no such process",
	       missing == -ENOENT &&
		       procfile__status_number(0x7ffffff0, "Tgid", 10, &uid) == -ENOENT &&
		       procfile__status_number(0, "Name", 10, &uid) == -EINVAL,
	       "missing %d", missing);
}

int main(void)
{
	test_procfile_status();
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
