// SPDX-License-Identifier: MIT
/*
 * report/diff and its writers (output/diff_write.c): two profiles written
 * by the test over this program's own functions (period 1 ms), compared:
 *
 *   OLD  hot_x 100, hot_y 100, hot_z 200                     (400 samples)
 *   NEW  hot_x 150 + 50 in a forked image (2x slower), hot_y 100,
 *        hot_z 200, hot_w 10 (new)                           (510 samples)
 *
 * hot_x comes first with +14.22 points and +0.1 s; --sort seconds puts
 * hot_w second; a threshold leaves the small changes out; the objects
 * and commands tables; a profile without a period (seconds unknown,
 * --sort seconds refused); the text and JSON writers (the JSON parsed back
 * with json-c); a profile that cannot be read.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "output/output.h"
#include "profile_fixture.h"

FIXTURE_WORK(hot_x, 1);
FIXTURE_WORK(hot_y, 2);
FIXTURE_WORK(hot_z, 3);
FIXTURE_WORK(hot_w, 4);

#define PC(f) ((uint64_t)(uintptr_t)(f) + 2)

static char old_path[256], new_path[256], noperiod_path[256], exe_base[256];

/* Samples of the root image at each function (0: none), and of a forked image at hot_x. */
struct side {
	uint64_t x, y, z, w, x_kid;
	uint64_t period_ns;
};

static int write_profile(const char *path, const struct side *s, char *why, size_t whylen)
{
	struct fixture_header h = {.clock = PDATA_CLOCK_PERF,
				   .period_ns = s->period_ns,
				   .command = "prog",
				   .create = {.table_slots = 64, .records_cap = 1 << 20}};
	struct pdata *pd;
	struct pdata_proc *p, *kid;
	int rc = fixture__start(&pd, path, &h, 7000, &p, why, whylen);

	if (rc < 0)
		return rc;
	pdata__add_thread(pd, p->id, 7000, "prog");
	if (s->x)
		pdata__count(pd, p->id, 7000, PC(hot_x), s->x);
	if (s->y)
		pdata__count(pd, p->id, 7000, PC(hot_y), s->y);
	if (s->z)
		pdata__count(pd, p->id, 7000, PC(hot_z), s->z);
	if (s->w)
		pdata__count(pd, p->id, 7000, PC(hot_w), s->w);
	if (s->x_kid) {
		kid = pdata__add_proc(pd, 7001, 7000, p->id, fixture__exe(), pdata__now_ns());
		pdata__count(pd, kid->id, 7001, PC(hot_x), s->x_kid);
	}
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static const struct diff_row *row(const struct diff *d, enum diff_table t, const char *name)
{
	for (size_t i = 0; i < d->nrows[t]; i++)
		if (!strcmp(d->rows[t][i].name, name))
			return &d->rows[t][i];
	return NULL;
}

static const char *order(const struct diff *d, enum diff_table t)
{
	static char out[512];
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < d->nrows[t] && at < sizeof(out); i++)
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s", i ? " " : "",
				       d->rows[t][i].name);
	return out;
}

static struct diff *load(const char *name, const char *a, const char *b, const struct diff_opts *o)
{
	struct diff *d = NULL;
	char why[512] = "";
	int rc = diff__load(&d, a, b, o, why, sizeof(why));

	if (rc < 0)
		CHECKF(name, 0, "diff__load: %d %s", rc, why);
	return d;
}

