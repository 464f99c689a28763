// SPDX-License-Identifier: MIT
/* Opening the files profil writes: see outfile.h for the rules. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH; some test programs build it without -D */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "utils/array.h"
#include "utils/outfile.h"
#include "utils/why.h"

#define MAX_PROTECTED 64
#define MAX_TEMPS 8

/* ---- pure: names ------------------------------------------------------------------ */

/* The descriptor a name stands for ("-", /dev/stdout, /dev/fd/N, ...), or -1. */
static int descriptor_name(const char *path)
{
	static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
	long n;
	char *end;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t len = strlen(prefixes[i]);

		if (strncmp(path, prefixes[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		n = strtol(path + len, &end, 10);
		return *end || n > INT_MAX ? -1 : (int)n;
	}
	return -1;
}

/*
 * Split path into its directory (into dir) and its last component (a
 * pointer into path).  Returns NULL when there is no last component
 * ("dir/", ".", "..") or the directory does not fit.
 */
static const char *split_path(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return NULL;
	if (!slash)
		n = (size_t)snprintf(dir, dirlen, ".");
	else if (n == 0)
		n = (size_t)snprintf(dir, dirlen, "/");
	else if (n < dirlen)
		memcpy(dir, path, n), dir[n] = 0;
	return n < dirlen ? base : NULL;
}

/* ".BASE.XXXXXX" with six random letters from r (BASE cut to fit NAME_MAX). */
static void temp_name(char *out, size_t len, const char *base, uint64_t r)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char suffix[7];

	for (int i = 0; i < 6; i++, r /= 62)
		suffix[i] = letters[r % 62];
	suffix[6] = 0;
	snprintf(out, len, ".%.*s.%s", NAME_MAX - 16, base, suffix);
}

/* ---- files not to touch ------------------------------------------------------------ */

static struct {
	dev_t dev;
	ino_t ino;
	const char *what;
} protected_files[MAX_PROTECTED];
static int nprotected;

void outfile__protect(const char *path, const char *what)
{
	struct stat st;

	if (nprotected == MAX_PROTECTED || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	protected_files[nprotected++] = (typeof(protected_files[0])){st.st_dev, st.st_ino, what};
}

static const char *protected_as(const struct stat *st)
{
	for (int i = 0; i < nprotected; i++)
		if (protected_files[i].dev == st->st_dev && protected_files[i].ino == st->st_ino)
			return protected_files[i].what;
	return NULL;
}

const char *outfile__refuse_program(int fd, const struct stat *st)
{
	char magic[4];

	if (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))
		return "an executable file";
	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	    !memcmp(magic, "\177ELF", 4))
		return "an ELF file";
	return NULL;
}

mode_t outfile__mode(void)
{
	mode_t mask;

	if (geteuid() == 0)
		return 0600;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* ---- temporary files and the signals that must not leave them behind ---------------- */

static struct {
	volatile sig_atomic_t used;
	int dfd;
	char name[NAME_MAX + 1];
} temps[MAX_TEMPS];

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Async-signal-safe: unlinkat, sigaction and raise only. */
static void remove_temps_and_die(int sig)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used)
			unlinkat(temps[i].dfd, temps[i].name, 0);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered, with the default action, when the handler returns */
}

/*
 * Where a signal has its default action (death), die through the cleanup
 * (looked at for every temporary file: the caller may have changed it).
 */
static void install_cleanup(void)
{
	struct sigaction sa = {.sa_handler = remove_temps_and_die}, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(cleanup_signals); i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (size_t i = 0; i < ARRAY_SIZE(cleanup_signals); i++)
		if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(cleanup_signals[i], &sa, NULL);
}

/* Remember (dfd, name) for the signal handler; a slot, or -1 when all are taken. */
static int register_temp(int dfd, const char *name)
{
	install_cleanup();
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used)
			continue;
		temps[i].dfd = dfd;
		snprintf(temps[i].name, sizeof(temps[i].name), "%s", name);
		__atomic_store_n(&temps[i].used, 1, __ATOMIC_SEQ_CST);
		return i;
	}
	return -1;
}

static void unregister_temp(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&temps[slot].used, 0, __ATOMIC_SEQ_CST);
}

