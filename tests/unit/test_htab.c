// SPDX-License-Identifier: MIT
/* utils/htab: the one hash table, checked against a plain sorted array of the same keys; the
 * shared key types (name and object). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "utils/htab.h"
#include "xorshift.h"

#define NKEYS 100000

struct u64_count {
	uint64_t key;
	uint64_t count;
};

static const struct htab_type u64_count_type = HTAB_U64_TYPE(struct u64_count);

/* Every key collides: eq alone must tell them apart. */
static uint64_t zero_hash(const void *key)
{
	(void)key;
	return 0;
}

static const struct htab_type colliding_type = {
	.entry_size = sizeof(struct u64_count),
	.hash = zero_hash,
	.eq = htab_u64_eq,
};

/* Interned strings: the entry is a pointer to a string that never moves. */
static uint64_t str_hash(const void *key)
{
	return htab_hash_str(key);
}

static bool str_eq(const void *entry, const void *key)
{
	return !strcmp(*(char *const *)entry, key);
}

static uint64_t str_entry_hash(const void *entry)
{
	return htab_hash_str(*(char *const *)entry);
}

static const struct htab_type str_type = {
	.entry_size = sizeof(char *),
	.hash = str_hash,
	.eq = str_eq,
	.entry_hash = str_entry_hash,
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Count keys[i] (some repeated) and compare every count with the reference. */
static void check_counts(const char *name, const struct htab_type *type, size_t nkeys)
{
	static uint64_t keys[2 * NKEYS], sorted[2 * NKEYS];
	struct htab *t = htab__new(type, 0);
	uint64_t seed = 88172645463325252ull, sum = 0, iter_sum = 0;
	size_t distinct = 0, wrong = 0, iterated = 0, pos = 0;
	struct u64_count *e;
	char label[96];

	for (size_t i = 0; i < nkeys; i++) /* the second half repeats keys of the first */
		keys[i] = i < nkeys / 2 ? xorshift64(&seed) % (nkeys * 4) : keys[i - nkeys / 2];
	keys[0] = 0; /* key 0 is an ordinary key */
	for (size_t i = 0; t && i < nkeys; i++) {
		bool fresh;

		e = htab__insert(t, type, &keys[i], &fresh);
		if (!e)
			break;
		if (fresh)
			e->key = keys[i];
		e->count++;
	}
	memcpy(sorted, keys, nkeys * sizeof(*keys));
	qsort(sorted, nkeys, sizeof(*sorted), cmp_u64);
	for (size_t i = 0; i < nkeys; i++) {
		size_t run = 1;

		while (i + run < nkeys && sorted[i + run] == sorted[i])
			run++;
		e = t ? htab__find(t, type, &sorted[i]) : NULL;
		wrong += !e || e->key != sorted[i] || e->count != run;
		distinct++;
		sum += sorted[i] * run;
		i += run - 1;
	}
	snprintf(label, sizeof(label), "%s_every_key_counted", name);
	CHECKF(label, t && !wrong, "%zu of %zu keys wrong", wrong, distinct);
	snprintf(label, sizeof(label), "%s_count", name);
	CHECKF(label, t && htab__count(t) == distinct, "%zu entries, %zu keys",
	       t ? htab__count(t) : 0, distinct);
	while (t && (e = htab__next(t, &pos))) {
		iterated++;
		iter_sum += e->key * e->count;
	}
	snprintf(label, sizeof(label), "%s_iteration_visits_each_once", name);
	CHECKF(label, iterated == distinct && iter_sum == sum, "%zu visited of %zu", iterated,
	       distinct);
	htab__free(t);
}

static void check_absent(void)
{
	struct htab *t = htab__new(&u64_count_type, 0);
	size_t found = 0;
	bool fresh;

	for (uint64_t k = 0; t && k < 1000; k += 2) {
		struct u64_count *e = htab__insert(t, &u64_count_type, &k, &fresh);

		if (e)
			*e = (struct u64_count){k, 1}; /* a count: never all zero */
	}
	for (uint64_t k = 1; t && k < 1000; k += 2)
		found += htab__find(t, &u64_count_type, &k) != NULL;
	CHECKF("absent_keys_not_found", t && found == 0, "%zu odd keys found", found);
	htab__free(t);
}

/* The same inserts give the same order (iteration and take), whatever the growth. */
static void check_take_and_order(void)
{
	struct htab *a = htab__new(&u64_count_type, 0), *b = htab__new(&u64_count_type, 0);
	struct u64_count *ea, *eb, *taken;
	size_t pos_a = 0, pos_b = 0, same = 1, n = 0, visited = 0, packed = 1;
	uint64_t seed = 12345;
	bool fresh;

	for (int i = 0; a && b && i < 5000; i++) {
		uint64_t k = xorshift64(&seed);

		ea = htab__insert(a, &u64_count_type, &k, &fresh);
		eb = htab__insert(b, &u64_count_type, &k, &fresh);
		if (!ea || !eb)
			break;
		ea->key = eb->key = k;
		ea->count = eb->count = (uint64_t)i + 1;
	}
	while (a && b && (ea = htab__next(a, &pos_a))) {
		eb = htab__next(b, &pos_b);
		same &= eb && ea->key == eb->key;
		visited++;
	}
	CHECK("same_inserts_same_order", a && b && same && visited == 5000);
	pos_a = 0;
	taken = b ? htab__take(b, &n) : NULL;
	for (size_t i = 0; taken && i < n; i++) {
		/* taken[] is packed in slot order: the order iteration gave (a = b) */
		ea = htab__next(a, &pos_a);
		packed &= ea && ea->key == taken[i].key && ea->count == taken[i].count;
	}
	CHECKF("take_packs_in_slot_order", taken && n == 5000 && packed, "n=%zu", n);
	free(taken);
	CHECK("take_leaves_empty_table",
	      b && htab__count(b) == 0 && !htab__find(b, &u64_count_type, &seed));
	if (b) {
		uint64_t k = 7;

		ea = htab__insert(b, &u64_count_type, &k, &fresh);
		if (ea)
			*ea = (struct u64_count){k, 1};
		CHECK("reusable_after_take", ea && fresh && htab__count(b) == 1 &&
						     htab__find(b, &u64_count_type, &k) == ea);
	}
	htab__free(a);
	htab__free(b);
}

static void check_interned_strings(void)
{
	static const char *words[] = {"alpha", "beta", "gamma", "beta", "alpha", "delta"};
	struct htab *t = htab__new(&str_type, 0);
	const char *first_beta = NULL, *again = NULL;
	char **e;
	bool fresh;

	for (size_t i = 0; t && i < sizeof(words) / sizeof(words[0]); i++) {
		e = htab__insert(t, &str_type, words[i], &fresh);
		if (!e)
			break;
		if (fresh)
			*e = strdup(words[i]);
		if (!strcmp(words[i], "beta") && !first_beta)
			first_beta = *e;
	}
	/* grow the table a lot: the strings themselves do not move */
	for (int i = 0; t && i < 2000; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "word%d", i);
		e = htab__insert(t, &str_type, buf, &fresh);
		if (e && fresh)
			*e = strdup(buf);
	}
	e = t ? htab__find(t, &str_type, "beta") : NULL;
	again = e ? *e : NULL;
	CHECK("strings_interned_once", t && htab__count(t) == 4 + 2000);
	CHECK("interned_string_stays_put", first_beta && again == first_beta);
	for (size_t pos = 0; t && (e = htab__next(t, &pos));)
		free(*e);
	htab__free(t);
}

