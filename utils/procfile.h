/* SPDX-License-Identifier: MIT */
/*
 * One number from a kernel file: a sysctl (/proc/sys/kernel/...) or the
 * first field of a /proc/PID/... file (schedstat).  The kernel writes these
 * files; a file that cannot be read, or does not start with a number, gives
 * the caller's default.
 */
#ifndef PROFIL_UTILS_PROCFILE_H
#define PROFIL_UTILS_PROCFILE_H

/* The number at the start of the file at path (decimal, may be negative), or dflt. */
long long procfile__number(const char *path, long long dflt);

#endif /* PROFIL_UTILS_PROCFILE_H */
