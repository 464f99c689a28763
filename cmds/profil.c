// SPDX-License-Identifier: MIT
/*
 * profil: the command.  One table of subcommands, perf-style; each lives in
 * cmds/<name>.c and defines cmd_<name>().  A subcommand whose file is not
 * part of this build is reported as such (weak symbols).
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
};

static void usage(FILE *out)
{
	fprintf(out, "usage: profil COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'profil COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	/* "+": the options before the command are profil's, the rest the command's */
	while ((c = opts__next(NULL, argc, argv, "+h", longopts)) != -1) {
		switch (c) {
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
	if (!strcmp(argv[optind], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		if (!commands[i].fn) {
			fprintf(stderr, "profil: '%s' is not part of this build\n", argv[optind]);
			return 2;
		}
		return commands[i].fn(argc - optind, argv + optind);
	}
	fprintf(stderr, "profil: unknown command '%s' (try 'profil --help')\n", argv[optind]);
	return 2;
}
