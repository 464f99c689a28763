/* SPDX-License-Identifier: MIT */
/*
 * Symbolisation of sampled PCs with elfutils' libdwfl (libdw): symbol
 * tables, separate debug files, source lines, CFI.
 *
 * An object is one ELF file on disk, opened once per report (cached by
 * path and verified by dev/ino/mtime, and by build id when the profile
 * recorded one).  Lookups work on link-time addresses ("vaddr"): a runtime
 * PC is first translated through its mapping and the PT_LOAD segment that
 * holds the file offset:
 *
 *   off   = pc - map_start + map_pgoff
 *   vaddr = off - phdr.p_offset + phdr.p_vaddr     (the PT_LOAD holding off)
 *
 * which is right for PIE, non-PIE and shared libraries alike, and is also
 * the address gprof wants in gmon.out.
 *
 * Function symbols come from .symtab, else from a separate debug file
 * (found by build id in /usr/lib/debug/.build-id/, by .gnu_debuglink name,
 * or from a debuginfod server when DEBUGINFOD_URLS is set: symfile.h), else
 * from .gnu_debugdata (MiniDebugInfo, when it decompresses to at most
 * SYMFILE_DEBUGDATA_MAX: symfile.h), else from .dynsym (stripped).  A PC
 * no symbol covers gets a range name "[obj+0xSTART]", START being the
 * function start from the unwind tables (.eh_frame) when they describe it,
 * else the gap between the neighbouring symbols.  C++ and Rust (legacy and
 * v0) names are demangled (libiberty).
 *
 * When the profile recorded the object's build id, the file at the path
 * must carry it: a file that is gone or was rebuilt is replaced by a copy
 * found by that build id (the executable, else its debug file, locally or
 * through debuginfod), or, failing that, flagged.
 */
#ifndef PROFIL_SYMBOLS_H
#define PROFIL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Object state flags (sym_object.flags). */
#define SYMOBJ_MISSING 0x01	      /* the file could not be opened: addresses only */
#define SYMOBJ_NOT_ELF 0x02	      /* opened but not a usable ELF file */
#define SYMOBJ_DYNSYM 0x04	      /* no .symtab: names from .dynsym only (stripped) */
#define SYMOBJ_NOSYMS 0x08	      /* no function symbols at all */
#define SYMOBJ_STATIC 0x10	      /* executable without PT_INTERP/PT_DYNAMIC (static) */
#define SYMOBJ_PSEUDO 0x20	      /* not a file: [vdso], [anon], [heap], ... */
#define SYMOBJ_EXEC 0x40	      /* ET_EXEC (non-PIE executable) */
#define SYMOBJ_HAS_DWARF 0x80	      /* has DWARF line information */
#define SYMOBJ_BUILD_ID_MATCH 0x100   /* the file read carries the build id the profile recorded */
#define SYMOBJ_BUILD_ID_DIFFERS 0x200 /* the file at the path has another build id (rebuilt) */
#define SYMOBJ_BY_BUILD_ID 0x400 /* the path is gone or rebuilt: read a copy found by build id */
#define SYMOBJ_DEBUG_FILE 0x800	 /* symbols or lines from a separate debug file */
#define SYMOBJ_DEBUG_SYMS 0x1000 /* no .symtab of its own: its symbols come from another file */
#define SYMOBJ_DEBUGDATA_TOO_BIG 0x2000 /* MiniDebugInfo beyond SYMFILE_DEBUGDATA_MAX: not read */

struct sym_object;
struct symbols;

/* The result of one lookup.  Strings live as long as the symbols cache. */
struct sym_result {
	const char *name;	 /* function name or "[obj+0x...]" range name */
	const char *system_name; /* the symbol as in its table (mangled); name when not mangled */
	uint64_t start;		 /* link-time start of the function or range */
	uint64_t end;		 /* its end (exclusive), as far as known (at least vaddr + 1) */
	uint64_t vaddr;		 /* link-time address of the PC */
	int from_symbol;	 /* 1 when a symbol covered the address */
};

struct symbols *symbols__new(void);
void symbols__free(struct symbols *s);

/* One shared copy of str for the life of the cache (NULL on out-of-memory). */
const char *symbols__intern(struct symbols *s, const char *str);

/*
 * The object for path (opened and parsed once; a path whose file changed
 * identity is reopened).  Never NULL except on out-of-memory: a file that
 * cannot be used gives an object with SYMOBJ_MISSING / SYMOBJ_NOT_ELF set
 * and a reason in symobj__why().
 */
struct sym_object *symbols__object(struct symbols *s, const char *path);

/*
 * The same for a mapping whose build id the profile recorded (id_len 0:
 * unknown, as symbols__object): the file at path is used if it carries
 * that build id; otherwise (gone, deleted or rebuilt) a copy found by the
 * build id, and failing that the file at path flagged
 * SYMOBJ_BUILD_ID_DIFFERS (or SYMOBJ_MISSING).
 */
