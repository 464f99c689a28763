// SPDX-License-Identifier: MIT
/* symfile: finding and opening the files symbols come from.  See symfile.h. */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/symfile.h"
#include "utils/regfile.h"

#define DEBUG_ROOT "/usr/lib/debug"
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

struct symfile_finder {
	int tried;    /* debuginfod looked at (DEBUGINFOD_URLS, the library) */
	int disabled; /* not set, not loadable, or it failed: never asked (again) */
	debuginfod_client *client;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
};

struct symfile_finder *symfile_finder__new(void)
{
	return calloc(1, sizeof(struct symfile_finder));
}

void symfile_finder__free(struct symfile_finder *f)
{
	if (!f)
		return;
	/* the library stays loaded: libcurl's global state must not be unmapped */
	if (f->client)
		f->end(f->client);
	free(f);
}

int symfile__open_regular(const char *path, struct stat *st)
{
	return regfile__open(path, st);
}

int symfile__is_elf(int fd)
{
	unsigned char m[SELFMAG];

	return pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) && !memcmp(m, ELFMAG, SELFMAG);
}

int symfile__has_build_id(int fd, const unsigned char *id, size_t len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *got;
	ssize_t n;
	int same;

	if (!elf)
		return 0;
	n = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &got) : -1;
	same = n > 0 && (size_t)n == len && !memcmp(got, id, len);
	elf_end(elf);
	return same;
}

/* The .gnu_debuglink CRC-32 (zlib's) of the whole file. */
static int crc_matches(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	return n == 0 && (uint32_t)crc == want;
}

/*
 * Open a candidate: a regular ELF file, not the object itself, with the
 * wanted build id (else the debuglink CRC).  Returns the descriptor or -1.
 */
static int try_candidate(const char *path, const struct symfile_want *w, int check_crc)
{
	struct stat st;
	int fd = symfile__open_regular(path, &st);

	if (fd < 0)
		return -1;
	if (w->not_this && st.st_dev == w->not_this->st_dev && st.st_ino == w->not_this->st_ino)
		goto reject;
	if (!symfile__is_elf(fd))
		goto reject;
	if (w->build_id_len) {
		if (!symfile__has_build_id(fd, w->build_id, w->build_id_len))
			goto reject;
	} else if (check_crc && w->link_crc && !crc_matches(fd, w->link_crc)) {
		goto reject;
	}
	return fd;
reject:
	close(fd);
	return -1;
}

/* DEBUG_ROOT/.build-id/xx/rest<suffix>; 0, or -ENAMETOOLONG for an absurd id. */
static int build_id_path(char *buf, size_t size, const unsigned char *id, size_t len,
			 const char *suffix)
{
	int n;

	if (len < 2 || len > 64)
		return -ENAMETOOLONG;
	n = snprintf(buf, size, DEBUG_ROOT "/.build-id/%02x/", id[0]);
	for (size_t k = 1; k < len; k++)
		n += snprintf(buf + n, size - (size_t)n, "%02x", id[k]);
	snprintf(buf + n, size - (size_t)n, "%s", suffix);
	return 0;
}

/* Hand the found file back: its descriptor, a copy of its path, how. */
static int found(int fd, const char *path, enum symfile_how h, char **out, enum symfile_how *how)
{
	*out = strdup(path);
	if (!*out) {
		close(fd);
		return -ENOMEM;
	}
	*how = h;
	return fd;
}

/* A .gnu_debuglink name must be a plain base name (it comes from the file). */
static int plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* The link's candidates: DIR/NAME, DIR/.debug/NAME, DEBUG_ROOT/DIR/NAME (or near's DIR/PATH). */
static int find_by_link(const struct symfile_want *w, char **path, enum symfile_how *how)
{
	const char *slash = w->near ? strrchr(w->near, '/') : NULL;
	int dirlen = slash ? (int)(slash - w->near) : 0;
	char buf[PATH_MAX];
	int fd;

	if (!w->link || !*w->link)
		return -ENOENT;
	if (w->link_is_path) {
		if (w->link[0] == '/')
			snprintf(buf, sizeof(buf), "%s", w->link);
		else if (slash)
			snprintf(buf, sizeof(buf), "%.*s/%s", dirlen, w->near, w->link);
		else
			return -ENOENT;
		fd = try_candidate(buf, w, 0);
		return fd >= 0 ? found(fd, buf, SYMFILE_DEBUGLINK, path, how) : -ENOENT;
	}
	if (!plain_name(w->link) || !slash)
		return -ENOENT;
	for (int k = 0; k < 3; k++) {
		static const char *const fmt[] = {"%.*s/%s", "%.*s/.debug/%s",
						  DEBUG_ROOT "%.*s/%s"};
		int n = snprintf(buf, sizeof(buf), fmt[k], dirlen, w->near, w->link);

		if (n < 0 || (size_t)n >= sizeof(buf))
			continue;
		fd = try_candidate(buf, w, 1);
		if (fd >= 0)
			return found(fd, buf, SYMFILE_DEBUGLINK, path, how);
	}
	return -ENOENT;
}

