/* SPDX-License-Identifier: MIT */
/*
 * Where the files profil needs at run time are: the LD_PRELOAD agent (for
 * `profil record`'s fallback clocks) and the manual pages (for `profil help`).
 * The directories are the ones `make install` puts them in, recorded at
 * build time from the Makefile's BINDIR, LIBDIR and MANDIR (e.g. Debian's
 * multiarch LIBDIR=/usr/lib/x86_64-linux-gnu), so an installed profil finds
 * them whatever its PREFIX and LIBDIR were.  A file is looked for, in order:
 *
 *   1. in the build tree: next to the running binary (the agent), or in
 *      man/ beside it (the pages the build formats);
 *   2. where the install put it, relative to the running binary (BINDIR to
 *      the file's directory): a tree installed under DESTDIR, or moved
 *      whole to another prefix, finds its own files;
 *   3. where the install put it, as an absolute path.
 */
#ifndef PROFIL_UTILS_INSTALL_DIRS_H
#define PROFIL_UTILS_INSTALL_DIRS_H

#include <stddef.h>

enum install_dir {
	INSTALL_DIR_AGENT, /* LIBDIR/profil: libprofil-agent.so */
	INSTALL_DIR_MAN,   /* MANDIR: man1/profil.1, man3/libprofil.3, ... */
};

/*
 * The path of the readable file `name` (e.g. "libprofil-agent.so",
 * "man1/profil-record.1") of directory kind d into out, looked for as
 * above.  0, or -ENOENT (out then holds the installed absolute path).
 */
int install_dirs__find(enum install_dir d, const char *name, char *out, size_t len);

/* The absolute directory of kind d as configured at build time. */
const char *install_dirs__configured(enum install_dir d);

/*
 * Pure: the relative path from directory `from` to directory `to`, both
 * absolute ("/usr/bin", "/usr/lib/x86_64-linux-gnu/profil" ->
 * "../lib/x86_64-linux-gnu/profil"; equal -> ".").  Repeated and trailing
 * slashes and "." components are ignored.  0, or -EINVAL (a relative path,
 * a ".." component: no answer without the file system), -ENAMETOOLONG.
 */
int install_dirs__relative(const char *from, const char *to, char *out, size_t len);

#endif /* PROFIL_UTILS_INSTALL_DIRS_H */
