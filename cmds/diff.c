// SPDX-License-Identifier: MIT
/*
 * profil diff [OPTIONS] OLD NEW: what changed between two recorded profiles,
 * per function, per object and per command, as text or JSON (doc/report-json.md,
 * "profil diff").  The comparison is report/diff.h; this file holds the
 * options and the printers.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

struct diff_cmd_opts {
	const char *old_path, *new_path;
	struct diff_opts d;
	int json;
	long top; /* rows per table, 0 = all */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil diff [--format text|json] [--sort share|seconds] [--threshold PCT]\n"
		"                   [--top N] OLD NEW\n"
		"  OLD, NEW          two profiles (profil.data files) to compare\n"
		"  --format FMT      text (default) or json (doc/report-json.md, \"profil diff\")\n"
		"  --sort KEY        share: by the change of share of all samples (default);\n"
		"                    seconds: by the change of CPU seconds\n"
		"  --threshold PCT   leave out rows whose share changed by less than PCT points\n"
		"                    (default 0: every row)\n"
		"  --top N           at most N rows per table\n"
		"Rows: functions (name and object), objects, commands (executables), each\n"
		"summed over every process of the profile; objects are matched by base name.\n");
}

/* ---- text ------------------------------------------------------------------ */

static void text_seconds(const struct diff *d, double v, int sign)
{
	if (!d->seconds_known)
		printf(" %9s", "-");
	else
		printf(sign ? " %+9.3f" : " %9.3f", v);
}

static size_t shown(const struct diff_cmd_opts *o, size_t n)
{
	return o->top > 0 && (size_t)o->top < n ? (size_t)o->top : n;
}

static void text_table(const struct diff_cmd_opts *o, const struct diff *d, enum diff_table t)
{
	const struct diff_row *rows = d->rows[t];
	size_t n = shown(o, d->nrows[t]);
	int w = 8;

	printf("\n%s (%zu of %zu shown):\n", diff__table_name(t), n, d->nrows[t]);
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(rows[i].name);

		if (l > w)
			w = l > 60 ? 60 : l;
	}
	printf("     old%%     new%%   delta%%     old s     new s   delta s  ");
	if (t == DIFF_FUNCTIONS)
		printf("%-*s  object\n", w, "function");
	else
		printf("%s\n", t == DIFF_OBJECTS ? "object" : "command");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		printf("  %7.2f  %7.2f  %+7.2f", r->old.share, r->new.share, r->delta_share);
		text_seconds(d, r->old.seconds, 0);
		text_seconds(d, r->new.seconds, 0);
		text_seconds(d, r->delta_seconds, 1);
		if (r->object)
			printf("  %-*s  %s\n", w, r->name, r->object);
		else
			printf("  %s\n", r->name);
	}
}

static void text_profile(const char *which, const char *path, const struct report *rep)
{
	const struct pdata_header *h = &rep->v->hdr;

	printf("# %s: %s: %s (clock %s", which, path, h->command[0] ? h->command : "(unknown)",
	       pdata__clock_name(h->clock));
	if (pview__rate_hz(rep->v) > 0)
		printf(" at %.1f Hz", pview__rate_hz(rep->v));
	printf("): %llu samples", (unsigned long long)rep->v->total);
	if (rep->period_s > 0)
		printf(", %.3f s", (double)rep->v->total * rep->period_s);
	printf("%s\n",
	       h->state == PDATA_COMPLETE ? "" : " (incomplete: the recorder did not finish)");
	for (size_t i = 0; i < rep->nnotes; i++)
		printf("# %s: note: %s\n", which, rep->notes[i]);
}

static void print_text(const struct diff_cmd_opts *o, const struct diff *d)
{
	text_profile("old", o->old_path, d->old);
	text_profile("new", o->new_path, d->new);
	printf("# %%: share of all the samples of its profile; delta = new - old; sorted by "
	       "|delta %s|",
	       o->d.sort == DIFF_SORT_SECONDS ? "s" : "%");
	if (o->d.threshold > 0)
		printf("; rows whose share changed by less than %g points left out",
		       o->d.threshold);
	putchar('\n');
	if (!d->seconds_known)
		printf("# seconds: unknown (a profile does not say how much CPU time a sample "
		       "stands for)\n");
	for (int t = 0; t < DIFF_NTABLES; t++)
		text_table(o, d, (enum diff_table)t);
}

/* ---- json ------------------------------------------------------------------ */

/* A double printed with 9 significant digits (as profil report's JSON). */
static struct json_object *jdouble(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.9g", v);
	if (!strpbrk(buf, ".en"))
		strcat(buf, ".0");
	return json_object_new_double_s(v, buf);
}

/* Seconds, or JSON null when the profile does not know its period. */
static struct json_object *jseconds(int known, double v)
{
	return known ? jdouble(v) : NULL;
}

static int jadd(struct json_object *o, const char *k, struct json_object *v, int nullable)
{
	if (!v && !nullable)
		return -ENOMEM;
	return json_object_object_add(o, k, v) ? -ENOMEM : 0;
}

