/* SPDX-License-Identifier: MIT */
/*
 * The LD_PRELOAD agent's launch (agent/agent.c; the contract is
 * agent/agent_env.h): where the agent is, and the environment that hands it
 * the open profile and the configuration in the command's process.
 */
#ifndef PROFIL_RECORD_AGENT_LAUNCH_H
#define PROFIL_RECORD_AGENT_LAUNCH_H

#include <stddef.h>

/*
 * The agent's path into out: $PROFIL_AGENT_SO, else next to this binary (a
 * build tree), else where `make install` put it, LIBDIR/profil
 * (utils/install_dirs.h: relative to this binary, then absolute).  0, or -ENOENT.
 */
int agent_launch__find(char *out, size_t len);

/*
 * In the forked child, just before exec: mark the profile's descriptor
 * pdata_fd inheritable and put the agent in LD_PRELOAD (ahead of what is
 * there) with its configuration: clock (enum pdata_clock: THREAD or ITIMER),
 * hz, inherit (follow children).  Exits the child (126) if the descriptor
 * cannot be described.
 */
void agent_launch__prepare_child(int pdata_fd, int clock, unsigned int hz, int inherit,
				 int stacks, const char *agent_path);

#endif /* PROFIL_RECORD_AGENT_LAUNCH_H */
