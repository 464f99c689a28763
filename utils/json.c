// SPDX-License-Identifier: MIT
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "utils/json.h"
#include "utils/utf8.h"

struct json_object *json__double(double d)
{
	char buf[64];

	if (!isfinite(d))
		d = 0;
	snprintf(buf, sizeof(buf), "%.9g", d);
	if (!strpbrk(buf, ".en")) /* keep it a JSON number with a fraction: 1000.0 */
		strcat(buf, ".0");
	return json_object_new_double_s(d, buf);
}

struct json_object *json__uint(uint64_t n)
{
	return json_object_new_int64(n > INT64_MAX ? INT64_MAX : (int64_t)n);
}

int json__set(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int json__set_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) ? -ENOMEM : 0;
}

int json__push(struct json_object *arr, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

struct json_object *json__finish(struct json_object *o, int rc)
{
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The escape of a byte that cannot stand for itself in a JSON string (buf: 7 bytes). */
static const char *escape_of(unsigned char c, char *buf)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	default:
		snprintf(buf, 7, "\\u%04x", c);
		return buf;
	}
}

void json__write_string(const char *s, void (*put)(void *arg, const char *p, size_t n), void *arg)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	char buf[7];

	put(arg, "\"", 1);
	while (left) {
		size_t n = utf8__seq_len(p, left);

		if (n > 1 || (n == 1 && *p >= 0x20 && *p != '"' && *p != '\\')) {
			put(arg, (const char *)p, n);
		} else {
			const char *e = escape_of(*p, buf);

			put(arg, e, strlen(e));
			n = 1;
		}
		p += n;
		left -= n;
	}
	put(arg, "\"", 1);
}
