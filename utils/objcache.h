/* SPDX-License-Identifier: MIT */
/*
 * The user's cache of objects by build id: copies `profil record` keeps of
 * libraries and programs that were rewritten or deleted while they ran
 * (record/keepobj.h), where `profil report` looks for them
 * (symbols/symfile.h).  DIR/xx/rest, xx/rest being the build id in hex
 * (the layout of /usr/lib/debug/.build-id, without ".debug"); DIR is
 * $XDG_CACHE_HOME/profil/build-id when XDG_CACHE_HOME is an absolute path,
 * else $HOME/.cache/profil/build-id.  A reader accepts a file found there
 * only if it carries the build id it was asked for.
 */
#ifndef PROFIL_UTILS_OBJCACHE_H
#define PROFIL_UTILS_OBJCACHE_H

#include <stddef.h>
#include <stdint.h>

/* The directory into out.  0, -ENOENT (neither variable set) or -ENAMETOOLONG. */
int objcache__dir(char *out, size_t len);

/* The entry of a build id (1 to 20 bytes) into out.  0, -ENOENT, -EINVAL or -ENAMETOOLONG. */
int objcache__path(const uint8_t *id, size_t id_len, char *out, size_t len);

#endif /* PROFIL_UTILS_OBJCACHE_H */
