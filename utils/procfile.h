/* SPDX-License-Identifier: MIT */
/*
 * procfile: the one reader of the kernel's small /proc files.  One number
 * from a file: a sysctl (/proc/sys/kernel/...) or the first field of a
 * /proc/PID/... file (schedstat); a file that cannot be read, or does not
 * start with a number, gives the caller's default.  And one line of
 * /proc/PID/status (a process's ids, its namespaces' pids, its
 * capabilities), a line being "Key:\tvalue".  The agent, inside the
 * profiled program, keeps its own reader (raw system calls, no stdio).
 */
#ifndef PROFIL_UTILS_PROCFILE_H
#define PROFIL_UTILS_PROCFILE_H

#include <stddef.h>
#include <sys/types.h>

/* The number at the start of the file at path (decimal, may be negative), or dflt. */
long long procfile__number(const char *path, long long dflt);

/*
 * The value of KEY's line in /proc/PID/status (PID 0: this process), without
 * its leading white space and newline, into buf (cut to size - 1 bytes).
 * 0; -ENOENT when no such line; -errno when the file cannot be read.
 * Bounded: 512 lines.
 */
int procfile__status(pid_t pid, const char *key, char *buf, size_t size);

/*
 * The last number on KEY's line of /proc/PID/status, in base 10 or 16:
 * Tgid, NSpid's pid in the process's own namespace, Uid's file-system uid;
 * CapEff in base 16.  0, or -ENOENT / -EINVAL (no number) / -errno.
 */
int procfile__status_number(pid_t pid, const char *key, int base, unsigned long long *v);

#endif /* PROFIL_UTILS_PROCFILE_H */
