/* SPDX-License-Identifier: MIT */
/*
 * resolve: from (process image, runtime PC) to a function row of the flat
 * profile.  Each unique (object, address) is symbolised once; the answer
 * is an interned struct func, so equal functions are equal pointers and
 * the report can aggregate with pointer-keyed tables.
 */
#ifndef PROFIL_RESOLVE_H
#define PROFIL_RESOLVE_H

#include <stdint.h>

#include "profile/pview.h"
#include "symbols/symbols.h"

struct func {
	const char *name;    /* function, or a range name "[obj+0x...]" */
	const char *object;  /* basename of the object, "[unknown]" without a mapping */
	const char *objpath; /* full path (or the pseudo name) */
	const char *file;    /* source file with --lines, else NULL */
	int line;	     /* source line with --lines, else 0 */
};

/* Per object, what the report should tell the reader about it. */
struct resolve_note {
	struct sym_object *obj;
	uint64_t samples;	 /* samples resolved in it */
	uint64_t unnamed;	 /* of which no symbol named (range names) */
	uint64_t first_start_ns; /* earliest start of a process image that used it */
	int no_vaddr;		 /* some PCs fell outside its PT_LOAD segments */
};

/*
 * The order of functions by name, then object path, source file and line
 * (a missing string sorts as ""; a NULL function first), as strcmp answers.
 */
int func__cmp(const struct func *x, const struct func *y);

struct resolver;

/* lines: split by source line (file:line from DWARF). */
struct resolver *resolver__new(const struct pview *v, int lines);
void resolver__free(struct resolver *r);

/*
 * The function row of pc in process image p, mapping generation gen (the
 * sample's pv_sample.gen, for its stack's PCs too; pview__map_of) (never
 * NULL except out-of-memory).  Kernel PCs are object "[kernel]", named by
 * the kernel symbols stored in the profile.  For a caller's frame of a
 * call stack pass the return address minus one (the call instruction).
 */
const struct func *resolver__pc(struct resolver *r, const struct pv_proc *p, uint32_t gen,
				uint64_t pc, uint64_t count);

/* Where a PC landed: its row, and the object and address it is known by there. */
struct resolve_loc {
	const struct func *f;
	struct sym_object *obj; /* NULL: no recorded mapping holds the pc */
	uint64_t addr; /* link-time address; a file offset when !linktime; 0 in a pseudo object;
			  the pc itself without a mapping */
	int linktime;  /* addr is a link-time address (the object was read) */
	void *slot;    /* the resolver's cache entry (NULL for kernel and unknown PCs) */
};

/* resolver__pc, and where it landed.  Returns 0, or -ENOMEM. */
int resolver__locate(struct resolver *r, const struct pv_proc *p, uint32_t gen, uint64_t pc,
		     uint64_t count, struct resolve_loc *loc);

/* Inlined calls followed at one address, at most. */
#define RESOLVE_MAX_INLINE 32

/*
 * The frames of pc: the functions inlined at it (DWARF), innermost first,
 * then pc's function row (resolver__pc's), into out (room for max); 1 frame
 * when nothing is inlined there.  With lines, the innermost frame is at
 * pc's line, each other at its call of the frame before it.  When max is
 * short, the outermost frames are kept.  Returns the number of frames, or
 * -ENOMEM.
 */
int resolver__frames(struct resolver *r, const struct pv_proc *p, uint32_t gen, uint64_t pc,
		     uint64_t count, const struct func **out, unsigned max);

/* Objects seen so far (for notes). */
size_t resolver__notes(struct resolver *r, const struct resolve_note **notes);

/*
 * Resolve in view v from now on (a live view reads one profile after
 * another): the symbols, the objects and the names already found are
 * kept; the functions given before stay valid.
 */
void resolver__set_view(struct resolver *r, const struct pview *v);

/*
 * The symbols cache the resolver names with (profil annotate reads the same
 * objects; its interned strings live as long as the resolver: profil top's rows).
 */
struct symbols *resolver__symbols(struct resolver *r);

#endif /* PROFIL_RESOLVE_H */