static uint64_t random_bits(void)
{
	static uint64_t counter;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	return ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
	       (++counter * 0x9e3779b97f4a7c15ull);
}

/* SIGXFSZ held while writing: a file size limit makes write fail with EFBIG instead of killing. */
void outfile__hold_xfsz(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGXFSZ);
	sigprocmask(SIG_BLOCK, &s, old);
}

void outfile__release_xfsz(const sigset_t *old)
{
	struct timespec zero = {0, 0};
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGXFSZ);
	if (!sigismember(old, SIGXFSZ)) /* the limit was reported as EFBIG: drop its signal */
		while (sigtimedwait(&s, NULL, &zero) == SIGXFSZ)
			;
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- the destination ----------------------------------------------------------------- */

struct dest {
	const char *path; /* as the caller gave it, for the sentences */
	int fdnum;	  /* a descriptor name: the descriptor, else -1 */
	int dfd;	  /* the directory, opened once */
	const char *base; /* the last component */
};

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A directory on the way that is another user's symbolic link (not root's, not ours). */
static int check_directories(const char *path, size_t dirlen, char *why, size_t whylen)
{
	char prefix[PATH_MAX];
	struct stat st;

	if (dirlen >= sizeof(prefix))
		return why_fail(why, whylen, -ENAMETOOLONG, "cannot write %s: %s", path,
				strerror(ENAMETOOLONG));
	for (size_t i = 1; i <= dirlen; i++) {
		if (i < dirlen && path[i] != '/')
			continue;
		if (path[i - 1] == '/')
			continue;
		memcpy(prefix, path, i);
		prefix[i] = 0;
		if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 &&
		    st.st_uid != geteuid())
			return why_fail(why, whylen, -ELOOP,
					"cannot write %s: %s is a symbolic link of another user; "
					"refusing to follow it",
					path, prefix);
	}
	return 0;
}

