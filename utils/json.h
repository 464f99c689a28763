/* SPDX-License-Identifier: MIT */
/*
 * json: the one set of helpers every JSON writer builds its json-c objects
 * with (the report, its call stacks, the HTML page's data, profil diff).
 * One spelling of numbers everywhere: doubles with 9 significant digits
 * (0.835, not 0.83499999999999996), always with a fraction or an exponent
 * (1000.0), NaN and infinities as 0.0; unsigned counts saturate at
 * INT64_MAX.  The setters take ownership of the value even when they fail,
 * and fail on a NULL value (an allocation that failed), so a writer can
 * chain them and check once.  json__write_string is the one escaper for the
 * writers that stream JSON text without json-c objects (events, watch).
 */
#ifndef PROFIL_JSON_H
#define PROFIL_JSON_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

struct json_object *json__double(double d);
struct json_object *json__uint(uint64_t n);

/* o[key] = v.  0, or -ENOMEM (v == NULL, or json-c out of memory; v released). */
int json__set(struct json_object *o, const char *key, struct json_object *v);
/* o[key] = null.  0, or -ENOMEM. */
int json__set_null(struct json_object *o, const char *key);
/* A builder's end: o when rc is 0 (every set succeeded), else NULL with o released. */
struct json_object *json__finish(struct json_object *o, int rc);
/* Append v to the array arr.  0, or -ENOMEM (v == NULL, or json-c out of memory; v released). */
int json__push(struct json_object *arr, struct json_object *v);

/*
 * Write the C string s as a JSON string, quotes included, through
 * put(arg, bytes, n) (called with pieces; never with n == 0).  s may be any
 * bytes (process names are not necessarily UTF-8): control characters,
 * quote and backslash are escaped; a byte that does not start a valid UTF-8
 * sequence becomes \u00XX (its Latin-1 value), so the output is always
 * valid JSON in valid UTF-8.
 */
void json__write_string(const char *s, void (*put)(void *arg, const char *p, size_t n), void *arg);

#endif /* PROFIL_JSON_H */
