// SPDX-License-Identifier: MIT
/*
 * report/cgreport and its writers (output/cgreport_write.c): a profile
 * with call stacks of known counts, written by the test over this
 * program's own functions, through the report's model: --call-graph
 * caller and callee trees with percent thresholds (given, the default, and
 * --percent-limit's), --callers and --callees of one function, a function
 * on no stack, the filters, one image's and its threads' trees; the text
 * trees and the JSON trees, stacks and frames on the same model.
 *
 * Stacks (leaf first), 200 samples, period 1 ms:
 *   thread 6000 "main":   60 cg_a <- cg_run <- cg_main
 *                         25 cg_b <- cg_run <- cg_main
 *                         10 cg_run <- cg_main
 *                          5 cg_b <- cg_run <- [truncated]
 *                          4 cg_c <- cg_b <- cg_run <- cg_main
 *                          1 cg_c <- cg_main
 *   thread 6001 "worker": 80 cg_c <- cg_worker
 *                         15 cg_worker
 */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "check.h"
#include "output/output.h"
#include "profile_fixture.h"

FIXTURE_WORK(cg_main, 1);
FIXTURE_WORK(cg_run, 2);
FIXTURE_WORK(cg_a, 3);
FIXTURE_WORK(cg_b, 4);
FIXTURE_WORK(cg_c, 5);
FIXTURE_WORK(cg_worker, 6);

#define LEAF(f) ((uint64_t)(uintptr_t)(f) + 2)
#define RET(f) ((uint64_t)(uintptr_t)(f) + 9)
#define STACK(...) (const uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8

static char profile[256];

static int write_profile(const char *path, char *why, size_t whylen)
{
	static const struct fixture_header h = FIXTURE_FP_HEADER("cg", FIXTURE_MS);
	struct pdata *pd;
	struct pdata_proc *p;
	int rc = fixture__start(&pd, path, &h, 6000, &p, why, whylen);

	if (rc < 0)
		return rc;
	pdata__add_thread(pd, p->id, 6000, "main");
	pdata__add_thread(pd, p->id, 6001, "worker");
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_a), RET(cg_run), RET(cg_main)), 0, 60);
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_b), RET(cg_run), RET(cg_main)), 0, 25);
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_run), RET(cg_main)), 0, 10);
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_b), RET(cg_run)), 1, 5);
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_c), RET(cg_b), RET(cg_run), RET(cg_main)),
			   0, 4);
	pdata__count_stack(pd, p->id, 6000, STACK(LEAF(cg_c), RET(cg_main)), 0, 1);
	pdata__count_stack(pd, p->id, 6001, STACK(LEAF(cg_c), RET(cg_worker)), 0, 80);
	pdata__count_stack(pd, p->id, 6001, STACK(LEAF(cg_worker)), 0, 15);
	pdata__end_proc(p, PDATA_END_EXITED, 0, pdata__now_ns(), NULL);
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

/* The report and its call-stack parts for ro and co; 0, or the error of cgreport__new. */
struct fix {
	struct report *m;
	struct cgreport *cr;
	char why[512];
};

static int open_fix(struct fix *f, const struct report_opts *ro, const struct cgreport_opts *co)
{
	int rc;

	memset(f, 0, sizeof(*f));
	rc = report__load(&f->m, profile, ro, f->why, sizeof(f->why));
	if (rc < 0)
		return rc;
	rc = cgreport__new(&f->cr, f->m, co, f->why, sizeof(f->why));
	return rc;
}

static void close_fix(struct fix *f)
{
	cgreport__free(f->cr);
	report__free(f->m);
}

/* The text trees of a scope (ci NULL: the run), in a static buffer. */
static const char *text_of(const struct cgreport *cr, const struct cgreport_image *ci, size_t t)
{
	static char out[8192];
	FILE *f = fmemopen(out, sizeof(out), "w");

	out[0] = 0;
	if (f) {
		cgreport__text_trees(cr, ci, t, f);
		fclose(f);
	}
	return out;
}

