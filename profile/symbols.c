// SPDX-License-Identifier: MIT
/*
 * Symbolisation with elfutils: see symbols.h.  Each object keeps its Elf
 * handle (mmapped read-only) for the life of the cache, so symbol names
 * point straight into the string tables and nothing is copied.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/symbols.h"
#include "utils/htab.h"

struct sym {
	uint64_t start;
	uint64_t end; /* exclusive */
	const char *name;
};

struct load_seg {
	uint64_t offset, filesz, vaddr, memsz;
	uint32_t flags;
};

struct sym_object {
	struct sym_object *next; /* older objects of the same path (the file changed) */
	char *path;
	const char *base;
	unsigned flags;
	char why[160];
	struct stat st;
	int fd;
	Elf *elf;
	struct load_seg *loads;
	size_t nloads;
	struct sym *syms;
	size_t nsyms;
	/* libdw, opened on first use */
	int dwarf_tried;
	int dbg_tried;
	Dwarf *dwarf;
	int dbg_fd;
	Elf *dbg_elf;
	Dwarf_Die *cus; /* fallback CU list when .debug_aranges is missing */
	size_t ncus;
	int cus_tried;
	int cfi_tried;
	Dwarf_CFI *cfi;
	struct symbols *owner;
	void *user;
};

struct symbols {
	struct htab *objects; /* path -> struct sym_object *, newest first */
	int demangler_tried;
	char *(*demangle)(const char *mangled, char *buf, size_t *len, int *status);
	struct htab *strs; /* interned strings (range names): struct str_ent */
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

static uint64_t str_entry_hash(const void *entry)
{
	return ((const struct str_ent *)entry)->hash;
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
	.entry_hash = str_entry_hash,
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
	if (!s->objects || !s->strs) {
		symbols__free(s);
		return NULL;
	}
	return s;
}

static void object_free(struct sym_object *o)
{
	if (o->dwarf)
		dwarf_end(o->dwarf);
	if (o->dbg_elf)
		elf_end(o->dbg_elf);
	if (o->dbg_fd >= 0)
		close(o->dbg_fd);
	/* o->cfi belongs to o->elf (dwarf_getcfi_elf) and is freed by dwarf_cfi_end */
	if (o->cfi)
		dwarf_cfi_end(o->cfi);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->cus);
	free(o->loads);
	free(o->syms);
	free(o->path);
	free(o);
}

void symbols__free(struct symbols *s)
{
	struct sym_object **head;
	struct str_ent *str;

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
	for (size_t pos = 0; s->strs && (str = htab__next(s->strs, &pos));)
		free(str->s);
	htab__free(s->strs);
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

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->bind_order != y->bind_order)
		return x->bind_order - y->bind_order;
	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? 1 : -1;
	if (x->underscores != y->underscores)
		return x->underscores - y->underscores;
	return strcmp(x->name, y->name);
}

/*
 * Open path read-only if, and only if, it is a regular file, and without
 * any side effect otherwise: an O_PATH descriptor opens nothing (no wait
 * for a FIFO's writer, no device driver's open), and the file is then
 * reopened through /proc/self/fd, which names that very inode (no window
 * to swap the path).  Returns the descriptor (*st filled) or -errno
 * (-EINVAL: not a regular file).
 */
static int open_regular(const char *path, struct stat *st)
{
	char self[64];
	struct stat now;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		err = S_ISREG(st->st_mode) ? -errno : -EINVAL;
		close(pfd);
		return err;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) /* no /proc: the path again, checked below */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	err = -errno;
	close(pfd);
	if (fd < 0)
		return err;
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE; /* replaced while being opened */
	}
	return fd;
}

/*
 * The separate debug file of a stripped object, found by build id in
 * /usr/lib/debug/.build-id/xx/rest.debug (Debian's -dbgsym packages).
 * Returns 0 when o->dbg_elf is open.
 */
