// SPDX-License-Identifier: MIT
/*
 * profil: the command.  One table of subcommands, perf-style; each lives in
 * cmds/<name>.c and defines cmd_<name>().  A subcommand whose file is not
 * part of this build is reported as such (weak symbols).  `profil help
 * COMMAND` shows the command's manual page (cmds/manpage.c), or its --help.
 */
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "utils/opts.h"

#define WEAK __attribute__((weak))
WEAK int cmd_record(int argc, char **argv);
WEAK int cmd_report(int argc, char **argv);
WEAK int cmd_export(int argc, char **argv);
WEAK int cmd_events(int argc, char **argv);
WEAK int cmd_watch(int argc, char **argv);
WEAK int cmd_diff(int argc, char **argv);
WEAK int cmd_top(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"record", cmd_record, "run a command (or attach to a process) and record a profile"},
	{"report", cmd_report, "print the flat profile of a recorded profile"},
	{"export", cmd_export, "write a recorded profile as gmon.out for gprof"},
	{"events", cmd_events, "filter and print a recorded prof/profil event stream"},
	{"watch", cmd_watch, "show profiling activity of every process on the machine (eBPF)"},
	{"diff", cmd_diff, "compare two recorded profiles per function, object and command"},
	{"top", cmd_top, "where the whole machine's CPU time goes, refreshed as it runs"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: profil COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "show a command's manual page (or its --help)");
	fprintf(out, "\n'profil help COMMAND' or 'profil COMMAND --help' describes each command;\n"
		     "'man profil' the whole tool, 'man libprofil' the library.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int not_built(const char *name)
{
	fprintf(stderr, "profil: '%s' is not part of this build\n", name);
	return 2;
}

/* COMMAND's manual page, profil-COMMAND(1), when this build's pages are there, else its --help. */
static int command_help(const struct command *c)
{
	char page[64];
	char *help_argv[] = {(char *)c->name, "--help", NULL};

	if (!c->fn)
		return not_built(c->name);
	snprintf(page, sizeof(page), "profil-%s", c->name);
	if (manpage__show(page, 1) == 0)
		return 0;
	return c->fn(2, help_argv);
}

/* profil help [COMMAND]: the top-level usage, or COMMAND's page. */
static int help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2 || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr,
			"profil help: one command at a time (usage: profil help [COMMAND])\n");
		return 2;
	}
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "profil help: unknown command '%s' (try 'profil help')\n", argv[1]);
		return 2;
	}
	return command_help(c);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const struct command *c;
	int opt;

	/* "+": the options before the command are profil's, the rest the command's */
	while ((opt = opts__next(NULL, argc, argv, "+h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("profil %s\n", PROFIL_VERSION);
			return 0;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return OPTS_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help"))
		return help(argc - optind, argv + optind);
	c = find_command(argv[optind]);
	if (!c) {
		fprintf(stderr, "profil: unknown command '%s' (try 'profil --help')\n",
			argv[optind]);
		return 2;
	}
	if (!c->fn)
		return not_built(c->name);
	return c->fn(argc - optind, argv + optind);
}
