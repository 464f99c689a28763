// SPDX-License-Identifier: MIT
/* Reading perf maps and jitdump files as they grow: see jitsyms.h. */
#include <errno.h>
#include <string.h>

#include "record/jitsyms.h"

#define CHUNK 65536
#define DUMP_HEADER 40 /* magic, version, total_size, elf_mach, pad, pid, timestamp, flags */
#define REC_PREFIX 16  /* id, total_size, timestamp */
#define LOAD_FIXED 40  /* pid, tid, vma, code_addr, code_size, code_index */
#define JIT_CODE_LOAD 0
#define JIT_CODE_CLOSE 3

/* Hex number at *p (optional 0x); advances *p.  0, or -1 when none or too long. */
static int parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

/* A name as the reports can show it: cut at JITSYM_NAME_MAX, no control characters. */
static void clean_name(char *name, size_t len)
{
	if (len > JITSYM_NAME_MAX)
		len = JITSYM_NAME_MAX;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			name[i] = '?';
	name[len] = 0;
}

int jitmap__parse_line(char *buf, size_t len, struct jit_sym *s)
{
	const char *p = buf, *end = buf + len;
	uint64_t start, size;
	char *name;

	if (len && buf[len - 1] == '\r')
		end--;
	if (parse_hex(&p, end, &start) || p >= end || *p != ' ')
		return 0;
	while (p < end && *p == ' ')
		p++;
	if (parse_hex(&p, end, &size) || p >= end || *p != ' ' || !size || start + size < start)
		return 0;
	p++;
	if (p >= end)
		return 0;
	name = buf + (p - buf);
	clean_name(name, (size_t)(end - p));
	s->start = start;
	s->size = size;
	s->name = name;
	return 1;
}

/* ---- perf map ----------------------------------------------------------------- */

/* The lines of buf[0, n) from r->off; returns bytes consumed (whole lines), or cb's value < 0 via *stop. */
static size_t map_lines(struct jit_reader *r, char *buf, size_t n, int final, jit_sym_cb cb,
			void *arg, int *stop)
{
	size_t at = 0;

	while (at < n && !*stop) {
		char *nl = memchr(buf + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (buf + at)) : n - at;
		struct jit_sym s;

		if (!nl && !r->skipping && !final && len <= JITMAP_LINE_MAX)
			break; /* incomplete: wait for the rest */
		if (r->skipping || len > JITMAP_LINE_MAX) {
			/* a line too long: skipped up to its newline */
			r->skipping = !nl;
			at += len + (nl != NULL);
			continue;
		}
		if (jitmap__parse_line(buf + at, len, &s)) {
			r->symbols++;
			*stop = cb(arg, &s);
		}
		at += len + (nl != NULL);
	}
	return at;
}

static int read_map(struct jit_reader *r, jit_read_fn rd, void *src, uint64_t max_bytes, int final,
		    jit_sym_cb cb, void *arg)
{
	char buf[CHUNK + 1];
	uint64_t done = 0;
	int stop = 0;

	while (done < max_bytes && !stop) {
		size_t want = max_bytes - done < CHUNK ? (size_t)(max_bytes - done) : CHUNK;
		ssize_t got = rd(src, r->off, buf, want);
		size_t used;

		if (got < 0)
			return (int)got;
		if (got == 0)
			break;
		used = map_lines(r, buf, (size_t)got, final && (size_t)got < want, cb, arg, &stop);
		if (!used) { /* an incomplete line: at the end, or longer than a line may be */
			if ((size_t)got < want || want <= JITMAP_LINE_MAX)
				break;
			r->skipping = 1;
			used = (size_t)got;
		}
		r->off += used;
		done += used;
	}
	return stop;
}