/* Only the node lines of a text tree, as "PCT SAMPLES INDENTNAME|...". */
static const char *nodes_of(const char *text)
{
	static char out[4096];
	size_t at = 0;

	out[0] = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double pct;
		unsigned long long n;
		int pos = 0;

		if (sscanf(l, " %lf%% %llu%n", &pct, &n, &pos) != 2 || !pos ||
		    strncmp(l + pos, "  ", 2))
			continue;
		/* the name with its indentation (two spaces a level) */
		const char *name = l + pos + 2;
		const char *nl = strchr(name, '\n');
		int len = nl ? (int)(nl - name) : (int)strlen(name);

		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%.2f %llu %.*s",
				       at ? "|" : "", pct, n, len, name);
	}
	return out;
}

static const struct cgreport_opts caller = {.call_graph = 1, .order = CG_CALLER, .threshold = 0.5};

static void test_parse(void)
{
	struct cgreport_opts o = {0};
	char why[256] = "";

	CHECK("parse caller", cgreport__parse_call_graph("caller", &o, why, sizeof(why)) == 0 &&
				      o.call_graph && o.order == CG_CALLER &&
				      o.threshold == CGREPORT_DEFAULT_THRESHOLD &&
				      !o.threshold_given);
	CHECK("parse callee,1.5",
	      cgreport__parse_call_graph("callee,1.5", &o, why, sizeof(why)) == 0 &&
		      o.order == CG_CALLEE && o.threshold == 1.5 && o.threshold_given);
	CHECK("parse 0 and 100",
	      cgreport__parse_call_graph("caller,0", &o, why, sizeof(why)) == 0 &&
		      cgreport__parse_call_graph("caller,100", &o, why, sizeof(why)) == 0);
	why[0] = 0;
	CHECK("refuse an order",
	      cgreport__parse_call_graph("up", &o, why, sizeof(why)) == -EINVAL &&
		      strstr(why, "'up'"));
	CHECK("refuse thresholds",
	      cgreport__parse_call_graph("caller,101", &o, why, sizeof(why)) == -EINVAL &&
		      cgreport__parse_call_graph("caller,", &o, why, sizeof(why)) == -EINVAL &&
		      cgreport__parse_call_graph("caller,-1", &o, why, sizeof(why)) == -EINVAL &&
		      cgreport__parse_call_graph("callee,5x", &o, why, sizeof(why)) == -EINVAL &&
		      cgreport__parse_call_graph("callers", &o, why, sizeof(why)) == -EINVAL);
	CHECK("wanted", !cgreport__wanted(&(struct cgreport_opts){0}) &&
				cgreport__wanted(&(struct cgreport_opts){.children = 1}) &&
				cgreport__wanted(&(struct cgreport_opts){.callers = "x"}));
}

