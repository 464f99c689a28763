/* SPDX-License-Identifier: MIT */
/*
 * object_fixture.h: an object file as the unit tests of unwind/ and utils/
 * (ehframe) and the unwind bench open it:
 *
 *   object_file__open   the file for libelf (read-only, mapped)
 *   object_cfi__open    that, and its CFI listed by unwind/ (unw_cfi_open)
 *                       into a table, for unw_cfi_compile_all and the stats
 *
 * Each has its __close, to be called whatever __open returned.  Header only.
 */
#ifndef PROFIL_TESTS_OBJECT_FIXTURE_H
#define PROFIL_TESTS_OBJECT_FIXTURE_H

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unwind/unwind_cfi.h"

struct object_file {
	int fd;
	Elf *elf; /* NULL: the file cannot be read as ELF */
};

/* path for libelf: its Elf, or NULL. */
static inline Elf *object_file__open(struct object_file *o, const char *path)
{
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	o->elf = o->fd >= 0 ? elf_begin(o->fd, ELF_C_READ_MMAP, NULL) : NULL;
	return o->elf;
}

static inline void object_file__close(struct object_file *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
}

struct object_cfi {
	struct object_file file;
	struct unw_table t; /* the FDEs listed; the rows compile_all adds */
	struct unw_cfi *cfi;
	char why[160]; /* why open failed */
};

/* path's CFI opened by unw_cfi_open: 0, or -1 with why. */
static inline int object_cfi__open(struct object_cfi *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!object_file__open(&o->file, path)) {
		snprintf(o->why, sizeof(o->why), "cannot open");
		return -1;
	}
	if (unw_cfi_open(o->file.elf, &o->t, &o->cfi, o->why, sizeof(o->why)) < 0 || !o->cfi)
		return -1;
	return 0;
}

static inline void object_cfi__close(struct object_cfi *o)
{
	unw_cfi_close(o->cfi);
	unw_table_free(&o->t);
	object_file__close(&o->file);
}

#endif /* PROFIL_TESTS_OBJECT_FIXTURE_H */