static struct json_object *json_side(const struct diff_side *s, int seconds_known)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= jadd(o, "samples", json_object_new_int64((int64_t)s->samples), 0);
	rc |= jadd(o, "percent", jdouble(s->share), 0);
	rc |= jadd(o, "seconds", jseconds(seconds_known, s->seconds), 1);
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *json_rows(const struct diff_cmd_opts *o, const struct diff *d,
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
		rc |= jadd(ro, "name", json_object_new_string(r->name), 0);
		if (r->object)
			rc |= jadd(ro, "object", json_object_new_string(r->object), 0);
		rc |= jadd(ro, "path", json_object_new_string(r->path), 0);
		rc |= jadd(ro, "old", json_side(&r->old, d->old->period_s > 0), 0);
		rc |= jadd(ro, "new", json_side(&r->new, d->new->period_s > 0), 0);
		rc |= jadd(ro, "delta_percent", jdouble(r->delta_share), 0);
		rc |= jadd(ro, "delta_seconds", jseconds(d->seconds_known, r->delta_seconds), 1);
		if (json_object_array_add(arr, ro)) {
			json_object_put(ro);
			rc = -ENOMEM;
		}
	}
	if (rc) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

static struct json_object *json_profile(const char *path, const struct report *rep)
{
	const struct pdata_header *h = &rep->v->hdr;
	struct json_object *o = json_object_new_object(), *notes = json_object_new_array();
	int rc = o && notes ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < rep->nnotes; i++)
		rc = json_object_array_add(notes, json_object_new_string(rep->notes[i])) ? -ENOMEM :
											   0;
	if (!o) {
		json_object_put(notes);
		return NULL;
	}
	rc |= jadd(o, "file", json_object_new_string(path), 0);
	rc |= jadd(o, "command", json_object_new_string(h->command), 0);
	rc |= jadd(o, "clock", json_object_new_string(pdata__clock_name(h->clock)), 0);
	rc |= jadd(o, "rate_hz", jdouble(pview__rate_hz(rep->v)), 0);
	rc |= jadd(o, "period_ns", json_object_new_int64((int64_t)h->period_ns), 0);
	rc |= jadd(o, "complete", json_object_new_boolean(h->state == PDATA_COMPLETE), 0);
	rc |= jadd(o, "total_samples", json_object_new_int64((int64_t)rep->v->total), 0);
	rc |= jadd(o, "total_seconds",
		   jseconds(rep->period_s > 0, (double)rep->v->total * rep->period_s), 1);
	rc |= jadd(o, "cpu_seconds", jdouble((double)h->cpu_ns / 1e9), 0);
	rc |= jadd(o, "notes", notes, 0);
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int print_json(const struct diff_cmd_opts *o, const struct diff *d)
{
	struct json_object *top = json_object_new_object();
	int rc = top ? 0 : -ENOMEM;

	if (rc)
		return rc;
	rc |= jadd(top, "old", json_profile(o->old_path, d->old), 0);
	rc |= jadd(top, "new", json_profile(o->new_path, d->new), 0);
	rc |= jadd(top, "percent_of", json_object_new_string("profile"), 0);
	rc |= jadd(top, "sort",
		   json_object_new_string(o->d.sort == DIFF_SORT_SECONDS ? "seconds" : "share"), 0);
	rc |= jadd(top, "threshold", jdouble(o->d.threshold), 0);
	rc |= jadd(top, "seconds_known", json_object_new_boolean(d->seconds_known), 0);
	for (int t = 0; !rc && t < DIFF_NTABLES; t++)
		rc |= jadd(top, diff__table_name((enum diff_table)t),
			   json_rows(o, d, (enum diff_table)t), 0);
	if (!rc)
		printf("%s\n",
		       json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
	return rc;
}

/* ---- command --------------------------------------------------------------- */

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct diff_cmd_opts *o)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"sort", required_argument, NULL, 's'},
		{"threshold", required_argument, NULL, 't'},
		{"top", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end;
	int c;

	while ((c = opts__next("diff", argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "profil diff: unknown format '%s' (text or json)\n",
					optarg);
				return 2;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 's':
			if (strcmp(optarg, "share") && strcmp(optarg, "seconds")) {
				fprintf(stderr,
					"profil diff: unknown sort key '%s' (share or seconds)\n",
					optarg);
				return 2;
			}
			o->d.sort =
				!strcmp(optarg, "seconds") ? DIFF_SORT_SECONDS : DIFF_SORT_SHARE;
			break;
		case 't':
			errno = 0;
			o->d.threshold = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->d.threshold) ||
			    o->d.threshold < 0 || o->d.threshold > 100) {
				fprintf(stderr,
					"profil diff: --threshold needs a number of percentage "
					"points "
					"from 0 to 100, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			o->top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->top < 1) {
				fprintf(stderr,
					"profil diff: --top needs a positive number, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr,
			"profil diff: give two profiles, OLD and NEW (usage: profil diff [OPTIONS] "
			"OLD NEW)\n");
		return 2;
	}
	o->old_path = argv[optind];
	o->new_path = argv[optind + 1];
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd_opts o = {0};
	struct diff *d;
	char why[512];
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (diff__load(&d, o.old_path, o.new_path, &o.d, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil diff: %s\n", why);
		return 1;
	}
	rc = 0;
	if (o.json)
		rc = print_json(&o, d);
	else
		print_text(&o, d);
	diff__free(d);
	if (rc < 0 || fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "profil diff: cannot write the comparison: %s\n",
			rc < 0 ? "out of memory" : strerror(errno));
		return 1;
	}
	return 0;
}
