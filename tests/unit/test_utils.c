// SPDX-License-Identifier: MIT
/*
 * utils/json, utils/utf8, utils/array, utils/cmp, utils/objcache, utils/caps,
 * utils/procfile: the one spelling of JSON numbers, the one UTF-8 check,
 * the one way to grow an array (and name a value from a table), the one
 * three-way comparison, where the objects profil record keeps by build id
 * go, the recorder's own capabilities.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "utils/array.h"
#include "utils/buildid.h"
#include "utils/caps.h"
#include "utils/cmp.h"
#include "utils/json.h"
#include "utils/objcache.h"
#include "utils/procmaps.h"
#include "utils/utf8.h"

/* the text json-c prints for v (released) */
static const char *text_of(struct json_object *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "(null)");
	json_object_put(v);
	return buf;
}

static void test_json_numbers(void)
{
	char b[64];

	CHECK("json double 9 digits", !strcmp(text_of(json__double(0.835), b, sizeof(b)), "0.835"));
	CHECK("json double keeps a fraction",
	      !strcmp(text_of(json__double(1000), b, sizeof(b)), "1000.0"));
	CHECK("json double zero", !strcmp(text_of(json__double(0), b, sizeof(b)), "0.0"));
	CHECK("json double exponent", !strcmp(text_of(json__double(1e-12), b, sizeof(b)), "1e-12"));
	CHECK("json NaN is 0.0", !strcmp(text_of(json__double(0.0 / 0.0), b, sizeof(b)), "0.0"));
	CHECK("json uint", !strcmp(text_of(json__uint(42), b, sizeof(b)), "42"));
	CHECK("json uint saturates",
	      !strcmp(text_of(json__uint(UINT64_MAX), b, sizeof(b)), "9223372036854775807"));
}

static void test_json_setters(void)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char b[128];

	CHECK("json set", json__set(o, "k", json__uint(1)) == 0);
	CHECK("json set NULL is -ENOMEM", json__set(o, "x", NULL) == -ENOMEM);
	CHECK("json set null", json__set_null(o, "n") == 0);
	CHECK("json push", json__push(a, json__uint(2)) == 0);
	CHECK("json push NULL is -ENOMEM", json__push(a, NULL) == -ENOMEM);
	CHECK("json set array", json__set(o, "a", a) == 0);
	CHECK("json finish keeps o", json__finish(o, 0) == o);
	/* (released: LeakSanitizer would say otherwise under ASan) */
	CHECK("json finish releases o after a failed set",
	      json__finish(json_object_new_object(), -ENOMEM) == NULL);
	CHECK("json object text",
	      !strcmp(text_of(o, b, sizeof(b)), "{\"k\":1,\"n\":null,\"a\":[2]}"));
}

struct strbuf {
	char p[128];
	size_t len, calls_empty;
};

static void put_piece(void *arg, const char *p, size_t n)
{
	struct strbuf *b = arg;

	if (!n)
		b->calls_empty++;
	if (b->len + n < sizeof(b->p)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
		b->p[b->len] = '\0';
	}
}

/* json__write_string: escapes, valid UTF-8 kept, other bytes as their Latin-1 value; json-c
 * parses the result back to the same string where the input was valid UTF-8 */
static void test_json_string(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"plain", "\"plain\""},
		{"", "\"\""},
		{"q\"b\\", "\"q\\\"b\\\\\""},
		{"\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\""},
		{"\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\""},
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},
		{"bad\xff\xc3", "\"bad\\u00ff\\u00c3\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf b = {.len = 0};
		char what[64];

		json__write_string(cases[i].in, put_piece, &b);
		snprintf(what, sizeof(what), "json string case %zu", i);
		CHECK(what, !strcmp(b.p, cases[i].want) && !b.calls_empty);
		if (strcmp(b.p, cases[i].want))
			printf("# got %s\n", b.p);
	}
	{
		struct strbuf b = {.len = 0};
		struct json_object *o;

		json__write_string("a\"\\\n\x01\xc3\xa9", put_piece, &b);
		o = json_tokener_parse(b.p);
		CHECK("json string parses back",
		      o && json_object_is_type(o, json_type_string) &&
			      !strcmp(json_object_get_string(o), "a\"\\\n\x01\xc3\xa9"));
		json_object_put(o);
	}
}

static void test_utf8_dup(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"plain", "plain"},
		{"caf\xc3\xa9 \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xf0\x9f\x94\xa5"}, /* é, U+1F525 */
		{"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},			  /* overlong '/' */
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},	  /* surrogate */
		{"end\xe2\x82", "end\xef\xbf\xbd\xef\xbf\xbd"},			  /* cut short */
		{"\xf4\x90\x80\x80",
		 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
	};
	int good = 1;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = utf8__dup_valid(cases[i].in, strlen(cases[i].in));

		if (!s || strcmp(s, cases[i].out)) {
			printf("# utf8 case %zu: got '%s'\n", i, s ? s : "(null)");
			good = 0;
		}
		free(s);
	}
	CHECK("UTF-8 sanitising", good);
}