static void check_presized(void)
{
	struct htab *t = htab__new(&u64_count_type, 1000);
	struct u64_count *first = NULL, *e = NULL;
	uint64_t k = 0;
	bool fresh;

	/* room for 1000 entries: no growth, so the first entry does not move */
	for (k = 0; t && k < 1000; k++) {
		e = htab__insert(t, &u64_count_type, &k, &fresh);
		if (!e)
			break;
		*e = (struct u64_count){k, 1};
		if (!first)
			first = e;
	}
	k = 0;
	CHECK("presized_does_not_grow", t && first && htab__find(t, &u64_count_type, &k) == first);
	htab__free(t);
}

/* A fresh entry the caller cannot fill is taken back: the table is as before. */
static void check_cancel_fresh(void)
{
	struct htab *t = htab__new(&u64_count_type, 0);
	struct u64_count *e;
	uint64_t k = 42;
	bool fresh = false;

	e = t ? htab__insert(t, &u64_count_type, &k, &fresh) : NULL;
	if (e && fresh)
		htab__cancel_fresh(t);
	CHECK("cancelled_entry_absent",
	      e && fresh && htab__count(t) == 0 && !htab__find(t, &u64_count_type, &k));
	e = t ? htab__insert(t, &u64_count_type, &k, &fresh) : NULL;
	if (e)
		*e = (struct u64_count){k, 1};
	CHECK("insert_after_cancel",
	      e && fresh && htab__count(t) == 1 && htab__find(t, &u64_count_type, &k) == e);
	htab__free(t);
}

/* Entries that keep their key's hash: found again after the table grew many times. */
struct hashed_ent {
	uint64_t key, hash;
};

static uint64_t hashed_key_hash(const void *key)
{
	return htab_hash_u64(*(const uint64_t *)key) | 1;
}

