// SPDX-License-Identifier: MIT
/* symfile: finding and opening the files symbols come from.  See symfile.h. */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/symfile.h"
#include "utils/buildid.h"
#include "utils/objcache.h"
#include "utils/regfile.h"

#define DEBUG_ROOT "/usr/lib/debug"
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

struct symfile_finder {
	int tried;    /* debuginfod looked at (DEBUGINFOD_URLS, the library) */
	int disabled; /* not set, not loadable, or it failed: never asked (again) */
	debuginfod_client *client;
	long maxsize;  /* DEBUGINFOD_MAXSIZE: bytes of one download at most (0: no limit) */
	int cancelled; /* the last download was stopped at maxsize */
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_find_source) *find_source; /* may be NULL */
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

long long symfile__xz_size(const void *buf, size_t len, uint64_t max)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char out[65536];
	uint64_t total = 0;
	lzma_ret r;

	/*
	 * The decoder's own memory is its dictionary (xz -9: 64 MiB; touched
	 * only as far as output is made): allowed up to 4 * max.
	 */
	if (lzma_stream_decoder(&z, max > UINT64_MAX / 4 ? UINT64_MAX : max * 4, 0) != LZMA_OK)
		return -ENOMEM;
	z.next_in = buf;
	z.avail_in = len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		r = lzma_code(&z, LZMA_FINISH);
		total += sizeof(out) - z.avail_out;
	} while (r == LZMA_OK && total <= max);
	lzma_end(&z);
	if (total > max || r == LZMA_MEMLIMIT_ERROR)
		return -EFBIG;
	return r == LZMA_STREAM_END ? (long long)total : -EINVAL;
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
	char hex[2 * BUILDID_MAX + 2];
	int n;

	if (len < 2 || buildid__hex(id, len, 1, hex, sizeof(hex)) < 0)
		return -ENAMETOOLONG;
	n = snprintf(buf, size, DEBUG_ROOT "/.build-id/%s%s", hex, suffix);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
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

/*
 * libdebuginfod checks DEBUGINFOD_MAXSIZE only against a Content-Length:
 * a server that sends none (chunked) is read without end into the cache.
 * Once a server is committed to (its URL known), a is the bytes it sent:
 * the download is stopped past the maximum.
 */
static __typeof__(debuginfod_get_user_data) *user_data_of;
static __typeof__(debuginfod_get_url) *url_of;

static int progress(debuginfod_client *c, long a, long b)
{
	struct symfile_finder *f = user_data_of(c);

	(void)b;
	if (!f || f->maxsize <= 0 || !url_of(c) || a <= f->maxsize)
		return 0;
	f->cancelled = 1;
	return 1;
}

/* The debuginfod client, when DEBUGINFOD_URLS asks for one; NULL otherwise. */
static debuginfod_client *client_of(struct symfile_finder *f)
{
	const char *urls, *max;
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
	*(void **)&f->find_source = dlsym(so, "debuginfod_find_source");
	*(void **)&f->set_progressfn = dlsym(so, "debuginfod_set_progressfn");
	*(void **)&f->set_user_data = dlsym(so, "debuginfod_set_user_data");
	*(void **)&user_data_of = dlsym(so, "debuginfod_get_user_data");
	*(void **)&url_of = dlsym(so, "debuginfod_get_url");
	if (!f->begin || !f->end || !f->find_debuginfo || !f->find_executable ||
	    !f->set_progressfn || !f->set_user_data || !user_data_of || !url_of)
		return NULL;
	/*
	 * A default maximum size of one download (libdebuginfod has none, and
	 * reads it from the environment at every query); the user's, when set.
	 */
	max = getenv("DEBUGINFOD_MAXSIZE");
	if (!max || !*max)
		setenv("DEBUGINFOD_MAXSIZE", SYMFILE_DEBUGINFOD_MAXSIZE_TEXT, 1);
	f->maxsize = atol(getenv("DEBUGINFOD_MAXSIZE"));
	f->client = f->begin();
	f->disabled = !f->client;
	if (f->client) {
		f->set_user_data(f->client, f);
		f->set_progressfn(f->client, progress);
	}
	return f->client;
}

