// SPDX-License-Identifier: MIT
/* One-line option errors for every subcommand.  See opts.h. */
#include <stdio.h>
#include <string.h>

#include "utils/opts.h"

/* The option as typed, without a "=value". */
static void typed(const char *arg, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
}

/*
 * The long option that name (without "--") designates, as getopt_long sees
 * it: the exact name, else the only one it abbreviates; NULL otherwise.
 * *count: how many names start with it.
 */
static const struct option *designated(const struct option *longopts, const char *name, int *count)
{
	const struct option *found = NULL;
	size_t n = strlen(name);

	*count = 0;
	for (const struct option *o = longopts; o && o->name; o++) {
		if (strncmp(o->name, name, n))
			continue;
		if (!o->name[n]) {
			*count = 1;
			return o;
		}
		found = o;
		(*count)++;
	}
	return *count == 1 ? found : NULL;
}

/*
 * Was the bad option a long one?  getopt has just finished with it, so it is
 * argv[optind - 1] -- unless a short option in the middle of a cluster was
 * bad ("-zq"): optind then still points at the cluster and argv[optind - 1]
 * is whatever came before it.  A long option fails unknown or ambiguous
 * (optopt 0), with a missing value (':'), or with a value it does not take
 * ("--threads=1": optopt is its val).
 */
static int bad_long(int c, int argc, char **argv, const struct option *longopts, const char **arg)
{
	const struct option *o;
	char name[128];
	int count;

	*arg = optind >= 1 && optind <= argc ? argv[optind - 1] : "";
	if (strncmp(*arg, "--", 2) || !(*arg)[2])
		return 0;
	if (!optopt || c == ':')
		return 1;
	if (!strchr(*arg, '='))
		return 0;
	typed(*arg + 2, name, sizeof(name));
	o = designated(longopts, name, &count);
	return o && o->has_arg == no_argument && !o->flag && o->val == optopt;
}

static void print_bad(const char *cmd, int c, int argc, char **argv, const struct option *longopts)
{
	const char *arg, *problem = NULL; /* NULL: unknown */
	const char *sp = cmd ? " " : "", *name = cmd ? cmd : "";
	char shown[128];
	int count;

	if (bad_long(c, argc, argv, longopts, &arg)) {
		typed(arg, shown, sizeof(shown));
		if (c == ':')
			problem = "needs a value";
		else if (optopt)
			problem = "takes no value";
		else if (!designated(longopts, shown + 2, &count) && count > 1)
			problem = "is ambiguous";
	} else {
		snprintf(shown, sizeof(shown), "-%c", optopt);
		if (c == ':')
			problem = "needs a value";
	}
	if (problem)
		fprintf(stderr, "profil%s%s: option '%s' %s (try 'profil%s%s --help')\n", sp, name,
			shown, problem, sp, name);
	else
		fprintf(stderr, "profil%s%s: unknown option '%s' (try 'profil%s%s --help')\n", sp,
			name, shown, sp, name);
}

int opts__next(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	static char **parsing; /* the argv being parsed */
	char optstring[128];
	int c, order = shortopts[0] == '+' || shortopts[0] == '-';

	if (argv != parsing) {
		parsing = argv;
		optind = 0; /* glibc starts afresh; optind = 1 would keep the last scan's state */
	}
	/* ':' right after the ordering flag: a missing value comes back as ':' */
	snprintf(optstring, sizeof(optstring), "%.*s:%s", order, shortopts,
		 shortopts + order + (shortopts[order] == ':'));
	opterr = 0;
	c = getopt_long(argc, argv, optstring, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	print_bad(cmd, c, argc, argv, longopts);
	return OPTS_BAD;
}
