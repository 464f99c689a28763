// SPDX-License-Identifier: MIT
/* resolve: PCs to interned function rows.  See resolve.h. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/resolve.h"
#include "utils/array.h"
#include "utils/cmp.h"
#include "utils/htab.h"
#include "utils/sat.h"

/* The object of code a JIT compiler named. */
#define JIT_OBJECT "[jit]"

/* Code of an object that cannot be read is grouped by file page. */
#define UNREADABLE_GRAIN 4096

/* What one (object, address) resolved to (the key comes first: the hash of an entry is its key's). */
struct cache_ent {
	const void *obj;
	uint64_t addr; /* bit 63: a file offset (unreadable object), else a link-time address */
	const struct func *f;
	const struct func **chain; /* resolver__frames: inlined functions, then f's frame */
	uint32_t nchain;	   /* 0: not looked up yet */
};

struct resolver {
	const struct pview *v;
	struct symbols *syms;
	int lines;
	struct htab *cache; /* struct cache_ent */
	struct htab *funcs; /* struct func_ent: interned, so equal rows are equal pointers */
	struct resolve_note *notes;
	size_t nnotes, notes_cap;
};

/* Both tables start with 1024 slots: a profile has at least a few hundred functions. */
#define RESOLVE_EXPECTED 511

static uint64_t func_hash(const void *key)
{
	const struct func *f = key;

	return htab_hash_combine(htab_hash_combine((uintptr_t)f->name, (uintptr_t)f->objpath),
				 htab_hash_combine((uintptr_t)f->file, (uint64_t)f->line));
}

/* An interned function, and its hash (growing the table reads no struct func). */
struct func_ent {
	struct func *f;
	uint64_t hash;
};

/* The object is derived from objpath: not part of the key. */
static bool func_eq(const void *entry, const void *key)
{
	const struct func *a = ((const struct func_ent *)entry)->f, *b = key;

	return a->name == b->name && a->objpath == b->objpath && a->file == b->file &&
	       a->line == b->line;
}

static const struct htab_type func_type = {
	.entry_size = sizeof(struct func_ent),
	.hash = func_hash,
	.eq = func_eq,
	.stored_hash = HTAB_STORED_HASH(struct func_ent, hash),
};

static const struct htab_type cache_type = {
	.entry_size = sizeof(struct cache_ent),
	.hash = htab_2words_hash,
	.eq = htab_2words_eq,
};

struct resolver *resolver__new(const struct pview *v, int lines)
{
	struct resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->v = v;
	r->lines = lines;
	r->syms = symbols__new();
	r->cache = htab__new(&cache_type, RESOLVE_EXPECTED);
	r->funcs = htab__new(&func_type, RESOLVE_EXPECTED);
	if (!r->syms || !r->cache || !r->funcs) {
		resolver__free(r);
		return NULL;
	}
	return r;
}

void resolver__free(struct resolver *r)
{
	if (!r)
		return;
	HTAB_FREE_OWNED(r->funcs, struct func_ent, f);
	HTAB_FREE_OWNED(r->cache, struct cache_ent, chain);
	free(r->notes);
	symbols__free(r->syms);
	free(r);
}

struct symbols *resolver__symbols(struct resolver *r)
{
	return r->syms;
}

void resolver__set_view(struct resolver *r, const struct pview *v)
{
	r->v = v;
}

/* The shared copy of *f (all its strings must already be interned or stable). */
static const struct func *intern_func(struct resolver *r, const struct func *f)
{
	bool fresh;
	struct func_ent *e = htab__insert(r->funcs, &func_type, f, &fresh);

	if (!e)
		return NULL;
	if (fresh) {
		e->f = malloc(sizeof(*e->f));
		if (!e->f) {
			htab__cancel_fresh(r->funcs);
			return NULL;
		}
		*e->f = *f;
		e->hash = func_hash(f);
	}
	return e->f;
}

/* The note of obj; its index + 1 is kept in the object's user slot. */
static struct resolve_note *note_of(struct resolver *r, struct sym_object *obj)
{
	uintptr_t idx = (uintptr_t)*symobj__user(obj);
	struct resolve_note *n;

	if (idx)
		return &r->notes[idx - 1];
	n = array__push(&r->notes, &r->nnotes, &r->notes_cap, sizeof(*r->notes));
	if (!n)
		return NULL;
	*symobj__user(obj) = (void *)(uintptr_t)r->nnotes;
	n->obj = obj;
	n->first_start_ns = UINT64_MAX;
	return n;
}

size_t resolver__notes(struct resolver *r, const struct resolve_note **notes)
{
	*notes = r->notes;
	return r->nnotes;
}

static const struct func *unknown_func(struct resolver *r)
{
	struct func f = {"[unknown]", "[unknown]", "[unknown]", NULL, 0};

	return intern_func(r, &f);
}

