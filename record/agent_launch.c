// SPDX-License-Identifier: MIT
/* The agent's launch: find it, and configure it in the child.  See agent_launch.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_env.h"
#include "profile/pdata.h"
#include "record/agent_launch.h"
#include "utils/install_dirs.h"

int agent_launch__find(char *out, size_t len)
{
	const char *env = getenv(PROFIL_ENV_AGENT_SO);

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -ENOENT;
	}
	return install_dirs__find(INSTALL_DIR_AGENT, PROFIL_AGENT_SO_NAME, out, len);
}

void agent_launch__prepare_child(int pdata_fd, int clock, unsigned int hz, int inherit, int stacks,
				 const char *agent_path)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 2];
	struct stat st;

	/* the agent marks it close-on-exec itself when children are not followed */
	fcntl(pdata_fd, F_SETFD, 0);
	if (fstat(pdata_fd, &st) < 0)
		_exit(126);
	/* "fd:dev:ino": the agent checks that the number still names this file */
	snprintf(buf, sizeof(buf), "%d:%llu:%llu", pdata_fd, (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv(PROFIL_ENV_AGENT_FD, buf, 1);
	setenv(PROFIL_ENV_AGENT_CLOCK, pdata__clock_name(clock), 1);
	snprintf(buf, sizeof(buf), "%u", hz);
	setenv(PROFIL_ENV_AGENT_HZ, buf, 1);
	setenv(PROFIL_ENV_AGENT_INHERIT, inherit ? "1" : "0", 1);
	if (stacks)
		setenv(PROFIL_ENV_AGENT_STACKS, "1", 1);
	else
		unsetenv(PROFIL_ENV_AGENT_STACKS);
	unsetenv(PROFIL_ENV_AGENT_PARENT);
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", agent_path, old);
	else
		snprintf(buf, sizeof(buf), "%s", agent_path);
	setenv("LD_PRELOAD", buf, 1);
}
