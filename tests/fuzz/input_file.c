// SPDX-License-Identifier: MIT
/* The input as a file for the fuzz targets: see fuzz.h. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

const char *fuzz_input_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		return NULL;
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			return NULL;
		done += (size_t)n;
	}
	return path;
}

void fuzz_quiet_stdout(void)
{
	static int done;
	int fd;

	if (done)
		return;
	done = 1;
	fflush(stdout);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}
