/* SPDX-License-Identifier: MIT */
/*
 * procmaps: the one reader of /proc/PID/maps (the recorder's process tree
 * and its unwinder; the agent parses its own reads, made without stdio,
 * with procmaps__parse_line).  A line is
 *
 *   start-end perms offset major:minor inode   path
 *
 * with the path absent for anonymous memory, a name in brackets for the
 * kernel's own ([heap], [stack], [vdso], [vsyscall]), and " (deleted)"
 * after a file that was removed.  libprofil (lib/addrcheck.c) keeps its own
 * minimal reader: it links nothing of ours and runs in a signal handler.
 */
#ifndef PROFIL_PROCMAPS_H
#define PROFIL_PROCMAPS_H

#include <stdint.h>
#include <sys/types.h>

struct procmap {
	uint64_t start, end, offset;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	int prot;	  /* PROT_READ | PROT_WRITE | PROT_EXEC as the perms say */
	const char *path; /* "" for anonymous memory; valid during the callback only */
};

/*
 * Parse one line (its newline, if any, is cut off in place).  0, or
 * -EINVAL for a line that is not a mapping.  No allocation, no stdio.
 */
int procmaps__parse_line(char *line, struct procmap *m);

/*
 * Call fn for each mapping of process pid, in the file's order, until fn
 * returns non-zero (then returned).  A line longer than the longest path
 * the kernel prints is skipped.  0, or -errno (the file cannot be opened).
 */
int procmaps__for_each(pid_t pid, int (*fn)(void *arg, const struct procmap *m), void *arg);

#endif /* PROFIL_PROCMAPS_H */
