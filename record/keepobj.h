/* SPDX-License-Identifier: MIT */
/*
 * Copies of the objects a recording saw mapped that their path no longer
 * names when it ends (issue 16, item 5): a library rewritten at its path or
 * deleted while the program ran is copied into the user's cache of objects
 * by build id, where `profil report` finds it (symbols/symfile.h) and names
 * the samples taken in it from the code that ran.
 *
 * At a mapping's first sight (a perf MMAP2 record with the file's build
 * id) the mapped inode itself is opened through /proc/PID/map_files
 * (root, or CAP_CHECKPOINT_RESTORE: the very file, whatever the path names
 * later; a mapping gone by then is not held) and held until the end; then
 * each one whose path names another file, or none, is copied to
 * the user's cache of objects by build id (utils/objcache.h).
 * Without the privilege nothing is held: the report looks for a copy by
 * build id in the debug directories and through debuginfod.
 *
 * Bounded: KEEPOBJ_MAX_HELD files held at once (the first ones seen), none
 * over KEEPOBJ_MAX_BYTES, at most KEEPOBJ_MAX_COPIED bytes copied by one
 * recording and none while the cache holds KEEPOBJ_CACHE_MAX bytes or more
 * (counted over at most KEEPOBJ_CACHE_SCAN files).  Copies are written
 * whole or not at all (utils/outfile.h), never over an existing file.
 */
#ifndef PROFIL_RECORD_KEEPOBJ_H
#define PROFIL_RECORD_KEEPOBJ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KEEPOBJ_MAX_HELD 64
#define KEEPOBJ_MAX_BYTES (64ull << 20)
#define KEEPOBJ_MAX_COPIED (256ull << 20)
#define KEEPOBJ_CACHE_MAX (1024ull << 20)
#define KEEPOBJ_CACHE_SCAN 4096

struct keepobj;

/* An empty set (NULL on out-of-memory: nothing is kept then). */
struct keepobj *keepobj__new(void);
void keepobj__free(struct keepobj *k);

/*
 * A file mapping [start, end) of process pid whose build id the kernel
 * reported: hold its inode, once per build id.  Cheap when it is known
 * already or cannot be held.
 */
void keepobj__map(struct keepobj *k, pid_t pid, uint64_t start, uint64_t end, const char *path,
		  const uint8_t *build_id, unsigned build_id_len);

/*
 * Copy the held objects that their path no longer names into the cache,
 * then let go of every one.  Writes one clause about what was done into
 * note ("" when nothing was to be kept).  Returns the number of copies made.
 */
int keepobj__store(struct keepobj *k, char *note, size_t len);

#endif /* PROFIL_RECORD_KEEPOBJ_H */
