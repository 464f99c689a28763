// SPDX-License-Identifier: MIT
/* The perf map and jitdump readers (record/jitsyms.h) on files that grow, break and lie. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record/jitsyms.h"

struct mem {
	const char *data;
	size_t visible;
};

static ssize_t read_mem(void *src, uint64_t off, void *buf, size_t n)
{
	struct mem *m = src;

	if (off >= m->visible)
		return 0;
	if (n > m->visible - off)
		n = m->visible - off;
	memcpy(buf, m->data + off, n);
	return (ssize_t)n;
}

#define MAXSYMS 16
struct got {
	struct jit_sym s[MAXSYMS];
	char names[MAXSYMS][JITSYM_NAME_MAX + 1];
	int n;
};

static int collect(void *arg, const struct jit_sym *s)
{
	struct got *g = arg;

	if (g->n < MAXSYMS) {
		g->s[g->n] = *s;
		snprintf(g->names[g->n], sizeof(g->names[0]), "%s", s->name);
		g->s[g->n].name = g->names[g->n];
		g->n++;
	}
	return 0;
}

static void perf_map(void)
{
	const char *text = "7f0000001000 40 LazyCompile:*hot /x.js:1\n"
			   "0x2000 0x10 two words\r\n"
			   "3000 0 zero size\n"
			   "ffffffffffffff00 1000 wraps\n"
			   "zz 10 not hex\n"
			   "4000 8 ctl\x01name\n"
			   "5000 8 last";
	struct mem m = {text, 0};
	struct jit_reader r = {.kind = JIT_PERF_MAP};
	struct got g = {0};

	/* written a few bytes at a time: only whole lines count until the writer is gone */
	for (size_t v = 0; v <= strlen(text); v += 7) {
		m.visible = v;
		jit_reader__read(&r, read_mem, &m, 1 << 20, 0, collect, &g);
	}
	m.visible = strlen(text);
	jit_reader__read(&r, read_mem, &m, 1 << 20, 0, collect, &g);
	CHECKF("perfmap_whole_lines_only", g.n == 3, "%d symbols before the end", g.n);
	jit_reader__read(&r, read_mem, &m, 1 << 20, 1, collect, &g);
	CHECKF("perfmap_symbols", g.n == 4, "%d symbols", g.n);
	CHECK("perfmap_first", g.n > 0 && g.s[0].start == 0x7f0000001000 && g.s[0].size == 0x40 &&
				       !strcmp(g.names[0], "LazyCompile:*hot /x.js:1"));
	CHECK("perfmap_0x_and_cr",
	      g.n > 1 && g.s[1].start == 0x2000 && !strcmp(g.names[1], "two words"));
	CHECK("perfmap_control_chars", g.n > 2 && !strcmp(g.names[2], "ctl?name"));
	CHECK("perfmap_last_line_at_end", g.n > 3 && !strcmp(g.names[3], "last"));
	CHECK("perfmap_offset", r.off == strlen(text));
}

static void perf_map_long_line(void)
{
	size_t len = 3 * JITMAP_LINE_MAX;
	char *text = malloc(len + 64);
	struct mem m;
	struct jit_reader r = {.kind = JIT_PERF_MAP};
	struct got g = {0};

	memset(text, 'a', len);
	memcpy(text, "1000 10 ", 8);
	strcpy(text + len, "\n2000 10 after\n");
	m = (struct mem){text, strlen(text)};
	/* a budget smaller than the line: the line is passed over, never kept whole */
	for (int i = 0; i < 50 && r.off < m.visible; i++)
		jit_reader__read(&r, read_mem, &m, 5000, 0, collect, &g);
	CHECKF("perfmap_long_line_skipped", g.n == 1 && !strcmp(g.names[0], "after"),
	       "%d symbols, first '%s'", g.n, g.n ? g.names[0] : "");
	free(text);
}

struct dump {
	char b[4096];
	size_t n;
};

static void put(struct dump *d, const void *p, size_t n)
{
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void put_load(struct dump *d, const char *name, uint64_t addr, uint64_t size, size_t code)
{
	uint32_t id = 0, total = (uint32_t)(16 + 40 + strlen(name) + 1 + code), pid = 1, tid = 1;
	uint64_t ts = 1, idx = 1;
	char zero[64] = {0};

	put(d, &id, 4);
	put(d, &total, 4);
	put(d, &ts, 8);
	put(d, &pid, 4);
	put(d, &tid, 4);
	put(d, &addr, 8);
	put(d, &addr, 8);
	put(d, &size, 8);
	put(d, &idx, 8);
	put(d, name, strlen(name) + 1);
	put(d, zero, code);
}

static void jitdump(void)
{
	struct dump d = {.n = 0};
	uint32_t hdr[6] = {JITDUMP_MAGIC, 1, 40, 62, 0, 42};
	uint64_t hdr2[2] = {0, 0};
	struct jit_reader r = {.kind = JIT_DUMP};
	struct got g = {0};
	struct mem m = {d.b, 0};
	uint32_t bad[4] = {0, 8, 0, 0};

	put(&d, hdr, sizeof(hdr));
	put(&d, hdr2, sizeof(hdr2));
	put_load(&d, "jitted_hot_loop", 0x7f0000001000, 64, 32);
	put_load(&d, "second", 0x7f0000002000, 16, 0);
	/* written one byte at a time: a record counts once it is whole */
	for (m.visible = 0; m.visible <= d.n; m.visible++)
		jit_reader__read(&r, read_mem, &m, 1 << 20, 0, collect, &g);
	CHECKF("jitdump_records", g.n == 2, "%d symbols", g.n);
	CHECK("jitdump_first", g.n > 0 && g.s[0].start == 0x7f0000001000 && g.s[0].size == 64 &&
				       !strcmp(g.names[0], "jitted_hot_loop"));
	/* a record shorter than its own header: the file is damaged, no more is read */
	put(&d, bad, sizeof(bad));
	put_load(&d, "never", 0x3000, 16, 0);
	m.visible = d.n;
	jit_reader__read(&r, read_mem, &m, 1 << 20, 1, collect, &g);
	CHECK("jitdump_damaged_stops", g.n == 2 && r.bad);

	/* a wrong magic: nothing */
	struct jit_reader r2 = {.kind = JIT_DUMP};
	struct got g2 = {0};

	d.b[0] ^= 0xff;
	jit_reader__read(&r2, read_mem, &m, 1 << 20, 1, collect, &g2);
	CHECK("jitdump_bad_magic", g2.n == 0 && r2.bad);
}

int main(void)
{
	perf_map();
	perf_map_long_line();
	jitdump();
	return CHECK_DONE();
}
