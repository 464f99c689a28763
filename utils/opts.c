// SPDX-License-Identifier: MIT
/* The option tables' parser and --help.  See opts.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utils/array.h"
#include "utils/opts.h"

#define HELP_WIDTH 80  /* --help's lines fit in 80 columns */
#define HELP_COLUMN 22 /* where an option's text starts, unless the option is longer */
#define NAME_SHOWN 64  /* an unknown option is quoted up to this many bytes */

/* Every command's -h, --help (a table may not use either). */
static const struct opt help_opt = {"help", 'h', OPT_FLAG, NULL, 0, 0, "print this help and exit"};

/* The parse of one argv: what the sentences need. */
struct parse {
	const struct opts_cmd *cmd;
	void *out;
	int argc;
	char **argv;
	int i; /* the word being parsed */
	int help;
};

/* ---- sentences --------------------------------------------------------------------- */

static void say_prefix(const char *cmd)
{
	fprintf(stderr, "profil%s%s: ", cmd ? " " : "", cmd ? cmd : "");
}

int opts__error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	say_prefix(cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return OPTS_EXIT_USAGE;
}

/* "option '--top' needs a value (try 'profil report --help')" and the others like it. */
static int bad_option(const struct parse *p, const char *shown, int len, const char *problem)
{
	const char *c = p->cmd->name;

	if (len > NAME_SHOWN)
		len = NAME_SHOWN;
	say_prefix(c);
	if (problem)
		fprintf(stderr, "option '%.*s' %s", len, shown, problem);
	else
		fprintf(stderr, "unknown option '%.*s'", len, shown);
	fprintf(stderr, " (try 'profil%s%s --help')\n", c ? " " : "", c ? c : "");
	return OPTS_EXIT_USAGE;
}

/* How an option is named in a sentence: its long name, else its letter. */
static const char *named(const struct opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->letter);
	return buf;
}

/* "--top needs a whole number, 0 (all) or more, not 'x'" */
static int bad_value(const struct parse *p, const struct opt *o, const char *value,
		     const char *what)
{
	char n[80];

	return opts__error(p->cmd->name, "%s needs %s, not '%s'", named(o, n, sizeof(n)),
			   o->what ? o->what : what, value);
}

/* "unknown format 'x' (text, json, csv or html)" */
static int bad_choice(const struct parse *p, const struct opt *o, const char *value)
{
	char n[80];
	size_t count = 0;

	while (o->choices[count].name)
		count++;
	say_prefix(p->cmd->name);
	fprintf(stderr, "unknown %s '%s' (", o->what ? o->what : named(o, n, sizeof(n)), value);
	for (size_t i = 0; i < count; i++)
		fprintf(stderr, "%s%s",
			i == 0	      ? "" :
			i + 1 < count ? ", " :
					" or ",
			o->choices[i].name);
	fprintf(stderr, ")\n");
	return OPTS_EXIT_USAGE;
}

/* ---- the table ----------------------------------------------------------------------- */

static int is_end(const struct opt *o)
{
	return !o->name && !o->letter && !o->help;
}

static int is_group(const struct opt *o)
{
	return !o->name && !o->letter && o->help;
}

static int takes_value(const struct opt *o)
{
	return o->kind != OPT_FLAG;
}

static const struct opt *by_letter(const struct opts_cmd *cmd, int c)
{
	for (const struct opt *o = cmd->opts; o && !is_end(o); o++)
		if (o->letter == c)
			return o;
	return c == help_opt.letter ? &help_opt : NULL;
}

/* One candidate of a long name typed as name[0..len): exact (2) or a prefix (1). */
static int long_match(const struct opt *o, const char *name, size_t len)
{
	if (!o->name || strncmp(o->name, name, len))
		return 0;
	return o->name[len] ? 1 : 2;
}

/*
 * The option a long name (without "--", len bytes) designates: the exact
 * name, else the only one it is a prefix of.  NULL: *count names start
 * with it (0: unknown, more: ambiguous).
 */
