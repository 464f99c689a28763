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
#include "utils/array.h"
#include "utils/opts.h"

#define WEAK __attribute__((weak))
WEAK int cmd_record(int argc, char **argv);
WEAK int cmd_report(int argc, char **argv);
WEAK int cmd_export(int argc, char **argv);
WEAK int cmd_events(int argc, char **argv);
WEAK int cmd_watch(int argc, char **argv);
WEAK int cmd_diff(int argc, char **argv);
WEAK int cmd_top(int argc, char **argv);
WEAK int cmd_annotate(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"record", cmd_record, "run a command (or attach to a process) and record a profile"},
	{"report", cmd_report, "print the flat profile of a recorded profile"},
	{"annotate", cmd_annotate, "a function's time down to its source lines and instructions"},
	{"export", cmd_export, "export a profile as gmon (gprof), pprof or folded (flame graphs)"},
	{"events", cmd_events, "filter and print a recorded prof/profil event stream"},
	{"watch", cmd_watch, "show profiling activity of every process on the machine (eBPF)"},
	{"diff", cmd_diff, "compare two recorded profiles per function, object and command"},
	{"top", cmd_top, "where the whole machine's CPU time goes, refreshed as it runs"},
};

#define NCOMMANDS ARRAY_SIZE(commands)

static void list_commands(FILE *out)
{
	fprintf(out, "\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "show a command's manual page (or its --help)");
	fprintf(out, "\n'profil help COMMAND' or 'profil COMMAND --help' describes each command;\n"
		     "'man profil' the whole tool, 'man libprofil' the library.\n");
}

struct profil_opts {
	int version;
};

static const struct opt options[] = {
	{"version", 0, OPT_FLAG, NULL, OPT_AT(struct profil_opts, version),
	 "print profil's version and exit", .set = 1},
	OPT_END,
};

static const struct opts_cmd profil_cmd = {
	.name = NULL,
	.usage = "profil COMMAND [OPTIONS] [ARGS]",
	.opts = options,
	.more = list_commands,
	.flags = OPTS_IN_ORDER,
};

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
static const struct opts_cmd help_cmd = {
	.name = "help",
	.usage = "profil help [COMMAND]",
	.text = "Without COMMAND, profil's usage and its commands; with one, the command's manual\n"
		"page (profil-COMMAND(1)), or its --help where the pages are not installed.\n",
};

static int help(int argc, char **argv)
{
	const struct command *c;
	int first, rc = opts__parse(&help_cmd, argc, argv, NULL, &first);

	if (rc != OPTS_GO_ON)
		return rc;
	if (argc - first < 1 || !strcmp(argv[first], "help")) {
		opts__help(&profil_cmd, stdout);
		return 0;
	}
	if (argc - first > 1)
		return opts__error("help", "one command at a time (usage: profil help [COMMAND])");
	c = find_command(argv[first]);
	if (!c)
		return opts__error("help", "unknown command '%s' (try 'profil help')", argv[first]);
	return command_help(c);
}

int main(int argc, char **argv)
{
	struct profil_opts o = {0};
	const struct command *c;
	int first, rc = opts__parse(&profil_cmd, argc, argv, &o, &first);

	/* the options before the command are profil's, the rest the command's */
	if (rc != OPTS_GO_ON)
		return rc;
	if (o.version) {
		printf("profil %s\n", PROFIL_VERSION);
		return 0;
	}
	if (first >= argc) {
		opts__help(&profil_cmd, stderr);
		return OPTS_EXIT_USAGE;
	}
	if (!strcmp(argv[first], "help"))
		return help(argc - first, argv + first);
	c = find_command(argv[first]);
	if (!c) {
		fprintf(stderr, "profil: unknown command '%s' (try 'profil --help')\n",
			argv[first]);
		return OPTS_EXIT_USAGE;
	}
	if (!c->fn)
		return not_built(c->name);
	return c->fn(argc - first, argv + first);
}