/* ---- jitdump ------------------------------------------------------------------ */

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Exactly n bytes at off: 1, 0 when the file does not hold them (yet), or -errno. */
static int read_full(jit_read_fn rd, void *src, uint64_t off, void *buf, size_t n)
{
	size_t have = 0;

	while (have < n) {
		ssize_t got = rd(src, off + have, (char *)buf + have, n - have);

		if (got < 0)
			return (int)got;
		if (got == 0)
			return 0;
		have += (size_t)got;
	}
	return 1;
}

static int dump_header(struct jit_reader *r, jit_read_fn rd, void *src)
{
	unsigned char h[DUMP_HEADER];
	int rc = read_full(rd, src, 0, h, sizeof(h));
	uint32_t size;

	if (rc <= 0)
		return rc;
	size = u32_at(h + 8);
	if (u32_at(h) != JITDUMP_MAGIC || size < DUMP_HEADER || size > 4096) {
		r->bad = 1;
		return 0;
	}
	/* the whole header must be there (a longer one than ours: its last byte) */
	rc = read_full(rd, src, size - 1, h, 1);
	if (rc <= 0)
		return rc;
	r->off = size;
	r->header_done = 1;
	return 1;
}

/* A code load record of total bytes at r->off, the prefix already read: its symbol. */
static int code_load(struct jit_reader *r, jit_read_fn rd, void *src, uint32_t total, jit_sym_cb cb,
		     void *arg)
{
	unsigned char b[LOAD_FIXED + JITSYM_NAME_MAX + 1];
	size_t want = total - REC_PREFIX < sizeof(b) ? total - REC_PREFIX : sizeof(b);
	struct jit_sym s;
	char *name;
	size_t len;
	int rc;

	if (want <= LOAD_FIXED)
		return 0; /* no room for a name: nothing to say */
	rc = read_full(rd, src, r->off + REC_PREFIX, b, want);
	if (rc <= 0)
		return rc < 0 ? rc : 0;
	s.start = u64_at(b + 16); /* code_addr */
	s.size = u64_at(b + 24);
	if (!s.size || s.start + s.size < s.start)
		return 0;
	name = (char *)b + LOAD_FIXED;
	len = strnlen(name, want - LOAD_FIXED);
	if (!len)
		return 0;
	clean_name(name, len);
	s.name = name;
	r->symbols++;
	return cb(arg, &s);
}

static int read_dump(struct jit_reader *r, jit_read_fn rd, void *src, uint64_t max_bytes,
		     jit_sym_cb cb, void *arg)
{
	uint64_t start = r->off;
	int rc;

	if (!r->header_done && (rc = dump_header(r, rd, src)) <= 0)
		return rc;
	while (!r->bad && !r->closed && r->off - start < max_bytes) {
		unsigned char pre[REC_PREFIX], last;
		uint32_t id, total;

		rc = read_full(rd, src, r->off, pre, sizeof(pre));
		if (rc <= 0)
			return rc;
		id = u32_at(pre);
		total = u32_at(pre + 4);
		if (total < REC_PREFIX || total > JITDUMP_REC_MAX) {
			r->bad = 1;
			return 0;
		}
		/* the whole record must be there before it counts (the writer may be mid-way) */
		rc = read_full(rd, src, r->off + total - 1, &last, 1);
		if (rc <= 0)
			return rc;
		if (id == JIT_CODE_LOAD) {
			rc = code_load(r, rd, src, total, cb, arg);
			if (rc) {
				r->off += total;
				return rc;
			}
		} else if (id == JIT_CODE_CLOSE) {
			r->closed = 1;
		}
		r->off += total;
	}
	return 0;
}

int jit_reader__read(struct jit_reader *r, jit_read_fn rd, void *src, uint64_t max_bytes, int final,
		     jit_sym_cb cb, void *arg)
{
	if (r->bad)
		return 0;
	if (r->kind == JIT_PERF_MAP)
		return read_map(r, rd, src, max_bytes, final, cb, arg);
	if (r->kind == JIT_DUMP)
		return read_dump(r, rd, src, max_bytes, cb, arg);
	r->bad = 1;
	return 0;
}
