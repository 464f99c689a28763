// SPDX-License-Identifier: MIT
/*
 * utils/opts: the one option parser.  Every kind lands in its member, lists
 * append when repeated, ids are positive, operands are reordered after the
 * options (or end them, in order), optional values, abbreviations, and each
 * usage error is exactly the one line opts.h promises (stderr captured).
 */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "utils/opts.h"

struct o {
	const char *s;
	int flag;
	long n;
	unsigned int u;
	double d;
	int choice;
	struct opt_list words, whole;
	struct opt_ids ids;
	const char *called;
	int calls;
};

static int take(void *out, const char *value, char *why, size_t len)
{
	struct o *o = out;

	if (value && !strcmp(value, "bad")) {
		snprintf(why, len, "--call cannot take '%s'", value);
		return -1;
	}
	o->called = value ? value : "(none)";
	o->calls++;
	return 0;
}

static const struct opt_choice colours[] = {{"red", 10}, {"green", 20}, {"blue", 30}, {NULL, 0}};

#define AT(m) OPT_AT(struct o, m)
static const struct opt table[] = {
	{"string", 's', OPT_STRING, "S", AT(s), "a string"},
	{"flag", 'f', OPT_FLAG, NULL, AT(flag), "a flag", .set = 7},
	{"number", 'n', OPT_INT, "N", AT(n), "a number", .what = "a number from 1 to 10", .min = 1,
	 .max = 10},
	{"unsigned", 0, OPT_INT, "U", AT(u), "an unsigned", .min = 0, .max = 4000000000.0},
	{"double", 0, OPT_DOUBLE, "D", AT(d), "a double", .min = 0, .max = 1,
	 .flags = OPT_ABOVE_MIN},
	{"colour", 'c', OPT_CHOICE, "C", AT(choice), "a colour", .what = "colour",
	 .choices = colours},
	{"word", 'w', OPT_LIST, "LIST", AT(words), "words"},
	{"whole", 0, OPT_LIST, "PATH", AT(whole), "whole words", .flags = OPT_WHOLE},
	{"id", 0, OPT_ID_LIST, "LIST", AT(ids), "ids", .what = "positive ids"},
	{"call", 0, OPT_CALL, "V", AT(called), "called", .call = take, .flags = OPT_OPTIONAL},
	{"flag-two", 0, OPT_FLAG, NULL, AT(flag), "another flag", .set = 2},
	OPT_END,
};

static const struct opts_cmd cmd = {.name = "t", .usage = "profil t [OPTIONS] ARGS", .opts = table};
static const struct opts_cmd in_order = {
	.name = "t", .usage = "profil t [OPTIONS] -- CMD", .opts = table, .flags = OPTS_IN_ORDER};
static const struct opts_cmd no_operands = {.name = "t",
					    .usage = "profil t",
					    .opts = table,
					    .flags = OPTS_NO_OPERANDS,
					    .operand_hint = "none taken"};

static char err[1024];

