/* SPDX-License-Identifier: MIT */
/*
 * outfile: the ONE way profil opens a file it writes (the profile, the event
 * streams, gmon.out, pprof, the HTML page).  profil often runs as root and
 * writes into shared directories such as /tmp, so a name is trusted no more
 * than a file's contents.
 *
 * The name:
 *  - its last component is never followed when it is a symbolic link
 *    (lstat, O_NOFOLLOW, and the file opened must be the one looked at);
 *  - a directory on the way that is a symbolic link of another user (not
 *    root, not us) is refused: anyone can plant one in /tmp, and
 *    fs.protected_symlinks may be off;
 *  - the directory is opened once and everything else happens relative to
 *    it (the checks and the write see the same directory);
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a
 *    descriptor profil already has (the user's redirection): written there
 *    in place (not for outputs whose rules say regular_only).
 * What is already there:
 *  - another user's file is never replaced, truncated or written to (a
 *    regular file or a FIFO, in a sticky directory too);
 *  - a character device (/dev/null, a terminal; only root can make one) and
 *    a FIFO of ours are written in place, never replaced;
 *  - a regular file of ours is replaced only when the caller's rules allow
 *    it (a profile only where a profile goes; never a profile or a program
 *    where an export goes), and never when it is a file of the command
 *    being recorded (outfile__protect);
 *  - anything else (a directory, a socket, a block device) is refused.
 * New files get mode 0600 when profil runs as root (the data of root's
 * processes), else 0666 & ~umask.
 *
 * Whole outputs (outfile__write) go to a temporary file in the name's
 * directory, which is synced and renamed over the name only when all of it
 * was written: never a partial file.  The temporary file is unnamed
 * (O_TMPFILE) until it is complete, then linked as ".NAME.XXXXXX" and
 * renamed: however profil dies, SIGKILL included, nothing is left behind.
 * Where the file system has no O_TMPFILE, it is named from the start.  A
 * named temporary is removed on any error, and on SIGINT, SIGTERM or SIGHUP
 * (a handler, installed where the signal's action is the default, removes
 * the temporaries and re-raises the signal).  SIGXFSZ is held while
 * writing: a file size limit is an error (EFBIG), not a death.
 *
 * Streams appended to while a program runs (outfile__open_stream) cannot
 * be renamed into place at the end without losing what a crash leaves: a
 * new name is created O_EXCL, an existing regular file of ours with no
 * other link is truncated in place (its mode never widened).
 *
 * Every function returns -errno with one sentence in why on failure.
 */
#ifndef PROFIL_OUTFILE_H
#define PROFIL_OUTFILE_H

#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum outfile_kind {
	OUTFILE_NEW,	  /* nothing at the name yet */
	OUTFILE_REPLACE,  /* a regular file of ours that the rules let us replace */
	OUTFILE_IN_PLACE, /* a descriptor, a character device or our FIFO: written where it is */
};

struct outfile_rules {
	/*
	 * May the existing regular file of ours (fd: open read-only; st: its
	 * fstat) be replaced?  NULL: yes; else what it is, for the sentence
	 * "NAME exists and is <that>; refusing to replace it" ("not a
	 * profile").  A NULL function: any regular file of ours.
	 */
	const char *(*refuse)(int fd, const struct stat *st);
	int regular_only; /* refuse devices, FIFOs and descriptors too (the profile is mapped) */
};

/* Mode of a new output: 0600 when running as root, else 0666 & ~umask. */
mode_t outfile__mode(void);

/*
 * Never replace or write the file path names (followed: the file itself),
 * e.g. the program being recorded and the files its arguments name; what
 * says what it is ("the program being recorded").  Up to 64 files.
 */
void outfile__protect(const char *path, const char *what);

/* An existing regular file that is a program: "an executable file" (any x bit), "an ELF file". */
const char *outfile__refuse_program(int fd, const struct stat *st);

/*
 * What writing path would do: enum outfile_kind, or -errno with one
 * sentence in why when it is refused.
 */
int outfile__check(const char *path, const struct outfile_rules *rules, char *why, size_t whylen);

/* 1 when a and b name the same destination (same directory and name, or the same file). */
int outfile__same(const char *a, const char *b);

/*
 * Write path whole: fill writes everything to fd (a temporary file, or the
 * destination itself when it is written in place) and returns 0, or -errno
 * with an optional sentence in its why.  Returns 0, or -errno with one
 * sentence in why ("cannot write NAME: ...").
 */
typedef int (*outfile_fill_fn)(int fd, void *arg, char *why, size_t whylen);
int outfile__write(const char *path, const struct outfile_rules *rules, outfile_fill_fn fill,
		   void *arg, char *why, size_t whylen);

/*
 * outfile__write with a stdio stream: fill writes everything to f, which
 * is then flushed and closed (a failure to is the write's error).
 */
typedef int (*outfile_stream_fn)(FILE *f, void *arg, char *why, size_t whylen);
int outfile__write_stream(const char *path, const struct outfile_rules *rules,
			  outfile_stream_fn fill, void *arg, char *why, size_t whylen);

/*
 * Hold SIGXFSZ around writes of one's own (outfile__write does it for its
 * fill): a file size limit then fails the write or the allocation with
 * EFBIG instead of killing the process.  release drops the signal the
 * limit raised (unless it was blocked before) and restores *old.
 */
void outfile__hold_xfsz(sigset_t *old);
void outfile__release_xfsz(const sigset_t *old);

/* For tests: named temporary files from the start, as where there is no O_TMPFILE. */
void outfile__named_temporaries(int on);

/*
 * Open path as a stream written while a program runs.  Returns a
 * descriptor (close-on-exec, the caller closes it) and what it is in *kind
 * (OUTFILE_IN_PLACE: not ours to cut short), or -errno with one sentence in why.
 */
int outfile__open_stream(const char *path, const struct outfile_rules *rules,
			 enum outfile_kind *kind, char *why, size_t whylen);

#endif /* PROFIL_OUTFILE_H */
