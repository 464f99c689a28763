/* SPDX-License-Identifier: MIT */
/*
 * htab: the project's one hash table.  Open addressing with linear probing
 * over an array of fixed-size entries that the caller defines; the key lives
 * inside the entry, and a slot is empty while its entry is all zero bytes,
 * so the table costs nothing beside the entries (a probe reads one slot,
 * one cache line).  The caller's type supplies the hash of a key and the
 * test "does this entry hold this key".  At most half the slots are used.
 *
 * A filled entry must never be all zero bytes: some field of it (the key, a
 * pointer, a count) is never 0.
 *
 * htab__find() and htab__insert() are inline and take the table's type
 * again: with a `static const struct htab_type` the compiler turns its hash
 * and eq into direct, inlined calls, as fast as a table written for the one
 * entry type (the report looks up every sample).  Pass the type the table
 * was made with.
 *
 * Entries move when the table grows: a pointer from htab__find() or
 * htab__insert() is valid until the next htab__insert().  For objects that
 * must stay put, make the entry a pointer to them.
 *
 * Iteration and htab__take() visit the entries in slot order, which depends
 * only on the hashes and the order of insertion: the same inserts give the
 * same order.
 */
#ifndef PROFIL_HTAB_H
#define PROFIL_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct htab_type {
	size_t entry_size; /* bytes per entry, key included: a multiple of 8 */
	uint64_t (*hash)(const void *key);
	bool (*eq)(const void *entry, const void *key); /* entry holds key */
	/*
	 * The hash of the key an entry holds, to re-place it when the table
	 * grows: HTAB_STORED_HASH(struct, field) when the entry keeps it in a
	 * uint64_t field, else entry_hash; neither when the entry starts with
	 * its key (hash(entry) is it).
	 */
	size_t stored_hash;
	uint64_t (*entry_hash)(const void *entry);
};

/* .stored_hash of a type whose entries keep their key's hash in field (a uint64_t). */
#define HTAB_STORED_HASH(type, field) (offsetof(type, field) + 1)

/* The table.  Its fields are the functions' business: use those. */
struct htab {
	const struct htab_type *type;
	char *slots; /* the entries themselves; all zero bytes = empty */
	size_t mask; /* slots - 1; 0 while nothing is allocated */
	size_t first_mask;
	size_t n;
};

/*
 * A table with room for `expected` entries before it first grows (at least
 * 16 slots).  NULL when out of memory.
 */
struct htab *htab__new(const struct htab_type *type, size_t expected);
void htab__free(struct htab *t);

/* Double the slots (htab__insert does it when needed).  0, or -ENOMEM (unchanged). */
int htab__grow(struct htab *t);

static inline __attribute__((always_inline)) void *
htab__slot(const struct htab *t, const struct htab_type *type, size_t i)
{
	return t->slots + i * type->entry_size;
}

static inline __attribute__((always_inline)) bool htab__slot_empty(const struct htab_type *type,
								   const void *entry)
{
	const uint64_t *w = (const uint64_t *)entry;

	for (size_t k = 0; k < type->entry_size / sizeof(*w); k++)
		if (w[k])
			return false;
	return true;
}

/* The slot holding key, or the empty slot where it would go. */
static inline __attribute__((always_inline)) void *
htab__probe(const struct htab *t, const struct htab_type *type, const void *key)
{
	size_t i = type->hash(key) & t->mask;
	void *e;

	for (; !htab__slot_empty(type, e = htab__slot(t, type, i)); i = (i + 1) & t->mask)
		if (type->eq(e, key))
			break;
	return e;
}

/* The entry holding key, or NULL.  type: the table's. */
static inline __attribute__((always_inline)) void *
htab__find(const struct htab *t, const struct htab_type *type, const void *key)
{
	void *e;

	if (!t->n)
		return NULL;
	e = htab__probe(t, type, key);
	return htab__slot_empty(type, e) ? NULL : e;
}

/*
 * The entry holding key; when there was none, a new zero-filled entry
 * (*fresh = true) that the caller must fill (so that it holds key, and is
 * not all zero) before the next call.  NULL when out of memory (the table
 * is unchanged).  type: the table's.
 */
static inline __attribute__((always_inline)) void *
htab__insert(struct htab *t, const struct htab_type *type, const void *key, bool *fresh)
{
	void *e;

	if ((t->n + 1) * 2 > t->mask && htab__grow(t) < 0)
		return NULL;
	e = htab__probe(t, type, key);
	*fresh = htab__slot_empty(type, e);
	t->n += *fresh;
	return e;
}

/*
 * The caller cannot fill the fresh entry htab__insert() just gave (out of
 * memory for what it points to): take it back.  Only right after that insert.
 */
static inline void htab__cancel_fresh(struct htab *t)
{
	t->n--;
}

size_t htab__count(const struct htab *t);

/* Iterate: size_t pos = 0; while ((e = htab__next(t, &pos))) ...  No insert meanwhile. */
void *htab__next(const struct htab *t, size_t *pos);

