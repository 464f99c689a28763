// SPDX-License-Identifier: MIT
/* Source files for annotate: see source.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate/source.h"
#include "symbols/symfile.h"

#define MAX_FILES 4096

struct srcfile {
	char *path; /* as DWARF names it */
	char *text;
	char **lines; /* lines[i]: line i + 1 */
	size_t nlines;
	char why[PATH_MAX + 160];
	int told;
};

struct sources {
	struct symbols *syms;
	struct srcfile *files;
	size_t nfiles;
};

struct sources *sources__new(struct symbols *syms)
{
	struct sources *s = calloc(1, sizeof(*s));

	if (s)
		s->syms = syms;
	return s;
}

void sources__free(struct sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].text);
		free(s->files[i].lines);
	}
	free(s->files);
	free(s);
}

/* The whole file behind fd (at most SOURCE_MAX_BYTES), NUL-terminated. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		ssize_t got;

		if (n == cap) {
			char *nb = cap < SOURCE_MAX_BYTES ? realloc(buf, cap * 2 + 1) : NULL;

			if (!nb)
				break; /* as much as a source may be */
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

static int split_lines(struct srcfile *f, size_t len)
{
	char *p = f->text, *end = f->text + len;
	size_t cap = 0;

	for (;;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (f->nlines == cap) {
			char **n = realloc(f->lines, (cap = cap ? cap * 2 : 256) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			f->lines = n;
		}
		f->lines[f->nlines++] = p;
		if (!nl)
			return 0;
		*nl = 0;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = 0;
		p = nl + 1;
		if (p >= end)
			return 0;
	}
}

/* Open the source: on disk, else from debuginfod.  A descriptor, or -ENOENT; *st filled. */
static int open_source(struct sources *s, const struct sym_object *o, const char *path,
		       struct stat *st, int *from_server)
{
	char *local = NULL;
	int fd = path[0] == '/' ? symfile__open_regular(path, st) : -ENOENT;

	*from_server = 0;
	if (fd >= 0)
		return fd;
	fd = symbols__find_source(s->syms, o, path, &local);
	free(local);
	if (fd < 0 || fstat(fd, st) < 0) {
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	*from_server = 1;
	return fd;
}

static void load(struct sources *s, const struct sym_object *o, struct srcfile *f)
{
	struct stat st;
	int server, fd = open_source(s, o, f->path, &st, &server);
	time_t built = symobj__mtime(o);
	size_t len = 0;

	if (fd < 0) {
		snprintf(f->why, sizeof(f->why), "source %s not found%s: instructions only",
			 f->path,
			 getenv("DEBUGINFOD_URLS") ?
				 " (on disk or through debuginfod)" :
				 " (DEBUGINFOD_URLS may name a server that has it)");
		return;
	}
	if (!server && built && st.st_mtime > built) {
		snprintf(f->why, sizeof(f->why),
			 "source %s is newer than %s (edited since the build): instructions only",
			 f->path, symobj__file(o));
		close(fd);
		return;
	}
	f->text = read_all(fd, &len);
	close(fd);
	if (!f->text || split_lines(f, len) < 0) {
		free(f->text);
		f->text = NULL;
		snprintf(f->why, sizeof(f->why), "source %s: out of memory", f->path);
	}
}

static struct srcfile *file_of(struct sources *s, const struct sym_object *o, const char *path)
{
	struct srcfile *f;

	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	if (s->nfiles >= MAX_FILES)
		return NULL;
	f = realloc(s->files, (s->nfiles + 1) * sizeof(*f));
	if (!f)
		return NULL;
	s->files = f;
	f = &s->files[s->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	s->nfiles++;
	load(s, o, f);
	return f;
}

const char *sources__line(struct sources *s, const struct sym_object *o, const char *file, int line,
			  const char **why)
{
	struct srcfile *f = file ? file_of(s, o, file) : NULL;

	*why = NULL;
	if (!f)
		return NULL;
	if (!f->text) {
		if (!f->told) {
			f->told = 1;
			*why = f->why;
		}
		return NULL;
	}
	return line > 0 && (size_t)line <= f->nlines ? f->lines[line - 1] : NULL;
}