static void test_text_trees(void)
{
	struct fix f;
	struct cgreport_opts o = caller;
	const char *got;

	if (open_fix(&f, &(struct report_opts){0}, &o) < 0) {
		CHECKF("caller tree", 0, "%s", f.why);
		close_fix(&f);
		return;
	}
	got = nodes_of(text_of(f.cr, NULL, 0));
	CHECKF("caller tree (0.5 %: every node)",
	       !strcmp(got, "50.00 100 cg_main|49.50 99   cg_run|30.00 60     cg_a|"
			    "14.50 29     cg_b|2.00 4       cg_c|0.50 1   cg_c|"
			    "47.50 95 cg_worker|40.00 80   cg_c|"
			    "2.50 5 [truncated]|2.50 5   cg_run|2.50 5     cg_b"),
	       "%s", got);
	got = text_of(f.cr, NULL, 0);
	CHECKF("caller tree title",
	       strstr(got, "call graph, caller order") &&
		       strstr(got, "nodes of at least 0.5% of the run's samples:"),
	       "%s", got);
	CHECK("the trees do not replace the table", !cgreport__replaces_table(f.cr));
	close_fix(&f);

	o.threshold = 10;
	open_fix(&f, &(struct report_opts){0}, &o);
	got = f.cr ? nodes_of(text_of(f.cr, NULL, 0)) : "";
	CHECKF("caller tree at 10 % (20 samples)",
	       !strcmp(got, "50.00 100 cg_main|49.50 99   cg_run|30.00 60     cg_a|"
			    "14.50 29     cg_b|47.50 95 cg_worker|40.00 80   cg_c"),
	       "%s", got);
	close_fix(&f);

	/* --percent-limit is the threshold when --call-graph gives none */
	o = caller;
	open_fix(&f, &(struct report_opts){.percent_limit = 40}, &o);
	got = f.cr ? nodes_of(text_of(f.cr, NULL, 0)) : "";
	CHECKF("--percent-limit 40 as the threshold",
	       f.cr && f.cr->o.threshold == 40 &&
		       !strcmp(got, "50.00 100 cg_main|49.50 99   cg_run|47.50 95 cg_worker|"
				    "40.00 80   cg_c"),
	       "%s", got);
	close_fix(&f);
	o.threshold_given = 1;
	o.threshold = 45;
	open_fix(&f, &(struct report_opts){.percent_limit = 40}, &o);
	CHECK("a threshold given wins over --percent-limit", f.cr && f.cr->o.threshold == 45);
	close_fix(&f);

	o = caller;
	o.order = CG_CALLEE;
	open_fix(&f, &(struct report_opts){0}, &o);
	got = f.cr ? nodes_of(text_of(f.cr, NULL, 0)) : "";
	CHECKF("callee tree",
	       !strcmp(got, "42.50 85 cg_c|40.00 80   cg_worker|2.00 4   cg_b|2.00 4     cg_run|"
			    "2.00 4       cg_main|0.50 1   cg_main|"
			    "30.00 60 cg_a|30.00 60   cg_run|30.00 60     cg_main|"
			    "15.00 30 cg_b|15.00 30   cg_run|12.50 25     cg_main|"
			    "2.50 5     [truncated]|"
			    "7.50 15 cg_worker|5.00 10 cg_run|5.00 10   cg_main"),
	       "%s", got);
	close_fix(&f);
}

static void test_focus(void)
{
	struct fix f;
	struct cgreport_opts o = {.callers = "cg_c", .threshold = 0.5};
	static const int worker[] = {6001};
	const char *got;
	int rc;

	rc = open_fix(&f, &(struct report_opts){0}, &o);
	got = rc == 0 ? text_of(f.cr, NULL, 0) : "";
	CHECKF("--callers cg_c",
	       !strcmp(nodes_of(got), "42.50 85 cg_c (self 85)|40.00 80   cg_worker|"
				      "2.00 4   cg_b|2.00 4     cg_run|2.00 4       cg_main|"
				      "0.50 1   cg_main"),
	       "%s", got);
	CHECK("--callers replaces the table", rc == 0 && cgreport__replaces_table(f.cr));
	close_fix(&f);

	o = (struct cgreport_opts){.callees = "cg_run", .threshold = 0.5};
	rc = open_fix(&f, &(struct report_opts){0}, &o);
	got = rc == 0 ? text_of(f.cr, NULL, 0) : "";
	CHECKF("--callees cg_run (the cut-short stack too)",
	       !strcmp(nodes_of(got), "52.00 104 cg_run (self 10)|30.00 60   cg_a|"
				      "17.00 34   cg_b|2.00 4     cg_c"),
	       "%s", got);
	close_fix(&f);

	o = (struct cgreport_opts){.callers = "nope", .threshold = 0.5};
	rc = open_fix(&f, &(struct report_opts){0}, &o);
	CHECKF("--callers of a function on no stack: -ENOENT, one sentence",
	       rc == -ENOENT && !f.cr && !strcmp(f.why, "no function named 'nope' in the profile"),
	       "%d '%s'", rc, f.why);
	close_fix(&f);

	o = (struct cgreport_opts){.callers = "cg_a", .threshold = 0.5};
	rc = open_fix(&f, &(struct report_opts){.filter = {.tids = worker, .ntids = 1}}, &o);
	CHECKF("--callers of a function the filters leave out",
	       rc == -ENOENT &&
		       !strcmp(f.why, "no function named 'cg_a' in the samples the filters keep"),
	       "%d '%s'", rc, f.why);
	close_fix(&f);

	o = caller;
	rc = open_fix(&f, &(struct report_opts){.filter = {.tids = worker, .ntids = 1}}, &o);
	got = rc == 0 ? nodes_of(text_of(f.cr, NULL, 0)) : "";
	CHECKF("--tid: the tree of the samples kept, percentages of the run",
	       !strcmp(got, "47.50 95 cg_worker|40.00 80   cg_c"), "%s", got);
	close_fix(&f);
}

