/* SPDX-License-Identifier: MIT */
/*
 * symfile: finding and opening the files that symbols come from, for
 * symbols/symbols.c (libdwfl asks for separate debug files through its
 * find_debuginfo callback, which is ours so that every open is safe).
 *
 * Every file is opened only if it is a regular file (an O_PATH look first:
 * no FIFO wait, no device open) and starts with the ELF magic (libdwfl
 * would otherwise decompress gzip/xz/bzip2 images whole into memory).
 *
 * A copy of an object by its build id (symfile__find_by_id) is looked for in
 * /usr/lib/debug/.build-id/xx/rest, then in the user's cache of the objects
 * `profil record` kept (utils/objcache.h), then as below.
 *
 * Where a separate debug file is looked for, in order:
 *   1. by build id: /usr/lib/debug/.build-id/xx/rest.debug
 *   2. by .gnu_debuglink name (checked by build id, else by its CRC):
 *      DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME (DIR: the
 *      object's directory), as gdb and libdwfl do
 *   3. by build id from a debuginfod server, only when DEBUGINFOD_URLS is
 *      set and not empty (libdebuginfod, loaded at that first use; its
 *      DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME, DEBUGINFOD_MAXSIZE and
 *      DEBUGINFOD_CACHE_PATH apply).  A server that fails other than by
 *      "not found" or "too large" (unreachable, timed out) is not asked
 *      again by this finder.
 * A file is accepted only if its build id is the one asked for.
 *
 * Nothing a server sends grows without bound: one download is at most
 * DEBUGINFOD_MAXSIZE bytes, SYMFILE_DEBUGINFOD_MAXSIZE when the user set
 * none (libdebuginfod itself has no default, and checks only a
 * Content-Length: a download without one is stopped at the size as it
 * comes).  Neither a refused download nor one stopped at the size stays
 * in the client's cache (it would be served from there, or taken for "not
 * found", instead of asking a good server next time).
 */
#ifndef PROFIL_SYMFILE_H
#define PROFIL_SYMFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Bytes of one debuginfod download at most, unless DEBUGINFOD_MAXSIZE says otherwise. */
#define SYMFILE_DEBUGINFOD_MAXSIZE_TEXT "536870912" /* 512 MiB */

/* Where a file was found. */
enum symfile_how {
	SYMFILE_NONE = 0,
	SYMFILE_BUILD_ID,   /* /usr/lib/debug/.build-id/ */
	SYMFILE_DEBUGLINK,  /* .gnu_debuglink (or .gnu_debugaltlink) name */
	SYMFILE_DEBUGINFOD, /* a debuginfod server (DEBUGINFOD_URLS) */
	SYMFILE_KEPT,	    /* the copy profil record kept (utils/objcache.h) */
};

/* What to look for. */
struct symfile_want {
	const unsigned char *build_id; /* the file must carry this build id (if build_id_len) */
	size_t build_id_len;
	const char *link;  /* .gnu_debuglink name (a base name), or NULL */
	uint32_t link_crc; /* its CRC-32, checked when there is no build id (0: unchecked) */
	int link_is_path;  /* link is a path (.gnu_debugaltlink of dwz), relative to near's dir */
	const char *near;  /* the file whose directory link names are relative to */
	const struct stat *not_this; /* never this file (the object itself), or NULL */
};

/* One per symbols cache: the debuginfod client, made on first use. */
struct symfile_finder;

struct symfile_finder *symfile_finder__new(void);
void symfile_finder__free(struct symfile_finder *f);

/*
 * Open path read-only if, and only if, it is a regular file.  Returns the
 * descriptor (*st filled) or -errno (-EINVAL: not a regular file).
 */
int symfile__open_regular(const char *path, struct stat *st);

/*
 * MiniDebugInfo (.gnu_debugdata, xz) decompressed beyond this is not read:
 * libdwfl would decompress it whole into memory (a 312 KB section can
 * hold 2 GB), so its size is counted first, in a bounded pass.
 */
#define SYMFILE_DEBUGDATA_MAX (64u << 20)
#define SYMFILE_DEBUGDATA_MAX_TEXT "64 MiB"

/*
 * The decompressed size of the xz data buf[0..len), counted in a small
 * buffer (nothing is kept) and stopping as soon as it passes max.  Returns
 * the size, -EFBIG beyond max (or when the decoder would need more than
 * 4 * max bytes of memory), -EINVAL when it is not valid xz data.
 */
long long symfile__xz_size(const void *buf, size_t len, uint64_t max);

/* 1 when fd's file starts with the ELF magic, else 0. */
int symfile__is_elf(int fd);

/* 1 when the ELF file behind fd carries this build id, else 0. */
int symfile__has_build_id(int fd, const unsigned char *id, size_t len);

/*
 * A separate debug file as described by w.  Returns its descriptor (the
 * caller owns it), *path (malloc'd) and *how, or -ENOENT / -ENOMEM.
 */
int symfile__find_debug(struct symfile_finder *f, const struct symfile_want *w, char **path,
			enum symfile_how *how);

/*
 * A copy of an object by its build id alone, for an object whose file is
 * gone or was rebuilt since recording: the executable itself
 * (/usr/lib/debug/.build-id/xx/rest, the copy profil record kept,
 * debuginfod), else its separate debug
 * file (which keeps the program headers and the symbol table; *is_debug is
 * then 1).  Returns a descriptor, *path (malloc'd) and *how, or -ENOENT.
 */
int symfile__find_by_id(struct symfile_finder *f, const unsigned char *id, size_t len, char **path,
			enum symfile_how *how, int *is_debug);

/*
 * A source file of the object with this build id from a debuginfod server
 * (GET /buildid/ID/source/PATH, PATH absolute as DWARF names it), only when
 * DEBUGINFOD_URLS is set.  Returns a descriptor of the client's cached copy
 * (a regular file; *local its path, malloc'd), or -ENOENT.
 */
int symfile__find_source(struct symfile_finder *f, const unsigned char *id, size_t len,
			 const char *path, char **local);

#endif /* PROFIL_SYMFILE_H */
