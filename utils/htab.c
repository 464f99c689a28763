// SPDX-License-Identifier: MIT
/* htab: open addressing, linear probing over the caller's entries.  See htab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "utils/htab.h"

#define MIN_SLOTS 16

static void *entry_at(const struct htab *t, size_t i)
{
	return htab__slot(t, t->type, i);
}

static bool is_empty(const struct htab *t, const void *entry)
{
	return htab__slot_empty(t->type, entry);
}

/* Entries are a few words: a word loop beats a call to memcpy per entry. */
static void copy_entry(void *dst, const void *src, size_t size)
{
	uint64_t *d = dst;
	const uint64_t *w = src;

	for (size_t k = 0; k < size / sizeof(*w); k++)
		d[k] = w[k];
}

static uint64_t entry_hash(const struct htab *t, const void *entry)
{
	const struct htab_type *type = t->type;
	uint64_t h;

	if (type->stored_hash) {
		memcpy(&h, (const char *)entry + type->stored_hash - 1, sizeof(h));
		return h;
	}
	return type->entry_hash ? type->entry_hash(entry) : type->hash(entry);
}

static int alloc_slots(struct htab *t, size_t mask)
{
	t->slots = calloc(mask + 1, t->type->entry_size);
	if (!t->slots)
		return -ENOMEM;
	t->mask = mask;
	return 0;
}

struct htab *htab__new(const struct htab_type *type, size_t expected)
{
	struct htab *t = calloc(1, sizeof(*t));
	size_t slots = MIN_SLOTS;

	if (!t || !type->entry_size || type->entry_size % sizeof(uint64_t) ||
	    expected > SIZE_MAX / 4 / type->entry_size) {
		free(t);
		return NULL;
	}
	t->type = type;
	/* room for `expected`: insert grows when (n + 1) * 2 > mask */
	while (slots - 1 < expected * 2)
		slots *= 2;
	t->first_mask = slots - 1;
	if (alloc_slots(t, t->first_mask) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

void htab__free(struct htab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

size_t htab__count(const struct htab *t)
{
	return t->n;
}

/* The old entries are re-placed in slot order. */
int htab__grow(struct htab *t)
{
	struct htab old = *t;
	size_t size = t->type->entry_size;

	if (alloc_slots(t, old.mask ? old.mask * 2 + 1 : old.first_mask) < 0) {
		*t = old;
		return -ENOMEM;
	}
	for (size_t i = 0; old.mask && i <= old.mask; i++) {
		const void *e = entry_at(&old, i);
		size_t k;

		if (is_empty(&old, e))
			continue;
		for (k = entry_hash(t, e) & t->mask; !is_empty(t, entry_at(t, k));
		     k = (k + 1) & t->mask)
			;
		copy_entry(entry_at(t, k), e, size);
	}
	free(old.slots);
	return 0;
}

void *htab__next(const struct htab *t, size_t *pos)
{
	for (; t->mask && *pos <= t->mask; (*pos)++)
		if (!is_empty(t, entry_at(t, *pos)))
			return entry_at(t, (*pos)++);
	return NULL;
}

void *htab__take(struct htab *t, size_t *n)
{
	size_t k = 0, size = t->type->entry_size;
	char *entries = t->slots, *shrunk;

	for (size_t i = 0; t->mask && i <= t->mask; i++) {
		if (is_empty(t, entry_at(t, i)))
			continue;
		if (k != i)
			copy_entry(entries + k * size, entry_at(t, i), size);
		k++;
	}
	t->slots = NULL;
	t->mask = 0; /* the next insert allocates afresh */
	t->n = 0;
	*n = k;
	if (!k) {
		free(entries);
		return NULL;
	}
	shrunk = realloc(entries, k * size); /* give the empty slots back */
	return shrunk ? shrunk : entries;
}

/* ---- index tables ---------------------------------------------------------- */

/* A lookup: the key, its hash, and how to compare it with an entry's element. */
struct ikey {
	uint64_t h;
	htab_index_eq eq;
	const void *ctx, *key;
};

static uint64_t ikey_hash(const void *k)
{
	return ((const struct ikey *)k)->h;
}

static bool islot_eq(const void *entry, const void *k)
{
	const struct htab_islot *e = entry;
	const struct ikey *q = k;

	return e->h == q->h && q->eq(q->ctx, (uint32_t)(e->idx1 - 1), q->key);
}

static const struct htab_type islot_type = {
	.entry_size = sizeof(struct htab_islot),
	.hash = ikey_hash,
	.eq = islot_eq,
	.stored_hash = HTAB_STORED_HASH(struct htab_islot, h),
};

struct htab_islot *htab__index_slot(struct htab **t, uint64_t h, htab_index_eq eq, const void *ctx,
				    const void *key)
{
	struct ikey q = {h, eq, ctx, key};
	bool fresh;

	if (!*t && !(*t = htab__new(&islot_type, 256)))
		return NULL;
	return htab__insert(*t, &islot_type, &q, &fresh);
}

void *htab__obj_get(struct htab *t, const struct htab_type *type, uint64_t key, size_t size,
		    bool *fresh)
{
	struct htab_obj *e = htab__insert(t, type, &key, fresh);
	void *p;

	if (!e)
		return NULL;
	if (!*fresh)
		return e->p;
	p = calloc(1, size);
	if (!p) {
		htab__cancel_fresh(t); /* the entry is still all zero bytes: empty */
		return NULL;
	}
	e->key = key;
	e->p = p;
	return p;
}
