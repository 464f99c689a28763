// SPDX-License-Identifier: MIT
/* A command line quoted as a shell needs it.  See shquote.h. */
#include <stdio.h>
#include <string.h>

#include "record/shquote.h"

/* Characters that mean nothing special to a shell anywhere in a word. */
static int is_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c);
}

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* An output buffer that remembers whether anything did not fit. */
struct out {
	char *buf;
	size_t len, at;
	int full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->at + n >= o->len) {
		o->full = 1;
		return;
	}
	memcpy(o->buf + o->at, s, n);
	o->at += n;
}

static void put_c(struct out *o, char c)
{
	put(o, &c, 1);
}

/* $'...': backslash escapes for control characters, quotes and backslashes. */
static void put_dollar(struct out *o, const unsigned char *w)
{
	/* the characters that have a one-letter escape, and their letters */
	static const char named[] = "\n\t\r\\'", letter[] = "ntr\\'";

	put(o, "$'", 2);
	for (; *w; w++) {
		const char *n = strchr(named, *w); /* *w is never the NUL that ends named */
		char esc[8];

		if (n) {
			esc[0] = '\\';
			esc[1] = letter[n - named];
			put(o, esc, 2);
		} else if (is_control(*w)) {
			snprintf(esc, sizeof(esc), "\\x%02x", *w);
			put(o, esc, 4);
		} else {
			put_c(o, (char)*w);
		}
	}
	put_c(o, '\'');
}

/* '...', a single quote inside as '\''. */
static void put_single(struct out *o, const char *w)
{
	put_c(o, '\'');
	for (; *w; w++) {
		if (*w == '\'')
			put(o, "'\\''", 4);
		else
			put_c(o, *w);
	}
	put_c(o, '\'');
}

/* first: the command word, where NAME=value would be taken for an assignment */
static void put_word(struct out *o, const char *w, int first)
{
	int plain = *w != 0, control = 0;

	for (const unsigned char *p = (const unsigned char *)w; *p; p++) {
		plain &= is_plain(*p) && !(first && *p == '=');
		control |= is_control(*p);
	}
	if (plain)
		put(o, w, strlen(w));
	else if (control)
		put_dollar(o, (const unsigned char *)w);
	else
		put_single(o, w);
}

/* Write words while they fit whole in cap bytes (NUL included); returns 1 when all did. */
static int put_words(struct out *o, char *const *argv, int argc)
{
	for (int i = 0; argc < 0 ? argv[i] != NULL : i < argc; i++) {
		size_t before = o->at;

		if (i)
			put_c(o, ' ');
		put_word(o, argv[i], i == 0);
		if (o->full) {
			o->at = before; /* never a cut quote: the word is left out */
			return 0;
		}
	}
	return 1;
}

size_t shquote__argv(char *dst, size_t len, char *const *argv, int argc)
{
	static const char more[] = " ...";
	struct out o = {dst, len, 0, 0};

	if (!len)
		return 0;
	if (!put_words(&o, argv, argc) && len > sizeof(more)) {
		/* again, with room kept for the mark that words were left out */
		o = (struct out){dst, len - (sizeof(more) - 1), 0, 0};
		put_words(&o, argv, argc);
		memcpy(dst + o.at, o.at ? more : more + 1, o.at ? sizeof(more) : sizeof(more) - 1);
		return strlen(dst);
	}
	dst[o.at] = 0;
	return o.at;
}
