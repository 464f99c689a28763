// SPDX-License-Identifier: MIT
/*
 * diff_jsoncheck FILE: parses `profil diff --format json` output with json-c,
 * checks every field doc/report-json.md ("profil diff") documents (name and
 * type) and what the rows must satisfy (delta = new - old, percent =
 * samples / total, sorted by the size of the change, the threshold), and
 * prints a flat listing the e2e tests read, tab-separated:
 *   profile SIDE FILE TOTAL_SAMPLES TOTAL_SECONDS CLOCK COMPLETE
 *   meta SORT THRESHOLD SECONDS_KNOWN
 *   row TABLE RANK OLD_SAMPLES NEW_SAMPLES OLD_PCT NEW_PCT DELTA_PCT OLD_S NEW_S DELTA_S NAME OBJECT
 * (seconds "null" when unknown, OBJECT "-" outside the functions table).
 * Exits 1 with a "schema:" line on the first violation.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("schema: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

static struct json_object *need(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, type) &&
	     !(type == json_type_double && json_object_is_type(v, json_type_int))))
		fail("field '%s' missing or not of type %s", key, json_type_to_name(type));
	return v;
}

/* A number or null: *known = 0 for null. */
static double number_or_null(struct json_object *o, const char *key, int *known)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail("field '%s' missing", key);
	*known = v != NULL;
	if (v && !json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		fail("field '%s' is neither a number nor null", key);
	return v ? json_object_get_double(v) : 0.0;
}

struct profile {
	long long total;
	double total_s;
	int seconds_known;
};

static struct profile check_profile(struct json_object *top, const char *side)
{
	struct json_object *p = need(top, side, json_type_object), *notes;
	struct profile r;

	r.total = json_object_get_int64(need(p, "total_samples", json_type_int));
	r.total_s = number_or_null(p, "total_seconds", &r.seconds_known);
	need(p, "rate_hz", json_type_double);
	need(p, "period_ns", json_type_int);
	need(p, "cpu_seconds", json_type_double);
	notes = need(p, "notes", json_type_array);
	for (size_t i = 0; i < json_object_array_length(notes); i++)
		if (!json_object_is_type(json_object_array_get_idx(notes, i), json_type_string))
			fail("%s.notes[%zu] is not a string", side, i);
	need(p, "command", json_type_string);
	printf("profile\t%s\t%s\t%lld\t", side,
	       json_object_get_string(need(p, "file", json_type_string)), r.total);
	if (r.seconds_known)
		printf("%.6f", r.total_s);
	else
		printf("null");
	printf("\t%s\t%d\n", json_object_get_string(need(p, "clock", json_type_string)),
	       json_object_get_boolean(need(p, "complete", json_type_boolean)));
	return r;
}

struct side {
	long long samples;
	double pct, s;
	int s_known;
};

static struct side check_side(struct json_object *row, const char *key, const struct profile *p,
			      const char *where)
{
	struct json_object *o = need(row, key, json_type_object);
	struct side s;

	s.samples = json_object_get_int64(need(o, "samples", json_type_int));
	s.pct = json_object_get_double(need(o, "percent", json_type_double));
	s.s = number_or_null(o, "seconds", &s.s_known);
	if (s.samples < 0 || (p->total && s.samples > p->total))
		fail("%s.%s.samples %lld outside 0..%lld", where, key, s.samples, p->total);
	if (fabs(s.pct - (p->total ? 100.0 * (double)s.samples / (double)p->total : 0)) > 1e-6)
		fail("%s.%s.percent %.9g is not 100 x samples / total", where, key, s.pct);
	if (s.s_known != p->seconds_known)
		fail("%s.%s.seconds known %d, the profile's %d", where, key, s.s_known,
		     p->seconds_known);
	if (s.s_known && p->total &&
	    fabs(s.s - p->total_s * (double)s.samples / (double)p->total) > 1e-6 * (1 + p->total_s))
		fail("%s.%s.seconds %.9g is not samples x period", where, key, s.s);
	return s;
}

static double key_of(const char *sort, double dpct, double ds)
{
	return fabs(!strcmp(sort, "seconds") ? ds : dpct);
}

static void check_table(struct json_object *top, const char *table, const struct profile *old,
			const struct profile *new, const char *sort, double threshold, int sk)
{
	struct json_object *arr = need(top, table, json_type_array);
	double prev = INFINITY;

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *r = json_object_array_get_idx(arr, i), *obj;
		char where[64];
		struct side o, n;
		double dpct, ds = 0;
		int ds_known;
		const char *name;

		snprintf(where, sizeof(where), "%s[%zu]", table, i);
		name = json_object_get_string(need(r, "name", json_type_string));
		need(r, "path", json_type_string);
		if (!strcmp(table, "functions"))
			need(r, "object", json_type_string);
		else if (json_object_object_get_ex(r, "object", &obj))
			fail("%s has an object", where);
		o = check_side(r, "old", old, where);
		n = check_side(r, "new", new, where);
		dpct = json_object_get_double(need(r, "delta_percent", json_type_double));
		ds = number_or_null(r, "delta_seconds", &ds_known);
		if (fabs(dpct - (n.pct - o.pct)) > 1e-6)
			fail("%s.delta_percent is not new - old", where);
		if (ds_known != sk || (sk && fabs(ds - (n.s - o.s)) > 1e-6))
			fail("%s.delta_seconds is not new - old (or null)", where);
		if (!o.samples && !n.samples)
			fail("%s has no samples in either profile", where);
		if (fabs(dpct) < threshold - 1e-9)
			fail("%s changed %.9g points, under the threshold", where, dpct);
		if (key_of(sort, dpct, ds) > prev + 1e-9)
			fail("%s is out of order", where);
		prev = key_of(sort, dpct, ds);
		printf("row\t%s\t%zu\t%lld\t%lld\t%.4f\t%.4f\t%.4f\t", table, i + 1, o.samples,
		       n.samples, o.pct, n.pct, dpct);
		if (sk)
			printf("%.6f\t%.6f\t%.6f", o.s, n.s, ds);
		else
			printf("null\tnull\tnull");
		printf("\t%s\t%s\n", name,
		       !strcmp(table, "functions") ?
			       json_object_get_string(need(r, "object", json_type_string)) :
			       "-");
	}
}

int main(int argc, char **argv)
{
	struct json_object *top;
	struct profile old, new;
	const char *sort;
	double threshold;
	int sk;

	if (argc != 2) {
		fprintf(stderr, "usage: diff_jsoncheck FILE\n");
		return 2;
	}
	top = json_object_from_file(argv[1]);
	if (!top || !json_object_is_type(top, json_type_object))
		fail("not a JSON object");
	old = check_profile(top, "old");
	new = check_profile(top, "new");
	if (strcmp(json_object_get_string(need(top, "percent_of", json_type_string)), "profile"))
		fail("percent_of is not \"profile\"");
	sort = json_object_get_string(need(top, "sort", json_type_string));
	if (strcmp(sort, "share") && strcmp(sort, "seconds"))
		fail("sort is '%s'", sort);
	threshold = json_object_get_double(need(top, "threshold", json_type_double));
	sk = json_object_get_boolean(need(top, "seconds_known", json_type_boolean));
	if (sk != (old.seconds_known && new.seconds_known))
		fail("seconds_known disagrees with the profiles");
	printf("meta\t%s\t%g\t%d\n", sort, threshold, sk);
	check_table(top, "functions", &old, &new, sort, threshold, sk);
	check_table(top, "objects", &old, &new, sort, threshold, sk);
	check_table(top, "commands", &old, &new, sort, threshold, sk);
	json_object_put(top);
	return 0;
}