static void test_image(void)
{
	struct fix f;
	struct cgreport_opts o = caller;
	struct cgreport_image *ci = NULL;
	struct report_proc pr;
	const char *got;
	int rc;

	rc = open_fix(&f, &(struct report_opts){.threads = 1}, &o);
	rc = rc ? rc : report__proc(f.m, 0, &pr);
	rc = rc ? rc : cgreport__image(f.cr, &pr, 0, &ci);
	CHECKF("an image's trees", rc == 0 && ci && ci->of == 200 && ci->nthreads == 2, "%d %s", rc,
	       f.why);
	if (rc || !ci)
		goto out;
	got = nodes_of(text_of(f.cr, ci, 1));
	CHECKF("a thread's tree, percentages of its image",
	       !strcmp(got, "47.50 95 cg_worker|40.00 80   cg_c"), "%s", got);
	CHECK("the process's title",
	      strstr(text_of(f.cr, ci, CGREPORT_PROCESS), "of the process's samples"));
	CHECK("no scope beyond the threads",
	      !cgreport__scope(f.cr, ci, 2) &&
		      cgreport__scope(f.cr, ci, CGREPORT_PROCESS) == &ci->all);
	cgreport_image__free(ci);
	report_proc__release(&pr);
out:
	close_fix(&f);
}

/* ---- JSON ------------------------------------------------------------------------- */

static struct json_object *at(struct json_object *o, const char *k)
{
	return json_object_object_get(o, k);
}

static struct json_object *idx(struct json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

/* "NAME:SAMPLES(SELF)[KIDS]" of a JSON node list, names from frames. */
static void jdump(struct json_object *kids, struct json_object *frames, char *buf, size_t len)
{
	for (size_t i = 0; i < json_object_array_length(kids); i++) {
		struct json_object *n = idx(kids, i);
		struct json_object *fr = idx(frames, (size_t)json_object_get_int(at(n, "frame")));
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, "%s%s:%d(%d)", i ? "," : "",
			 json_object_get_string(at(fr, "name")),
			 json_object_get_int(at(n, "samples")),
			 json_object_get_int(at(n, "self_samples")));
		if (json_object_array_length(at(n, "children"))) {
			strncat(buf, "[", len - strlen(buf) - 1);
			jdump(at(n, "children"), frames, buf, len);
			strncat(buf, "]", len - strlen(buf) - 1);
		}
	}
}

static void test_json_run(void)
{
	struct fix f;
	struct cgreport_opts o = {
		.call_graph = 1, .order = CG_CALLER, .threshold = 10, .callers = "cg_c"};
	struct json_object *top = json_object_new_object(), *g, *frames;
	char got[2048] = "";
	int rc;

	rc = open_fix(&f, &(struct report_opts){0}, &o);
	rc = rc ? rc : cgreport__json_run(f.cr, top);
	CHECKF("json run", rc == 0, "%d %s", rc, f.why);
	g = at(top, "call_graph");
	frames = at(top, "frames");
	CHECK("json call_graph head",
	      g && !strcmp(json_object_get_string(at(g, "order")), "caller") &&
		      json_object_get_double(at(g, "threshold_percent")) == 10 &&
		      json_object_get_int(at(g, "samples")) == 200);
	if (g)
		jdump(at(g, "children"), frames, got, sizeof(got));
	CHECKF("json call_graph nodes at 10 %",
	       !strcmp(got, "cg_main:100(0)[cg_run:99(10)[cg_a:60(60),cg_b:29(25)]],"
			    "cg_worker:95(15)[cg_c:80(80)]"),
	       "%s", got);
	CHECK("json percent",
	      g && json_object_get_double(at(idx(at(g, "children"), 0), "percent")) == 50.0);
	g = at(top, "callers");
	got[0] = 0;
	if (g)
		jdump(at(g, "children"), frames, got, sizeof(got));
	CHECKF("json callers",
	       g && !strcmp(json_object_get_string(at(g, "function")), "cg_c") &&
		       json_object_get_int(at(g, "samples")) == 85 &&
		       json_object_get_int(at(g, "self_samples")) == 85 &&
		       json_object_get_double(at(g, "percent")) == 42.5 &&
		       !strcmp(got, "cg_worker:80(80)"),
	       "%s", got);
	CHECK("json frames name their object",
	      json_object_array_length(frames) >= 4 &&
		      !strcmp(json_object_get_string(at(idx(frames, 0), "object")),
			      fixture__exe()));
	json_object_put(top);
	close_fix(&f);
}

