// SPDX-License-Identifier: MIT
/*
 * Frame-rule cache (see frame_cache.h): a sequence-counter ("seqlock") per
 * entry, so that readers in signal handlers never wait and never see a torn
 * rule.  Readers copy the rule byte by byte with relaxed atomic loads: the
 * copy may race with a writer, which the counter check then detects.
 */
#include <string.h>

#include "frame_cache.h"

static uint32_t set_of(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) % FRAME_CACHE_SETS;
}

static void copy_words(uint64_t *dst, const uint64_t *src, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static int read_entry(struct frame_cache_entry *e, uint64_t addr, uint32_t gen,
		      struct frame_rule *out)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	uint32_t size;

	if ((seq & 1) || __atomic_load_n(&e->addr, __ATOMIC_RELAXED) != addr ||
	    __atomic_load_n(&e->gen, __ATOMIC_RELAXED) != gen)
		return 0;
	size = __atomic_load_n(&e->rule.size, __ATOMIC_RELAXED);
	if (size == 0 || size > FRAME_RULE_MAX)
		return 0;
	out->signal = __atomic_load_n(&e->rule.signal, __ATOMIC_RELAXED);
	out->size = size;
	copy_words(out->rs, e->rule.rs, (size + 7) / 8);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq;
}

int frame_cache_get(struct frame_cache *c, uint64_t addr, uint32_t gen, struct frame_rule *out)
{
	struct frame_cache_entry *set = c->e[set_of(addr)];

	for (int w = 0; w < FRAME_CACHE_WAYS; w++)
		if (read_entry(&set[w], addr, gen, out))
			return 1;
	return 0;
}

/* An entry of the set that is empty or stale, else the next one in round robin. */
static struct frame_cache_entry *victim(struct frame_cache *c, struct frame_cache_entry *set,
					uint32_t gen)
{
	for (int w = 0; w < FRAME_CACHE_WAYS; w++) {
		uint32_t seq = __atomic_load_n(&set[w].seq, __ATOMIC_RELAXED);

		if (seq == 0 || __atomic_load_n(&set[w].gen, __ATOMIC_RELAXED) != gen)
			return &set[w];
	}
	return &set[__atomic_fetch_add(&c->victim, 1, __ATOMIC_RELAXED) % FRAME_CACHE_WAYS];
}

void frame_cache_put(struct frame_cache *c, uint64_t addr, uint32_t gen,
		     const struct frame_rule *rule)
{
	struct frame_cache_entry *e;
	uint32_t seq;

	if (rule->size == 0 || rule->size > FRAME_RULE_MAX)
		return;
	e = victim(c, c->e[set_of(addr)], gen);
	seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	if ((seq & 1) || !__atomic_compare_exchange_n(&e->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE,
						      __ATOMIC_RELAXED))
		return;
	/* the counter is odd: readers ignore the entry until the release below */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&e->gen, gen, __ATOMIC_RELAXED);
	__atomic_store_n(&e->rule.signal, rule->signal, __ATOMIC_RELAXED);
	__atomic_store_n(&e->rule.size, rule->size, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < (rule->size + 7) / 8; i++)
		__atomic_store_n(&e->rule.rs[i], rule->rs[i], __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}