static int dest_open(struct dest *d, const char *path, const struct outfile_rules *rules, char *why,
		     size_t whylen)
{
	char dir[PATH_MAX];
	int rc;

	*d = (struct dest){.path = path, .fdnum = -1, .dfd = -1};
	if (!rules->regular_only && (d->fdnum = descriptor_name(path)) >= 0)
		return 0;
	d->base = split_path(path, dir, sizeof(dir));
	if (!d->base)
		return why_fail(why, whylen, -EISDIR, "cannot write %s: it names a directory",
				path);
	rc = check_directories(path, (size_t)(d->base - path), why, whylen);
	if (rc < 0)
		return rc;
	d->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dfd < 0)
		return why_fail(why, whylen, -errno, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

static void dest_close(struct dest *d)
{
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
}

/* A copy of the descriptor the name stands for, if it is open for writing. */
static int dup_descriptor(const struct dest *d, char *why, size_t whylen)
{
	int flags = fcntl(d->fdnum, F_GETFL), fd;

	if (flags < 0)
		return why_fail(why, whylen, -EBADF, "cannot write %s: descriptor %d is not open",
				d->path, d->fdnum);
	if ((flags & O_ACCMODE) == O_RDONLY)
		return why_fail(why, whylen, -EBADF,
				"cannot write %s: descriptor %d is not open for writing", d->path,
				d->fdnum);
	fd = fcntl(d->fdnum, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return why_fail(why, whylen, -errno, "cannot write %s: %s", d->path,
				strerror(errno));
	return fd;
}

/* What is at the name: enum outfile_kind (st filled unless NEW), or -errno and a sentence. */
static int classify(const struct dest *d, const struct outfile_rules *rules, struct stat *st,
		    char *why, size_t whylen)
{
	const char *p = d->path, *what;
	struct stat now;
	int fd;

	if (fstatat(d->dfd, d->base, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return OUTFILE_NEW;
		return why_fail(why, whylen, -errno, "cannot write %s: %s", p, strerror(errno));
	}
	if (S_ISLNK(st->st_mode))
		return why_fail(why, whylen, -ELOOP, "%s is a symbolic link; refusing to follow it",
				p);
	if (rules->regular_only && !S_ISREG(st->st_mode))
		return why_fail(why, whylen, -EEXIST, "%s exists and is not a regular file", p);
	if (S_ISCHR(st->st_mode))
		return OUTFILE_IN_PLACE; /* /dev/null, a terminal: only root makes device nodes */
	if (st->st_uid != geteuid())
		return why_fail(why, whylen, -EPERM, "%s belongs to another user; refusing to %s",
				p, S_ISREG(st->st_mode) ? "replace it" : "write to it");
	if (S_ISFIFO(st->st_mode))
		return OUTFILE_IN_PLACE;
	if (!S_ISREG(st->st_mode))
		return why_fail(why, whylen, -EEXIST, "%s exists and is not a regular file", p);
	what = protected_as(st);
	if (what)
		return why_fail(why, whylen, -EPERM, "%s is %s; refusing to replace it", p, what);
	if (!rules->refuse)
		return OUTFILE_REPLACE;
	fd = openat(d->dfd, d->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return why_fail(why, whylen, -errno, "cannot read %s to see what it is: %s", p,
				strerror(errno));
	if (fstat(fd, &now) < 0 || !same_file(&now, st)) {
		close(fd);
		return why_fail(why, whylen, -EAGAIN, "%s changed while it was looked at", p);
	}
	what = rules->refuse(fd, st);
	close(fd);
	if (what)
		return why_fail(why, whylen, -EEXIST, "%s exists and is %s; refusing to replace it",
				p, what);
	return OUTFILE_REPLACE;
}

/* Open what classify saw (flags: how); the file opened must be that one. */
static int open_seen(const struct dest *d, const struct stat *st, int flags, char *why,
		     size_t whylen)
{
	struct stat now;
	int fd = openat(d->dfd, d->base, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return why_fail(why, whylen, -errno, "cannot write %s: %s", d->path,
				strerror(errno));
	if (fstat(fd, &now) < 0 || !same_file(&now, st) || now.st_uid != st->st_uid ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
		close(fd);
		return why_fail(why, whylen, -EAGAIN, "%s changed while it was opened", d->path);
	}
	return fd;
}

/* An existing regular file of ours, emptied for a stream: never one with other links. */
static int truncate_own(const struct dest *d, const struct stat *st, char *why, size_t whylen)
{
	int fd = open_seen(d, st, O_WRONLY | O_NONBLOCK, why, whylen);
	mode_t mode = st->st_mode & 07777;

	if (fd < 0)
		return fd;
	if (st->st_nlink > 1) {
		close(fd);
		return why_fail(why, whylen, -EMLINK,
				"%s has other hard links; refusing to truncate it", d->path);
	}
	if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0 ||
	    ((mode & outfile__mode()) != mode && fchmod(fd, mode & outfile__mode()) < 0)) {
		int err = errno;

		close(fd);
		return why_fail(why, whylen, -err, "cannot write %s: %s", d->path, strerror(err));
	}
	return fd;
}

static int create_new(const struct dest *d, int flags, char *why, size_t whylen)
{
	int fd = openat(d->dfd, d->base,
			flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			outfile__mode());

	if (fd >= 0)
		return fd;
	if (errno == EEXIST)
		return -EAGAIN; /* something appeared meanwhile: look again */
	return why_fail(why, whylen, -errno, "cannot create %s: %s", d->path, strerror(errno));
}

/* ---- the interface ---------------------------------------------------------------------- */

int outfile__check(const char *path, const struct outfile_rules *rules, char *why, size_t whylen)
{
	struct dest d;
	struct stat st;
	int rc = dest_open(&d, path, rules, why, whylen);

	if (rc < 0)
		return rc;
	if (d.fdnum >= 0) {
		rc = dup_descriptor(&d, why, whylen);
		if (rc < 0)
			return rc;
		close(rc);
		return OUTFILE_IN_PLACE;
	}
	rc = classify(&d, rules, &st, why, whylen);
	dest_close(&d);
	return rc;
}

int outfile__same(const char *a, const char *b)
{
	char da[PATH_MAX], db[PATH_MAX];
	const char *ba, *bb;
	struct stat sa, sb;

	if (!strcmp(a, b))
		return 1;
	if (lstat(a, &sa) == 0 && lstat(b, &sb) == 0)
		return same_file(&sa, &sb);
	ba = split_path(a, da, sizeof(da));
	bb = split_path(b, db, sizeof(db));
	return ba && bb && !strcmp(ba, bb) && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
	       same_file(&sa, &sb);
}

int outfile__open_stream(const char *path, const struct outfile_rules *rules,
			 enum outfile_kind *kind, char *why, size_t whylen)
{
	struct dest d;
	struct stat st;
	int fd = dest_open(&d, path, rules, why, whylen);

	if (fd < 0)
		return fd;
	*kind = OUTFILE_IN_PLACE;
	if (d.fdnum >= 0)
		return dup_descriptor(&d, why, whylen);
	fd = -EAGAIN;
	for (int attempt = 0; attempt < 3 && fd == -EAGAIN; attempt++) {
		int k = classify(&d, rules, &st, why, whylen);

		if (k < 0) {
			fd = k;
			break;
		}
		*kind = (enum outfile_kind)k;
		if (k == OUTFILE_NEW)
			fd = create_new(&d, O_WRONLY, why, whylen);
		else if (k == OUTFILE_REPLACE)
			fd = truncate_own(&d, &st, why, whylen);
		else /* a FIFO waits for its reader, as any writer of it does */
			fd = open_seen(&d, &st, O_WRONLY, why, whylen);
	}
	if (fd == -EAGAIN)
		why_fail(why, whylen, -EAGAIN, "cannot write %s: it keeps changing", path);
	dest_close(&d);
	return fd;
}

/* fill into fd, with SIGXFSZ held; the sentence (fill's or the errno's) into why. */
static int run_fill(const struct dest *d, int fd, outfile_fill_fn fill, void *arg, char *why,
		    size_t whylen)
{
	char fill_why[256] = "";
	sigset_t old;
	int rc;

	outfile__hold_xfsz(&old);
	rc = fill(fd, arg, fill_why, sizeof(fill_why));
	outfile__release_xfsz(&old);
	if (rc > 0)
		rc = -EIO;
	if (rc < 0)
		why_fail(why, whylen, rc, "cannot write %s: %s", d->path,
			 fill_why[0] ? fill_why : strerror(-rc));
	return rc;
}

/* Written where it is: a descriptor, a device, our FIFO. */
static int write_in_place(const struct dest *d, const struct stat *st, outfile_fill_fn fill,
			  void *arg, char *why, size_t whylen)
{
	int fd = d->fdnum >= 0 ? dup_descriptor(d, why, whylen) :
				 open_seen(d, st, O_WRONLY, why, whylen);
	int rc;

	if (fd < 0)
		return fd;
	rc = run_fill(d, fd, fill, arg, why, whylen);
	if (close(fd) < 0 && !rc)
		rc = why_fail(why, whylen, -errno, "cannot write %s: %s", d->path, strerror(errno));
	return rc;
}

static int no_tmpfile; /* outfile__named_temporaries() */

void outfile__named_temporaries(int on)
{
	no_tmpfile = on;
}

/* The temporary file of a whole output. */
struct temp {
	int fd;
	int anonymous; /* O_TMPFILE: it has no name until it is complete */
	int slot;      /* its name registered for the signal handler, -1: none */
	char name[NAME_MAX + 1];
};

/*
 * A named temporary file beside the name (name filled in), registered for
 * the signal handler before it exists.  0 or -errno.
 */
static int temp_named(const struct dest *d, struct temp *t,
		      int (*make)(const struct dest *, struct temp *))
{
	for (int attempt = 0; attempt < 100; attempt++) {
		temp_name(t->name, sizeof(t->name), d->base, random_bits());
		t->slot = register_temp(d->dfd, t->name);
		if (make(d, t) == 0)
			return 0;
		unregister_temp(t->slot);
		t->slot = -1;
		t->name[0] = 0; /* not ours */
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int create_named(const struct dest *d, struct temp *t)
{
	t->fd = openat(d->dfd, t->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       outfile__mode());
	return t->fd < 0 ? -1 : 0;
}

/* Link the complete anonymous file to t->name (through /proc, else AT_EMPTY_PATH: root). */
static int link_anonymous(const struct dest *d, struct temp *t)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", t->fd);
	if (linkat(AT_FDCWD, proc, d->dfd, t->name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	return linkat(t->fd, "", d->dfd, t->name, AT_EMPTY_PATH);
}

/*
 * The temporary file: unnamed in the destination's directory (O_TMPFILE),
 * so that nothing is left behind however profil dies, SIGKILL included;
 * where the file system cannot, a named ".NAME.XXXXXX" that the signal
 * handler removes.  0 or -errno with one sentence.
 */
static int temp_open(const struct dest *d, struct temp *t, char *why, size_t whylen)
{
	int rc;

	*t = (struct temp){.slot = -1};
	t->fd = no_tmpfile ? -1 :
			     openat(d->dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, outfile__mode());
	t->anonymous = t->fd >= 0;
	if (t->anonymous)
		return 0;
	rc = temp_named(d, t, create_named);
	if (rc < 0)
		return why_fail(why, whylen, rc, "cannot create a file next to %s: %s", d->path,
				strerror(-rc));
	return 0;
}

/* Into a temporary file beside the name, synced, then renamed over it. */
static int write_atomically(const struct dest *d, const struct outfile_rules *rules,
			    outfile_fill_fn fill, void *arg, char *why, size_t whylen)
{
	struct temp t;
	struct stat st;
	int rc = temp_open(d, &t, why, whylen), k = 0;

	if (rc < 0)
		return rc;
	rc = run_fill(d, t.fd, fill, arg, why, whylen);
	if (!rc && fsync(t.fd) < 0)
		rc = why_fail(why, whylen, -errno, "cannot write %s: %s", d->path, strerror(errno));
	/* complete: it gets a name for the moment before the rename */
	if (!rc && t.anonymous && (rc = temp_named(d, &t, link_anonymous)) < 0)
		why_fail(why, whylen, rc, "cannot write %s: %s", d->path, strerror(-rc));
	if (close(t.fd) < 0 && !rc)
		rc = why_fail(why, whylen, -errno, "cannot write %s: %s", d->path, strerror(errno));
	/* what appeared at the name meanwhile obeys the same rules */
	if (!rc && (k = classify(d, rules, &st, why, whylen)) != OUTFILE_NEW &&
	    k != OUTFILE_REPLACE)
		rc = k < 0 ? k :
			     why_fail(why, whylen, -EEXIST,
				      "%s changed while it was written; left as it is", d->path);
	if (!rc && renameat(d->dfd, t.name, d->dfd, d->base) < 0)
		rc = why_fail(why, whylen, -errno, "cannot write %s: %s", d->path, strerror(errno));
	if (!rc)
		fsync(d->dfd); /* the new name on disk too; the file is in place either way */
	else if (t.name[0])
		unlinkat(d->dfd, t.name, 0);
	unregister_temp(t.slot);
	return rc;
}

int outfile__write(const char *path, const struct outfile_rules *rules, outfile_fill_fn fill,
		   void *arg, char *why, size_t whylen)
{
	struct dest d;
	struct stat st;
	int rc = dest_open(&d, path, rules, why, whylen);

	if (rc < 0)
		return rc;
	if (d.fdnum >= 0)
		return write_in_place(&d, NULL, fill, arg, why, whylen);
	rc = classify(&d, rules, &st, why, whylen);
	if (rc == OUTFILE_IN_PLACE)
		rc = write_in_place(&d, &st, fill, arg, why, whylen);
	else if (rc >= 0)
		rc = write_atomically(&d, rules, fill, arg, why, whylen);
	dest_close(&d);
	return rc;
}

struct stream_job {
	outfile_stream_fn fill;
	void *arg;
};

/* A stream on a copy of fd: closing it leaves fd to outfile__write. */
static int fill_stream(int fd, void *arg, char *why, size_t whylen)
{
	const struct stream_job *job = arg;
	int dfd = dup(fd), rc;
	FILE *f = dfd < 0 ? NULL : fdopen(dfd, "wb");

	if (!f) {
		rc = -errno;
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	rc = job->fill(f, job->arg, why, whylen);
	if (fflush(f) == EOF && !rc)
		rc = -errno;
	if (fclose(f) == EOF && !rc)
		rc = -errno;
	return rc;
}

int outfile__write_stream(const char *path, const struct outfile_rules *rules,
			  outfile_stream_fn fill, void *arg, char *why, size_t whylen)
{
	struct stream_job job = {fill, arg};

	return outfile__write(path, rules, fill_stream, &job, why, whylen);
}
