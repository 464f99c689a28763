// SPDX-License-Identifier: MIT
/*
 * The process tree of a recording: how its processes ended (wait statuses,
 * zombies' statuses from /proc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "profile/pdata.h"
#include "record/perf_session.h"

void record_decode_status(int status, int *kind, int *code)
{
	if (WIFSIGNALED(status)) {
		*kind = PDATA_END_SIGNALED;
		*code = WTERMSIG(status);
	} else {
		*kind = PDATA_END_EXITED;
		*code = WEXITSTATUS(status);
	}
}

/* A zombie's exit status from /proc/PID/stat (field 52), when its parent has not reaped it. */
int record_zombie_status(pid_t pid, int *status)
{
	char path[64], buf[1024], *p;
	FILE *f;
	int field = 2, ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		char state = 0;

		sscanf(p + 1, " %c", &state);
		for (char *tok = strtok(p + 1, " \n"); tok; tok = strtok(NULL, " \n")) {
			if (++field == 52 && state == 'Z') {
				*status = atoi(tok);
				ok = 1;
			}
		}
	}
	fclose(f);
	return ok;
}
