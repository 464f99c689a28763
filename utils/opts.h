/* SPDX-License-Identifier: MIT */
/*
 * The option convention of the profil command and every subcommand: options
 * are parsed with getopt_long, and a bad option gets exactly one line on
 * stderr and exit status 2:
 *
 *   profil report: unknown option '--bogus' (try 'profil report --help')
 *   profil report: option '--top' needs a value (try 'profil report --help')
 *   profil report: option '--threads' takes no value (try 'profil report --help')
 *   profil report: option '--t' is ambiguous (try 'profil report --help')
 *
 * (for the profil command itself: "profil: ... (try 'profil --help')").
 */
#ifndef PROFIL_UTILS_OPTS_H
#define PROFIL_UTILS_OPTS_H

#include <getopt.h>

#define OPTS_BAD '?'	  /* opts__next: a bad option, its line is printed */
#define OPTS_EXIT_USAGE 2 /* the exit status of a usage error */

/*
 * getopt_long(argc, argv, shortopts, longopts) for command cmd ("report";
 * NULL: the profil command itself), with opterr = 0 and the errors above:
 * returns what getopt_long returns, or OPTS_BAD after printing the line.
 * shortopts as for getopt_long ("+" first: stop at the first non-option).
 * A new argv starts a fresh parse (getopt's state is reset); optind then
 * says where the operands start.
 */
int opts__next(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

#endif /* PROFIL_UTILS_OPTS_H */