static void test_model(void)
{
	struct diff *d = load("share", old_path, new_path, &(struct diff_opts){0});
	const struct diff_row *x, *w, *y, *z;

	if (!d)
		return;
	x = row(d, DIFF_FUNCTIONS, "hot_x");
	w = row(d, DIFF_FUNCTIONS, "hot_w");
	y = row(d, DIFF_FUNCTIONS, "hot_y");
	z = row(d, DIFF_FUNCTIONS, "hot_z");
	CHECKF("by |delta share|: the slower function first",
	       !strcmp(order(d, DIFF_FUNCTIONS), "hot_x hot_z hot_y hot_w"), "%s",
	       order(d, DIFF_FUNCTIONS));
	CHECK("2x slower, summed across images: samples and seconds",
	      x && x->old.samples == 100 && x->new.samples == 200 && near(x->old.seconds, 0.1) &&
		      near(x->new.seconds, 0.2) && near(x->delta_seconds, 0.1));
	CHECKF("its delta share",
	       x && near(x->old.share, 25.0) && near(x->new.share, 100.0 * 200 / 510) &&
		       near(x->delta_share, 100.0 * 200 / 510 - 25.0),
	       "%.6f", x ? x->delta_share : 0);
	CHECK("its object and path",
	      x && !strcmp(x->object, exe_base) && !strcmp(x->path, fixture__exe()));
	CHECK("unchanged time, a smaller share",
	      y && near(y->delta_seconds, 0) && near(y->delta_share, 100.0 * 100 / 510 - 25.0) &&
		      z && near(z->delta_share, 100.0 * 200 / 510 - 50.0));
	CHECK("a function only in NEW", w && w->old.samples == 0 && near(w->old.share, 0) &&
						w->new.samples == 10 &&
						near(w->delta_seconds, 0.01));
	CHECK("seconds known", d->seconds_known);
	CHECK("objects: one, all of both",
	      d->nrows[DIFF_OBJECTS] == 1 && !strcmp(d->rows[DIFF_OBJECTS][0].name, exe_base) &&
		      !d->rows[DIFF_OBJECTS][0].object &&
		      d->rows[DIFF_OBJECTS][0].old.samples == 400 &&
		      d->rows[DIFF_OBJECTS][0].new.samples == 510 &&
		      near(d->rows[DIFF_OBJECTS][0].delta_share, 0) &&
		      near(d->rows[DIFF_OBJECTS][0].delta_seconds, 0.11));
	CHECK("commands: by the executable's base name, images summed",
	      d->nrows[DIFF_COMMANDS] == 1 && !strcmp(d->rows[DIFF_COMMANDS][0].name, exe_base) &&
		      d->rows[DIFF_COMMANDS][0].new.samples == 510);
	CHECK("table names", !strcmp(diff__table_name(DIFF_FUNCTIONS), "functions") &&
				     !strcmp(diff__table_name(DIFF_COMMANDS), "commands"));
	diff__free(d);

	d = load("seconds", old_path, new_path, &(struct diff_opts){.sort = DIFF_SORT_SECONDS});
	if (d)
		CHECKF("--sort seconds: ties by weight",
		       !strcmp(order(d, DIFF_FUNCTIONS), "hot_x hot_w hot_z hot_y"), "%s",
		       order(d, DIFF_FUNCTIONS));
	diff__free(d);

	d = load("threshold", old_path, new_path, &(struct diff_opts){.threshold = 5.5});
	if (d)
		CHECKF("a threshold of 5.5 points",
		       !strcmp(order(d, DIFF_FUNCTIONS), "hot_x hot_z"), "%s",
		       order(d, DIFF_FUNCTIONS));
	diff__free(d);

	/* reversed: every change changes sign */
	d = load("reversed", new_path, old_path, &(struct diff_opts){0});
	x = d ? row(d, DIFF_FUNCTIONS, "hot_x") : NULL;
	CHECK("reversed", x && near(x->delta_share, 25.0 - 100.0 * 200 / 510) &&
				  near(x->delta_seconds, -0.1) && x->old.samples == 200);
	diff__free(d);
}

static void test_no_period(void)
{
	struct diff *d = NULL;
	char why[512] = "";
	int rc = diff__load(&d, old_path, noperiod_path,
			    &(struct diff_opts){.sort = DIFF_SORT_SECONDS}, why, sizeof(why));

	CHECKF("--sort seconds without a period: -EINVAL, one sentence",
	       rc == -EINVAL && !d && strstr(why, "the new profile does not say") &&
		       !strchr(why, '\n'),
	       "%d '%s'", rc, why);
	d = load("no period", old_path, noperiod_path, &(struct diff_opts){0});
	if (d)
		CHECK("without a period: shares still, seconds unknown",
		      !d->seconds_known &&
			      !strcmp(order(d, DIFF_FUNCTIONS), "hot_x hot_z hot_y hot_w"));
	diff__free(d);
	d = NULL;
	rc = diff__load(&d, old_path, "/nonexistent/new.data", &(struct diff_opts){0}, why,
			sizeof(why));
	CHECKF("a profile that cannot be read: which one, one sentence",
	       rc == -ENOENT && !d && !strncmp(why, "new profile: ", 13) && !strchr(why, '\n'),
	       "%d '%s'", rc, why);
}

static void test_text(void)
{
	struct diff *d = load("text", old_path, new_path, &(struct diff_opts){.threshold = 1});
	struct diff_print pr = {"OLD.data", "NEW.data", 2};
	char *text = NULL, line[512];
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (!d)
		return;
	f = open_memstream(&text, &len);
	if (f) {
		rc = diff__write_text(d, &pr, f);
		fclose(f);
	}
	CHECK("text written", rc == 0 && text);
	if (!text)
		goto out;
	CHECK("text: both profiles",
	      strstr(text,
		     "# old: OLD.data: prog (clock perf at 1000.0 Hz): 400 samples, 0.400 s\n") &&
		      strstr(text, "# new: NEW.data: prog (clock perf at 1000.0 Hz): 510 samples, "
				   "0.510 s\n"));
	CHECK("text: the order and the threshold",
	      strstr(text, "sorted by |delta %|; rows whose share changed by less than 1 points "
			   "left out\n"));
	CHECK("text: --top 2 of 4", strstr(text, "\nfunctions (2 of 4 shown):\n"));
	snprintf(line, sizeof(line),
		 "\n    25.00    39.22   +14.22     0.100     0.200    +0.100  hot_x     %s\n",
		 exe_base);
	CHECKF("text: the first row", strstr(text, line), "want%s in\n%s", line, text);
	snprintf(line, sizeof(line),
		 "\n    50.00    39.22   -10.78     0.200     0.200    +0.000  "
		 "hot_z     %s\n",
		 exe_base);
	CHECK("text: the second row", strstr(text, line));
	CHECK("text: the third row is left out", !strstr(text, "hot_y"));
out:
	free(text);
	diff__free(d);
}