/*
 * Free a table whose entries (struct type) own what their pointer field
 * points to: each entry's field with free(), then the table.  t may be NULL.
 */
#define HTAB_FREE_OWNED(t, type, field)                                                            \
	do {                                                                                       \
		struct htab *t_ = (t);                                                             \
		type *e_;                                                                          \
                                                                                                   \
		for (size_t pos_ = 0; t_ && (e_ = htab__next(t_, &pos_));)                         \
			free(e_->field);                                                           \
		htab__free(t_);                                                                    \
	} while (0)

/*
 * Hand over the entries: packed at the start of one malloc'ed array (in slot
 * order), their number in *n.  The table is left empty, ready for reuse.
 * NULL (and *n = 0) for an empty table.
 */
void *htab__take(struct htab *t, size_t *n);

/* Hashes for keys: a 64-bit integer (splitmix64's finaliser), a NUL-terminated string (FNV-1a);
 * every hash of the project is made of these. */
static inline uint64_t htab_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t htab_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The hash of a key of several fields, combined one at a time: h = htab_hash_combine(h, field). */
static inline uint64_t htab_hash_combine(uint64_t h, uint64_t x)
{
	return htab_hash_u64(h ^ (x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

/* A type's hash and eq for entries that start with a uint64_t key (key: a uint64_t). */
static inline uint64_t htab_u64_hash(const void *key)
{
	return htab_hash_u64(*(const uint64_t *)key);
}

static inline bool htab_u64_eq(const void *entry, const void *key)
{
	return *(const uint64_t *)entry == *(const uint64_t *)key;
}

/* The type of a table whose entries (struct entry) start with their uint64_t key. */
#define HTAB_U64_TYPE(entry)                                                                       \
	{                                                                                          \
		.entry_size = sizeof(entry), .hash = htab_u64_hash, .eq = htab_u64_eq              \
	}

/*
 * Tables of objects by key: the entries are struct htab_obj, a uint64_t key
 * and a pointer to its object (never NULL, so a filled entry is never all
 * zero), which the caller owns and frees; the type is
 * HTAB_U64_TYPE(struct htab_obj).  The objects stay put as the table grows.
 */
struct htab_obj {
	uint64_t key;
	void *p;
};

/*
 * The object of key in t; when there was none, a new zero-filled object of
 * size bytes (*fresh = true), entered under key, for the caller to fill.
 * NULL when out of memory (t is unchanged).  type: the table's.
 */
void *htab__obj_get(struct htab *t, const struct htab_type *type, uint64_t key, size_t size,
		    bool *fresh);

/*
 * A type's hash and eq for entries that start with a 16-byte key: two 64-bit
 * words (numbers, or a pointer and a number; key: the same 16 bytes).
 */
static inline uint64_t htab_2words_hash(const void *key)
{
	uint64_t w[2];

	memcpy(w, key, sizeof(w));
	return htab_hash_combine(htab_hash_u64(w[0]), w[1]);
}

static inline bool htab_2words_eq(const void *entry, const void *key)
{
	return !memcmp(entry, key, 2 * sizeof(uint64_t));
}

/*
 * A type's hash and eq for entries that start with a struct htab_name_key:
 * a name (never NULL) and the object it belongs to (NULL: none; a NULL
 * object equals only a NULL one).
 */
struct htab_name_key {
	const char *name, *object;
};

static inline uint64_t htab_name_key_hash(const void *key)
{
	const struct htab_name_key *k = key;
	uint64_t h = htab_hash_str(k->name);

	return k->object ? htab_hash_combine(h, htab_hash_str(k->object)) : h;
}

static inline bool htab_name_key_eq(const void *entry, const void *key)
{
	const struct htab_name_key *e = entry, *k = key;

	if (strcmp(e->name, k->name))
		return false;
	if (!e->object || !k->object)
		return e->object == k->object;
	return !strcmp(e->object, k->object);
}

/*
 * Index tables: a key -> the index of its element in an array the caller
 * keeps (the key is in the element or made from it), for writers that give
 * each distinct thing a number in order of appearance (pprof's tables, the
 * HTML page's).  An entry holds the key's hash and the index + 1.
 */
struct htab_islot {
	uint64_t h;
	uint64_t idx1; /* index + 1; 0 while the caller has not filled it */
};

/* Does element idx of the caller's array (ctx) hold key? */
typedef int (*htab_index_eq)(const void *ctx, uint32_t idx, const void *key);

/*
 * The entry of key (hash h) in *t (the table made at the first lookup): found
 * when ->idx1 != 0, else a fresh one that the caller fills (->h = h, ->idx1 =
 * index + 1) once the element is in its array, before the next lookup in *t
 * (an entry left unfilled stays empty).  NULL when out of memory.
 */
struct htab_islot *htab__index_slot(struct htab **t, uint64_t h, htab_index_eq eq, const void *ctx,
				    const void *key);

#endif /* PROFIL_HTAB_H */
