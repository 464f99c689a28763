/* SPDX-License-Identifier: MIT */
/*
 * The body of the JIT file readers' fuzz targets (fuzz_perfmap.c, fuzz_jitdump.c):
 * record/jitsyms.h's reader as the recorder runs it on a file that grows while it
 * is read: the input is read in polls of a few bytes to the whole, then to its end
 * with final set.  The including target defines FUZZ_JIT_KIND.
 */
#include <string.h>
#include <sys/types.h>

#include "fuzz.h"
#include "record/jitsyms.h"

struct mem {
	const uint8_t *data;
	size_t size, visible; /* the writer has written this much so far */
};

static ssize_t read_mem(void *src, uint64_t off, void *buf, size_t n)
{
	struct mem *m = src;

	if (off >= m->visible)
		return 0;
	if (n > m->visible - off)
		n = (size_t)(m->visible - off);
	memcpy(buf, m->data + off, n);
	return (ssize_t)n;
}

static int count(void *arg, const struct jit_sym *s)
{
	size_t *n = arg;

	/* what a caller relies on: a terminated name, a non-empty range that does not wrap */
	if (!s->name || !s->size || s->start + s->size < s->start ||
	    strlen(s->name) > JITSYM_NAME_MAX)
		__builtin_trap();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size, 0};
	struct jit_reader r = {.kind = FUZZ_JIT_KIND};
	size_t n = 0;
	uint64_t step = size ? data[0] % 97 + 1 : 1;

	/* the file grows by step bytes between polls, each poll reading at most 4 KiB */
	while (m.visible < size) {
		m.visible = m.visible + step < size ? m.visible + step : size;
		jit_reader__read(&r, read_mem, &m, 4096, 0, count, &n);
	}
	jit_reader__read(&r, read_mem, &m, UINT64_MAX, 1, count, &n);
	if (r.off > size)
		__builtin_trap();
	return 0;
}
