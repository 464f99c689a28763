// SPDX-License-Identifier: MIT
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "utils/json.h"

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
