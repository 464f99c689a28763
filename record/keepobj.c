// SPDX-License-Identifier: MIT
/* Copies of objects rewritten or deleted while they ran: see keepobj.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/keepobj.h"
#include "utils/objcache.h"
#include "utils/outfile.h"
#include "utils/regfile.h"

struct held {
	uint8_t id[20];
	unsigned len;
	char *path;
	int fd;
	struct stat st;
};

struct keepobj {
	struct held v[KEEPOBJ_MAX_HELD];
	unsigned n, max;   /* held; at most (the descriptor limit leaves the recorder room) */
	uint64_t not_held; /* objects seen past max */
	int denied;	   /* /proc/PID/map_files is not ours to open: nothing is held */
};

struct keepobj *keepobj__new(void)
{
	struct keepobj *k = calloc(1, sizeof(*k));
	struct rlimit rl;

	if (!k)
		return NULL;
	/* an eighth of the descriptors at most: the rings and the unwinder need theirs */
	k->max = KEEPOBJ_MAX_HELD;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 8 < k->max)
		k->max = (unsigned)(rl.rlim_cur / 8);
	return k;
}

static void let_go(struct keepobj *k)
{
	for (unsigned i = 0; i < k->n; i++) {
		close(k->v[i].fd);
		free(k->v[i].path);
	}
	k->n = 0;
}

void keepobj__free(struct keepobj *k)
{
	if (!k)
		return;
	let_go(k);
	free(k);
}

static int is_held(const struct keepobj *k, const uint8_t *id, unsigned len)
{
	for (unsigned i = 0; i < k->n; i++)
		if (k->v[i].len == len && !memcmp(k->v[i].id, id, len))
			return 1;
	return 0;
}

void keepobj__map(struct keepobj *k, pid_t pid, uint64_t start, uint64_t end, const char *path,
		  const uint8_t *build_id, unsigned build_id_len)
{
	char file[96];
	struct held *h;
	struct stat st;
	int fd;

	if (!k || k->denied || !build_id_len || build_id_len > sizeof(h->id) || path[0] != '/' ||
	    is_held(k, build_id, build_id_len))
		return;
	if (k->n >= k->max) {
		k->not_held++;
		return;
	}
	snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = regfile__open(file, &st); /* the mapped inode: a regular file, never a wait */
	if (fd == -EPERM || fd == -EACCES)
		k->denied = 1;
	if (fd < 0)
		return;
	h = &k->v[k->n];
	if ((uint64_t)st.st_size > KEEPOBJ_MAX_BYTES || !(h->path = strdup(path))) {
		close(fd);
		return;
	}
	memcpy(h->id, build_id, build_id_len);
	h->len = build_id_len;
	h->fd = fd;
	h->st = st;
	k->n++;
}

/* Does the path still name the held file?  (" (deleted)": the kernel's mark of an unlinked one) */
static int path_names_it(const struct held *h)
{
	struct stat now;

	return !strstr(h->path, " (deleted)") && stat(h->path, &now) == 0 &&
	       now.st_dev == h->st.st_dev && now.st_ino == h->st.st_ino;
}

/* Bytes in the cache (DIR/xx/rest), counted over at most KEEPOBJ_CACHE_SCAN files. */
static uint64_t cache_bytes(const char *dir)
{
	DIR *top = opendir(dir), *sub;
	struct dirent *e, *f;
	uint64_t bytes = 0;
	unsigned files = 0;
	char path[PATH_MAX];
	struct stat st;

	while (top && files < KEEPOBJ_CACHE_SCAN && (e = readdir(top))) {
		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    !(sub = opendir(path)))
			continue;
		while (files < KEEPOBJ_CACHE_SCAN && (f = readdir(sub))) {
			if (f->d_name[0] == '.' ||
			    fstatat(dirfd(sub), f->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			bytes += (uint64_t)st.st_size;
			files++;
		}
		closedir(sub);
	}
	if (top)
		closedir(top);
	return files >= KEEPOBJ_CACHE_SCAN ? KEEPOBJ_CACHE_MAX : bytes;
}

/* mkdir -p of the directories above the file path (mode 0700: the user's own cache). */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

static int copy_held(int out, void *arg, char *why, size_t whylen)
{
	const struct held *h = arg;
	char buf[65536];
	off_t at = 0;

	(void)why, (void)whylen;
	while ((uint64_t)at < (uint64_t)h->st.st_size) {
		ssize_t n = pread(h->fd, buf, sizeof(buf), at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* it shrank: no partial copy */
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += w;
		}
		at += n;
	}
	return 0;
}

/* Nothing that exists is ever replaced: a copy is made only where there is none. */
static const char *refuse_existing(int fd, const struct stat *st)
{
	(void)fd, (void)st;
	return "in the cache already";
}

static const struct outfile_rules keep_rules = {.refuse = refuse_existing, .regular_only = 1};

struct tally {
	unsigned copied, present, over, failed;
	uint64_t bytes;
};

/* Copy h into the cache unless it is there already or over a bound. */
static void keep_one(const struct held *h, uint64_t in_cache, struct tally *t)
{
	char dest[PATH_MAX], why[256];
	struct stat st;

	if (objcache__path(h->id, h->len, dest, sizeof(dest)) < 0) {
		t->failed++;
		return;
	}
	if (lstat(dest, &st) == 0) {
		t->present++;
		return;
	}
	if (t->bytes + (uint64_t)h->st.st_size > KEEPOBJ_MAX_COPIED ||
	    in_cache + t->bytes + (uint64_t)h->st.st_size > KEEPOBJ_CACHE_MAX) {
		t->over++;
		return;
	}
	if (make_dirs(dest) < 0 ||
	    outfile__write(dest, &keep_rules, copy_held, (void *)h, why, sizeof(why)) < 0) {
		t->failed++;
		return;
	}
	t->copied++;
	t->bytes += (uint64_t)h->st.st_size;
}

int keepobj__store(struct keepobj *k, char *note, size_t len)
{
	struct tally t = {0};
	char dir[PATH_MAX];
	uint64_t in_cache = 0;
	int scanned = 0;

	note[0] = 0;
	if (!k)
		return 0;
	for (unsigned i = 0; i < k->n; i++) {
		if (path_names_it(&k->v[i]))
			continue;
		if (!scanned++)
			in_cache = objcache__dir(dir, sizeof(dir)) == 0 ? cache_bytes(dir) : 0;
		keep_one(&k->v[i], in_cache, &t);
	}
	let_go(k);
	if (t.copied || t.present || t.over || t.failed)
		snprintf(note, len,
			 "objects rewritten or deleted while recording: %u copied by build id "
			 "(%llu KiB)%s%s%s%s",
			 t.copied, (unsigned long long)(t.bytes >> 10),
			 t.present ? ", some copied before" : "",
			 t.over ? ", some over the cache's bounds" : "",
			 t.failed ? ", some could not be copied" : "",
			 k->not_held ? ", objects past the first held not looked at" : "");
	return (int)t.copied;
}
