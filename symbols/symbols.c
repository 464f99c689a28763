// SPDX-License-Identifier: MIT
/*
 * Symbolisation with elfutils' libdwfl: see symbols.h.  Each object is one
 * Dwfl with one module, reported from a descriptor we opened (libdwfl then
 * owns it); separate debug files come through our find_debuginfo callback
 * (symfile.c), so libdwfl opens no path by itself.  libdwfl finds the
 * symbol table (.symtab, the debug file's, MiniDebugInfo, .dynsym); we copy
 * its function symbols once into a sorted array, since libdwfl's own
 * address lookup scans every symbol at each call.  Symbol names point into
 * the ELF images libdwfl keeps mapped for the life of the cache.
 */
#include <errno.h>
#include <stdbool.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/plt.h"
#include "symbols/symbols.h"
#include "utils/ehframe.h"
#include "utils/array.h"
#include "symbols/symfile.h"
#include "utils/htab.h"
#include "utils/search.h"
#include "utils/cmp.h"

#define BUILD_ID_MAX 20 /* as much as the profile records (pdata_map.build_id) */

struct sym {
	uint64_t start;
	uint64_t end; /* exclusive */
	const char *name;
	const char *shown; /* demangled (or name), set on the first lookup */
};

struct fde_range {
	uint64_t start, end; /* link-time, exclusive end */
};

struct load_seg {
	uint64_t offset, filesz, vaddr, memsz;
	uint32_t flags;
};

struct sym_object {
	struct sym_object *next; /* older objects of the same path (the file changed) */
	char *path;
	const char *base;
	char *file; /* the file read: path, or the copy found by build id */
	unsigned flags;
	char why[160];
	/* what the object was made for: the identity of the path then, the recorded build id */
	struct stat pst;
	int have_pst;
	unsigned char want_id[BUILD_ID_MAX];
	size_t want_len;
	struct stat st; /* the file read */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf; /* the main file (libdwfl's) */
	GElf_Addr bias;
	struct load_seg *loads;
	size_t nloads;
	int debug_only; /* the file read is a debug file: its segments have no file offsets */
	struct sym *syms;
	size_t nsyms;
	/* the separate debug file (find_debuginfo) and the dwz file its DWARF may refer to */
	int dbg_searched;
	char alt_name[256];
	unsigned char alt_id[64];
	size_t alt_len;
	/* DWARF, opened on first use */
	int dwarf_tried;
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	Dwarf_Die *cus; /* fallback CU list when .debug_aranges is missing */
	size_t ncus;
	int cus_tried;
	/* the functions the CFI describes (.eh_frame, else .debug_frame), sorted: read on first use */
	int fdes_tried;
	struct fde_range *fdes;
	size_t nfdes, fdes_cap;
	struct symbols *owner;
	void *user;
};

struct symbols {
	struct htab *objects; /* path -> struct sym_object *, newest first */
	struct htab *strs;    /* interned strings (range names): struct str_ent */
	struct symfile_finder *finder;
};

/*
 * Both tables are keyed by a string; the entry is a pointer holding it (an
 * interned string keeps its hash beside it: growing reads no string).
 */
struct str_ent {
	char *s;
	uint64_t hash;
};

static uint64_t str_hash(const void *key)
{
	return htab_hash_str(key);
}

static bool object_eq(const void *entry, const void *key)
{
	return !strcmp((*(struct sym_object *const *)entry)->path, key);
}

static bool str_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct str_ent *)entry)->s, key);
}

static uint64_t object_entry_hash(const void *entry)
{
	return htab_hash_str((*(struct sym_object *const *)entry)->path);
}

static const struct htab_type object_type = {
	.entry_size = sizeof(struct sym_object *),
	.hash = str_hash,
	.eq = object_eq,
	.entry_hash = object_entry_hash,
};

static const struct htab_type str_type = {
	.entry_size = sizeof(struct str_ent),
	.hash = str_hash,
	.eq = str_eq,
	.stored_hash = HTAB_STORED_HASH(struct str_ent, hash),
};

/* A report names hundreds of objects and thousands of range names at most. */
#define OBJECTS_EXPECTED 255
#define STRS_EXPECTED 511

const char *symbols__intern(struct symbols *s, const char *str)
{
	bool fresh;
	struct str_ent *e = htab__insert(s->strs, &str_type, str, &fresh);

	if (!e)
		return NULL;
	if (fresh) {
		e->s = strdup(str);
		if (!e->s) {
			htab__cancel_fresh(s->strs);
			return NULL;
		}
		e->hash = htab_hash_str(str);
	}
	return e->s;
}

struct symbols *symbols__new(void)
{
	struct symbols *s;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->objects = htab__new(&object_type, OBJECTS_EXPECTED);
	s->strs = htab__new(&str_type, STRS_EXPECTED);
	s->finder = symfile_finder__new();
	if (!s->objects || !s->strs || !s->finder) {
		symbols__free(s);
		return NULL;
	}
	return s;
}

static void object_free(struct sym_object *o)
{
	/* the Dwfl owns the module's files, descriptors, DWARF and CFI */
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->cus);
	free(o->fdes);
	free(o->loads);
	free(o->syms);
	if (o->file != o->path)
		free(o->file);
	free(o->path);
	free(o);
}

