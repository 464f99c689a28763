/* SPDX-License-Identifier: MIT */
/*
 * The options of the profil command and of every subcommand: ONE static
 * table per command (as perf's parse-options and bcc's argp tables), one
 * parser, and --help generated from the same table, so that what --help
 * (and the manual page, checked against it by tests/e2e/man.sh) says is what
 * is parsed.
 *
 * A command describes itself with a struct opts_cmd (its name, usage lines,
 * table, the text after the options) and calls
 *
 *	int rc = opts__parse(&record_cmd, argc, argv, &co, &first);
 *	if (rc != OPTS_GO_ON)
 *		return rc;             // 0 after --help, 2 after a usage error
 *	... argv[first .. argc-1] are the operands ...
 *	opts__free(&record_cmd, &co);   // the lists' memory
 *
 * Each entry of the table says where its value goes: a member of the
 * command's options struct (OPT_AT(struct, member) gives its offset and
 * size), parsed by kind:
 *
 *   OPT_FLAG     no value: the member (an integer) is set to .set (1)
 *   OPT_INT      a whole number from .min to .max, into an integer member
 *                (int, long, unsigned, pid_t, an enum: any size)
 *   OPT_DOUBLE   a finite number from .min to .max (above .min with
 *                OPT_ABOVE_MIN), into a double
 *   OPT_STRING   the value as typed, into a const char * (the last one wins)
 *   OPT_CHOICE   one of the names of .choices: its value into an integer
 *                member; an unknown name is "unknown WHAT 'x' (a, b or c)"
 *   OPT_LIST     words separated by commas (OPT_WHOLE: one word per use, a
 *                path may hold a comma), into a struct opt_list
 *   OPT_ID_LIST  positive ids separated by commas (process, thread ids),
 *                into a struct opt_ids
 *   OPT_CALL     .call(out, value, why, len) takes the value (NULL when an
 *                OPT_OPTIONAL value was not given) and returns 0, or -1 with
 *                one sentence in why (said as "profil CMD: why")
 *
 * Repeated options: a list option appends (--pid 1,2 --pid 3 is 1, 2 and 3,
 * in every command); any other takes the last value given.  An id of a list
 * is a positive number in every command: 0 is refused ("--pid needs process
 * ids separated by commas, not '0'"), as no process, thread or event of a
 * profile has id 0 (an event without a hostProcessId reads as 0).
 *
 * A value is given as "--name VALUE", "--name=VALUE", "-x VALUE" or
 * "-xVALUE"; flags cluster ("-qg"); a long name may be abbreviated to any
 * unambiguous prefix.  An OPT_OPTIONAL value is "--name=VALUE", or the next
 * word when it is no option and a "--" after it starts the operands
 * ("--gmon out.gmon -- COMMAND").  "--" ends the options.  Operands may stand
 * among the options, unless the command has OPTS_IN_ORDER (its options end
 * at its first operand: "profil record -q -- ls -l").  -h and --help print
 * the help on stdout; every command has them without a table entry, and
 * its --help lists them last.
 *
 * --help is "usage: " + the usage lines, the table's options (letter, long
 * name, value name, help text wrapped at 80 columns; OPT_GROUP lines as
 * headings), -h/--help, then text and more().  Commands print no usage of
 * their own: what --help says is what the table parses.
 *
 * A usage error is exactly one line on stderr, and exit status 2:
 *
 *   profil report: unknown option '--bogus' (try 'profil report --help')
 *   profil report: option '--top' needs a value (try 'profil report --help')
 *   profil report: option '--threads' takes no value (try 'profil report --help')
 *   profil report: option '--t' is ambiguous (try 'profil report --help')
 *   profil report: --top needs a whole number, 0 (all) or more, not 'x'
 *   profil report: unknown format 'x' (text, json, csv or html)
 *   profil report: unexpected argument 'x' (the profile is given with -i)
 *
 * (for the profil command itself: "profil: ... (try 'profil --help')").
 *
 * Adding an option (say record's --off-cpu):
 *  1. a member for its value in the command's options struct (struct
 *     cmd_record_opts in cmds/record.c), its default set before opts__parse;
 *  2. one entry in the command's table (options[] in cmds/record.c), e.g.
 *
 *	{"off-cpu", 0, OPT_FLAG, NULL, AT(off_cpu),
 *	 "also record the time threads spend blocked", .set = 1},
 *	{"rotate", 0, OPT_INT, "SEC", AT(rotate_s), "start a new profile every SEC seconds",
 *	 .what = "a number of seconds from 1 to 86400", .min = 1, .max = 86400},
 *	{"cgroup", 'G', OPT_LIST, "LIST", AT(cgroups), "only these cgroups"},
 *
 *     (OPT_CALL with .call for a value no kind parses: a mode with a size,
 *     a word that sets several members; checks between options go after
 *     opts__parse, said with opts__error);
 *  3. its .TP in the command's manual page (doc/man/profil-CMD.1), with the
 *     same spellings and value name: tests/e2e/man.sh fails on an option of
 *     the table that the page lacks and on one of the page the table lacks;
 *  4. a value it accepts in sample() of tests/e2e/cli_options.sh when "x"
 *     is not one: that test tries every option of every --help.
 */