static int open_debug_file(struct sym_object *o)
{
	const unsigned char *b;
	const void *id;
	struct stat st;
	char path[256];
	ssize_t len;
	int n;

	if (o->dbg_tried)
		return o->dbg_elf ? 0 : -ENOENT;
	o->dbg_tried = 1;
	len = dwelf_elf_gnu_build_id(o->elf, &id);
	if (len < 2 || len > 64)
		return -ENOENT;
	b = id;
	n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", b[0]);
	for (ssize_t k = 1; k < len && n < (int)sizeof(path) - 8; k++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", b[k]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	o->dbg_fd = open_regular(path, &st);
	if (o->dbg_fd < 0)
		return -ENOENT;
	o->dbg_elf = elf_begin(o->dbg_fd, ELF_C_READ_MMAP, NULL);
	if (o->dbg_elf && elf_kind(o->dbg_elf) == ELF_K_ELF)
		return 0;
	if (o->dbg_elf)
		elf_end(o->dbg_elf);
	o->dbg_elf = NULL;
	return -ENOENT;
}

/* Collect function symbols of one symbol table section. */
static int read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct raw_sym **out, size_t *nout)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count, n = 0;
	struct raw_sym *raw;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	raw = calloc(count ? count : 1, sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		GElf_Shdr ssh;
		Elf_Scn *sscn;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		sscn = elf_getscn(elf, sym.st_shndx);
		raw[n].limit = UINT64_MAX;
		if (sscn && gelf_getshdr(sscn, &ssh) && ssh.sh_addr <= sym.st_value)
			raw[n].limit = ssh.sh_addr + ssh.sh_size;
		raw[n].start = sym.st_value;
		raw[n].size = sym.st_size;
		raw[n].name = name;
		raw[n].bind_order = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		raw[n].underscores = bind_rank(name);
		n++;
	}
	*out = raw;
	*nout = n;
	return 0;
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

/* .symtab; else the debug file's .symtab; else .dynsym (flagged: stripped). */
static int load_symbols(struct sym_object *o)
{
	Elf *elf = o->elf;
	Elf_Scn *scn = find_symtab(elf, SHT_SYMTAB);
	struct raw_sym *raw = NULL;
	GElf_Shdr sh;
	size_t n = 0;
	int rc;

	if (!scn && open_debug_file(o) == 0) {
		scn = find_symtab(o->dbg_elf, SHT_SYMTAB);
		if (scn) {
			elf = o->dbg_elf;
			o->flags |= SYMOBJ_DEBUG_SYMS;
		}
	}
	if (!scn) {
		scn = find_symtab(elf, SHT_DYNSYM);
		if (scn)
			o->flags |= SYMOBJ_DYNSYM;
	}
	if (scn && gelf_getshdr(scn, &sh)) {
		rc = read_symtab(elf, scn, &sh, &raw, &n);
		if (rc < 0)
			return rc;
	}
	rc = build_syms(o, raw, n);
	free(raw);
	if (rc < 0)
		return rc;
	if (!o->nsyms)
		o->flags |= SYMOBJ_NOSYMS;
	return 0;
}

static int open_elf(struct sym_object *o)
{
	GElf_Ehdr eh;

	o->fd = open_regular(o->path, &o->st);
	if (o->fd == -EINVAL) {
		o->flags |= SYMOBJ_NOT_ELF;
		snprintf(o->why, sizeof(o->why), "%s is not a regular file", o->path);
		return 0;
	}
	if (o->fd < 0) {
		o->flags |= SYMOBJ_MISSING;
		snprintf(o->why, sizeof(o->why), "cannot open %s: %s", o->path, strerror(-o->fd));
		o->fd = -1;
		return 0;
	}
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh)) {
		o->flags |= SYMOBJ_NOT_ELF;
		snprintf(o->why, sizeof(o->why), "%s is not an ELF file", o->path);
		return 0;
	}
	if (eh.e_type == ET_EXEC)
		o->flags |= SYMOBJ_EXEC | SYMOBJ_STATIC;
	else if (eh.e_type == ET_DYN)
		o->flags |= SYMOBJ_STATIC; /* cleared below by PT_INTERP/PT_DYNAMIC */
	if (load_segments(o) < 0)
		return -ENOMEM;
	return load_symbols(o);
}