struct sym_object *symbols__object_id(struct symbols *s, const char *path,
				      const unsigned char *build_id, size_t id_len);

const char *symobj__path(const struct sym_object *o);
const char *symobj__basename(const struct sym_object *o);
unsigned symobj__flags(const struct sym_object *o);
const char *symobj__why(const struct sym_object *o);
/* The file actually read: the path, or the copy found by build id (SYMOBJ_BY_BUILD_ID). */
const char *symobj__file(const struct sym_object *o);
size_t symobj__nsyms(const struct sym_object *o);
/* One pointer-sized slot for the caller's own data about the object (NULL at first). */
void **symobj__user(struct sym_object *o);
/* Modification time of the file (0 when missing). */
time_t symobj__mtime(const struct sym_object *o);

/*
 * Runtime pc inside a mapping [start, ..) at file offset pgoff to a
 * link-time address.  Returns 0, or -ENOENT when no PT_LOAD segment holds
 * the file offset (or the object has no program headers).
 */
int symobj__to_vaddr(const struct sym_object *o, uint64_t map_start, uint64_t map_pgoff,
		     uint64_t pc, uint64_t *vaddr);

/* File offset of a runtime pc (for objects that cannot be opened). */
static inline uint64_t symobj__file_offset(uint64_t map_start, uint64_t map_pgoff, uint64_t pc)
{
	return pc - map_start + map_pgoff;
}

/*
 * Symbolise a link-time address.  Always fills res (a range name when no
 * symbol covers vaddr).  Returns 0.
 */
int symobj__lookup(struct sym_object *o, uint64_t vaddr, struct sym_result *res);

/*
 * Source file and line of a link-time address from DWARF (the file itself
 * or its separate debug file).  Returns 0, or -ENOENT.
 * *file lives as long as the symbols cache.
 */
int symobj__srcline(struct sym_object *o, uint64_t vaddr, const char **file, int *line);

/* A function inlined at an address: see symobj__inlines(). */
struct sym_inline {
	const char *name;      /* the inlined function (demangled) */
	const char *call_file; /* where it was inlined: the call's source file, or NULL */
	int call_line;	       /* and line (0: unknown) */
};

/*
 * The chain of inlined calls that an address is in, from DWARF
 * (DW_TAG_inlined_subroutine scopes): out[0] is the innermost inlined
 * function (the address's own source line is symobj__srcline()'s), out[i]
 * the function out[i - 1] was inlined into, and the last one was inlined
 * into the function the symbol names; each entry's call_file:call_line is
 * the call in the next one out (for the last, in the symbol's function).
 * Returns the number of entries (0: not inlined, or no DWARF), at most max.
 * Strings live as long as the symbols cache.
 */
int symobj__inlines(struct sym_object *o, uint64_t vaddr, struct sym_inline *out, int max);

/*
 * The compilation directory of the code at vaddr (DW_AT_comp_dir of its CU):
 * what a relative source file name of symobj__srcline() is relative to.
 * NULL when unknown.  Lives as long as the symbols cache.
 */
const char *symobj__comp_dir(struct sym_object *o, uint64_t vaddr);

/*
 * The GNU build id of the object (the bytes of its NT_GNU_BUILD_ID note):
 * returns its length, 0 when it has none or cannot be read.  *id lives as
 * long as the symbols cache.
 */
size_t symobj__build_id(const struct sym_object *o, const unsigned char **id);

/*
 * The bytes of the file read at link-time addresses [vaddr, vaddr + *len)
 * (the code of a function), cut at the end of the PT_LOAD segment's file
 * data: *len becomes what is there.  Returns 0 (*bytes lives as long as the
 * symbols cache), or -ENOENT (no file data there: a debug file's copy, a
 * missing object).
 */
int symobj__code(const struct sym_object *o, uint64_t vaddr, size_t *len, const uint8_t **bytes);

/*
 * A source file of object o (as DWARF names it) from a debuginfod server,
 * by the object's build id, when DEBUGINFOD_URLS is set: a descriptor and
 * its local path (malloc'd), or -ENOENT.
 */
int symbols__find_source(struct symbols *s, const struct sym_object *o, const char *path,
			 char **local);

/* File offset of a link-time address, by the PT_LOAD segment holding it.  Returns 0 or -ENOENT. */
int symobj__vaddr_to_offset(const struct sym_object *o, uint64_t vaddr, uint64_t *off);

/*
 * The span of the executable PT_LOAD segments in link-time addresses
 * [*lo, *hi).  Returns 0, or -ENOENT.
 */
int symobj__text_range(const struct sym_object *o, uint64_t *lo, uint64_t *hi);

#endif /* PROFIL_SYMBOLS_H */
