// SPDX-License-Identifier: MIT
/*
 * An O_PATH descriptor opens nothing (no wait for a FIFO's writer, no
 * device driver's open); the file is then reopened through /proc/self/fd,
 * which names that very inode (no window to swap the path).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "utils/regfile.h"

int regfile__open(const char *path, struct stat *st)
{
	char self[64];
	struct stat now;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		err = S_ISREG(st->st_mode) ? -errno : -EINVAL;
		close(pfd);
		return err;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) /* no /proc: the path again, checked below */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	err = -errno;
	close(pfd);
	if (fd < 0)
		return err;
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE; /* replaced while being opened */
	}
	return fd;
}
