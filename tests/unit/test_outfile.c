// SPDX-License-Identifier: MIT
/*
 * utils/outfile: the rules of every output (symbolic links, other users'
 * files, what may be replaced, the program being run), whole outputs written
 * atomically (no partial file, no temporary file left, even on SIGTERM), and
 * streams.  The cases with another user's files need root (chown).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "utils/outfile.h"

#define OTHER_UID 65534 /* nobody */

static char dir[] = "/tmp/outfile-test-XXXXXX";
static const struct outfile_rules any = {NULL, 0};
static const struct outfile_rules no_programs = {outfile__refuse_program, 0};
static const struct outfile_rules regular_only = {NULL, 1};

static const char *at(const char *name)
{
	static char buf[4][512];
	static int n;
	char *b = buf[n++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		fchmod(fd, mode);
		close(fd);
	}
}

/* The file's content ("" when missing), into a static buffer. */
static const char *content(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	return buf;
}

/* Entries of dir whose name starts with '.' (temporaries), "." and ".." aside. */
static int hidden_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

struct text {
	const char *s;
	int fail; /* -errno to fail with after writing */
	int die;  /* signal to raise after writing */
};

static int fill_text(int fd, void *arg, char *why, size_t whylen)
{
	const struct text *t = arg;

	if (write(fd, t->s, strlen(t->s)) != (ssize_t)strlen(t->s))
		return -errno;
	if (t->die)
		raise(t->die);
	if (t->fail)
		snprintf(why, whylen, "the fill gave up");
	return t->fail;
}

static int write_text(const char *path, const struct outfile_rules *r, const char *s, char *why,
		      size_t whylen)
{
	return outfile__write(path, r, fill_text, &(struct text){s, 0, 0}, why, whylen);
}

static void test_whole_files(void)
{
	char why[512] = "";
	struct stat st, before;
	mode_t want = outfile__mode();

	CHECKF("a new file", write_text(at("new"), &any, "one", why, sizeof(why)) == 0, "%s", why);
	CHECK("its content", !strcmp(content(at("new")), "one"));
	CHECKF("its mode: 0600 for root, else 0666 & ~umask",
	       stat(at("new"), &st) == 0 && (st.st_mode & 0777) == want &&
		       (geteuid() != 0 || want == 0600),
	       "mode %o", st.st_mode & 0777);
	stat(at("new"), &before);
	CHECKF("a file of ours is replaced",
	       write_text(at("new"), &any, "two", why, sizeof(why)) == 0 &&
		       !strcmp(content(at("new")), "two"),
	       "%s", why);
	CHECK("by a rename (a new inode)", stat(at("new"), &st) == 0 && st.st_ino != before.st_ino);
	CHECK("no temporary file left", hidden_files() == 0);

	CHECKF("a failed fill leaves the old file",
	       outfile__write(at("new"), &any, fill_text, &(struct text){"three", -EIO, 0}, why,
			      sizeof(why)) == -EIO &&
		       !strcmp(content(at("new")), "two") && strstr(why, "the fill gave up") &&
		       strstr(why, at("new")),
	       "%s", why);
	CHECK("and no temporary file", hidden_files() == 0);

	CHECKF("a missing directory: one sentence",
	       write_text(at("no/such/x"), &any, "x", why, sizeof(why)) == -ENOENT &&
		       strstr(why, "No such file"),
	       "%s", why);
	CHECKF("a directory is no name", write_text(at(""), &any, "x", why, sizeof(why)) == -EISDIR,
	       "%s", why);
}

/*
 * name: path (holding text) is not replaced, refused with EPERM and a why
 * that says says; nor truncated as a stream; its content stays.
 */
static void check_eperm(const char *name, const char *path, const char *text, const char *says)
{
	char why[512] = "";

	CHECKF(name,
	       write_text(path, &any, "x", why, sizeof(why)) == -EPERM && strstr(why, says) &&
		       !strcmp(content(path), text),
	       "%s", why);
	CHECKF("nor truncated as a stream",
	       outfile__open_stream(path, &any, &(enum outfile_kind){0}, why, sizeof(why)) ==
			       -EPERM &&
		       !strcmp(content(path), text),
	       "%s", why);
}

