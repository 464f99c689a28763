// SPDX-License-Identifier: MIT
/*
 * `profil help COMMAND`: the command's manual page, shown by man(1) from the
 * file this build installed (utils/install_dirs.h), not whatever page of
 * that name comes first in MANPATH (glibc's profil(3) would shadow ours).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "utils/install_dirs.h"

int manpage__show(const char *page, int section)
{
	char name[128], path[PATH_MAX];
	int status;
	pid_t pid;

	/* as installed by make install, or compressed as in the Debian package */
	snprintf(name, sizeof(name), "man%d/%s.%d", section, page, section);
	if (install_dirs__find(INSTALL_DIR_MAN, name, path, sizeof(path)) < 0) {
		snprintf(name, sizeof(name), "man%d/%s.%d.gz", section, page, section);
		if (install_dirs__find(INSTALL_DIR_MAN, name, path, sizeof(path)) < 0)
			return -ENOENT;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp("man", "man", "-l", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENOEXEC;
}