void symbols__free(struct symbols *s)
{
	struct sym_object **head;

	if (!s)
		return;
	for (size_t pos = 0; s->objects && (head = htab__next(s->objects, &pos));) {
		struct sym_object *o = *head, *next;

		for (; o; o = next) {
			next = o->next;
			object_free(o);
		}
	}
	htab__free(s->objects);
	HTAB_FREE_OWNED(s->strs, struct str_ent, s);
	symfile_finder__free(s->finder);
	free(s);
}

static int load_segments(struct sym_object *o)
{
	size_t phnum;

	if (elf_getphdrnum(o->elf, &phnum) < 0)
		return -EINVAL;
	o->loads = calloc(phnum ? phnum : 1, sizeof(*o->loads));
	if (!o->loads)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
			o->flags &= ~SYMOBJ_STATIC;
		if (ph.p_type != PT_LOAD)
			continue;
		o->loads[o->nloads++] = (struct load_seg){ph.p_offset, ph.p_filesz, ph.p_vaddr,
							  ph.p_memsz, ph.p_flags};
	}
	return 0;
}

/* Order: address, then the best name first (global before weak before local). */
static int bind_rank(const char *name)
{
	/* tie-break among aliases: fewer leading underscores reads better */
	int r = 0;

	while (name[r] == '_' && r < 3)
		r++;
	return r;
}

struct raw_sym {
	uint64_t start, size;
	const char *name;
	int bind_order; /* 0 global, 1 weak, 2 local */
	int underscores;
	uint64_t limit; /* end of its section */
};

static int cmp_raw(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	/* a sized symbol before a zero-sized one at the same address */
	return CMP(x->start, y->start)			   ?:
		       CMP(x->bind_order, y->bind_order)   ?:
		       CMP(x->size == 0, y->size == 0)	   ?:
		       CMP(x->underscores, y->underscores) ?:
							     strcmp(x->name, y->name);
}

/* Sorted, de-duplicated symbols; zero-sized ones extend to the next symbol (or section end). */
static int build_syms(struct sym_object *o, struct raw_sym *raw, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(raw, n, sizeof(*raw), cmp_raw);
	o->syms = calloc(n ? n : 1, sizeof(*o->syms));
	if (!o->syms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (k && o->syms[k - 1].start == raw[i].start)
			continue; /* alias: the first (best) name wins */
		o->syms[k].start = raw[i].start;
		o->syms[k].end = raw[i].start + raw[i].size;
		o->syms[k].name = raw[i].name;
		if (!raw[i].size) {
			uint64_t end = raw[i].limit;

			for (size_t j = i + 1; j < n; j++) {
				if (raw[j].start > raw[i].start) {
					if (raw[j].start < end)
						end = raw[j].start;
					break;
				}
			}
			if (end == UINT64_MAX)
				end = raw[i].start + 1;
			o->syms[k].end = end;
		}
		k++;
	}
	o->nsyms = k;
	return 0;
}

/* The first section of elf of this type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_symtab(Elf *elf, Elf32_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/* End of the section holding a symbol, in link-time addresses (UINT64_MAX: unknown). */
static uint64_t section_limit(Elf *elf, GElf_Word shndx, GElf_Addr value, GElf_Addr elfbias,
			      GElf_Addr bias)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_addr > value ||
	    sh.sh_size > UINT64_MAX - sh.sh_addr - elfbias)
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size + elfbias - bias;
}

/*
 * A symbol's name without its version ("memcpy@@GLIBC_2.14",
 * "clock_gettime@GLIBC_2.17" in the .symtab of glibc's debug file): the
 * function is memcpy.  NULL on out-of-memory.
 */
static const char *unversioned(struct symbols *s, const char *name)
{
	const char *at = strchr(name, '@');
	char buf[512];
	size_t len;

	if (!at || at == name)
		return name;
	len = (size_t)(at - name);
	if (len >= sizeof(buf))
		return name;
	memcpy(buf, name, len);
	buf[len] = 0;
	return symbols__intern(s, buf);
}

/* One function symbol of libdwfl's table into raw (0), 1 to skip it, or -ENOMEM. */
static int take_symbol(struct sym_object *o, int i, struct raw_sym *raw, int *other_file)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf;
	Dwarf_Addr elfbias;
	const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &addr, &shndx, &elf, &elfbias);
	int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

	if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC))
		return 1;
	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !sym.st_value || addr < o->bias)
		return 1;
	if (elf != o->elf)
		*other_file = 1;
	name = unversioned(o->owner, name);
	if (!name)
		return -ENOMEM;
	raw->start = addr - o->bias;
	raw->size = sym.st_size;
	raw->name = name;
	raw->limit = section_limit(elf, shndx, sym.st_value, elfbias, o->bias);
	raw->bind_order = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	raw->underscores = bind_rank(name);
	return 0;
}

static const char *demangled(struct symbols *s, const char *name);
static long find_sym(const struct sym_object *o, uint64_t vaddr);

/* Symbols made up for code the file names none of (PLT entries, .init, .fini), before they join. */
struct extra_syms {
	struct sym_object *o;
	struct sym *v;
	size_t n, cap;
};

/* Is start inside a symbol the file has? */
static int covered(const struct sym_object *o, uint64_t start)
{
	long i = find_sym(o, start);

	return i >= 0 && start < o->syms[i].end;
}

