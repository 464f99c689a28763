// SPDX-License-Identifier: MIT
/*
 * Where profil's run-time files are (see install_dirs.h).  The directories
 * come from the Makefile (-D, mk/install.mk); the defaults below are
 * `make install`'s own defaults, for a compiler run by hand.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "utils/install_dirs.h"

#ifndef PROFIL_BINDIR
#define PROFIL_BINDIR "/usr/local/bin"
#endif
#ifndef PROFIL_AGENTDIR
#define PROFIL_AGENTDIR "/usr/local/lib/profil"
#endif
#ifndef PROFIL_MANDIR
#define PROFIL_MANDIR "/usr/local/share/man"
#endif

static const struct {
	const char *installed; /* absolute, from the Makefile */
	const char *in_build;  /* beside the binary in the build tree */
} dirs[] = {
	[INSTALL_DIR_AGENT] = {PROFIL_AGENTDIR, ""},
	[INSTALL_DIR_MAN] = {PROFIL_MANDIR, "man"},
};

/* ---- pure: the relative path between two absolute directories -------------- */

/* The next component of *p that is not "." (in *s, *n); 0 at the end. */
static int next_component(const char **p, const char **s, size_t *n)
{
	for (;;) {
		while (**p == '/')
			(*p)++;
		if (!**p)
			return 0;
		*s = *p;
		while (**p && **p != '/')
			(*p)++;
		*n = (size_t)(*p - *s);
		if (*n != 1 || **s != '.')
			return 1;
	}
}

static int has_dotdot(const char *path)
{
	const char *s;
	size_t n;

	while (next_component(&path, &s, &n))
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return 1;
	return 0;
}

static int append(char *out, size_t len, size_t *used, const char *s, size_t n)
{
	if (*used + n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = 0;
	return 0;
}

int install_dirs__relative(const char *from, const char *to, char *out, size_t len)
{
	const char *fs, *ts;
	size_t fn, tn, used = 0;
	int rc = 0;

	if (!len)
		return -ENAMETOOLONG;
	out[0] = 0;
	if (from[0] != '/' || to[0] != '/' || has_dotdot(from) || has_dotdot(to))
		return -EINVAL;
	/* skip the common leading components */
	for (;;) {
		const char *f0 = from, *t0 = to;
		int hf = next_component(&from, &fs, &fn), ht = next_component(&to, &ts, &tn);

		if (!hf || !ht || fn != tn || memcmp(fs, ts, fn)) {
			from = f0;
			to = t0;
			break;
		}
	}
	while (!rc && next_component(&from, &fs, &fn))
		rc = append(out, len, &used, "../", 3);
	while (!rc && next_component(&to, &ts, &tn)) {
		rc = append(out, len, &used, ts, tn);
		if (!rc)
			rc = append(out, len, &used, "/", 1);
	}
	if (rc)
		return rc;
	if (used)
		out[used - 1] = 0; /* the trailing slash */
	else
		rc = append(out, len, &used, ".", 1);
	return rc;
}

/* ---- the look-up ----------------------------------------------------------- */

/* The directory of the running binary. */
static int self_dir(char *out, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= len - 1)
		return -ENOENT;
	out[n] = 0;
	slash = strrchr(out, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	return 0;
}

/* out = a/b/c (b may be ""); 0 when that file is readable. */
static int try_path(char *out, size_t len, const char *a, const char *b, const char *c)
{
	int n = snprintf(out, len, "%s/%s%s%s", a, b, *b ? "/" : "", c);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return access(out, R_OK) == 0 ? 0 : -ENOENT;
}

int install_dirs__find(enum install_dir d, const char *name, char *out, size_t len)
{
	char self[PATH_MAX], rel[PATH_MAX];

	if ((unsigned)d >= sizeof(dirs) / sizeof(dirs[0]) || !len)
		return -EINVAL;
	if (self_dir(self, sizeof(self)) == 0) {
		if (try_path(out, len, self, dirs[d].in_build, name) == 0)
			return 0;
		if (install_dirs__relative(PROFIL_BINDIR, dirs[d].installed, rel, sizeof(rel)) ==
			    0 &&
		    try_path(out, len, self, rel, name) == 0)
			return 0;
	}
	return try_path(out, len, dirs[d].installed, "", name);
}

const char *install_dirs__configured(enum install_dir d)
{
	return (unsigned)d < sizeof(dirs) / sizeof(dirs[0]) ? dirs[d].installed : "";
}
