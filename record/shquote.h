/* SPDX-License-Identifier: MIT */
/*
 * A command line as a shell needs it typed: header.command of profil.data
 * (profile/pdata.h) stores the recorded command this way, so that a reader
 * prints it as is and a user can paste it.  Words made only of characters
 * no shell treats specially stay bare; other words are single-quoted ('it'\''s');
 * words with control characters (a newline, a tab, an escape) use bash's
 * $'...' form with backslash escapes, so that the header stays one line.
 * Pure: no I/O.
 */
#ifndef PROFIL_RECORD_SHQUOTE_H
#define PROFIL_RECORD_SHQUOTE_H

#include <stddef.h>

/*
 * Quote argv[0..argc) (argc < 0: up to a NULL) joined by single spaces into
 * dst[len], always NUL-terminated.  A word that does not fit whole is left
 * out, with " ..." in its place (never a cut quote).  Returns the length
 * written.
 */
size_t shquote__argv(char *dst, size_t len, char *const *argv, int argc);

#endif /* PROFIL_RECORD_SHQUOTE_H */