static int extra_add(struct extra_syms *p, uint64_t start, uint64_t end, const char *name,
		     const char *shown)
{
	if (array__reserve(&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return -ENOMEM;
	p->v[p->n++] = (struct sym){start, end, name, shown};
	return 0;
}

/* An IRELATIVE slot's resolver: the function symbol starting at addr. */
static const char *plt_resolver(void *arg, uint64_t addr)
{
	const struct extra_syms *p = arg;
	long i = find_sym(p->o, addr);

	return i >= 0 && p->o->syms[i].start == addr ? p->o->syms[i].name : NULL;
}

static int plt_entry(void *arg, uint64_t start, uint64_t size, const char *name)
{
	struct extra_syms *p = arg;
	struct symbols *s = p->o->owner;
	const char *base, *shown;
	char buf[600];

	if (covered(p->o, start))
		return 0; /* a symbol of its own (the file names its PLT entries) */
	base = unversioned(s, name);
	if (!base)
		return -ENOMEM;
	snprintf(buf, sizeof(buf), "%s@plt", base);
	name = symbols__intern(s, buf);
	shown = demangled(s, base);
	if (shown != base) {
		snprintf(buf, sizeof(buf), "%s@plt", shown);
		shown = symbols__intern(s, buf);
	} else {
		shown = name;
	}
	if (!name || !shown)
		return -ENOMEM;
	return extra_add(p, start, start + size, name, shown);
}

/*
 * The code of the .init and .fini sections is _init and _fini (crti.o's), run
 * by the dynamic loader at start and exit; a stripped object names them
 * nowhere else (its .dynsym has neither).
 */
static int init_fini_syms(struct extra_syms *p)
{
	static const char *const names[][2] = {{".init", "_init"}, {".fini", "_fini"}};
	Elf *elf = p->o->elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (p->o->debug_only || !elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sec;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_size > UINT64_MAX - sh.sh_addr || covered(p->o, sh.sh_addr))
			continue;
		sec = elf_strptr(elf, shstrndx, sh.sh_name);
		for (size_t k = 0; sec && k < ARRAY_SIZE(names); k++) {
			const char *name;

			if (strcmp(sec, names[k][0]))
				continue;
			name = symbols__intern(p->o->owner, names[k][1]);
			if (!name ||
			    extra_add(p, sh.sh_addr, sh.sh_addr + sh.sh_size, name, name) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return CMP(x->start, y->start);
}

/*
 * The PLT entries as symbols "func@plt" (symbols/plt.h), and _init and
 * _fini, merged into the sorted symbols.
 */
static int add_extra_syms(struct sym_object *o)
{
	struct extra_syms p = {o, NULL, 0, 0};
	int rc = o->debug_only ? 0 : plt__list(o->elf, plt_entry, plt_resolver, &p);
	struct sym *all;

	if (rc < 0 && rc != -ENOMEM)
		p.n = 0; /* a PLT not understood: no entries named from it */
	if (rc != -ENOMEM)
		rc = init_fini_syms(&p);
	if (rc < 0 || !p.n) {
		free(p.v);
		return rc == -ENOMEM ? rc : 0;
	}
	all = realloc(o->syms, (o->nsyms + p.n) * sizeof(*all));
	if (!all) {
		free(p.v);
		return -ENOMEM;
	}
	memcpy(all + o->nsyms, p.v, p.n * sizeof(*all));
	o->syms = all;
	o->nsyms += p.n;
	qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	free(p.v);
	return 0;
}

/*
 * Function symbols of the table libdwfl chose: the file's .symtab, the
 * separate debug file's (looked for when the file has none), the
 * MiniDebugInfo's, else .dynsym (flagged: stripped).
 */
static int load_symbols(struct sym_object *o)
{
	int count = dwfl_module_getsymtab(o->mod), other_file = 0, rc;
	struct raw_sym *raw = NULL;
	size_t n = 0;

	if (count > 0) {
		raw = calloc((size_t)count, sizeof(*raw));
		if (!raw)
			return -ENOMEM;
		for (int i = 0; i < count; i++) {
			int took = take_symbol(o, i, &raw[n], &other_file);

			if (took < 0) {
				free(raw);
				return took;
			}
			if (took == 0)
				n++;
		}
	}
	if (!find_symtab(o->elf, SHT_SYMTAB)) {
		if (other_file)
			o->flags |=
				SYMOBJ_DEBUG_SYMS; /* a debug file or MiniDebugInfo named them */
		else if (find_symtab(o->elf, SHT_DYNSYM))
			o->flags |= SYMOBJ_DYNSYM;
	}
	rc = build_syms(o, raw, n);
	free(raw);
	if (rc < 0)
		return rc;
	if (!o->nsyms)
		o->flags |= SYMOBJ_NOSYMS;
	return add_extra_syms(o);
}

/* .gnu_debugaltlink (dwz): the common debug file's name and build id, kept for find_debuginfo. */
static void read_altlink(struct sym_object *o, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		size_t len, idlen;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debugaltlink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return;
		len = strnlen(d->d_buf, d->d_size);
		if (len == d->d_size || len >= sizeof(o->alt_name))
			return;
		idlen = d->d_size - len - 1;
		if (idlen < 2 || idlen > sizeof(o->alt_id))
			return;
		memcpy(o->alt_name, d->d_buf, len + 1);
		memcpy(o->alt_id, (const char *)d->d_buf + len + 1, idlen);
		o->alt_len = idlen;
		return;
	}
}

/*
 * libdwfl decompresses MiniDebugInfo (.gnu_debugdata) whole, without a
 * limit, once it looks for symbols that the file and its debug file lack:
 * the section's size is counted first, in a bounded pass, and a section
 * that decompresses beyond SYMFILE_DEBUGDATA_MAX (or has no data) is
 * hidden from libdwfl: its name is made empty in libelf's in-memory copy
 * of the section headers (the file is not touched), so it is never found.
 */
static void bound_debugdata(struct sym_object *o)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(o->elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return;
		name = elf_strptr(o->elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debugdata"))
			continue;
		d = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
		if (d && d->d_buf &&
		    symfile__xz_size(d->d_buf, d->d_size, SYMFILE_DEBUGDATA_MAX) != -EFBIG)
			return;
		sh.sh_name = 0;
		if (gelf_update_shdr(scn, &sh))
			o->flags |= SYMOBJ_DEBUGDATA_TOO_BIG;
		return;
	}
}

/* The main file is never opened by libdwfl: it is reported from our descriptor. */
static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	errno = ENOENT;
	return -1;
}

/*
 * libdwfl asks for the separate debug file (once its symbol table or DWARF
 * is wanted and the file has none), and then for the dwz file that DWARF
 * refers to: symfile finds and checks them.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	struct sym_object *o = *userdata;
	struct symfile_want w = {.link = debuglink, .link_crc = crc};
	int alt = o && o->alt_len && debuglink && !strcmp(debuglink, o->alt_name);
	enum symfile_how how;
	const unsigned char *id;
	GElf_Addr idaddr;
	char *path = NULL;
	int len, fd;

	(void)modname, (void)base;
	errno = ENOENT;
	if (!o || (!alt && o->dbg_searched))
		return -1;
	w.near = file_name ? file_name : o->file;
	w.not_this = &o->st;
	if (alt) {
		w.build_id = o->alt_id;
		w.build_id_len = o->alt_len;
		w.link_is_path = 1;
	} else {
		o->dbg_searched = 1;
		len = dwfl_module_build_id(mod, &id, &idaddr);
		w.build_id = len > 0 ? id : NULL;
		w.build_id_len = len > 0 ? (size_t)len : 0;
	}
	fd = symfile__find_debug(o->owner->finder, &w, &path, &how);
	if (fd < 0)
		return -1;
	if (!alt) {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

		o->flags |= SYMOBJ_DEBUG_FILE;
		o->alt_len = 0;
		if (elf)
			read_altlink(o, elf);
		elf_end(elf);
	}
	*debuginfo_file_name = path;
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Report the ELF file behind fd (libdwfl takes it) and read what lookups need. */
static int attach(struct sym_object *o, int fd)
{
	GElf_Ehdr eh;
	void **ud;

	o->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!o->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, o->base, o->file, fd, 0, true);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		close(fd);
		o->flags |= SYMOBJ_NOT_ELF;
		snprintf(o->why, sizeof(o->why), "%s is not a usable ELF file: %s", o->file,
			 dwfl_errmsg(-1));
		return 0;
	}
	dwfl_module_info(o->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = o;
	o->elf = dwfl_module_getelf(o->mod, &o->bias);
	if (!o->elf || !gelf_getehdr(o->elf, &eh)) {
		o->flags |= SYMOBJ_NOT_ELF;
		snprintf(o->why, sizeof(o->why), "%s is not an ELF file", o->file);
		return 0;
	}
	if (eh.e_type == ET_EXEC)
		o->flags |= SYMOBJ_EXEC | SYMOBJ_STATIC;
	else if (eh.e_type == ET_DYN)
		o->flags |= SYMOBJ_STATIC; /* cleared below by PT_INTERP/PT_DYNAMIC */
	if (load_segments(o) < 0)
		return -ENOMEM;
	read_altlink(o, o->elf);
	bound_debugdata(o);
	return load_symbols(o);
}

/* Does the file behind fd carry the recorded build id?  (1 when none was recorded) */
static int id_matches(const struct sym_object *o, int fd)
{
	return !o->want_len || symfile__has_build_id(fd, o->want_id, o->want_len);
}

/* Gone or rebuilt: a copy by the recorded build id.  Returns its descriptor, or -ENOENT. */
static int open_by_id(struct sym_object *o)
{
	enum symfile_how how;
	char *found = NULL;
	int is_debug, fd;

	if (!o->want_len)
		return -ENOENT;
	fd = symfile__find_by_id(o->owner->finder, o->want_id, o->want_len, &found, &how,
				 &is_debug);
	if (fd < 0)
		return fd == -ENOMEM ? -ENOMEM : -ENOENT;
	if (fstat(fd, &o->st) < 0) {
		close(fd);
		free(found);
		return -ENOENT;
	}
	o->file = found;
	o->debug_only = is_debug;
	o->flags |= SYMOBJ_BY_BUILD_ID | SYMOBJ_BUILD_ID_MATCH;
	snprintf(o->why, sizeof(o->why), "read %s, found by its build id%s", found,
		 how == SYMFILE_DEBUGINFOD ? " through debuginfod" :
		 how == SYMFILE_KEPT	   ? " (the copy profil record kept)" :
					     "");
	return fd;
}

#define DELETED_SUFFIX " (deleted)"

/* /proc/PID/maps marks a mapped file that was unlinked: whatever is at the path now is another file. */
static int is_deleted(const char *path)
{
	size_t n = strlen(path), k = strlen(DELETED_SUFFIX);

	return n > k && !strcmp(path + n - k, DELETED_SUFFIX);
}

static int is_pseudo(const char *path)
{
	return path[0] != '/';
}

/* The file at the path, if it is one and (when recorded) carries the build id; or -errno. */
static int open_path(struct sym_object *o)
{
	int fd = symfile__open_regular(o->path, &o->st);

	if (fd < 0)
		return fd;
	if (!symfile__is_elf(fd)) {
		close(fd);
		return -ENOEXEC;
	}
	if (id_matches(o, fd)) {
		if (o->want_len)
			o->flags |= SYMOBJ_BUILD_ID_MATCH;
		return fd;
	}
	o->flags |= SYMOBJ_BUILD_ID_DIFFERS;
	return fd;
}

/* Choose the file to read (the path's, or a copy by build id) and read it. */
static int open_object(struct sym_object *o)
{
	int fd = is_deleted(o->path) ? -ENOENT : open_path(o);

	if (fd < 0 || (o->flags & SYMOBJ_BUILD_ID_DIFFERS)) {
		int byid = open_by_id(o);

		if (byid == -ENOMEM) {
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		if (byid >= 0) {
			if (fd >= 0)
				close(fd);
			o->flags &= ~SYMOBJ_BUILD_ID_DIFFERS;
			return attach(o, byid);
		}
	}
	if (fd >= 0)
		return attach(o, fd);
	if (fd == -EINVAL || fd == -ENOEXEC) {
		o->flags |= SYMOBJ_NOT_ELF;
		snprintf(o->why, sizeof(o->why), "%s is not %s", o->path,
			 fd == -EINVAL ? "a regular file" : "an ELF file");
	} else if (is_deleted(o->path)) {
		o->flags |= SYMOBJ_MISSING;
		snprintf(o->why, sizeof(o->why), "%s was deleted while it was mapped", o->path);
	} else {
		o->flags |= SYMOBJ_MISSING;
		snprintf(o->why, sizeof(o->why), "cannot open %s: %s", o->path, strerror(-fd));
	}
	return 0;
}

/* Is o the object for this path as it is now, made for this build id? */
static int object_fits(const struct sym_object *o, const struct stat *st, int have_st,
		       const unsigned char *id, size_t len)
{
	if (o->want_len != len || (len && memcmp(o->want_id, id, len)))
		return 0;
	if (o->have_pst != have_st)
		return 0;
	return !have_st || (o->pst.st_dev == st->st_dev && o->pst.st_ino == st->st_ino &&
			    o->pst.st_mtime == st->st_mtime);
}

static struct sym_object *object_new(struct symbols *s, const char *path, const struct stat *st,
				     int have_st, const unsigned char *id, size_t len)
{
	struct sym_object *o = calloc(1, sizeof(*o));
	const char *slash;

	if (!o)
		return NULL;
	o->owner = s;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->file = o->path;
	slash = strrchr(o->path, '/');
	o->base = slash && slash[1] ? slash + 1 : o->path;
	o->have_pst = have_st;
	if (have_st)
		o->pst = *st;
	o->want_len = len;
	if (len)
		memcpy(o->want_id, id, len);
	if (is_pseudo(path))
		o->flags |= SYMOBJ_PSEUDO;
	else if (open_object(o) < 0) {
		object_free(o);
		return NULL;
	}
	return o;
}

struct sym_object *symbols__object_id(struct symbols *s, const char *path,
				      const unsigned char *build_id, size_t id_len)
{
	struct sym_object **head = htab__find(s->objects, &object_type, path), *o;
	struct stat st;
	int have_st = !is_pseudo(path) && !is_deleted(path) && stat(path, &st) == 0;
	bool fresh;

	if (id_len > BUILD_ID_MAX || !build_id)
		id_len = 0;
	for (o = head ? *head : NULL; o; o = o->next)
		if (object_fits(o, &st, have_st, build_id, id_len))
			return o;
	o = object_new(s, path, &st, have_st, build_id, id_len);
	if (!o)
		return NULL;
	head = htab__insert(s->objects, &object_type, path, &fresh);
	if (!head) {
		object_free(o);
		return NULL;
	}
	o->next = fresh ? NULL : *head;
	*head = o;
	return o;
}

struct sym_object *symbols__object(struct symbols *s, const char *path)
{
	return symbols__object_id(s, path, NULL, 0);
}

const char *symobj__path(const struct sym_object *o)
{
	return o->path;
}

const char *symobj__basename(const struct sym_object *o)
{
	return o->base;
}

unsigned symobj__flags(const struct sym_object *o)
{
	return o->flags;
}

const char *symobj__why(const struct sym_object *o)
{
	return o->why;
}

const char *symobj__file(const struct sym_object *o)
{
	return o->file;
}

size_t symobj__nsyms(const struct sym_object *o)
{
	return o->nsyms;
}

void **symobj__user(struct sym_object *o)
{
	return &o->user;
}

time_t symobj__mtime(const struct sym_object *o)
{
	return (o->flags & (SYMOBJ_MISSING | SYMOBJ_PSEUDO)) ? 0 : o->st.st_mtime;
}

#define PAGE_MASK_4K (~(uint64_t)4095)

/*
 * A debug file's segments keep their addresses but not their file offsets
 * (objcopy --only-keep-debug).  The loader maps a segment from the page
 * holding its start, so an executable mapping starts at the page of the
 * executable segment's first address: vaddr = pc - start + that page.
 */
static int debug_only_vaddr(const struct sym_object *o, uint64_t map_start, uint64_t pc,
			    uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct load_seg *l = &o->loads[i];
		uint64_t page = l->vaddr & PAGE_MASK_4K, v;

		if (!(l->flags & PF_X) || pc < map_start)
			continue;
		v = pc - map_start + page;
		if (v < page || v >= l->vaddr + l->memsz)
			return -ENOENT;
		*vaddr = v;
		return 0;
	}
	return -ENOENT;
}

int symobj__to_vaddr(const struct sym_object *o, uint64_t map_start, uint64_t map_pgoff,
		     uint64_t pc, uint64_t *vaddr)
{
	uint64_t off = symobj__file_offset(map_start, map_pgoff, pc);
	const struct load_seg *best = NULL;

	if (o->debug_only)
		return debug_only_vaddr(o, map_start, pc, vaddr);

	for (size_t i = 0; i < o->nloads; i++) {
		const struct load_seg *l = &o->loads[i];

		if (off < l->offset ||
		    off - l->offset >= (l->filesz > l->memsz ? l->filesz : l->memsz))
			continue;
		/* two segments can share a file page: prefer the executable one */
		if (!best || ((l->flags & PF_X) && !(best->flags & PF_X)))
			best = l;
	}
	if (!best)
		return -ENOENT;
	*vaddr = off - best->offset + best->vaddr;
	return 0;
}

size_t symobj__build_id(const struct sym_object *o, const unsigned char **id)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (!o->mod)
		return 0;
	len = dwfl_module_build_id(o->mod, &bits, &vaddr);
	if (len <= 0)
		return 0;
	*id = bits;
	return (size_t)len;
}

