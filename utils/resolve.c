// SPDX-License-Identifier: MIT
/* resolve: PCs to interned function rows.  See resolve.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"

/* Code of an object that cannot be read is grouped by file page. */
#define UNREADABLE_GRAIN 4096

struct cache_ent {
	const void *obj; /* NULL with addr 0: no mapping */
	uint64_t addr;
	const struct func *f;
};

struct resolver {
	const struct pview *v;
	struct symbols *syms;
	int lines;
	struct cache_ent *cache;
	size_t cache_mask, cache_n;
	struct func **funcs; /* interned: open addressing */
	size_t funcs_mask, funcs_n;
	struct resolve_note *notes;
	size_t nnotes;
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull + (a << 6));

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

struct resolver *resolver__new(const struct pview *v, int lines)
{
	struct resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->v = v;
	r->lines = lines;
	r->syms = symbols__new();
	r->cache_mask = 1023;
	r->cache = calloc(r->cache_mask + 1, sizeof(*r->cache));
	r->funcs_mask = 1023;
	r->funcs = calloc(r->funcs_mask + 1, sizeof(*r->funcs));
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
	for (size_t i = 0; r->funcs && i <= r->funcs_mask; i++)
		free(r->funcs[i]);
	free(r->funcs);
	free(r->cache);
	free(r->notes);
	symbols__free(r->syms);
	free(r);
}

struct symbols *resolver__symbols(struct resolver *r)
{
	return r->syms;
}

static uint64_t func_hash(const struct func *f)
{
	return mix(mix((uintptr_t)f->name, (uintptr_t)f->objpath),
		   mix((uintptr_t)f->file, (uint64_t)f->line));
}

static int func_eq(const struct func *a, const struct func *b)
{
	return a->name == b->name && a->objpath == b->objpath && a->file == b->file &&
	       a->line == b->line;
}

static int grow_funcs(struct resolver *r)
{
	size_t nmask = r->funcs_mask * 2 + 1;
	struct func **n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= r->funcs_mask; i++) {
		size_t k;

		if (!r->funcs[i])
			continue;
		for (k = func_hash(r->funcs[i]) & nmask; n[k]; k = (k + 1) & nmask)
			;
		n[k] = r->funcs[i];
	}
	free(r->funcs);
	r->funcs = n;
	r->funcs_mask = nmask;
	return 0;
}

/* The shared copy of *f (all its strings must already be interned or stable). */
static const struct func *intern_func(struct resolver *r, const struct func *f)
{
	size_t k;

	if ((r->funcs_n + 1) * 2 > r->funcs_mask && grow_funcs(r) < 0)
		return NULL;
	for (k = func_hash(f) & r->funcs_mask; r->funcs[k]; k = (k + 1) & r->funcs_mask)
		if (func_eq(r->funcs[k], f))
			return r->funcs[k];
	r->funcs[k] = malloc(sizeof(*f));
	if (!r->funcs[k])
		return NULL;
	*r->funcs[k] = *f;
	r->funcs_n++;
	return r->funcs[k];
}

static int grow_cache(struct resolver *r)
{
	size_t nmask = r->cache_mask * 2 + 1;
	struct cache_ent *n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= r->cache_mask; i++) {
		size_t k;

		if (!r->cache[i].f)
			continue;
		for (k = mix((uintptr_t)r->cache[i].obj, r->cache[i].addr) & nmask; n[k].f;
		     k = (k + 1) & nmask)
			;
		n[k] = r->cache[i];
	}
	free(r->cache);
	r->cache = n;
	r->cache_mask = nmask;
	return 0;
}

static struct cache_ent *cache_slot(struct resolver *r, const void *obj, uint64_t addr)
{
	size_t k;

	if ((r->cache_n + 1) * 2 > r->cache_mask && grow_cache(r) < 0)
		return NULL;
	for (k = mix((uintptr_t)obj, addr) & r->cache_mask; r->cache[k].f;
	     k = (k + 1) & r->cache_mask)
		if (r->cache[k].obj == obj && r->cache[k].addr == addr)
			break;
	return &r->cache[k];
}

/* The note of obj; its index + 1 is kept in the object's user slot. */
static struct resolve_note *note_of(struct resolver *r, struct sym_object *obj)
{
	uintptr_t idx = (uintptr_t)*symobj__user(obj);
	struct resolve_note *n;

	if (idx)
		return &r->notes[idx - 1];
	if ((r->nnotes & (r->nnotes - 1)) == 0) { /* grow at powers of two */
		n = realloc(r->notes, (r->nnotes ? r->nnotes * 2 : 8) * sizeof(*n));
		if (!n)
			return NULL;
		r->notes = n;
	}
	n = &r->notes[r->nnotes++];
	*symobj__user(obj) = (void *)(uintptr_t)r->nnotes;
	memset(n, 0, sizeof(*n));
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

const struct func *resolver__pc(struct resolver *r, const struct pv_proc *p, uint64_t pc,
				uint64_t count)
{
	struct resolve_loc loc;

	return resolver__locate(r, p, pc, count, &loc) < 0 ? NULL : loc.f;
}

int resolver__locate(struct resolver *r, const struct pv_proc *p, uint64_t pc, uint64_t count,
		     struct resolve_loc *loc)
{
	const struct pv_map *m = pview__map_of(r->v, p, pc);
	struct pv_map *mm = (struct pv_map *)m; /* aux is the reader's cache slot */
	struct sym_object *obj;
	struct resolve_note *note;
	struct cache_ent *slot;
	uint64_t addr;
	int readable;

	memset(loc, 0, sizeof(*loc));
	if (!m) {
		loc->addr = pc;
		loc->f = unknown_func(r);
		return loc->f ? 0 : -ENOMEM;
	}
	if (!mm->aux)
		mm->aux = symbols__object(r->syms, m->path);
	obj = mm->aux;
	if (!obj)
		return -ENOMEM;
	note = note_of(r, obj);
	if (!note)
		return -ENOMEM;
	note->samples += count;
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
	slot = cache_slot(r, obj, addr | (readable ? 0 : 1ull << 63));
	if (!slot)
		return -ENOMEM;
	if (!slot->f) {
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
		slot->obj = obj;
		slot->addr = addr | (readable ? 0 : 1ull << 63);
		slot->f = f;
		r->cache_n++;
	}
	if (slot->f->name[0] == '[' && !(symobj__flags(obj) & SYMOBJ_PSEUDO))
		note->unnamed += count;
	loc->f = slot->f;
	return 0;
}
