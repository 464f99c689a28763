// SPDX-License-Identifier: MIT
/*
 * profil diff's writers: the comparison of two profiles (report/diff.h) as
 * text or as JSON (doc/report-json.md, "profil diff"); the JSON is also the
 * tables of the differential flame graph's page (output/diff_html.c).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "utils/json.h"

/* ---- text ------------------------------------------------------------------ */

static void text_seconds(const struct diff *d, double v, int sign, FILE *out)
{
	if (!d->seconds_known)
		fprintf(out, " %9s", "-");
	else
		fprintf(out, sign ? " %+9.3f" : " %9.3f", v);
}

static size_t shown(const struct diff_print *o, size_t n)
{
	return o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;
}

static void text_table(const struct diff_print *o, const struct diff *d, enum diff_table t,
		       FILE *out)
{
	const struct diff_row *rows = d->rows[t];
	size_t n = shown(o, d->nrows[t]);
	int w = 8;

	fprintf(out, "\n%s (%zu of %zu shown):\n", diff__table_name(t), n, d->nrows[t]);
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(rows[i].name);

		if (l > w)
			w = l > 60 ? 60 : l;
	}
	fprintf(out, "     old%%     new%%   delta%%     old s     new s   delta s  ");
	if (d->offcpu)
		fprintf(out, " old off s  new off s  delta off s  ");
	if (t == DIFF_FUNCTIONS)
		fprintf(out, "%-*s  object\n", w, "function");
	else
		fprintf(out, "%s\n", t == DIFF_OBJECTS ? "object" : "command");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		fprintf(out, "  %7.2f  %7.2f  %+7.2f", r->old.share, r->new.share, r->delta_share);
		text_seconds(d, r->old.seconds, 0, out);
		text_seconds(d, r->new.seconds, 0, out);
		text_seconds(d, r->delta_seconds, 1, out);
		if (d->offcpu)
			fprintf(out, "  %9.3f  %9.3f  %+11.3f", r->old.offcpu_seconds,
				r->new.offcpu_seconds, r->delta_offcpu_seconds);
		if (r->object)
			fprintf(out, "  %-*s  %s\n", w, r->name, r->object);
		else
			fprintf(out, "  %s\n", r->name);
	}
}

static void text_profile(const char *which, const char *path, const struct report *rep, FILE *out)
{
	const struct pdata_header *h = &rep->v->hdr;

	fprintf(out, "# %s: %s: %s (clock %s", which, path,
		h->command[0] ? h->command : "(unknown)", pdata__clock_name(h->clock));
	if (pview__rate_hz(rep->v) > 0)
		fprintf(out, " at %.1f Hz", pview__rate_hz(rep->v));
	fprintf(out, "): %llu samples", (unsigned long long)rep->v->total);
	if (rep->period_s > 0)
		fprintf(out, ", %.3f s", (double)rep->v->total * rep->period_s);
	fprintf(out, "%s\n",
		h->state == PDATA_COMPLETE ? "" : " (incomplete: the recorder did not finish)");
	for (size_t i = 0; i < rep->nnotes; i++)
		fprintf(out, "# %s: note: %s\n", which, rep->notes[i]);
}

int diff__write_text(const struct diff *d, const struct diff_print *o, FILE *out)
{
	text_profile("old", o->old_path, d->old, out);
	text_profile("new", o->new_path, d->new, out);
	fprintf(out,
		"# %%: share of all the samples of its profile; delta = new - old; sorted by "
		"|delta %s|",
		d->o.sort == DIFF_SORT_SECONDS ? "s" :
		d->o.sort == DIFF_SORT_OFFCPU  ? "off s" :
						 "%");
	if (d->o.threshold > 0)
		fprintf(out, "; rows whose share changed by less than %g points left out",
			d->o.threshold);
	fputc('\n', out);
	if (d->offcpu)
		fprintf(out, "# off s: time off the CPU under the row (waiting: sleep, I/O, locks, "
			     "preempted), in either profile recorded with --off-cpu\n");
	if (!d->seconds_known)
		fprintf(out,
			"# seconds: unknown (a profile does not say how much CPU time a sample "
			"stands for)\n");
	for (int t = 0; t < DIFF_NTABLES; t++)
		text_table(o, d, (enum diff_table)t, out);
	return ferror(out) ? -EIO : 0;
}

/* ---- json ------------------------------------------------------------------ */

/* Seconds, or JSON null when the profile does not know its period. */
static int set_seconds(struct json_object *o, const char *k, int known, double v)
{
	return known ? json__set(o, k, json__double(v)) : json__set_null(o, k);
}