static struct json_object *at(struct json_object *o, const char *k)
{
	return json_object_object_get(o, k);
}

static struct json_object *write_json(const char *b, const struct diff_opts *o, long top)
{
	struct diff *d = load("json", old_path, b, o);
	struct diff_print pr = {"OLD.data", b, top};
	struct json_object *j = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = d ? open_memstream(&text, &len) : NULL;
	int rc = -1;

	if (f) {
		rc = diff__write_json(d, &pr, f);
		fclose(f);
	}
	if (rc == 0 && text)
		j = json_tokener_parse(text);
	free(text);
	diff__free(d);
	return j;
}

static void test_json(void)
{
	struct json_object *j = write_json(new_path, &(struct diff_opts){0}, 0), *fn, *x, *obj;

	CHECK("json parses", j != NULL);
	if (!j)
		return;
	fn = at(j, "functions");
	x = json_object_array_get_idx(fn, 0);
	CHECK("json: meta",
	      !strcmp(json_object_get_string(at(j, "sort")), "share") &&
		      json_object_get_boolean(at(j, "seconds_known")) &&
		      !strcmp(json_object_get_string(at(j, "percent_of")), "profile") &&
		      json_object_get_double(at(j, "threshold")) == 0);
	CHECK("json: profiles",
	      json_object_get_int(at(at(j, "old"), "total_samples")) == 400 &&
		      json_object_get_int(at(at(j, "new"), "total_samples")) == 510 &&
		      !strcmp(json_object_get_string(at(at(j, "new"), "file")), new_path) &&
		      !strcmp(json_object_get_string(at(at(j, "old"), "clock")), "perf") &&
		      json_object_get_int64(at(at(j, "old"), "period_ns")) == 1000000 &&
		      json_object_get_boolean(at(at(j, "old"), "complete")));
	CHECKF("json: the first function",
	       json_object_array_length(fn) == 4 &&
		       !strcmp(json_object_get_string(at(x, "name")), "hot_x") &&
		       !strcmp(json_object_get_string(at(x, "object")), exe_base) &&
		       !strcmp(json_object_get_string(at(x, "path")), fixture__exe()) &&
		       json_object_get_int(at(at(x, "old"), "samples")) == 100 &&
		       json_object_get_int(at(at(x, "new"), "samples")) == 200 &&
		       fabs(json_object_get_double(at(x, "delta_percent")) -
			    (100.0 * 200 / 510 - 25)) < 1e-6 &&
		       fabs(json_object_get_double(at(x, "delta_seconds")) - 0.1) < 1e-9 &&
		       fabs(json_object_get_double(at(at(x, "new"), "seconds")) - 0.2) < 1e-9,
	       "%s", json_object_to_json_string(x));
	obj = json_object_array_get_idx(at(j, "objects"), 0);
	CHECK("json: objects have no object field",
	      obj && !at(obj, "object") && json_object_array_length(at(j, "commands")) == 1);
	json_object_put(j);

	j = write_json(noperiod_path, &(struct diff_opts){0}, 1);
	x = j ? json_object_array_get_idx(at(j, "functions"), 0) : NULL;
	CHECK("json without a period: seconds null, --top 1",
	      x && json_object_array_length(at(j, "functions")) == 1 &&
		      !json_object_get_boolean(at(j, "seconds_known")) &&
		      json_object_get_type(at(x, "delta_seconds")) == json_type_null &&
		      json_object_get_type(at(at(x, "new"), "seconds")) == json_type_null &&
		      json_object_get_type(at(at(x, "old"), "seconds")) == json_type_double &&
		      json_object_get_type(at(at(j, "new"), "total_seconds")) == json_type_null);
	json_object_put(j);
}

int main(void)
{
	static const check_fn tests[] = {test_model, test_no_period, test_text, test_json, NULL};
	char why[512] = "";
	int rc;

	hot_x(1), hot_y(1), hot_z(1), hot_w(1);
	snprintf(exe_base, sizeof(exe_base), "%s", strrchr(fixture__exe(), '/') + 1);
	fixture__path(old_path, sizeof(old_path), "old.data");
	fixture__path(new_path, sizeof(new_path), "new.data");
	fixture__path(noperiod_path, sizeof(noperiod_path), "noperiod.data");
	rc = write_profile(old_path, &(struct side){100, 100, 200, 0, 0, FIXTURE_MS}, why,
			   sizeof(why));
	rc = rc ? rc :
		  write_profile(new_path, &(struct side){150, 100, 200, 10, 50, FIXTURE_MS}, why,
				sizeof(why));
	rc = rc ? rc :
		  write_profile(noperiod_path, &(struct side){150, 100, 200, 10, 50, 0}, why,
				sizeof(why));
	return check_run("write the profiles", rc, why, tests);
}