static const struct opt *by_name(const struct opts_cmd *cmd, const char *name, size_t len,
				 int *count)
{
	const struct opt *found = NULL, *o;
	int help_taken = 0, m;

	*count = 0;
	for (o = cmd->opts; o && !is_end(o); o++) {
		help_taken |= o->name && !strcmp(o->name, help_opt.name);
		m = long_match(o, name, len);
		if (m == 2) {
			*count = 1;
			return o;
		}
		if (m == 1) {
			found = o;
			(*count)++;
		}
	}
	m = help_taken ? 0 : long_match(&help_opt, name, len);
	if (m == 2) {
		*count = 1;
		return &help_opt;
	}
	if (m == 1) {
		found = &help_opt;
		(*count)++;
	}
	return *count == 1 ? found : NULL;
}

/* ---- values -------------------------------------------------------------------------- */

/* Store v into the integer member at p of size bytes. */
static void store_int(void *p, size_t size, long v)
{
	switch (size) {
	case sizeof(int8_t): {
		int8_t x = (int8_t)v;
		memcpy(p, &x, size);
		break;
	}
	case sizeof(int16_t): {
		int16_t x = (int16_t)v;
		memcpy(p, &x, size);
		break;
	}
	case sizeof(int32_t): {
		int32_t x = (int32_t)v;
		memcpy(p, &x, size);
		break;
	}
	default: {
		int64_t x = v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	}
}

static int in_range(const struct opt *o, double v)
{
	if (o->flags & OPT_ABOVE_MIN ? !(v > o->min) : !(v >= o->min))
		return 0;
	return v <= o->max;
}

static int parse_int(const struct parse *p, const struct opt *o, const char *value, void *at)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || !in_range(o, (double)v))
		return bad_value(p, o, value, "a whole number");
	store_int(at, o->size, v);
	return 0;
}

static int parse_double(const struct parse *p, const struct opt *o, const char *value, double *at)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || !isfinite(v) || !in_range(o, v))
		return bad_value(p, o, value, "a number");
	*at = v;
	return 0;
}

static int parse_choice(const struct parse *p, const struct opt *o, const char *value, void *at)
{
	for (const struct opt_choice *c = o->choices; c->name; c++)
		if (!strcmp(c->name, value)) {
			store_int(at, o->size, c->value);
			return 0;
		}
	return bad_choice(p, o, value);
}