static void test_utf8_seq(void)
{
	CHECK("utf8 ascii", utf8__seq_len((const unsigned char *)"a", 1) == 1);
	CHECK("utf8 two bytes", utf8__seq_len((const unsigned char *)"\xc3\xa9", 2) == 2);
	CHECK("utf8 cut short", utf8__seq_len((const unsigned char *)"\xc3\xa9", 1) == 0);
	CHECK("utf8 lone continuation", utf8__seq_len((const unsigned char *)"\x80", 1) == 0);
	CHECK("utf8 overlong two bytes", utf8__seq_len((const unsigned char *)"\xc1\xbf", 2) == 0);
}

static void test_array(void)
{
	int *a = NULL;
	size_t cap = 0;

	CHECK("array reserve", array__reserve(&a, &cap, 10, sizeof(*a)) == 0 && cap == 64 && a);
	CHECK("array keeps what fits", array__reserve(&a, &cap, 64, sizeof(*a)) == 0 && cap == 64);
	CHECK("array doubles", array__reserve(&a, &cap, 65, sizeof(*a)) == 0 && cap == 128);
	CHECK("array overflow is -ENOMEM",
	      array__reserve(&a, &cap, SIZE_MAX / 2, sizeof(*a)) == -ENOMEM && cap == 128);
	free(a);
}

static void test_array_push(void)
{
	struct pair {
		int x, y;
	} *a = NULL, *p = NULL;
	size_t n = 0, cap = 0, zeroed = 0;

	for (int i = 0; i < 100; i++) {
		p = array__push(&a, &n, &cap, sizeof(*a));
		if (!p)
			break;
		zeroed += !p->x && !p->y;
		p->x = i;
		p->y = -i;
	}
	CHECK("array push appends and counts", p && n == 100 && cap == 128);
	CHECK("array push: each new element zeroed", zeroed == 100);
	CHECK("array push keeps the elements", a[0].x == 0 && a[99].x == 99 && a[99].y == -99);
	n = SIZE_MAX;
	CHECK("array push past SIZE_MAX is NULL", !array__push(&a, &n, &cap, sizeof(*a)));
	free(a);
}

/* Each element's buffer and the array freed (LeakSanitizer, under ASan, would say otherwise). */
static void test_array_free(void)
{
	struct named {
		int id;
		char *name;
	} *a = calloc(8, sizeof(*a));
	char **ptrs = calloc(8, sizeof(*ptrs));
	size_t made = 0;

	for (size_t i = 0; a && ptrs && i < 8; i++) {
		a[i].name = strdup("name");
		ptrs[i] = i % 2 ? strdup("odd") : NULL; /* NULL elements are fine */
		made += a[i].name != NULL;
	}
	CHECK("array free: 8 owners", a && ptrs && made == 8);
	ARRAY_FREE_FIELD(a, a ? 8 : 0, name);
	ARRAY_FREE_PTRS(ptrs, ptrs ? 8 : 0);
}

enum colour { RED, GREEN = 2, BLUE };

static void test_array_name(void)
{
	static const char *const names[] = {[RED] = "red", [GREEN] = "green", [BLUE] = "blue"};

	CHECK("array size", ARRAY_SIZE(names) == 4);
	CHECK("array name", !strcmp(ARRAY_NAME(names, GREEN, "?"), "green"));
	CHECK("array name: a hole", !strcmp(ARRAY_NAME(names, 1, "?"), "?"));
	CHECK("array name: past the end", !strcmp(ARRAY_NAME(names, 4, "?"), "?"));
	CHECK("array name: negative", !strcmp(ARRAY_NAME(names, -1, "?"), "?"));
}

static void test_cmp(void)
{
	uint64_t big = UINT64_MAX, small = 1;
	int neg = INT32_MIN, pos = INT32_MAX;

	CHECK("cmp less", CMP(small, big) == -1 && CMP(neg, pos) == -1);
	CHECK("cmp more", CMP(big, small) == 1 && CMP(pos, neg) == 1);
	CHECK("cmp equal", CMP(big, big) == 0);
	CHECK("cmp chains: the first key that differs", (CMP(1, 1) ?: CMP(3, 2)) == 1);
	CHECK("cmp__str: strcmp's order", cmp__str("a", "b") < 0 && cmp__str("b", "a") > 0);
	CHECK("cmp__str: NULL is \"\"",
	      !cmp__str(NULL, "") && cmp__str(NULL, "a") < 0 && cmp__str("a", NULL) > 0);
}