/* Parse the words (NULL-terminated) into *o; err holds what went to stderr. */
static int parse(const struct opts_cmd *c, struct o *o, int *first, ...)
{
	char *argv[32];
	static char *keep[32];
	int argc = 0, saved = dup(2), saved_out = dup(1), rc;
	FILE *f = tmpfile(), *null = fopen("/dev/null", "w");
	va_list ap;

	va_start(ap, first);
	argv[argc++] = "t";
	for (char *w; (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	argv[argc] = NULL;
	memcpy(keep, argv, sizeof(argv));
	memset(o, 0, sizeof(*o));
	fflush(stderr);
	fflush(stdout);
	dup2(fileno(f), 2);
	dup2(fileno(null), 1); /* --help */
	rc = opts__parse(c, argc, keep, o, first);
	fflush(stderr);
	fflush(stdout);
	dup2(saved, 2);
	dup2(saved_out, 1);
	close(saved);
	close(saved_out);
	fclose(null);
	rewind(f);
	err[fread(err, 1, sizeof(err) - 1, f)] = 0;
	fclose(f);
	return rc;
}

static void kinds(void)
{
	struct o o;
	int first, rc;

	rc = parse(&cmd, &o, &first, "-s", "x", "--flag", "--number=3", "--unsigned", "3000000000",
		   "--double", "0.5", "-cgreen", NULL);
	CHECKF("kinds_parsed", rc == OPTS_GO_ON && !err[0], "rc=%d err=%s", rc, err);
	CHECK("string", o.s && !strcmp(o.s, "x"));
	CHECK("flag_set_value", o.flag == 7);
	CHECK("int", o.n == 3);
	CHECK("int_unsigned_member", o.u == 3000000000u);
	CHECK("double", o.d == 0.5);
	CHECK("choice_value", o.choice == 20);
	rc = parse(&cmd, &o, &first, "--flag", "--flag-two", NULL);
	CHECK("last_flag_wins", rc == OPTS_GO_ON && o.flag == 2);
	rc = parse(&cmd, &o, &first, "-s", "a", "--string", "b", NULL);
	CHECK("last_value_wins", rc == OPTS_GO_ON && !strcmp(o.s, "b"));
	rc = parse(&cmd, &o, &first, "-fn5", NULL);
	CHECK("cluster_with_value", rc == OPTS_GO_ON && o.flag == 7 && o.n == 5);
}

static void lists(void)
{
	struct o o;
	int first, rc;

	rc = parse(&cmd, &o, &first, "--word", "a,b", "-w", ",c,,", "--whole", "x,y", "--whole",
		   "z", "--id", "1,2", "--id=3", NULL);
	CHECKF("lists_parsed", rc == OPTS_GO_ON, "rc=%d err=%s", rc, err);
	CHECK("list_appends", o.words.n == 3 && !strcmp(o.words.v[0], "a") &&
				      !strcmp(o.words.v[1], "b") && !strcmp(o.words.v[2], "c"));
	CHECK("whole_items", o.whole.n == 2 && !strcmp(o.whole.v[0], "x,y"));
	CHECK("ids_append", o.ids.n == 3 && o.ids.v[0] == 1 && o.ids.v[2] == 3);
	opts__free(&cmd, &o);
	CHECK("free_empties", o.words.n == 0 && !o.words.v && o.ids.n == 0 && !o.ids.v);
	rc = parse(&cmd, &o, &first, "--id", "1,0", NULL);
	CHECKF("id_zero_refused",
	       rc == 2 && !strcmp(err, "profil t: --id needs positive ids, not '1,0'\n"),
	       "rc=%d err=%s", rc, err);
	opts__free(&cmd, &o);
	rc = parse(&cmd, &o, &first, "--id", "-3", NULL);
	CHECK("id_negative_refused", rc == 2);
	opts__free(&cmd, &o);
	rc = parse(&cmd, &o, &first, "--word", ",", NULL);
	CHECKF("empty_list",
	       rc == 2 && !strcmp(err, "profil t: --word needs a comma-separated list, not ','\n"),
	       "rc=%d err=%s", rc, err);
	opts__free(&cmd, &o);
}

static void operands(void)
{
	struct o o;
	int first, rc;

	rc = parse(&cmd, &o, &first, "a", "-f", "b", "--", "-s", NULL);
	CHECKF("operands_after_options", rc == OPTS_GO_ON && first == 3 && o.flag == 7 && !o.s,
	       "rc=%d first=%d", rc, first);
	rc = parse(&in_order, &o, &first, "-f", "cmd", "-s", "x", NULL);
	CHECK("in_order_stops", rc == OPTS_GO_ON && first == 2 && !o.s);
	rc = parse(&in_order, &o, &first, "-f", "--", "-s", NULL);
	CHECK("in_order_dashdash", rc == OPTS_GO_ON && first == 3);
	rc = parse(&no_operands, &o, &first, "-f", "extra", NULL);
	CHECKF("no_operands",
	       rc == 2 && !strcmp(err, "profil t: unexpected argument 'extra' (none taken)\n"),
	       "rc=%d err=%s", rc, err);
}

static void optional(void)
{
	struct o o;
	int first, rc;

	rc = parse(&in_order, &o, &first, "--call", "-f", "--", "cmd", NULL);
	CHECK("optional_left_out", rc == OPTS_GO_ON && !strcmp(o.called, "(none)") && o.flag == 7);
	rc = parse(&in_order, &o, &first, "--call", "file", "--", "cmd", NULL);
	CHECK("optional_next_word", rc == OPTS_GO_ON && !strcmp(o.called, "file") && first == 4);
	rc = parse(&in_order, &o, &first, "--call", "cmd", NULL);
	CHECK("optional_not_the_command",
	      rc == OPTS_GO_ON && !strcmp(o.called, "(none)") && first == 2);
	rc = parse(&in_order, &o, &first, "--call=v", "cmd", NULL);
	CHECK("optional_equals", rc == OPTS_GO_ON && !strcmp(o.called, "v"));
	rc = parse(&in_order, &o, &first, "--call=bad", NULL);
	CHECKF("call_sentence", rc == 2 && !strcmp(err, "profil t: --call cannot take 'bad'\n"),
	       "rc=%d err=%s", rc, err);
}

/* One usage error: rc 2 and exactly the line. */
static void one_line(const char *name, const char *want, int rc)
{
	CHECKF(name, rc == 2 && !strcmp(err, want), "rc=%d err=%s want=%s", rc, err, want);
}

static void errors(void)
{
	struct o o;
	int first;

	one_line("unknown_long", "profil t: unknown option '--bogus' (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "--bogus=1", NULL));
	one_line("unknown_short", "profil t: unknown option '-Z' (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "-fZ", NULL));
	one_line("missing_long",
		 "profil t: option '--number' needs a value (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "--number", NULL));
	one_line("missing_short", "profil t: option '-s' needs a value (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "-s", NULL));
	one_line("takes_no_value",
		 "profil t: option '--flag' takes no value (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "--flag=1", NULL));
	one_line("ambiguous", "profil t: option '--fl' is ambiguous (try 'profil t --help')\n",
		 parse(&cmd, &o, &first, "--fl", NULL));
	one_line("bad_int", "profil t: --number needs a number from 1 to 10, not '11'\n",
		 parse(&cmd, &o, &first, "--number", "11", NULL));
	one_line("bad_int_junk", "profil t: --number needs a number from 1 to 10, not '2x'\n",
		 parse(&cmd, &o, &first, "-n2x", NULL));
	one_line("double_above_min", "profil t: --double needs a number, not '0'\n",
		 parse(&cmd, &o, &first, "--double", "0", NULL));
	one_line("double_not_finite", "profil t: --double needs a number, not 'nan'\n",
		 parse(&cmd, &o, &first, "--double", "nan", NULL));
	one_line("bad_choice", "profil t: unknown colour 'pink' (red, green or blue)\n",
		 parse(&cmd, &o, &first, "--colour", "pink", NULL));
	CHECK("abbreviation",
	      parse(&cmd, &o, &first, "--num", "4", NULL) == OPTS_GO_ON && o.n == 4);
	CHECK("exact_beats_prefix",
	      parse(&cmd, &o, &first, "--flag", NULL) == OPTS_GO_ON && o.flag == 7);
}

static void help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct o o;
	int first;

	opts__help(&cmd, f);
	fclose(f);
	CHECK("help_usage", !strncmp(buf, "usage: profil t [OPTIONS] ARGS\n", 31));
	CHECK("help_short_and_long", strstr(buf, "\n  -s, --string S      a string\n") != NULL);
	CHECK("help_long_only", strstr(buf, "\n      --unsigned U    an unsigned\n") != NULL);
	CHECK("help_optional", strstr(buf, "\n      --call [V]      called\n") != NULL);
	CHECK("help_flag", strstr(buf, "\n  -f, --flag          a flag\n") != NULL);
	free(buf);
	CHECK("help_option_exits_0", parse(&cmd, &o, &first, "-f", "--help", "--bogus", NULL) == 0);
	CHECK("help_short", parse(&cmd, &o, &first, "-h", NULL) == 0 && !err[0]);
}

int main(void)
{
	kinds();
	lists();
	operands();
	optional();
	errors();
	help();
	return CHECK_DONE();
}