/* The debuginfod client, when DEBUGINFOD_URLS asks for one; NULL otherwise. */
static debuginfod_client *client_of(struct symfile_finder *f)
{
	const char *urls;
	void *so;

	if (f->tried)
		return f->disabled ? NULL : f->client;
	f->tried = 1;
	f->disabled = 1;
	urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return NULL; /* never the network unless asked */
	so = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!so)
		return NULL;
	*(void **)&f->begin = dlsym(so, "debuginfod_begin");
	*(void **)&f->end = dlsym(so, "debuginfod_end");
	*(void **)&f->find_debuginfo = dlsym(so, "debuginfod_find_debuginfo");
	*(void **)&f->find_executable = dlsym(so, "debuginfod_find_executable");
	if (!f->begin || !f->end || !f->find_debuginfo || !f->find_executable)
		return NULL;
	f->client = f->begin();
	f->disabled = !f->client;
	return f->client;
}

/* Ask debuginfod for the executable (exec) or the debug file of id. */
static int from_debuginfod(struct symfile_finder *f, const unsigned char *id, size_t len, int exec,
			   char **path, enum symfile_how *how)
{
	debuginfod_client *c = len ? client_of(f) : NULL;
	struct stat st;
	char *got = NULL;
	int fd;

	if (!c)
		return -ENOENT;
	fd = exec ? f->find_executable(c, id, (int)len, &got) :
		    f->find_debuginfo(c, id, (int)len, &got);
	if (fd < 0) {
		if (fd != -ENOENT) /* unreachable, timed out, refused: stop asking */
			f->disabled = 1;
		free(got);
		return -ENOENT;
	}
	/* the cache file the client wrote: still check what it is */
	if (!got || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !symfile__is_elf(fd) ||
	    !symfile__has_build_id(fd, id, len)) {
		close(fd);
		free(got);
		return -ENOENT;
	}
	*path = got;
	*how = SYMFILE_DEBUGINFOD;
	return fd;
}

int symfile__find_debug(struct symfile_finder *f, const struct symfile_want *w, char **path,
			enum symfile_how *how)
{
	char buf[PATH_MAX];
	int fd;

	if (w->build_id_len &&
	    build_id_path(buf, sizeof(buf), w->build_id, w->build_id_len, ".debug") == 0) {
		fd = try_candidate(buf, w, 0);
		if (fd >= 0)
			return found(fd, buf, SYMFILE_BUILD_ID, path, how);
	}
	fd = find_by_link(w, path, how);
	if (fd != -ENOENT)
		return fd;
	return from_debuginfod(f, w->build_id, w->build_id_len, 0, path, how);
}

int symfile__find_by_id(struct symfile_finder *f, const unsigned char *id, size_t len, char **path,
			enum symfile_how *how, int *is_debug)
{
	struct symfile_want w = {.build_id = id, .build_id_len = len};
	char buf[PATH_MAX];
	int fd;

	if (!len || build_id_path(buf, sizeof(buf), id, len, "") < 0)
		return -ENOENT;
	*is_debug = 0;
	fd = try_candidate(buf, &w, 0);
	if (fd >= 0)
		return found(fd, buf, SYMFILE_BUILD_ID, path, how);
	fd = from_debuginfod(f, id, len, 1, path, how);
	if (fd != -ENOENT)
		return fd;
	*is_debug = 1;
	return symfile__find_debug(f, &w, path, how);
}