/* Symbolise one (object, address): addr is a link-time vaddr, or a file offset if !readable. */
static const struct func *symbolise(struct resolver *r, struct sym_object *obj, uint64_t addr,
				    int readable)
{
	struct func f = {0};
	struct sym_result res;
	char buf[320];

	f.object = symobj__basename(obj);
	f.objpath = symobj__path(obj);
	if (!readable) {
		snprintf(buf, sizeof(buf), "[%s+0x%llx]", f.object,
			 (unsigned long long)(addr & ~(uint64_t)(UNREADABLE_GRAIN - 1)));
		f.name = symbols__intern(r->syms, buf);
		return f.name ? intern_func(r, &f) : NULL;
	}
	symobj__lookup(obj, addr, &res);
	f.name = res.name;
	if (r->lines) {
		const char *file;
		int line;

		if (symobj__srcline(obj, addr, &file, &line) == 0) {
			f.file = symbols__intern(r->syms, file);
			f.line = line;
		}
	}
	return intern_func(r, &f);
}

/*
 * Kernel code: named by the kernel symbols the recorder stored with the
 * profile, else one "[kernel]" row.  The pseudo PC of a stack cut short
 * is "[truncated]".
 */
static const struct func *kernel_func(struct resolver *r, uint64_t pc)
{
	const struct pv_ksym *k = pview__ksym(r->v, pc);
	/* interned: the view's strings may go before the resolver (resolver__set_view) */
	struct func f = {k ? symbols__intern(r->syms, k->name) : "[kernel]", "[kernel]", "[kernel]",
			 NULL, 0};

	if (pc == PDATA_PC_TRUNCATED)
		f.name = f.object = f.objpath = "[truncated]";
	else if (pc == PDATA_PC_OFFCPU)
		f.name = f.object = f.objpath = "[off-cpu]";
	return f.name ? intern_func(r, &f) : NULL;
}

/*
 * The object of a mapping.  A process of another mount namespace (record
 * -a) named its files as it saw them: they are read through /proc/PID/root
 * while it lives (the build id, when recorded, says whether it is still
 * the one), else at the path as this namespace sees it.
 */
static struct sym_object *object_of(struct resolver *r, const struct pv_proc *p,
				    const struct pv_map *m)
{
	if ((p->ctx_flags & PDATA_CTX_MNTNS) && m->path[0] == '/' && p->pid > 0) {
		char path[PATH_MAX + 32];
		struct sym_object *o;

		snprintf(path, sizeof(path), "/proc/%d/root%s", p->pid, m->path);
		o = symbols__object_id(r->syms, path, m->build_id, m->build_id_len);
		if (o && !(symobj__flags(o) &
			   (SYMOBJ_MISSING | SYMOBJ_NOT_ELF | SYMOBJ_BUILD_ID_DIFFERS)))
			return o;
	}
	return symbols__object_id(r->syms, m->path, m->build_id, m->build_id_len);
}

const struct func *resolver__pc(struct resolver *r, const struct pv_proc *p, uint32_t gen,
				uint64_t pc, uint64_t count)
{
	struct resolve_loc loc;

	return resolver__locate(r, p, gen, pc, count, &loc) < 0 ? NULL : loc.f;
}