static void test_refusals(void)
{
	char why[512] = "";

	put(at("target"), "precious", 0644);
	symlink(at("target"), at("link"));
	CHECKF("a symbolic link is refused",
	       write_text(at("link"), &any, "x", why, sizeof(why)) == -ELOOP &&
		       strstr(why, "symbolic link"),
	       "%s", why);
	CHECK("its target untouched", !strcmp(content(at("target")), "precious"));
	CHECKF("as a stream too",
	       outfile__open_stream(at("link"), &any, &(enum outfile_kind){0}, why, sizeof(why)) ==
			       -ELOOP &&
		       !strcmp(content(at("target")), "precious"),
	       "%s", why);

	put(at("prog"), "#!/bin/sh\n", 0755);
	CHECKF("a program is not replaced where the rules say so",
	       write_text(at("prog"), &no_programs, "x", why, sizeof(why)) == -EEXIST &&
		       strstr(why, "an executable file") &&
		       !strcmp(content(at("prog")), "#!/bin/sh\n"),
	       "%s", why);
	put(at("elf"), "\177ELF....", 0644);
	CHECKF("nor an ELF file",
	       write_text(at("elf"), &no_programs, "x", why, sizeof(why)) == -EEXIST &&
		       strstr(why, "an ELF file"),
	       "%s", why);

	put(at("protected"), "input", 0644);
	outfile__protect(at("protected"), "the program being recorded");
	check_eperm("a protected file is never replaced", at("protected"), "input",
		    "the program being recorded");

	CHECKF("a device where only a regular file goes",
	       outfile__check("/dev/null", &regular_only, why, sizeof(why)) == -EEXIST, "%s", why);
	CHECKF("a descriptor name is a plain name there",
	       outfile__check("-", &regular_only, why, sizeof(why)) == OUTFILE_NEW, "%s", why);
	mkdir(at("adir"), 0755);
	CHECKF("a directory is not replaced",
	       write_text(at("adir"), &any, "x", why, sizeof(why)) == -EEXIST, "%s", why);
}

static void test_other_users(void)
{
	char why[512] = "";

	if (geteuid() != 0) {
		SKIP("other users' files", "needs root (chown)");
		return;
	}
	put(at("theirs"), "theirs", 0666);
	chown(at("theirs"), OTHER_UID, OTHER_UID);
	check_eperm("another user's file is not replaced", at("theirs"), "theirs",
		    "belongs to another user");
	mkfifo(at("their_fifo"), 0666);
	chown(at("their_fifo"), OTHER_UID, OTHER_UID);
	CHECKF("nor written to when it is their FIFO",
	       outfile__check(at("their_fifo"), &any, why, sizeof(why)) == -EPERM, "%s", why);

	/* a directory of the path that is another user's symbolic link: /tmp/d -> /etc */
	mkdir(at("real"), 0755);
	symlink(at("real"), at("their_dir"));
	lchown(at("their_dir"), OTHER_UID, OTHER_UID);
	CHECKF("a directory that is another user's symbolic link is not followed",
	       write_text(at("their_dir/out"), &any, "x", why, sizeof(why)) == -ELOOP &&
		       access(at("real/out"), F_OK) < 0,
	       "%s", why);
	symlink(at("real"), at("my_dir"));
	CHECKF("ours is", write_text(at("my_dir/out"), &any, "x", why, sizeof(why)) == 0, "%s",
	       why);
}

static void test_in_place(void)
{
	char why[512] = "", buf[16] = "";
	int p[2], rfd;

	CHECKF("/dev/null is written in place",
	       outfile__check("/dev/null", &any, why, sizeof(why)) == OUTFILE_IN_PLACE &&
		       write_text("/dev/null", &any, "x", why, sizeof(why)) == 0,
	       "%s", why);
	CHECKF("/dev/full: the write error in one sentence",
	       write_text("/dev/full", &any, "x", why, sizeof(why)) == -ENOSPC &&
		       !strcmp(why, "cannot write /dev/full: No space left on device"),
	       "%s", why);
	if (pipe(p) == 0) {
		char name[64];

		snprintf(name, sizeof(name), "/dev/fd/%d", p[1]);
		CHECKF("a descriptor name writes into that descriptor",
		       write_text(name, &any, "piped", why, sizeof(why)) == 0 &&
			       read(p[0], buf, sizeof(buf) - 1) == 5 && !strcmp(buf, "piped"),
		       "%s", why);
		close(p[1]);
		snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
		CHECKF("a descriptor open for reading only is refused",
		       write_text(name, &any, "x", why, sizeof(why)) == -EBADF, "%s", why);
		close(p[0]);
	}
	mkfifo(at("fifo"), 0600);
	rfd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	memset(buf, 0, sizeof(buf));
	CHECKF("a FIFO of ours is written in place",
	       write_text(at("fifo"), &any, "fifo", why, sizeof(why)) == 0 &&
		       read(rfd, buf, sizeof(buf) - 1) == 4 && !strcmp(buf, "fifo"),
	       "%s", why);
	close(rfd);
}

