/* SPDX-License-Identifier: MIT */
/*
 * Open a file named by an untrusted path (a profiled program's mapping, a
 * profile's record) for reading, if and only if it is a regular file:
 * never a FIFO (no wait for a writer), never a device (no driver's open),
 * whatever link was planted at the path.
 */
#ifndef PROFIL_UTILS_REGFILE_H
#define PROFIL_UTILS_REGFILE_H

#include <sys/stat.h>

/*
 * Returns a read-only descriptor (close-on-exec, non-blocking; *st filled)
 * or -errno: -EINVAL when path is not a regular file, -ESTALE when it was
 * replaced while being opened.
 */
int regfile__open(const char *path, struct stat *st);

#endif /* PROFIL_UTILS_REGFILE_H */