static void test_procmaps_lines(void)
{
	char l1[] = "7f1c2a000000-7f1c2a1c5000 r-xp 00026000 fe:01 1311062                    "
		    "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	char l2[] =
		"7ffd4b5ff000-7ffd4b601000 r-xp 00000000 00:00 0                          [vdso]";
	char l3[] = "55d3c8a00000-55d3c8a21000 rw-p 00000000 00:00 0 ";
	char l4[] = "55d3c8a00000 rw-p 00000000 00:00 0";
	char l5[] = "1-2 r-xp 0 fe:01 12 /a path/with spaces (deleted)";
	struct procmap m;

	CHECK("maps file line", procmaps__parse_line(l1, &m) == 0 && m.start == 0x7f1c2a000000ull &&
					m.end == 0x7f1c2a1c5000ull && m.offset == 0x26000 &&
					m.dev_major == 0xfe && m.dev_minor == 1 &&
					m.inode == 1311062 && m.prot == (PROT_READ | PROT_EXEC) &&
					!strcmp(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK("maps kernel name", procmaps__parse_line(l2, &m) == 0 && !strcmp(m.path, "[vdso]"));
	CHECK("maps anonymous",
	      procmaps__parse_line(l3, &m) == 0 && !*m.path && m.prot == (PROT_READ | PROT_WRITE));
	CHECK("maps bad line", procmaps__parse_line(l4, &m) == -EINVAL);
	CHECK("maps path kept whole", procmaps__parse_line(l5, &m) == 0 &&
					      !strcmp(m.path, "/a path/with spaces (deleted)"));
}

/* the test's own text is one of its executable mappings */
static int find_own_text(void *arg, const struct procmap *m)
{
	uintptr_t pc = (uintptr_t)&find_own_text;

	if ((m->prot & PROT_EXEC) && pc >= m->start && pc < m->end && m->inode)
		*(int *)arg = 1;
	return 0;
}

static void test_procmaps_self(void)
{
	int found = 0;

	CHECK("maps of self", procmaps__for_each(getpid(), find_own_text, &found) == 0 && found);
	CHECK("maps of no process",
	      procmaps__for_each(0x7ffffff0, find_own_text, &found) == -ENOENT);
}

static void test_objcache(void)
{
	const uint8_t id[] = {0x0a, 0x85, 0x21, 0xff};
	char out[256], small[24];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	CHECKF("the entry of a build id under XDG_CACHE_HOME",
	       objcache__path(id, sizeof(id), out, sizeof(out)) == 0 &&
		       !strcmp(out, "/x/cache/profil/build-id/0a/8521ff"),
	       "%s", out);
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	CHECKF("a relative XDG_CACHE_HOME is ignored (the specification's rule): HOME's",
	       objcache__dir(out, sizeof(out)) == 0 &&
		       !strcmp(out, "/home/u/.cache/profil/build-id"),
	       "%s", out);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK("neither: no cache", objcache__dir(out, sizeof(out)) == -ENOENT);
	setenv("HOME", "/home/u", 1);
	CHECK("no build id, or one over 20 bytes",
	      objcache__path(id, 0, out, sizeof(out)) == -EINVAL &&
		      objcache__path(id, 21, out, sizeof(out)) == -EINVAL);
	CHECK("a name longer than the buffer",
	      objcache__path(id, sizeof(id), small, sizeof(small)) == -ENAMETOOLONG);
}

/* caps__effective (from /proc/self/status) is the set the kernel's capget gives */
static void test_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	uint64_t eff = caps__effective(), want;

	CHECK("capget", syscall(SYS_capget, &hdr, data) == 0);
	want = (uint64_t)data[1].effective << 32 | data[0].effective;
	CHECKF("the effective set, as capget has it", eff == want, "%llx, capget %llx",
	       (unsigned long long)eff, (unsigned long long)want);
	CHECK("the bits are the kernel's", CAPS_SYS_ADMIN == CAP_SYS_ADMIN &&
						   CAPS_PERFMON == CAP_PERFMON &&
						   CAPS_BPF == CAP_BPF);
}


/* buildid__hex: plain and split after the first byte, sizes exact, ids refused */
static void test_buildid_hex(void)
{
	const uint8_t id[] = {0x0a, 0xbc, 0xde, 0xf1};
	uint8_t big[BUILDID_MAX + 1] = {0};
	char plain[9], split[10], small[9];
	int a = buildid__hex(id, 4, 0, plain, sizeof(plain));
	int b = buildid__hex(id, 4, 1, split, sizeof(split));

	CHECKF("buildid__hex: plain and xx/rest", a == 8 && !strcmp(plain, "0abcdef1") && b == 9 &&
	       !strcmp(split, "0a/bcdef1"), "%d '%s', %d '%s'", a, plain, b, split);
	CHECK("buildid__hex: too small, empty, too long refused",
	      buildid__hex(id, 4, 1, small, sizeof(small)) == -ENAMETOOLONG &&
		      buildid__hex(id, 0, 0, plain, sizeof(plain)) == -EINVAL &&
		      buildid__hex(big, sizeof(big), 0, plain, sizeof(plain)) == -EINVAL);
}

int main(void)
{
	test_buildid_hex();
	test_caps();
	test_objcache();
	test_procmaps_lines();
	test_procmaps_self();
	test_json_numbers();
	test_json_setters();
	test_json_string();
	test_utf8_dup();
	test_utf8_seq();
	test_array();
	test_array_push();
	test_array_free();
	test_array_name();
	test_cmp();
	return CHECK_DONE();
}