/* One item of a list: a word, or an id (the whole value is quoted if it is bad). */
static int add_item(const struct parse *p, const struct opt *o, const char *value, const char *item,
		    size_t len, void *at)
{
	if (o->kind == OPT_ID_LIST) {
		struct opt_ids *l = at;
		char buf[24], *end;
		long id;

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) - 1 ? len : 0), item);
		errno = 0;
		id = strtol(buf, &end, 10);
		if (!len || errno || end == buf || *end || id <= 0 || id > INT32_MAX)
			return bad_value(p, o, value, "positive ids separated by commas");
		if (array__reserve(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
			return opts__error(p->cmd->name, "out of memory");
		l->v[l->n++] = (int)id;
	} else {
		struct opt_list *l = at;

		if (array__reserve(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0 ||
		    !(l->v[l->n] = strndup(item, len)))
			return opts__error(p->cmd->name, "out of memory");
		l->n++;
	}
	return 0;
}

/* A list's value: its items (commas separate them, empty ones are skipped), appended. */
static int parse_list(const struct parse *p, const struct opt *o, const char *value, void *at)
{
	const char *s = value;
	size_t added = 0;

	if (o->flags & OPT_WHOLE)
		return *value ? add_item(p, o, value, value, strlen(value), at) :
				bad_value(p, o, value, "a value");
	while (*s) {
		size_t len = strcspn(s, ",");
		int rc = len ? add_item(p, o, value, s, len, at) : 0;

		if (rc)
			return rc;
		added += len > 0;
		s += len + (s[len] == ',');
	}
	return added ? 0 : bad_value(p, o, value, "a comma-separated list");
}

/* Give option o its value (NULL: a flag, or an optional value left out). */
static int apply(const struct parse *p, const struct opt *o, const char *value)
{
	void *at = (char *)p->out + o->at;
	char why[512] = "";

	switch (o->kind) {
	case OPT_FLAG:
		store_int(at, o->size, o->set);
		return 0;
	case OPT_INT:
		return parse_int(p, o, value, at);
	case OPT_DOUBLE:
		return parse_double(p, o, value, at);
	case OPT_STRING:
		memcpy(at, &value, sizeof(value));
		return 0;
	case OPT_CHOICE:
		return parse_choice(p, o, value, at);
	case OPT_LIST:
	case OPT_ID_LIST:
		return parse_list(p, o, value, at);
	case OPT_CALL:
		if (o->call(p->out, value, why, sizeof(why)) == 0)
			return 0;
		return opts__error(p->cmd->name, "%s", why[0] ? why : "bad value");
	}
	return OPTS_EXIT_USAGE;
}

/* The size of the member a kind needs (OPT_CALL: any; an integer: 1 to 8 bytes). */
static size_t member_size(const struct opt *o)
{
	switch (o->kind) {
	case OPT_STRING:
		return sizeof(char *);
	case OPT_DOUBLE:
		return sizeof(double);
	case OPT_LIST:
		return sizeof(struct opt_list);
	case OPT_ID_LIST:
		return sizeof(struct opt_ids);
	case OPT_CALL:
		return o->size;
	default:
		return o->size >= 1 && o->size <= 8 ? o->size : 0;
	}
}

/* A table that gets a member or a kind wrong is a bug: said before anything runs. */
static int check_table(const struct opts_cmd *cmd)
{
	for (const struct opt *o = cmd->opts; o && !is_end(o); o++) {
		char n[80];

		if (is_group(o))
			continue;
		if (o->size == member_size(o) && (o->kind != OPT_CHOICE || o->choices) &&
		    (o->kind != OPT_CALL || o->call) &&
		    (!(o->flags & OPT_OPTIONAL) || o->kind == OPT_CALL))
			continue;
		return opts__error(cmd->name, "internal error: the table's option %s is malformed",
				   named(o, n, sizeof(n)));
	}
	return 0;
}

/* ---- words ------------------------------------------------------------------------- */

/* An optional value as the next word: a plain word, with a "--" after it. */
static const char *optional_next(struct parse *p)
{
	const char *next = p->i + 1 < p->argc ? p->argv[p->i + 1] : NULL;

	if (!next || next[0] == '-')
		return NULL;
	for (int k = p->i + 2; k < p->argc; k++)
		if (!strcmp(p->argv[k], "--")) {
			p->i++;
			return next;
		}
	return NULL;
}

/* "--name", "--name=VALUE", "--name VALUE": 0 or the exit status. */
static int long_option(struct parse *p)
{
	const char *word = p->argv[p->i], *name = word + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int count, shown = (int)(len + 2);
	const struct opt *o = by_name(p->cmd, name, len, &count);

	if (!o)
		return bad_option(p, word, shown, count > 1 ? "is ambiguous" : NULL);
	if (o == &help_opt) {
		if (eq)
			return bad_option(p, word, shown, "takes no value");
		p->help = 1;
		return 0;
	}
	if (!takes_value(o))
		return eq ? bad_option(p, word, shown, "takes no value") : apply(p, o, NULL);
	if (eq)
		return apply(p, o, eq + 1);
	if (o->flags & OPT_OPTIONAL)
		return apply(p, o, optional_next(p));
	if (p->i + 1 >= p->argc)
		return bad_option(p, word, shown, "needs a value");
	return apply(p, o, p->argv[++p->i]);
}

/* "-abc", "-oFILE", "-o FILE": 0 or the exit status. */
static int short_options(struct parse *p)
{
	const char *word = p->argv[p->i];

	for (const char *c = word + 1; *c; c++) {
		const struct opt *o = by_letter(p->cmd, (unsigned char)*c);
		char shown[3] = {'-', *c, 0};
		int rc;

		if (!o)
			return bad_option(p, shown, 2, NULL);
		if (o == &help_opt) {
			p->help = 1;
			return 0;
		}
		if (!takes_value(o)) {
			rc = apply(p, o, NULL);
			if (rc)
				return rc;
			continue;
		}
		if (c[1])
			return apply(p, o, c + 1);
		if (o->flags & OPT_OPTIONAL)
			return apply(p, o, NULL);
		if (p->i + 1 >= p->argc)
			return bad_option(p, shown, 2, "needs a value");
		return apply(p, o, p->argv[++p->i]);
	}
	return 0;
}

/* Put the operands after the options, in their order, as getopt does. */
static int reorder(char **argv, int argc, const unsigned char *operand, int *first)
{
	char **words = malloc((size_t)argc * sizeof(*words));
	int n = 1;

	if (!words)
		return -ENOMEM;
	words[0] = argv[0];
	for (int k = 1; k < argc; k++)
		if (!operand[k])
			words[n++] = argv[k];
	*first = n;
	for (int k = 1; k < argc; k++)
		if (operand[k])
			words[n++] = argv[k];
	memcpy(argv, words, (size_t)argc * sizeof(*argv));
	free(words);
	return 0;
}

/*
 * Walk the words; operand[k] says which are operands.  Returns 0, or the
 * exit status.  p->i ends at the first word not looked at (OPTS_IN_ORDER).
 */
static int walk(struct parse *p, unsigned char *operand)
{
	int in_order = p->cmd->flags & OPTS_IN_ORDER, rc = 0, rest = 0;

	for (p->i = 1; p->i < p->argc && !p->help; p->i++) {
		const char *w = p->argv[p->i];

		if (rest || w[0] != '-' || !w[1]) {
			if (in_order)
				break;
			operand[p->i] = 1;
		} else if (!strcmp(w, "--")) {
			if (in_order) {
				p->i++;
				break;
			}
			rest = 1;
		} else {
			rc = w[1] == '-' ? long_option(p) : short_options(p);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int opts__parse(const struct opts_cmd *cmd, int argc, char **argv, void *out, int *first)
{
	struct parse p = {.cmd = cmd, .out = out, .argc = argc, .argv = argv};
	unsigned char *operand;
	int rc = check_table(cmd);

	*first = argc;
	if (rc)
		return rc;
	operand = calloc((size_t)argc + 1, 1);
	if (!operand)
		return opts__error(cmd->name, "out of memory");
	rc = walk(&p, operand);
	if (!rc && p.help) {
		opts__help(cmd, stdout);
		free(operand);
		return 0;
	}
	if (rc) {
		free(operand);
		return rc;
	}
	if (cmd->flags & OPTS_IN_ORDER) {
		*first = p.i;
	} else if (reorder(argv, argc, operand, first) < 0) {
		free(operand);
		return opts__error(cmd->name, "out of memory");
	}
	free(operand);
	if ((cmd->flags & OPTS_NO_OPERANDS) && *first < argc)
		return opts__error(cmd->name, "unexpected argument '%s'%s%s%s", argv[*first],
				   cmd->operand_hint ? " (" : "",
				   cmd->operand_hint ? cmd->operand_hint : "",
				   cmd->operand_hint ? ")" : "");
	return OPTS_GO_ON;
}

void opts__free(const struct opts_cmd *cmd, void *out)
{
	for (const struct opt *o = cmd->opts; o && !is_end(o); o++) {
		void *at = (char *)out + o->at;

		if (o->kind == OPT_LIST) {
			struct opt_list *l = at;

			for (size_t k = 0; k < l->n; k++)
				free((char *)l->v[k]);
			free(l->v);
			l->v = NULL;
			l->n = l->cap = 0;
		} else if (o->kind == OPT_ID_LIST) {
			struct opt_ids *l = at;

			free(l->v);
			l->v = NULL;
			l->n = l->cap = 0;
		}
	}
}

/* ---- --help -------------------------------------------------------------------------- */

/* "-o, --output FILE", "    --clock CLOCK", "-g", "    --gmon [FILE]" */
static int option_words(const struct opt *o, char *buf, size_t len)
{
	int n = 0;

	if (o->letter)
		n = snprintf(buf, len, "-%c%s", o->letter, o->name ? ", " : "");
	else
		n = snprintf(buf, len, "    ");
	if (o->name)
		n += snprintf(buf + n, len - (size_t)n, "--%s", o->name);
	if (o->arg)
		n += snprintf(buf + n, len - (size_t)n, (o->flags & OPT_OPTIONAL) ? " [%s]" : " %s",
			      o->arg);
	return n;
}

/*
 * The help text from column col on, words wrapped at HELP_WIDTH; "\n" in
 * text starts a new line.  The first line continues the current one.
 */
static void wrapped(FILE *out, const char *text, int col, int at)
{
	const char *s = text;

	while (*s) {
		size_t word = strcspn(s, " \n");

		if (at > col && at + 1 + (int)word > HELP_WIDTH) {
			fprintf(out, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', out);
			at++;
		}
		fprintf(out, "%.*s", (int)word, s);
		at += (int)word;
		s += word;
		if (*s == '\n') {
			fprintf(out, "\n%*s", col, "");
			at = col;
			s++;
		} else if (*s == ' ') {
			s++;
		}
	}
	fputc('\n', out);
}

static void help_option(FILE *out, const struct opt *o)
{
	char words[128];
	int n;

	if (is_group(o)) {
		fprintf(out, "%s\n", o->help);
		return;
	}
	n = option_words(o, words, sizeof(words));
	fprintf(out, "  %s", words);
	if (2 + n + 2 > HELP_COLUMN)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", HELP_COLUMN - 2 - n, "");
	wrapped(out, o->help ? o->help : "", HELP_COLUMN, HELP_COLUMN);
}

/*
 * One usage line u[0..len) from column 7, wrapped at HELP_WIDTH between
 * its words outside brackets ("[-i FILE]" stays whole); the continuation
 * lines start under the first word after "profil COMMAND".
 */
static void usage_line(FILE *out, const char *u, size_t len)
{
	int col = 7, indent = 7, words = 0, depth = 0;
	size_t start = 0;

	for (size_t k = 0; k <= len; k++) {
		if (k < len && (u[k] != ' ' || depth > 0)) {
			depth += (u[k] == '[') - (u[k] == ']');
			continue;
		}
		if (k == start) {
			start = k + 1;
			continue;
		}
		if (words > 0 && col + 1 + (int)(k - start) > HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (words > 0) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)(k - start), u + start);
		col += (int)(k - start);
		if (++words == 2)
			indent = col + 1;
		start = k + 1;
	}
	fputc('\n', out);
}

void opts__help(const struct opts_cmd *cmd, FILE *out)
{
	const char *u = cmd->usage;

	for (int line = 0; *u; line++) {
		size_t len = strcspn(u, "\n");

		fputs(line ? "       " : "usage: ", out);
		usage_line(out, u, len);
		u += len + (u[len] == '\n');
	}
	fputc('\n', out);
	for (const struct opt *o = cmd->opts; o && !is_end(o); o++)
		help_option(out, o);
	help_option(out, &help_opt);
	if (cmd->text)
		fprintf(out, "\n%s", cmd->text);
	if (cmd->more)
		cmd->more(out);
}
