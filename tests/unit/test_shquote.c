// SPDX-License-Identifier: MIT
/* The command line as stored in a profile's header: quoted as a shell needs it (record/shquote.h). */
#include <string.h>

#include "check.h"
#include "record/shquote.h"

static const char *q(char *const *argv)
{
	static char buf[256];

	shquote__argv(buf, sizeof(buf), argv, -1);
	return buf;
}

#define QCHECK(name, expect, ...)                                                                  \
	do {                                                                                       \
		char *argv_[] = {__VA_ARGS__, NULL};                                               \
		const char *got_ = q(argv_);                                                       \
		CHECKF(name, !strcmp(got_, expect), "got [%s], expected [%s]", got_, expect);      \
	} while (0)

int main(void)
{
	char buf[16];

	QCHECK("plain_words_stay_bare", "make -C /tmp/x -j2 B=/tmp/b", "make", "-C", "/tmp/x",
	       "-j2", "B=/tmp/b");
	QCHECK("space_single_quoted", "sh -c 'for i in 1 2; do true; done'", "sh", "-c",
	       "for i in 1 2; do true; done");
	QCHECK("quote_inside", "echo 'it'\\''s'", "echo", "it's");
	QCHECK("empty_word", "prog ''", "prog", "");
	QCHECK("newline_dollar_form", "printf $'a\\nb\\tc\\\\ \\'d\\''", "printf", "a\nb\tc\\ 'd'");
	QCHECK("escape_byte_hex", "x $'\\x1b[0m'", "x", "\x1b[0m");
	QCHECK("carriage_return_and_del", "x $'a\\rb\\x7f'", "x", "a\rb\x7f");
	QCHECK("shell_specials_quoted", "'$HOME' '*' '~' 'a;b' '!'", "$HOME", "*", "~", "a;b", "!");
	QCHECK("assignment_like_command_quoted", "'A=b' A=b", "A=b", "A=b");
	QCHECK("utf8_kept", "'héllo wörld'", "héllo wörld");

	{
		char *argv[] = {"prog", "aaaa", "'bbbbbbbb'", NULL};

		shquote__argv(buf, sizeof(buf), argv, -1);
		CHECKF("long_line_cut_at_a_word", !strcmp(buf, "prog aaaa ..."), "got [%s]", buf);
	}
	{
		char *argv[] = {"a very long first word that cannot fit", NULL};

		shquote__argv(buf, sizeof(buf), argv, -1);
		CHECKF("nothing_fits", !strcmp(buf, "..."), "got [%s]", buf);
	}
	{
		char *argv[] = {"a", "b c"};

		shquote__argv(buf, sizeof(buf), argv, 2);
		CHECKF("counted_argv", !strcmp(buf, "a 'b c'"), "got [%s]", buf);
	}
	return check_failures ? 1 : 0;
}