int symobj__vaddr_to_offset(const struct sym_object *o, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct load_seg *l = &o->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int symobj__text_range(const struct sym_object *o, uint64_t *lo, uint64_t *hi)
{
	uint64_t l = UINT64_MAX, h = 0;

	for (size_t i = 0; i < o->nloads; i++) {
		if (!(o->loads[i].flags & PF_X))
			continue;
		/* a segment whose end wraps is damaged: not text */
		if (o->loads[i].memsz > UINT64_MAX - o->loads[i].vaddr)
			continue;
		if (o->loads[i].vaddr < l)
			l = o->loads[i].vaddr;
		if (o->loads[i].vaddr + o->loads[i].memsz > h)
			h = o->loads[i].vaddr + o->loads[i].memsz;
	}
	if (l >= h)
		return -ENOENT;
	*lo = l;
	*hi = h;
	return 0;
}

/* Index of the last symbol starting at or before vaddr, or -1. */
static long find_sym(const struct sym_object *o, uint64_t vaddr)
{
	size_t lo = SEARCH_UPPER(o->syms, o->nsyms, start, vaddr);

	return (long)lo - 1;
}

/*
 * The FDEs of elf's section name (utils/ehframe.h) into o->fdes: each one's
 * range is a function's.  *found: the section has data.  0, or -ENOMEM.
 */
static int list_fdes(struct sym_object *o, Elf *elf, const char *name, int *found)
{
	struct ehframe_iter it = {0};
	struct ehframe sec;
	struct ehframe_fde f;

	*found = ehframe__open(&sec, elf, name) == 0;
	while (*found && ehframe__next_fde(&sec, &it, &f, NULL) > 0) {
		if (array__reserve(&o->fdes, &o->fdes_cap, o->nfdes + 1, sizeof(*o->fdes)))
			return -ENOMEM;
		o->fdes[o->nfdes++] = (struct fde_range){f.start, f.end};
	}
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return CMP(x->start, y->start) ?: CMP(x->end, y->end);
}

static void open_dwarf(struct sym_object *o);

/*
 * The function ranges of the CFI: the object's .eh_frame, else the
 * .debug_frame of the object or of its separate debug file.  Without
 * memory the table is simply empty (names fall back to the symbol gaps).
 */
static void load_fdes(struct sym_object *o)
{
	int found = 0;

	o->fdes_tried = 1;
	if (!o->elf)
		return;
	if (list_fdes(o, o->elf, ".eh_frame", &found) < 0 || !o->nfdes) {
		Elf *dbg;

		o->nfdes = 0;
		if (list_fdes(o, o->elf, ".debug_frame", &found) < 0)
			o->nfdes = 0;
		if (!o->nfdes && !o->dwarf_tried)
			open_dwarf(o);
		dbg = o->dwarf ? dwarf_getelf(o->dwarf) : NULL;
		if (!o->nfdes && dbg && dbg != o->elf &&
		    list_fdes(o, dbg, ".debug_frame", &found) < 0)
			o->nfdes = 0;
	}
	if (o->nfdes > 1)
		qsort(o->fdes, o->nfdes, sizeof(*o->fdes), cmp_fde);
}

/* Start of the function holding vaddr according to its FDE (initial location), or -ENOENT. */
static int fde_start(struct sym_object *o, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	size_t lo;

	if (!o->fdes_tried)
		load_fdes(o);
	lo = SEARCH_UPPER(o->fdes, o->nfdes, start, vaddr);
	/* overlapping FDEs (a damaged or hostile table): the innermost that covers, a few back */
	for (size_t k = lo; k > 0 && k + 4 > lo; k--) {
		if (vaddr < o->fdes[k - 1].end) {
			*start = o->fdes[k - 1].start;
			*end = o->fdes[k - 1].end;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Code outside every FDE and symbol: its range lies between the FDEs around
 * it too, so that it never takes in a function the CFI bounds (the end of
 * the last FDE before vaddr into *start, the start of the next into *end,
 * where they are closer than what the caller has).
 */
static void fde_gap(const struct sym_object *o, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	size_t lo = SEARCH_UPPER(o->fdes, o->nfdes, start, vaddr);

	if (lo < o->nfdes && o->fdes[lo].start < *end)
		*end = o->fdes[lo].start;
	if (lo > 0 && o->fdes[lo - 1].end <= vaddr && o->fdes[lo - 1].end > *start)
		*start = o->fdes[lo - 1].end;
}

/*
 * C++ (_Z) and Rust (_R v0, and the legacy _ZN...17h<hash>E whose hash is
 * dropped) names read better demangled: libiberty's demangler, as
 * binutils and gdb use it.  Names it cannot demangle stay as they are.
 */
static const char *demangled(struct symbols *s, const char *name)
{
	const char *out = name;
	char *d;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (d)
		out = symbols__intern(s, d);
	free(d);
	return out ? out : name;
}

/* Where the gap between the neighbouring symbols that holds vaddr ends. */
static uint64_t gap_end(const struct sym_object *o, long i, uint64_t vaddr)
{
	uint64_t lo, hi;

	if (i + 1 < (long)o->nsyms)
		return o->syms[i + 1].start;
	return symobj__text_range(o, &lo, &hi) == 0 && vaddr < hi ? hi : vaddr + 1;
}

int symobj__lookup(struct sym_object *o, uint64_t vaddr, struct sym_result *res)
{
	char buf[320];
	long i = find_sym(o, vaddr);
	uint64_t start, end;

	res->vaddr = vaddr;
	/* nested or overlapping symbols: look a few entries back for one that covers */
	for (long k = i; k >= 0 && k > i - 4; k--) {
		struct sym *sym = &o->syms[k];

		if (vaddr < sym->end) {
			if (!sym->shown)
				sym->shown = demangled(o->owner, sym->name);
			res->name = sym->shown;
			res->system_name = sym->name;
			res->start = sym->start;
			res->end = sym->end;
			res->from_symbol = 1;
			return 0;
		}
	}
	res->from_symbol = 0;
	if (o->flags & SYMOBJ_PSEUDO) {
		res->name = res->system_name = o->path;
		res->start = 0;
		res->end = vaddr + 1;
		return 0;
	}
	if (fde_start(o, vaddr, &start, &end) < 0) {
		/* the gap between the neighbouring symbols */
		start = i >= 0 ? o->syms[i].end : 0;
		if (!start) {
			uint64_t lo, hi;

			start = symobj__text_range(o, &lo, &hi) == 0 && lo <= vaddr ? lo : vaddr;
		}
		end = gap_end(o, i, vaddr);
		fde_gap(o, vaddr, &start, &end);
	}
	snprintf(buf, sizeof(buf), "[%s+0x%llx]", o->base, (unsigned long long)start);
	res->name = symbols__intern(o->owner, buf);
	if (!res->name)
		res->name = "[?]";
	res->system_name = res->name;
	res->start = start;
	res->end = end > vaddr ? end : vaddr + 1;
	return 0;
}

int symobj__code(const struct sym_object *o, uint64_t vaddr, size_t *len, const uint8_t **bytes)
{
	size_t fsize = 0;
	const char *raw = o->elf && !o->debug_only ? elf_rawfile(o->elf, &fsize) : NULL;

	if (!raw)
		return -ENOENT;
	for (size_t i = 0; i < o->nloads; i++) {
		const struct load_seg *l = &o->loads[i];
		uint64_t off, room;

		if (vaddr < l->vaddr || vaddr - l->vaddr >= l->filesz)
			continue;
		off = vaddr - l->vaddr + l->offset;
		if (off >= fsize)
			return -ENOENT;
		room = l->filesz - (vaddr - l->vaddr);
		if (room > fsize - off)
			room = fsize - off;
		if (*len > room)
			*len = (size_t)room;
		*bytes = (const uint8_t *)raw + off;
		return 0;
	}
	return -ENOENT;
}

int symbols__find_source(struct symbols *s, const struct sym_object *o, const char *path,
			 char **local)
{
	const unsigned char *id;
	size_t len = symobj__build_id(o, &id);

	return len ? symfile__find_source(s->finder, id, len, path, local) : -ENOENT;
}

/* DWARF of the file itself, else of its separate debug file (libdwfl asks find_debuginfo). */
static void open_dwarf(struct sym_object *o)
{
	o->dwarf_tried = 1;
	if (!o->mod)
		return;
	o->dwarf = dwfl_module_getdwarf(o->mod, &o->dwbias);
	if (o->dwarf)
		o->flags |= SYMOBJ_HAS_DWARF;
}

/* CU holding a DWARF address by a scan of every CU's ranges (no .debug_aranges: clang, rustc). */
static int scan_cu(struct sym_object *o, Dwarf_Addr addr, Dwarf_Die *cu)
{
	if (!o->cus_tried) {
		Dwarf_Off off = 0, next;
		size_t hsize, cap = 0;

		o->cus_tried = 1;
		while (dwarf_nextcu(o->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die die;

			if (dwarf_offdie(o->dwarf, off + hsize, &die)) {
				if (array__reserve(&o->cus, &cap, o->ncus + 1, sizeof(*o->cus)))
					break;
				o->cus[o->ncus++] = die;
			}
			off = next;
		}
	}
	for (size_t i = 0; i < o->ncus; i++) {
		if (dwarf_haspc(&o->cus[i], addr) == 1) {
			*cu = o->cus[i];
			return 0;
		}
	}
	return -ENOENT;
}

int symobj__srcline(struct sym_object *o, uint64_t vaddr, const char **file, int *line)
{
	Dwfl_Line *dl;
	Dwarf_Line *l;
	Dwarf_Die cu;
	const char *src;
	int lineno;

	if (!o->dwarf_tried)
		open_dwarf(o);
	if (!o->dwarf)
		return -ENOENT;
	/* libdwfl finds the CU by .debug_aranges; without them, our scan */
	dl = dwfl_module_getsrc(o->mod, vaddr + o->bias);
	if (dl) {
		src = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
	} else {
		Dwarf_Addr addr = vaddr + o->dwbias;

		if (scan_cu(o, addr, &cu) < 0)
			return -ENOENT;
		l = dwarf_getsrc_die(&cu, addr);
		if (!l || dwarf_lineno(l, &lineno) != 0)
			return -ENOENT;
		src = dwarf_linesrc(l, NULL, NULL);
	}
	if (!src)
		return -ENOENT;
	*file = src;
	*line = lineno;
	return 0;
}

/* The CU holding a link-time address, and the address in its DWARF.  0 or -ENOENT. */
static int cu_of(struct sym_object *o, uint64_t vaddr, Dwarf_Die *cu, Dwarf_Addr *addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *d = dwfl_module_addrdie(o->mod, vaddr + o->bias, &bias);

	if (d) {
		*cu = *d;
		*addr = vaddr + o->bias - bias;
		return 0;
	}
	*addr = vaddr + o->dwbias;
	return scan_cu(o, *addr, cu);
}

/* An inlined subroutine's name: its abstract origin's linkage name (demangled), else its name. */
static const char *inline_name(struct sym_object *o, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		name = dwarf_formstring(&a);
	if (name && *name)
		return demangled(o->owner, unversioned(o->owner, name) ?: name);
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		name = dwarf_formstring(&a);
	return name && *name ? name : NULL;
}

/* Where an inlined subroutine was called from: DW_AT_call_file and DW_AT_call_line. */
static void call_site(struct sym_object *o, Dwarf_Die *cu, Dwarf_Die *die, struct sym_inline *in)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, line;
	Dwarf_Files *files;
	size_t nfiles;

	in->call_file = NULL;
	in->call_line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &line) == 0 &&
	    line <= INT32_MAX)
		in->call_line = (int)line;
	if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
		in->call_file = dwarf_filesrc(files, idx, NULL, NULL);
	(void)o;
}

int symobj__inlines(struct sym_object *o, uint64_t vaddr, struct sym_inline *out, int max)
{
	Dwarf_Die cu, *scopes = NULL, *chain = NULL;
	Dwarf_Addr addr;
	int n, k = 0, first = -1;

	if (!o->dwarf_tried)
		open_dwarf(o);
	if (!o->dwarf || max <= 0 || cu_of(o, vaddr, &cu, &addr) < 0)
		return 0;
	/*
	 * The innermost inlined instance holding the address, then its
	 * containing DIEs in the concrete tree (dwarf_getscopes continues
	 * with the abstract definition's scopes instead, as eu-addr2line -i
	 * knows): the inlined calls out to the function the symbol names.
	 */
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n && first < 0; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			first = i;
	}
	n = first < 0 ? 0 : dwarf_getscopes_die(&scopes[first], &chain);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag == DW_TAG_subprogram)
			break; /* the function the symbol names */
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		out[k].name = inline_name(o, &chain[i]);
		if (!out[k].name)
			out[k].name = "[inlined]";
		call_site(o, &cu, &chain[i], &out[k]);
		k++;
	}
	free(chain);
	free(scopes);
	return k;
}

const char *symobj__comp_dir(struct sym_object *o, uint64_t vaddr)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;
	Dwarf_Die cu;

	if (!o->dwarf_tried)
		open_dwarf(o);
	if (!o->dwarf || cu_of(o, vaddr, &cu, &addr) < 0 || !dwarf_attr(&cu, DW_AT_comp_dir, &a))
		return NULL;
	return dwarf_formstring(&a);
}
