/* SPDX-License-Identifier: MIT */
/*
 * procstatus: the one reader of /proc/PID/status (a process's ids, its
 * namespaces' pids, its capabilities).  A line is "Key:\tvalue"; the kernel
 * writes a few dozen, each short.  The agent, inside the profiled program,
 * keeps its own reader (raw system calls, no stdio).
 */
#ifndef PROFIL_UTILS_PROCSTATUS_H
#define PROFIL_UTILS_PROCSTATUS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The value of KEY's line in /proc/PID/status (PID 0: this process), without
 * its leading white space and newline, into buf (cut to size - 1 bytes).
 * 0; -ENOENT when no such line; -errno when the file cannot be read.
 * Bounded: 512 lines.
 */
int procstatus__get(pid_t pid, const char *key, char *buf, size_t size);

/*
 * The last number on KEY's line, in base 10 or 16: Tgid, NSpid's pid in
 * the process's own namespace, Uid's file-system uid; CapEff in base 16.
 * 0, or -ENOENT / -EINVAL (no number) / -errno.
 */
int procstatus__last_number(pid_t pid, const char *key, int base, unsigned long long *v);

#endif /* PROFIL_UTILS_PROCSTATUS_H */