int resolver__locate(struct resolver *r, const struct pv_proc *p, uint32_t gen, uint64_t pc,
		     uint64_t count, struct resolve_loc *loc)
{
	const struct pv_map *m = pview__map_of(r->v, p, gen, pc);
	struct pv_map *mm = (struct pv_map *)m; /* aux is the reader's cache slot */
	struct sym_object *obj;
	struct resolve_note *note;
	struct cache_ent key, *slot;
	uint64_t addr;
	int readable;
	bool fresh;

	memset(loc, 0, sizeof(*loc));
	if (pc < PDATA_KERNEL_START && (!m || m->path[0] != '/')) {
		/* anonymous code a JIT compiler named (perf map, jitdump) */
		const struct pv_jitsym *j = pview__jitsym(r->v, p, pc);

		if (j) {
			/* one row per name: code compiled again (tiers, OSR) is the same function */
			struct func jf = {symbols__intern(r->syms, j->name), JIT_OBJECT, JIT_OBJECT,
					  NULL, 0};

			loc->addr = pc;
			loc->f = jf.name ? intern_func(r, &jf) : NULL;
			return loc->f ? 0 : -ENOMEM;
		}
	}
	if (pc >= PDATA_KERNEL_START || !m) {
		loc->addr = pc;
		loc->f = pc >= PDATA_KERNEL_START ? kernel_func(r, pc) : unknown_func(r);
		return loc->f ? 0 : -ENOMEM;
	}
	if (!mm->aux) /* the build id the recorder saw, when it did: the file must still carry it */
		mm->aux = object_of(r, p, m);
	obj = mm->aux;
	if (!obj)
		return -ENOMEM;
	note = note_of(r, obj);
	if (!note)
		return -ENOMEM;
	note->samples = sat_add(note->samples, count);
	if (p->start_ns && p->start_ns < note->first_start_ns)
		note->first_start_ns = p->start_ns;
	readable = !(symobj__flags(obj) & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF | SYMOBJ_PSEUDO));
	if (readable && symobj__to_vaddr(obj, m->start, m->pgoff, pc, &addr) < 0) {
		note->no_vaddr = 1;
		readable = 0;
	}
	if (!readable)
		addr = (symobj__flags(obj) & SYMOBJ_PSEUDO) ?
			       0 :
			       symobj__file_offset(m->start, m->pgoff, pc);
	loc->obj = obj;
	loc->addr = addr;
	loc->linktime = readable;
	key = (struct cache_ent){obj, addr | (readable ? 0 : 1ull << 63), NULL, NULL, 0};
	slot = htab__insert(r->cache, &cache_type, &key, &fresh);
	if (!slot)
		return -ENOMEM;
	if (fresh)
		*slot = key;
	if (!slot->f) { /* first time (or it failed before): symbolise, into another table */
		const struct func *f;

		if (symobj__flags(obj) & SYMOBJ_PSEUDO) {
			struct func pf = {symobj__path(obj), symobj__path(obj), symobj__path(obj),
					  NULL, 0};

			f = intern_func(r, &pf);
		} else {
			f = symbolise(r, obj, addr, readable);
		}
		if (!f)
			return -ENOMEM;
		slot->f = f;
	}
	if (slot->f->name[0] == '[' && !(symobj__flags(obj) & SYMOBJ_PSEUDO))
		note->unnamed = sat_add(note->unnamed, count);
	loc->f = slot->f;
	loc->slot = slot;
	return 0;
}

/* The frame of an inlined function (or, last, of the symbol's function) at file:line. */
static const struct func *chain_func(struct resolver *r, const struct func *f, const char *name,
				     const char *file, int line)
{
	struct func g = *f;

	g.name = name;
	if (r->lines) {
		g.file = file ? symbols__intern(r->syms, file) : NULL;
		g.line = file ? line : 0;
		if (file && !g.file)
			return NULL;
	}
	return intern_func(r, &g);
}

/* The inlined calls at a located address and its function, innermost first, into e->chain. */
static int build_chain(struct resolver *r, const struct resolve_loc *loc, struct cache_ent *e)
{
	struct sym_inline in[RESOLVE_MAX_INLINE];
	int n = loc->linktime ? symobj__inlines(loc->obj, loc->addr, in, RESOLVE_MAX_INLINE) : 0;
	const struct func **chain = calloc((size_t)n + 1, sizeof(*chain));

	if (!chain)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		/* [0] at the address's own line (the row's), [i] at the call in it of [i - 1] */
		const char *file = i ? in[i - 1].call_file : e->f->file;
		int line = i ? in[i - 1].call_line : e->f->line;

		chain[i] = chain_func(r, e->f, in[i].name, file, line);
		if (!chain[i]) {
			free(chain);
			return -ENOMEM;
		}
	}
	chain[n] = n ? chain_func(r, e->f, e->f->name, in[n - 1].call_file, in[n - 1].call_line) :
		       e->f;
	if (!chain[n]) {
		free(chain);
		return -ENOMEM;
	}
	e->chain = chain;
	e->nchain = (uint32_t)n + 1;
	return 0;
}

int resolver__frames(struct resolver *r, const struct pv_proc *p, uint32_t gen, uint64_t pc,
		     uint64_t count, const struct func **out, unsigned max)
{
	struct resolve_loc loc;
	struct cache_ent *e;
	uint32_t skip;

	if (!max)
		return 0;
	if (resolver__locate(r, p, gen, pc, count, &loc) < 0)
		return -ENOMEM;
	e = loc.slot;
	if (!e) { /* kernel and unknown PCs: no inlining known */
		out[0] = loc.f;
		return 1;
	}
	if (!e->nchain && build_chain(r, &loc, e) < 0)
		return -ENOMEM;
	/* short of room: the outermost frames (the function itself always) */
	skip = e->nchain > max ? e->nchain - max : 0;
	memcpy(out, e->chain + skip, (e->nchain - skip) * sizeof(*out));
	return (int)(e->nchain - skip);
}

int func__cmp(const struct func *x, const struct func *y)
{
	if (x == y)
		return 0;
	if (!x || !y)
		return x ? 1 : -1;
	return cmp__str(x->name, y->name)		?:
		       cmp__str(x->objpath, y->objpath) ?:
		       cmp__str(x->file, y->file)	?:
							  CMP(x->line, y->line);
}