static struct json_object *json_side(const struct diff_side *s, int seconds_known, int offcpu)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= json__set(o, "samples", json__uint(s->samples));
	rc |= json__set(o, "percent", json__double(s->share));
	rc |= set_seconds(o, "seconds", seconds_known, s->seconds);
	if (offcpu) {
		rc |= json__set(o, "offcpu_seconds", json__double(s->offcpu_seconds));
		rc |= json__set(o, "offcpu_percent", json__double(s->offcpu_share));
	}
	return json__finish(o, rc);
}

static struct json_object *json_rows(const struct diff_print *o, const struct diff *d,
				     enum diff_table t)
{
	struct json_object *arr = json_object_new_array();
	size_t n = shown(o, d->nrows[t]);
	int rc = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < n; i++) {
		const struct diff_row *r = &d->rows[t][i];
		struct json_object *ro = json_object_new_object();

		if (!ro) {
			rc = -ENOMEM;
			break;
		}
		rc |= json__set(ro, "name", json_object_new_string(r->name));
		if (r->object)
			rc |= json__set(ro, "object", json_object_new_string(r->object));
		rc |= json__set(ro, "path", json_object_new_string(r->path));
		rc |= json__set(ro, "old", json_side(&r->old, d->old->period_s > 0, d->offcpu));
		rc |= json__set(ro, "new", json_side(&r->new, d->new->period_s > 0, d->offcpu));
		rc |= json__set(ro, "delta_percent", json__double(r->delta_share));
		rc |= set_seconds(ro, "delta_seconds", d->seconds_known, r->delta_seconds);
		if (d->offcpu) {
			rc |= json__set(ro, "delta_offcpu_seconds",
					json__double(r->delta_offcpu_seconds));
			rc |= json__set(ro, "delta_offcpu_percent",
					json__double(r->delta_offcpu_share));
		}
		rc |= json__push(arr, ro);
	}
	return json__finish(arr, rc);
}

static struct json_object *json_profile(const char *path, const struct report *rep)
{
	const struct pdata_header *h = &rep->v->hdr;
	struct json_object *o = json_object_new_object(), *notes = json_object_new_array();
	int rc = o && notes ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < rep->nnotes; i++)
		rc = json__push(notes, json_object_new_string(rep->notes[i]));
	if (!o) {
		json_object_put(notes);
		return NULL;
	}
	rc |= json__set(o, "file", json_object_new_string(path));
	rc |= json__set(o, "command", json_object_new_string(h->command));
	rc |= json__set(o, "clock", json_object_new_string(pdata__clock_name(h->clock)));
	rc |= json__set(o, "rate_hz", json__double(pview__rate_hz(rep->v)));
	rc |= json__set(o, "period_ns", json__uint(h->period_ns));
	rc |= json__set(o, "complete", json_object_new_boolean(h->state == PDATA_COMPLETE));
	rc |= json__set(o, "total_samples", json__uint(rep->v->total));
	rc |= set_seconds(o, "total_seconds", rep->period_s > 0,
			  (double)rep->v->total * rep->period_s);
	rc |= json__set(o, "cpu_seconds", json__double((double)h->cpu_ns / 1e9));
	rc |= json__set(o, "offcpu_seconds", json__double((double)rep->totals.offcpu_ns[0] / 1e9));
	rc |= json__set(o, "notes", notes);
	return json__finish(o, rc);
}

struct json_object *diff__json(const struct diff *d, const struct diff_print *o)
{
	struct json_object *top = json_object_new_object();
	int rc = top ? 0 : -ENOMEM;

	if (rc)
		return NULL;
	rc |= json__set(top, "old", json_profile(o->old_path, d->old));
	rc |= json__set(top, "new", json_profile(o->new_path, d->new));
	rc |= json__set(top, "percent_of", json_object_new_string("profile"));
	rc |= json__set(top, "sort",
			json_object_new_string(d->o.sort == DIFF_SORT_SECONDS ? "seconds" :
					       d->o.sort == DIFF_SORT_OFFCPU  ? "offcpu" :
										"share"));
	rc |= json__set(top, "threshold", json__double(d->o.threshold));
	rc |= json__set(top, "seconds_known", json_object_new_boolean(d->seconds_known));
	rc |= json__set(top, "offcpu", json_object_new_boolean(d->offcpu));
	for (int t = 0; !rc && t < DIFF_NTABLES; t++)
		rc |= json__set(top, diff__table_name((enum diff_table)t),
				json_rows(o, d, (enum diff_table)t));
	return json__finish(top, rc);
}

int diff__write_json(const struct diff *d, const struct diff_print *o, FILE *out)
{
	struct json_object *top = diff__json(d, o);

	if (!top)
		return -ENOMEM;
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	return ferror(out) ? -EIO : 0;
}
