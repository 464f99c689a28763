/* SPDX-License-Identifier: MIT */
/*
 * source: the text of the source files annotate shows, read once per file:
 * from disk (a regular file, at most SOURCE_MAX_BYTES), else from a
 * debuginfod server by the object's build id (DEBUGINFOD_URLS).  A file
 * newer than the object (edited since the build) is not shown: its lines
 * may not be the ones compiled.
 */
#ifndef PROFIL_ANNOTATE_SOURCE_H
#define PROFIL_ANNOTATE_SOURCE_H

#include "symbols/symbols.h"

#define SOURCE_MAX_BYTES (16u << 20)

struct sources;

struct sources *sources__new(struct symbols *syms);
void sources__free(struct sources *s);

/*
 * Line `line` of file (as the DWARF of object o names it), or NULL when the
 * text is not available; the first time a file cannot be shown, *why gets
 * the sentence that says why (else NULL).
 */
const char *sources__line(struct sources *s, const struct sym_object *o, const char *file, int line,
			  const char **why);

#endif /* PROFIL_ANNOTATE_SOURCE_H */