static void test_streams(void)
{
	char why[512] = "";
	enum outfile_kind kind;
	struct stat st;
	int fd;

	fd = outfile__open_stream(at("stream"), &any, &kind, why, sizeof(why));
	CHECKF("a new stream", fd >= 0 && kind == OUTFILE_NEW, "%s", why);
	if (fd >= 0)
		close(fd);
	put(at("stream"), "old events", 0664);
	fd = outfile__open_stream(at("stream"), &any, &kind, why, sizeof(why));
	CHECKF("an existing file of ours is truncated in place",
	       fd >= 0 && kind == OUTFILE_REPLACE && fstat(fd, &st) == 0 && st.st_size == 0, "%s",
	       why);
	CHECKF("its mode never wider than a new file's",
	       fd >= 0 && (st.st_mode & 0777) == (0664 & outfile__mode()), "mode %o",
	       st.st_mode & 0777);
	if (fd >= 0)
		close(fd);
	put(at("linked"), "keep", 0644);
	link(at("linked"), at("linked2"));
	CHECKF("a file with other hard links is not truncated",
	       outfile__open_stream(at("linked"), &any, &kind, why, sizeof(why)) == -EMLINK &&
		       !strcmp(content(at("linked2")), "keep"),
	       "%s", why);
	fd = outfile__open_stream("-", &any, &kind, why, sizeof(why));
	CHECKF("- is stdout, in place", fd >= 0 && kind == OUTFILE_IN_PLACE, "%s", why);
	if (fd >= 0)
		close(fd);
}

static int fill_stdio(FILE *f, void *arg, char *why, size_t whylen)
{
	const struct text *t = arg;

	fputs(t->s, f);
	if (t->fail)
		snprintf(why, whylen, "the fill gave up");
	return t->fail;
}

static void test_write_stream(void)
{
	char why[512] = "";

	CHECKF("a file written through a stream",
	       outfile__write_stream(at("stdio"), &any, fill_stdio,
				     &(struct text){"via stdio", 0, 0}, why, sizeof(why)) == 0 &&
		       !strcmp(content(at("stdio")), "via stdio"),
	       "%s", why);
	CHECKF("a failed stream fill leaves the old file",
	       outfile__write_stream(at("stdio"), &any, fill_stdio, &(struct text){"lost", -EIO, 0},
				     why, sizeof(why)) == -EIO &&
		       !strcmp(content(at("stdio")), "via stdio") &&
		       strstr(why, "the fill gave up"),
	       "%s", why);
	CHECK("and no temporary file", hidden_files() == 0);
	CHECKF("a write the stream cannot flush fails: /dev/full",
	       outfile__write_stream("/dev/full", &any, fill_stdio, &(struct text){"x", 0, 0}, why,
				     sizeof(why)) == -ENOSPC,
	       "%s", why);
}

static void test_same(void)
{
	char rel[600];

	put(at("same"), "x", 0644);
	snprintf(rel, sizeof(rel), "%s/./same", dir);
	CHECK("two names of one file", outfile__same(at("same"), rel));
	snprintf(rel, sizeof(rel), "%s/./notyet", dir);
	CHECK("two names of one new file", outfile__same(at("notyet"), rel));
	CHECK("two files", !outfile__same(at("same"), at("notyet")));
}

/*
 * A signal while the temporary file is written: the process dies of it and
 * leaves nothing.  named: temporaries named from the start (no O_TMPFILE),
 * which the signal handler removes; else unnamed ones, even under SIGKILL.
 */
static void die_while_writing(int sig, int named)
{
	char name[120];
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		outfile__named_temporaries(named);
		outfile__write(at("killed"), &any, fill_text, &(struct text){"partial", 0, sig},
			       NULL, 0);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	snprintf(name, sizeof(name), "%s while writing (%s temporary): dies of it", strsignal(sig),
		 named ? "a named" : "an unnamed");
	CHECKF(name, WIFSIGNALED(status) && WTERMSIG(status) == sig, "status %#x", status);
	snprintf(name, sizeof(name), "%s while writing (%s temporary): nothing left",
		 strsignal(sig), named ? "a named" : "an unnamed");
	CHECKF(name, hidden_files() == 0 && access(at("killed"), F_OK) < 0, "%d hidden",
	       hidden_files());
}

static void test_signal_cleanup(void)
{
	char why[512] = "";

	die_while_writing(SIGTERM, 1);
	die_while_writing(SIGINT, 1);
	die_while_writing(SIGTERM, 0);
	die_while_writing(SIGKILL, 0);
	outfile__named_temporaries(1);
	CHECKF("a named temporary file is renamed into place",
	       write_text(at("named"), &any, "named", why, sizeof(why)) == 0 &&
		       !strcmp(content(at("named")), "named") && hidden_files() == 0,
	       "%s", why);
	outfile__named_temporaries(0);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_whole_files();
	test_refusals();
	test_other_users();
	test_in_place();
	test_streams();
	test_write_stream();
	test_same();
	test_signal_cleanup();
	if (!check_failures) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			perror("rm");
	}
	return CHECK_DONE();
}
