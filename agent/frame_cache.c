// SPDX-License-Identifier: MIT
/*
 * Frame-rule cache (see frame_cache.h): a sequence counter ("seqlock") per
 * entry, so that readers in signal handlers never wait and never keep a torn
 * rule.  Readers copy with relaxed atomic loads: the copy may race with a
 * writer, which the counter check then detects.
 */
#include "agent/frame_cache.h"

static uint32_t set_of(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) % FRAME_CACHE_SETS;
}

static int read_entry(struct frame_cache_entry *e, uint64_t addr, struct frame_rule *out)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE), mask;
	uint16_t size;
	unsigned int k = 0;

	if ((seq & 1) || __atomic_load_n(&e->addr, __ATOMIC_RELAXED) != addr)
		return 0;
	size = __atomic_load_n(&e->size, __ATOMIC_RELAXED);
	if (size == 0 || size > FRAME_RULE_MAX)
		return 0;
	mask = __atomic_load_n(&e->mask, __ATOMIC_RELAXED);
	out->owner = __atomic_load_n(&e->owner, __ATOMIC_RELAXED);
	out->signal = __atomic_load_n(&e->signal, __ATOMIC_RELAXED);
	out->size = size;
	for (unsigned int i = 0; i < (size + 7u) / 8; i++)
		out->rs[i] = ((mask >> i) & 1) && k < FRAME_CACHE_WORDS ?
				     __atomic_load_n(&e->words[k++], __ATOMIC_RELAXED) :
				     0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq;
}

int frame_cache_get(struct frame_cache *c, uint64_t addr, struct frame_rule *out)
{
	struct frame_cache_entry *set = c->e[set_of(addr)];

	for (int w = 0; w < FRAME_CACHE_WAYS; w++)
		if (read_entry(&set[w], addr, out))
			return 1;
	return 0;
}

/* The entry of the set holding addr already, or an empty one, else the next in round robin. */
static struct frame_cache_entry *victim(struct frame_cache *c, struct frame_cache_entry *set,
					uint64_t addr)
{
	for (int w = 0; w < FRAME_CACHE_WAYS; w++)
		if (__atomic_load_n(&set[w].addr, __ATOMIC_RELAXED) == addr)
			return &set[w];
	for (int w = 0; w < FRAME_CACHE_WAYS; w++)
		if (__atomic_load_n(&set[w].seq, __ATOMIC_RELAXED) == 0)
			return &set[w];
	return &set[__atomic_fetch_add(&c->victim, 1, __ATOMIC_RELAXED) % FRAME_CACHE_WAYS];
}

/* Bitmap of the non-zero words of the rule, 0 if more than an entry holds. */
static uint32_t nonzero_words(const struct frame_rule *rule)
{
	uint32_t mask = 0;
	unsigned int n = 0;

	for (unsigned int i = 0; i < (rule->size + 7u) / 8; i++)
		if (rule->rs[i]) {
			mask |= 1u << i;
			n++;
		}
	return n <= FRAME_CACHE_WORDS ? mask : 0;
}

void frame_cache_put(struct frame_cache *c, uint64_t addr, const struct frame_rule *rule)
{
	struct frame_cache_entry *e;
	uint32_t seq, mask;
	unsigned int k = 0;

	if (rule->size == 0 || rule->size > FRAME_RULE_MAX || rule->owner == 0)
		return;
	mask = nonzero_words(rule);
	if (!mask)
		return;
	e = victim(c, c->e[set_of(addr)], addr);
	seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	if ((seq & 1) || !__atomic_compare_exchange_n(&e->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE,
						      __ATOMIC_RELAXED))
		return;
	/* the counter is odd: readers ignore the entry until the release below */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&e->owner, rule->owner, __ATOMIC_RELAXED);
	__atomic_store_n(&e->mask, mask, __ATOMIC_RELAXED);
	__atomic_store_n(&e->signal, rule->signal, __ATOMIC_RELAXED);
	__atomic_store_n(&e->size, rule->size, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < (rule->size + 7u) / 8; i++)
		if ((mask >> i) & 1)
			__atomic_store_n(&e->words[k++], rule->rs[i], __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}