static void test_json_image(void)
{
	struct fix f;
	struct cgreport_opts o = {0};
	struct cgreport_image *ci = NULL;
	struct report_proc pr;
	struct json_object *proc = json_object_new_object(), *stacks, *frames;
	char got[2048] = "";
	int rc;

	rc = open_fix(&f, &(struct report_opts){0}, &o);
	rc = rc ? rc : report__proc(f.m, 0, &pr);
	rc = rc ? rc : cgreport__image(f.cr, &pr, 1, &ci);
	rc = rc ? rc : cgreport__json_image(f.cr, ci, proc);
	CHECKF("json image (stacks without trees)", rc == 0 && ci && !at(proc, "call_graph"), "%d",
	       rc);
	stacks = at(proc, "stacks");
	frames = at(proc, "frames");
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		struct json_object *s = idx(stacks, i), *fa = at(s, "frames");
		size_t l = strlen(got);

		snprintf(got + l, sizeof(got) - l, "%s%d:%d%s:", i ? "|" : "",
			 json_object_get_int(at(s, "tid")), json_object_get_int(at(s, "samples")),
			 json_object_get_boolean(at(s, "truncated")) ? "T" : "");
		for (size_t k = 0; k < json_object_array_length(fa); k++) {
			struct json_object *fr =
				idx(frames, (size_t)json_object_get_int(idx(fa, k)));

			l = strlen(got);
			snprintf(got + l, sizeof(got) - l, "%s%s", k ? "," : "",
				 json_object_get_string(at(fr, "name")));
		}
	}
	CHECKF("json stacks: by thread, most samples first, leaf first",
	       !strcmp(got, "6000:60:cg_a,cg_run,cg_main|6000:25:cg_b,cg_run,cg_main|"
			    "6000:10:cg_run,cg_main|6000:5T:cg_b,cg_run,[truncated]|"
			    "6000:4:cg_c,cg_b,cg_run,cg_main|6000:1:cg_c,cg_main|"
			    "6001:80:cg_c,cg_worker|6001:15:cg_worker"),
	       "%s", got);
	CHECKF("json frames: each function once", json_object_array_length(frames) == 7, "%zu",
	       json_object_array_length(frames));
	if (ci)
		cgreport_image__free(ci);
	if (rc == 0)
		report_proc__release(&pr);
	json_object_put(proc);
	close_fix(&f);
}

static void test_json_top(void)
{
	struct fix f;
	struct json_object *top = json_object_new_object();
	int rc = open_fix(&f, &(struct report_opts){0}, &(struct cgreport_opts){0});

	rc = rc ? rc : cgreport__json_top(f.m, top);
	CHECK("json top: how stacks were taken, how many cut short",
	      rc == 0 && !strcmp(json_object_get_string(at(top, "callgraph")), "fp") &&
		      json_object_get_int(at(top, "truncated_samples")) == 5 &&
		      json_object_get_int(at(top, "stacks_dropped")) == 0);
	json_object_put(top);
	close_fix(&f);
}

int main(void)
{
	static const check_fn tests[] = {test_parse,	test_text_trees, test_focus,	test_image,
					 test_json_run, test_json_image, test_json_top, NULL};
	char why[512] = "";
	int rc;

	cg_main(1), cg_run(1), cg_a(1), cg_b(1), cg_c(1), cg_worker(1);
	fixture__path(profile, sizeof(profile), "cg.data");
	rc = write_profile(profile, why, sizeof(why));
	return check_run("write the profile", rc, why, tests);
}
