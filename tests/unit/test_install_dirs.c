// SPDX-License-Identifier: MIT
/*
 * utils/install_dirs: the relative path from BINDIR to an install directory
 * (pure), and the look-up of this build's files beside the test binary.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "utils/install_dirs.h"

static void rel(const char *name, const char *from, const char *to, int want_rc, const char *want)
{
	char out[256] = "unset";
	int rc = install_dirs__relative(from, to, out, sizeof(out));

	CHECKF(name, rc == want_rc && (want_rc || !strcmp(out, want)),
	       "%s -> %s: rc %d '%s', want %d '%s'", from, to, rc, out, want_rc, want ? want : "");
}

int main(void)
{
	char small[8], path[4096];

	rel("multiarch", "/usr/bin", "/usr/lib/x86_64-linux-gnu/profil", 0,
	    "../lib/x86_64-linux-gnu/profil");
	rel("plain_prefix", "/usr/local/bin", "/usr/local/lib/profil", 0, "../lib/profil");
	rel("man", "/usr/bin", "/usr/share/man", 0, "../share/man");
	rel("same_dir", "/opt/p/bin", "/opt/p/bin", 0, ".");
	rel("below", "/opt/p", "/opt/p/lib/profil", 0, "lib/profil");
	rel("above", "/opt/p/bin/x", "/opt/p", 0, "../..");
	rel("disjoint", "/opt/a/bin", "/srv/b/lib", 0, "../../../srv/b/lib");
	rel("root", "/", "/usr/lib", 0, "usr/lib");
	rel("slashes_and_dots", "//usr/./bin/", "/usr//lib/./profil/", 0, "../lib/profil");
	rel("common_prefix_not_component", "/usr/lib64/bin", "/usr/lib/profil", 0,
	    "../../lib/profil");
	rel("relative_from", "usr/bin", "/usr/lib", -EINVAL, NULL);
	rel("relative_to", "/usr/bin", "lib", -EINVAL, NULL);
	rel("dotdot", "/usr/bin", "/usr/lib/../lib64", -EINVAL, NULL);
	CHECK("too_long",
	      install_dirs__relative("/a/b/c", "/x/y/z", small, sizeof(small)) == -ENAMETOOLONG);

	/* the test binary is in $B/tests/unit/: no agent beside it nor installed there */
	CHECK("configured_agent_dir", install_dirs__configured(INSTALL_DIR_AGENT)[0] == '/');
	CHECK("configured_man_dir", install_dirs__configured(INSTALL_DIR_MAN)[0] == '/');
	CHECK("missing_file",
	      install_dirs__find(INSTALL_DIR_AGENT, "no-such-file.so", path, sizeof(path)) ==
			      -ENOENT &&
		      strstr(path, install_dirs__configured(INSTALL_DIR_AGENT)) == path);
	CHECK("bad_kind",
	      install_dirs__find((enum install_dir)99, "x", path, sizeof(path)) == -EINVAL);
	return CHECK_DONE();
}