#ifndef PROFIL_UTILS_OPTS_H
#define PROFIL_UTILS_OPTS_H

#include <stddef.h>
#include <stdio.h>

#define OPTS_GO_ON -1	  /* opts__parse: parsed; go on with the operands */
#define OPTS_EXIT_USAGE 2 /* the exit status of a usage error */

enum opt_kind {
	OPT_FLAG,
	OPT_INT,
	OPT_DOUBLE,
	OPT_STRING,
	OPT_CHOICE,
	OPT_LIST,
	OPT_ID_LIST,
	OPT_CALL,
};

/* struct opt.flags */
#define OPT_OPTIONAL 0x1  /* OPT_CALL: the value may be left out */
#define OPT_ABOVE_MIN 0x2 /* OPT_INT, OPT_DOUBLE: greater than .min, not equal */
#define OPT_WHOLE 0x4	  /* OPT_LIST: each value is one item, commas and all */

/* OPT_CHOICE: a name and the value it stores; the array ends with a NULL name. */
struct opt_choice {
	const char *name;
	long value;
};

/* OPT_LIST's member: the words, in the order given (each allocated). */
struct opt_list {
	const char **v;
	size_t n, cap;
};

/* OPT_ID_LIST's member: the ids, in the order given. */
struct opt_ids {
	int *v;
	size_t n, cap;
};

struct opt {
	const char *name; /* the long name, without "--"; NULL: the letter only */
	int letter;	  /* the short letter, 0: none */
	enum opt_kind kind;
	const char *arg;  /* the value's name in --help ("FILE"); NULL for a flag */
	size_t at, size;  /* where the value goes: OPT_AT(struct, member) */
	const char *help; /* --help's text, wrapped to fit; "\n" starts a new line */
	/*
	 * Errors: what the value must be ("a rate from 1 to 1000000 Hz": "--freq
	 * needs a rate from 1 to 1000000 Hz, not 'x'"); OPT_CHOICE: the noun
	 * ("format": "unknown format 'x' (...)").  NULL: said from the kind.
	 */
	const char *what;
	double min, max;		  /* OPT_INT, OPT_DOUBLE */
	long set;			  /* OPT_FLAG: the value stored */
	const struct opt_choice *choices; /* OPT_CHOICE */
	int (*call)(void *out, const char *value, char *why, size_t whylen); /* OPT_CALL */
	unsigned int flags;
};

/* The offset and size of member m of struct type T (m may be "a.b"). */
#define OPT_AT(T, m) offsetof(T, m), sizeof(((T *)0)->m)
/* A heading in --help between the options: its line as it is printed. */
#define OPT_GROUP(line)                                                                            \
	{                                                                                          \
		NULL, 0, OPT_FLAG, NULL, 0, 0, line                                                \
	}
/* The end of a table. */
#define OPT_END                                                                                    \
	{                                                                                          \
		NULL                                                                               \
	}

/* struct opts_cmd.flags */
#define OPTS_IN_ORDER 0x1    /* the options end at the first operand */
#define OPTS_NO_OPERANDS 0x2 /* an operand is "unexpected argument 'x'" */

struct opts_cmd {
	const char *name;  /* "report"; NULL: the profil command itself */
	const char *usage; /* the synopsis, one usage per line ("profil report [OPTIONS]") */
	const struct opt *opts;
	const char *text; /* --help after the options: what the table cannot say; NULL: none */
	void (*more)(FILE *out); /* --help: prints what follows text (profil's commands); NULL */
	unsigned int flags;
	const char
		*operand_hint; /* OPTS_NO_OPERANDS: said after the error ("the profile is ...") */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command's name) by cmd's table into
 * out, the command's options struct (members not named keep their values:
 * set the defaults before).  Returns OPTS_GO_ON with *first the index of the
 * first operand (argv is reordered as getopt does: options first, operands
 * after them, in their order); else the status the command exits with at
 * once: 0 after --help (printed on stdout), OPTS_EXIT_USAGE after the one
 * line of a usage error.  Frees nothing: opts__free(cmd, out) when done,
 * whatever it returned.
 */
int opts__parse(const struct opts_cmd *cmd, int argc, char **argv, void *out, int *first);

/* Free what opts__parse allocated into out (the lists); they are left empty. */
void opts__free(const struct opts_cmd *cmd, void *out);

/* cmd's --help: the usage lines, the options from the table, text, more(). */
void opts__help(const struct opts_cmd *cmd, FILE *out);

/*
 * One usage error of command cmd (NULL: profil itself) as the parser says
 * it, for the checks a command makes after parsing: "profil CMD: " + the
 * formatted sentence + newline on stderr.  Returns OPTS_EXIT_USAGE.
 */
int opts__error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* PROFIL_UTILS_OPTS_H */
