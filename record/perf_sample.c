// SPDX-License-Identifier: MIT
/* Decoding PERF_RECORD_SAMPLE and its callchain: see perf_sample.h.  Pure. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "record/perf_sample.h"

/* A cursor over the u64 words of a record. */
struct cursor {
	const uint64_t *at, *end;
};

static int take(struct cursor *c, uint64_t words, const uint64_t **out)
{
	if ((uint64_t)(c->end - c->at) < words)
		return -EBADMSG;
	*out = c->at;
	c->at += words;
	return 0;
}

static int take1(struct cursor *c, uint64_t *v)
{
	const uint64_t *p;

	if (take(c, 1, &p) < 0)
		return -EBADMSG;
	*v = *p;
	return 0;
}

static int parse_regs_and_stack(const struct perf_sample_layout *l, struct cursor *c,
				struct perf_sample *s)
{
	if (l->sample_type & PERF_SAMPLE_REGS_USER) {
		if (take1(c, &s->abi) < 0)
			return -EBADMSG;
		if (s->abi && take(c, (uint64_t)__builtin_popcountll(l->regs_mask), &s->regs) < 0)
			return -EBADMSG;
		if (!s->abi)
			s->regs = NULL;
	}
	if (l->sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;
		const uint64_t *data;

		if (take1(c, &size) < 0)
			return -EBADMSG;
		if (size) {
			/* the kernel pads the copy to whole words */
			if (size % 8 || take(c, size / 8, &data) < 0 || take1(c, &dyn) < 0)
				return -EBADMSG;
			s->stack = data;
			s->stack_size = dyn < size ? dyn : size;
		}
	}
	return 0;
}

int perf_sample__parse(const struct perf_sample_layout *l, const void *rec, size_t size,
		       struct perf_sample *out)
{
	const uint64_t unsupported = PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK;
	struct cursor c;
	uint64_t v;

	memset(out, 0, sizeof(*out));
	if ((l->sample_type & unsupported) ||
	    ((l->sample_type & PERF_SAMPLE_READ) && l->read_format))
		return -EOPNOTSUPP;
	if (size < sizeof(struct perf_event_header) || size % 8)
		return -EBADMSG;
	c.at = (const uint64_t *)((const char *)rec + sizeof(struct perf_event_header));
	c.end = (const uint64_t *)((const char *)rec + size);
	if ((l->sample_type & PERF_SAMPLE_IDENTIFIER) && take1(&c, &v) < 0)
		return -EBADMSG;
	if ((l->sample_type & PERF_SAMPLE_IP) && take1(&c, &out->ip) < 0)
		return -EBADMSG;
	if (l->sample_type & PERF_SAMPLE_TID) {
		if (take1(&c, &v) < 0)
			return -EBADMSG;
		out->pid = (uint32_t)v; /* { u32 pid, tid; }, little-endian */
		out->tid = (uint32_t)(v >> 32);
	}
	if ((l->sample_type & PERF_SAMPLE_TIME) && take1(&c, &out->time) < 0)
		return -EBADMSG;
	if ((l->sample_type & PERF_SAMPLE_ADDR) && take1(&c, &out->addr) < 0)
		return -EBADMSG;
	if ((l->sample_type & PERF_SAMPLE_ID) && take1(&c, &out->id) < 0)
		return -EBADMSG;
	if ((l->sample_type & PERF_SAMPLE_STREAM_ID) && take1(&c, &out->stream_id) < 0)
		return -EBADMSG;
	if (l->sample_type & PERF_SAMPLE_CPU) {
		if (take1(&c, &v) < 0)
			return -EBADMSG;
		out->cpu = (uint32_t)v;
	}
	if ((l->sample_type & PERF_SAMPLE_PERIOD) && take1(&c, &out->period) < 0)
		return -EBADMSG;
	if ((l->sample_type & PERF_SAMPLE_READ) && take1(&c, &out->read_value) < 0)
		return -EBADMSG;
	if (l->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (take1(&c, &out->nr) < 0 || take(&c, out->nr, &out->callchain) < 0)
			return -EBADMSG;
	}
	return parse_regs_and_stack(l, &c, out);
}

static int is_context(uint64_t v)
{
	return v >= (uint64_t)PERF_CONTEXT_MAX;
}

/* The entries of one context section (after its marker, up to the next marker). */
static unsigned int section(const uint64_t *chain, uint64_t nr, uint64_t marker, uint64_t *pcs,
			    unsigned int max, unsigned int *all)
{
	unsigned int n = 0, total = 0;
	int in = 0;

	for (uint64_t i = 0; i < nr; i++) {
		if (is_context(chain[i])) {
			in = chain[i] == marker;
			continue;
		}
		if (!in)
			continue;
		if (n < max)
			pcs[n++] = chain[i];
		total++;
	}
	if (all)
		*all = total;
	return n;
}

unsigned int perf_callchain__kernel(const uint64_t *chain, uint64_t nr, uint64_t *pcs,
				    unsigned int max)
{
	return section(chain, nr, (uint64_t)PERF_CONTEXT_KERNEL, pcs, max, NULL);
}

unsigned int perf_callchain__user(const uint64_t *chain, uint64_t nr, uint64_t *pcs,
				  unsigned int max, unsigned int *all)
{
	return section(chain, nr, (uint64_t)PERF_CONTEXT_USER, pcs, max, all);
}