static bool hashed_eq(const void *entry, const void *key)
{
	return ((const struct hashed_ent *)entry)->key == *(const uint64_t *)key;
}

static const struct htab_type hashed_type = {
	.entry_size = sizeof(struct hashed_ent),
	.hash = hashed_key_hash,
	.eq = hashed_eq,
	.stored_hash = HTAB_STORED_HASH(struct hashed_ent, hash),
};

static void check_stored_hash(void)
{
	struct htab *t = htab__new(&hashed_type, 1);
	size_t found = 0;
	bool fresh;

	for (uint64_t k = 1; t && k <= 5000; k++) {
		struct hashed_ent *e = htab__insert(t, &hashed_type, &k, &fresh);

		if (e && fresh)
			*e = (struct hashed_ent){k, hashed_key_hash(&k)};
	}
	for (uint64_t k = 1; t && k <= 5000; k++)
		found += htab__find(t, &hashed_type, &k) != NULL;
	CHECK("stored_hash_entries_found_after_growing",
	      t && found == 5000 && htab__count(t) == 5000);
	htab__free(t);
}

/* index tables: strings numbered in order of appearance; a colliding hash still tells them apart */
static int name_eq(const void *ctx, uint32_t idx, const void *key)
{
	return !strcmp(((const char *const *)ctx)[idx], key);
}

static void check_index_table(void)
{
	static const char *in[] = {"a", "b", "a", "c", "b", "d", "a"};
	const char *names[8];
	uint32_t got[7], n = 0;
	struct htab *t = NULL;
	int ok = 1;

	for (size_t i = 0; i < 7; i++) {
		uint64_t h = in[i][0] == 'd' ? htab_hash_str("a") :
					       htab_hash_str(in[i]); /* d collides */
		struct htab_islot *e = htab__index_slot(&t, h, name_eq, names, in[i]);

		if (!e) {
			ok = 0;
			break;
		}
		if (!e->idx1) {
			names[n] = in[i];
			*e = (struct htab_islot){h, ++n};
		}
		got[i] = (uint32_t)(e->idx1 - 1);
	}
	CHECK("index_table_numbers_in_order", ok && n == 4 && got[0] == 0 && got[1] == 1 &&
						      got[2] == 0 && got[3] == 2 && got[4] == 1 &&
						      got[5] == 3 && got[6] == 0);
	htab__free(t);
}

/* Keys of a name and an optional object: a NULL object equals only NULL; copies are found. */
struct name_ent {
	struct htab_name_key k;
	int id;
};

static const struct htab_type name_type = {
	.entry_size = sizeof(struct name_ent),
	.hash = htab_name_key_hash,
	.eq = htab_name_key_eq,
};

static void check_name_keys(void)
{
	static const struct htab_name_key keys[] = {
		{"f", NULL}, {"f", "a.so"}, {"f", "b.so"}, {"g", "a.so"}, {"", ""}, {"", NULL},
	};
	char name[8], object[8];
	struct htab *t = htab__new(&name_type, 1);
	struct name_ent *e;
	int ok = t != NULL;
	bool fresh;

	for (int i = 0; ok && i < (int)(sizeof(keys) / sizeof(keys[0])); i++) {
		e = htab__insert(t, &name_type, &keys[i], &fresh);
		ok = e && fresh;
		if (ok)
			*e = (struct name_ent){keys[i], i};
	}
	CHECK("name_keys_distinct", ok && htab__count(t) == 6);
	snprintf(name, sizeof(name), "f"); /* other copies of the same strings */
	snprintf(object, sizeof(object), "b.so");
	e = t ? htab__find(t, &name_type, &(struct htab_name_key){name, object}) : NULL;
	CHECK("name_key_found_by_value", e && e->id == 2);
	e = t ? htab__find(t, &name_type, &(struct htab_name_key){name, NULL}) : NULL;
	CHECK("name_key_null_object", e && e->id == 0);
	e = t ? htab__find(t, &name_type, &(struct htab_name_key){"h", NULL}) : NULL;
	CHECK("name_key_absent", !e);
	htab__free(t);
}

int main(void)
{
	check_index_table();
	check_stored_hash();
	check_name_keys();
	check_counts("u64", &u64_count_type, 2 * NKEYS);
	check_counts("all_colliding", &colliding_type, 2000);
	check_absent();
	check_take_and_order();
	check_interned_strings();
	check_presized();
	check_cancel_fresh();
	CHECK("hash_u64_spreads",
	      htab_hash_u64(1) != htab_hash_u64(2) && (htab_hash_u64(1) ^ htab_hash_u64(2)) >> 32);
	CHECK("hash_str_differs", htab_hash_str("ab") != htab_hash_str("ba"));
	return CHECK_DONE();
}
