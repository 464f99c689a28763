/* SPDX-License-Identifier: MIT */
/*
 * The contract between `profil record` and its LD_PRELOAD agent
 * (build/libprofil-agent.so): ONE source of truth for the environment
 * variables that carry the agent's configuration.  The agent reads them
 * once, in its constructor.
 *
 *   PROFIL_AGENT_FD      "FD:DEV:INO": descriptor of the open profil.data and the
 *                        file it must be (a reused number is ignored); inherited
 *                        across exec when following children, else close-on-exec
 *   PROFIL_AGENT_CLOCK   "thread" or "itimer"
 *   PROFIL_AGENT_HZ      nominal rate, ticks per CPU second
 *   PROFIL_AGENT_INHERIT "1": follow fork and exec; "0": this process only
 *   PROFIL_AGENT_PARENT  "ID:PID[:P:PU:PS:T:TU:TS]": proc id (pdata) of the image
 *                        that exec'd PID, and the CPU time (ns) of the process (total,
 *                        user, system) and of the exec'ing thread when it exec'd: the
 *                        new image's CPU time starts there; set by the agent's exec
 *                        wrappers; otherwise (the command, posix_spawn children) the
 *                        parent is the latest image of the parent process and the
 *                        image's CPU time starts at 0
 *   PROFIL_AGENT_SO      absolute path of the agent, the recorder's override
 *                        of where to find it (default: next to the profil binary)
 *   PROFIL_AGENT_STACKS  "1": record the call stack of every sample (unwound in
 *                        the signal handler, agent/unwind.c) into the profile's
 *                        frame table; passed on across exec like the others.
 *
 * Test hook, read by the agent (with PROFIL_AGENT_STACKS=1) only:
 *   PROFIL_TEST_STACK_DUMP  a file to which every recorded stack is appended
 *                        (agent/stack_dump.h), for tests to check stacks
 *                        as the handler saw them.
 */
#ifndef PROFIL_AGENT_ENV_H
#define PROFIL_AGENT_ENV_H

#define PROFIL_ENV_AGENT_FD "PROFIL_AGENT_FD"
#define PROFIL_ENV_AGENT_CLOCK "PROFIL_AGENT_CLOCK"
#define PROFIL_ENV_AGENT_HZ "PROFIL_AGENT_HZ"
#define PROFIL_ENV_AGENT_INHERIT "PROFIL_AGENT_INHERIT"
#define PROFIL_ENV_AGENT_PARENT "PROFIL_AGENT_PARENT"
#define PROFIL_ENV_AGENT_SO "PROFIL_AGENT_SO"
#define PROFIL_ENV_AGENT_STACKS "PROFIL_AGENT_STACKS"
#define PROFIL_ENV_TEST_STACK_DUMP "PROFIL_TEST_STACK_DUMP"

/* The library the agent unwinds call stacks with (dlopen'ed, RTLD_LOCAL). */
#define PROFIL_LIBUNWIND_SO "libunwind.so.8"

/* File name of the agent, looked for next to the profil binary. */
#define PROFIL_AGENT_SO_NAME "libprofil-agent.so"

#endif /* PROFIL_AGENT_ENV_H */