/* The client's cache directory, as libdebuginfod chooses it (debuginfod-find(1)). */
static void cache_dir(char *buf, size_t size)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH"), *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;

	if (!home)
		home = "/";
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return;
	}
	snprintf(buf, size, "%s/.debuginfod_client_cache", home);
	if (stat(buf, &st) == 0)
		return;
	if (xdg && *xdg)
		snprintf(buf, size, "%s/debuginfod_client", xdg);
	else
		snprintf(buf, size, "%s/.cache/debuginfod_client", home);
}

/*
 * "<hex of id>/<type>": the last two components of the client's cache file
 * for id.  -EINVAL for an id buildid__hex does not spell (none, or longer
 * than BUILDID_MAX: an ELF note can say anything): no file is named then.
 */
static int cache_entry(char *buf, size_t size, const unsigned char *id, size_t len, int exec)
{
	char hex[2 * BUILDID_MAX + 1];

	if (buildid__hex(id, len, 0, hex, sizeof(hex)) < 0)
		return -EINVAL;
	snprintf(buf, size, "%s/%s", hex, exec ? "executable" : "debuginfo");
	return 0;
}

/*
 * A download profil rejected (not ELF, another build id) is removed from
 * the client's cache: left there, it would be served from the cache to
 * every later query, and a good server never asked again.  Only a file at
 * the client's own name for this id is removed.
 */
static void discard(const char *got, const unsigned char *id, size_t len, int exec)
{
	char entry[160];
	size_t n, k;

	if (!got || cache_entry(entry, sizeof(entry), id, len, exec) < 0)
		return;
	n = strlen(got);
	k = strlen(entry);
	if (n > k && got[n - k - 1] == '/' && !strcmp(got + n - k, entry))
		unlink(got);
}

/*
 * A download stopped at the maximum size leaves what libdebuginfod takes
 * for "not found": an empty file under the id (mode 000 in later
 * versions), which makes every query for that id fail for 10 minutes,
 * whatever the servers.  It is removed.
 */
static void forget_miss(const unsigned char *id, size_t len, int exec)
{
	char dir[PATH_MAX], entry[160], path[PATH_MAX + 170];
	struct stat st;

	if (cache_entry(entry, sizeof(entry), id, len, exec) < 0)
		return;
	cache_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, entry);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && !st.st_size)
		unlink(path);
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
	f->cancelled = 0;
	fd = exec ? f->find_executable(c, id, (int)len, &got) :
		    f->find_debuginfo(c, id, (int)len, &got);
	if (fd < 0) {
		if (f->cancelled)
			forget_miss(id, len, exec);
		else if (fd != -ENOENT && fd != -EFBIG) /* unreachable, timed out: stop asking */
			f->disabled = 1;
		free(got);
		return -ENOENT;
	}
	/* the cache file the client wrote: still check what it is */
	if (!got || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !symfile__is_elf(fd) ||
	    !symfile__has_build_id(fd, id, len)) {
		discard(got, id, len, exec);
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
	if (objcache__path(id, len, buf, sizeof(buf)) == 0 && (fd = try_candidate(buf, &w, 0)) >= 0)
		return found(fd, buf, SYMFILE_KEPT, path, how);
	fd = from_debuginfod(f, id, len, 1, path, how);
	if (fd != -ENOENT)
		return fd;
	*is_debug = 1;
	return symfile__find_debug(f, &w, path, how);
}

int symfile__find_source(struct symfile_finder *f, const unsigned char *id, size_t len,
			 const char *path, char **local)
{
	debuginfod_client *c = len && path[0] == '/' ? client_of(f) : NULL;
	struct stat st;
	char *got = NULL;
	int fd;

	if (!c || !f->find_source)
		return -ENOENT;
	fd = f->find_source(c, id, (int)len, path, &got);
	if (fd < 0) {
		if (fd != -ENOENT)
			f->disabled = 1;
		free(got);
		return -ENOENT;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		free(got);
		return -ENOENT;
	}
	*local = got;
	return fd;
}
