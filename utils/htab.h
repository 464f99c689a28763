/* SPDX-License-Identifier: MIT */
/*
 * htab: the project's one hash table.  Open addressing with linear probing
 * over an array of fixed-size entries that the caller defines; the key lives
 * inside the entry.  The caller's type supplies the hash of a key and the
 * test "does this entry hold this key".  The table keeps every entry's hash
 * beside it, so a probe compares hashes first (eq is called only on a hash
 * match) and growing never calls back.  At most half the slots are used.
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

struct htab_type {
	size_t entry_size; /* bytes per entry, key included */
	uint64_t (*hash)(const void *key);
	bool (*eq)(const void *entry, const void *key); /* entry holds key */
};

struct htab;

/*
 * A table with room for `expected` entries before it first grows (at least
 * 16 slots).  NULL when out of memory.
 */
struct htab *htab__new(const struct htab_type *type, size_t expected);
void htab__free(struct htab *t);

/* The entry holding key, or NULL. */
void *htab__find(const struct htab *t, const void *key);

/*
 * The entry holding key; when there was none, a new zero-filled entry
 * (*fresh = true) that the caller must fill so that it holds key before the
 * next call.  NULL when out of memory (the table is unchanged).
 */
void *htab__insert(struct htab *t, const void *key, bool *fresh);

size_t htab__count(const struct htab *t);

/* Iterate: size_t pos = 0; while ((e = htab__next(t, &pos))) ...  No insert meanwhile. */
void *htab__next(const struct htab *t, size_t *pos);

/*
 * Hand over the entries: packed at the start of one malloc'ed array (in slot
 * order), their number in *n.  The table is left empty, ready for reuse.
 * NULL (and *n = 0) for an empty table.
 */
void *htab__take(struct htab *t, size_t *n);

/* Hashes for keys: a 64-bit integer, a NUL-terminated string. */
uint64_t htab_hash_u64(uint64_t x);
uint64_t htab_hash_str(const char *s);

/* A type's hash and eq for entries that start with a uint64_t key (key: a uint64_t). */
uint64_t htab_u64_hash(const void *key);
bool htab_u64_eq(const void *entry, const void *key);

#endif /* PROFIL_HTAB_H */
