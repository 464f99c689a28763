// SPDX-License-Identifier: MIT
/* htab: open addressing, linear probing, stored hashes.  See htab.h. */
#include <stdlib.h>
#include <string.h>

#include "utils/htab.h"

#define MIN_SLOTS 16

struct htab {
	const struct htab_type *type;
	uint64_t *hashes; /* per slot; 0 = empty */
	char *entries;	  /* per slot, type->entry_size bytes */
	size_t mask;	  /* slots - 1; 0 while nothing is allocated */
	size_t first_mask;
	size_t n;
};

/* 0 marks an empty slot: a key that hashes to 0 is stored as 1. */
static uint64_t key_hash(const struct htab *t, const void *key)
{
	uint64_t h = t->type->hash(key);

	return h ? h : 1;
}

static void *entry_at(const struct htab *t, size_t i)
{
	return t->entries + i * t->type->entry_size;
}

static int alloc_slots(struct htab *t, size_t mask)
{
	t->hashes = calloc(mask + 1, sizeof(*t->hashes));
	t->entries = calloc(mask + 1, t->type->entry_size);
	if (!t->hashes || !t->entries) {
		free(t->hashes);
		free(t->entries);
		t->hashes = NULL;
		t->entries = NULL;
		return -1;
	}
	t->mask = mask;
	return 0;
}

struct htab *htab__new(const struct htab_type *type, size_t expected)
{
	struct htab *t = calloc(1, sizeof(*t));
	size_t slots = MIN_SLOTS;

	if (!t || expected > SIZE_MAX / 4 / type->entry_size) {
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
	free(t->hashes);
	free(t->entries);
	free(t);
}

size_t htab__count(const struct htab *t)
{
	return t->n;
}

/* The slot holding key (hash h), or the empty slot where it would go. */
static size_t probe(const struct htab *t, uint64_t h, const void *key)
{
	size_t i = h & t->mask;

	for (; t->hashes[i]; i = (i + 1) & t->mask)
		if (t->hashes[i] == h && t->type->eq(entry_at(t, i), key))
			break;
	return i;
}

void *htab__find(const struct htab *t, const void *key)
{
	uint64_t h;
	size_t i;

	if (!t->n)
		return NULL;
	h = key_hash(t, key);
	i = probe(t, h, key);
	return t->hashes[i] ? entry_at(t, i) : NULL;
}

/* Double the slots; the old ones are re-placed in slot order. */
static int grow(struct htab *t)
{
	struct htab old = *t;

	if (alloc_slots(t, old.mask ? old.mask * 2 + 1 : old.first_mask) < 0) {
		*t = old;
		return -1;
	}
	for (size_t i = 0; old.mask && i <= old.mask; i++) {
		size_t k;

		if (!old.hashes[i])
			continue;
		for (k = old.hashes[i] & t->mask; t->hashes[k]; k = (k + 1) & t->mask)
			;
		t->hashes[k] = old.hashes[i];
		memcpy(entry_at(t, k), entry_at(&old, i), t->type->entry_size);
	}
	free(old.hashes);
	free(old.entries);
	return 0;
}

void *htab__insert(struct htab *t, const void *key, bool *fresh)
{
	uint64_t h = key_hash(t, key);
	size_t i;

	if ((t->n + 1) * 2 > t->mask && grow(t) < 0)
		return NULL;
	i = probe(t, h, key);
	*fresh = !t->hashes[i];
	if (*fresh) {
		t->hashes[i] = h;
		t->n++;
	}
	return entry_at(t, i);
}

void *htab__next(const struct htab *t, size_t *pos)
{
	for (; t->mask && *pos <= t->mask; (*pos)++)
		if (t->hashes[*pos])
			return entry_at(t, (*pos)++);
	return NULL;
}

void *htab__take(struct htab *t, size_t *n)
{
	size_t k = 0;
	char *entries = t->entries;

	for (size_t i = 0; t->mask && i <= t->mask; i++) {
		if (!t->hashes[i])
			continue;
		if (k != i)
			memcpy(entries + k * t->type->entry_size, entry_at(t, i),
			       t->type->entry_size);
		k++;
	}
	free(t->hashes);
	t->hashes = NULL;
	t->entries = NULL;
	t->mask = 0; /* the next insert allocates afresh */
	t->n = 0;
	*n = k;
	if (!k) {
		free(entries);
		return NULL;
	}
	return entries;
}

uint64_t htab_hash_u64(uint64_t x)
{
	/* splitmix64's finaliser: every input bit moves every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t htab_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

uint64_t htab_u64_hash(const void *key)
{
	return htab_hash_u64(*(const uint64_t *)key);
}

bool htab_u64_eq(const void *entry, const void *key)
{
	return *(const uint64_t *)entry == *(const uint64_t *)key;
}