static int is_pseudo(const char *path)
{
	return path[0] != '/';
}

#define DELETED_SUFFIX " (deleted)"

/* /proc/PID/maps marks a mapped file that was unlinked: whatever is at the path now is another file. */
static int is_deleted(const char *path)
{
	size_t n = strlen(path), k = strlen(DELETED_SUFFIX);

	return n > k && !strcmp(path + n - k, DELETED_SUFFIX);
}

struct sym_object *symbols__object(struct symbols *s, const char *path)
{
	struct sym_object **head = htab__find(s->objects, &object_type, path), *o;
	struct stat st;
	int have_st = !is_pseudo(path) && !is_deleted(path) && stat(path, &st) == 0;
	const char *slash;
	bool fresh;

	for (o = head ? *head : NULL; o; o = o->next) {
		if (o->flags & (SYMOBJ_PSEUDO | SYMOBJ_MISSING)) {
			if (!have_st)
				return o;
			continue;
		}
		if (have_st && o->st.st_dev == st.st_dev && o->st.st_ino == st.st_ino &&
		    o->st.st_mtime == st.st_mtime)
			return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = -1;
	o->dbg_fd = -1;
	o->owner = s;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	slash = strrchr(o->path, '/');
	o->base = slash && slash[1] ? slash + 1 : o->path;
	if (is_pseudo(path)) {
		o->flags |= SYMOBJ_PSEUDO;
	} else if (is_deleted(path)) {
		o->flags |= SYMOBJ_MISSING;
		snprintf(o->why, sizeof(o->why), "%s was deleted while it was mapped", o->path);
	} else if (open_elf(o) < 0) {
		object_free(o);
		return NULL;
	}
	head = htab__insert(s->objects, &object_type, path, &fresh);
	if (!head) {
		object_free(o);
		return NULL;
	}
	o->next = fresh ? NULL : *head;
	*head = o;
	return o;
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

int symobj__to_vaddr(const struct sym_object *o, uint64_t map_start, uint64_t map_pgoff,
		     uint64_t pc, uint64_t *vaddr)
{
	uint64_t off = symobj__file_offset(map_start, map_pgoff, pc);
	const struct load_seg *best = NULL;

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
	const void *p;
	ssize_t len;

	if (!o->elf)
		return 0;
	len = dwelf_elf_gnu_build_id(o->elf, &p);
	if (len <= 0)
		return 0;
	*id = p;
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
	size_t lo = 0, hi = o->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* Start of the function holding vaddr according to the unwind tables, or -ENOENT. */
static int cfi_start(struct sym_object *o, uint64_t vaddr, uint64_t *start)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr s, e;
	bool signalp;

	if (!o->elf)
		return -ENOENT;
	if (!o->cfi_tried) {
		o->cfi_tried = 1;
		o->cfi = dwarf_getcfi_elf(o->elf);
	}
	if (!o->cfi || dwarf_cfi_addrframe(o->cfi, vaddr, &frame) != 0)
		return -ENOENT;
	if (dwarf_frame_info(frame, &s, &e, &signalp) < 0 || vaddr < s || vaddr >= e) {
		free(frame);
		return -ENOENT;
	}
	free(frame);
	*start = s;
	return 0;
}

/*
 * C++ names read better demangled.  The demangler is libstdc++'s
 * __cxa_demangle, looked up at run time so that profil needs no C++
 * runtime to build; without it names stay mangled.
 */
static const char *demangled(struct symbols *s, const char *name)
{
	const char *out = name;
	char *d;
	int status = -1;

	if (name[0] != '_' || name[1] != 'Z')
		return name;
	if (!s->demangler_tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		s->demangler_tried = 1;
		if (h)
			*(void **)&s->demangle = dlsym(h, "__cxa_demangle");
	}
	if (!s->demangle)
		return name;
	d = s->demangle(name, NULL, NULL, &status);
	if (d && status == 0)
		out = symbols__intern(s, d);
	free(d);
	return out ? out : name;
}

int symobj__lookup(struct sym_object *o, uint64_t vaddr, struct sym_result *res)
{
	char buf[320];
	long i = find_sym(o, vaddr);
	uint64_t start;

	res->vaddr = vaddr;
	/* nested or overlapping symbols: look a few entries back for one that covers */
	for (long k = i; k >= 0 && k > i - 4; k--) {
		if (vaddr < o->syms[k].end) {
			res->name = demangled(o->owner, o->syms[k].name);
			res->system_name = o->syms[k].name;
			res->start = o->syms[k].start;
			res->from_symbol = 1;
			return 0;
		}
	}
	res->from_symbol = 0;
	if (o->flags & SYMOBJ_PSEUDO) {
		res->name = res->system_name = o->path;
		res->start = 0;
		return 0;
	}
	if (cfi_start(o, vaddr, &start) < 0) {
		/* the gap between the neighbouring symbols */
		start = i >= 0 ? o->syms[i].end : 0;
		if (!start) {
			uint64_t lo, hi;

			start = symobj__text_range(o, &lo, &hi) == 0 && lo <= vaddr ? lo : vaddr;
		}
	}
	snprintf(buf, sizeof(buf), "[%s+0x%llx]", o->base, (unsigned long long)start);
	res->name = symbols__intern(o->owner, buf);
	if (!res->name)
		res->name = "[?]";
	res->system_name = res->name;
	res->start = start;
	return 0;
}

/* DWARF of the file itself, else of /usr/lib/debug/.build-id/xx/rest.debug. */
static void open_dwarf(struct sym_object *o)
{
	o->dwarf_tried = 1;
	if (!o->elf)
		return;
	o->dwarf = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
	if (!o->dwarf && open_debug_file(o) == 0)
		o->dwarf = dwarf_begin_elf(o->dbg_elf, DWARF_C_READ, NULL);
	if (o->dwarf)
		o->flags |= SYMOBJ_HAS_DWARF;
}

/* CU holding vaddr: .debug_aranges when present, else a scan of every CU's ranges. */
static int find_cu(struct sym_object *o, uint64_t vaddr, Dwarf_Die *cu)
{
	if (dwarf_addrdie(o->dwarf, vaddr, cu))
		return 0;
	if (!o->cus_tried) {
		Dwarf_Off off = 0, next;
		size_t hsize, cap = 0;

		o->cus_tried = 1;
		while (dwarf_nextcu(o->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die die;

			if (dwarf_offdie(o->dwarf, off + hsize, &die)) {
				if (o->ncus == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					Dwarf_Die *n = realloc(o->cus, ncap * sizeof(*n));

					if (!n)
						break;
					o->cus = n;
					cap = ncap;
				}
				o->cus[o->ncus++] = die;
			}
			off = next;
		}
	}
	for (size_t i = 0; i < o->ncus; i++) {
		if (dwarf_haspc(&o->cus[i], vaddr) == 1) {
			*cu = o->cus[i];
			return 0;
		}
	}
	return -ENOENT;
}

int symobj__srcline(struct sym_object *o, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int lineno;

	if (!o->dwarf_tried)
		open_dwarf(o);
	if (!o->dwarf || find_cu(o, vaddr, &cu) < 0)
		return -ENOENT;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l || dwarf_lineno(l, &lineno) != 0)
		return -ENOENT;
	src = dwarf_linesrc(l, NULL, NULL);
	if (!src)
		return -ENOENT;
	*file = src;
	*line = lineno;
	return 0;
}
