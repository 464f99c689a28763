// SPDX-License-Identifier: MIT
/*
 * report_jsoncheck FILE: parses `profil report --format json` output with
 * json-c, checks every field doc/report-json.md documents (name and type),
 * and prints a flat listing the e2e tests grep:
 *   run COMMAND_CLOCK RATE NOMINAL SAMPLES LOST COMPLETE
 *   time VERSION KERNEL SECONDS TOTAL_SECONDS ACCOUNTED UNSAMPLED CPU USER SYSTEM THROTTLED
 *   whole KEYS ORDER SECONDS SHOWN HIDDEN_ROWS HIDDEN_SECONDS
 *   row KIND SAMPLES PERCENT SECONDS [comm=C] [pid=P] [tid=T] [object=O] [name=N] [total=T]
 *   proc PID PARENT KIND CODE SAMPLES EXE
 *   image PID COMM SECONDS ACCOUNTED UNSAMPLED CPU USER SYSTEM
 *   func PID SAMPLES PERCENT SECONDS NAME OBJECT [FILE LINE] KIND
 *   thread PID TID SAMPLES COMM SECONDS CPU USER SYSTEM
 *   tfunc PID TID SAMPLES NAME KIND
 * and the call-stack fields (when present):
 *   stacks CALLGRAPH TRUNCATED_SAMPLES STACKS_DROPPED
 *   total PID SELF TOTAL NAME                   (function objects with totals)
 *   ttotal PID TID SELF TOTAL NAME
 *   stack PID TID SAMPLES T|- ROOT;...;LEAF     (T: cut short)
 *   graph run|PID|PID/TID ORDER THRESHOLD SAMPLES    (call_graph; run: the whole run's)
 *   callers|callees run|PID|PID/TID FUNCTION SAMPLES SELF PERCENT
 *   node run|PID|PID/TID DEPTH SAMPLES SELF NAME     (every tree node, depth first)
 * (the whole run's trees come after its rows, before the processes)
 * Exits 1 with a "schema:" line on the first violation.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *need(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, type) &&
	     !(type == json_type_double && json_object_is_type(v, json_type_int)))) {
		printf("schema: field '%s' missing or not of type %s\n", key,
		       json_type_to_name(type));
		exit(1);
	}
	return v;
}

static void fail(const char *what)
{
	printf("schema: %s\n", what);
	exit(1);
}

static void funcs(struct json_object *arr, int pid, int tid, int thread)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *f = json_object_array_get_idx(arr, i), *file, *tot;
		const char *name = json_object_get_string(need(f, "name", json_type_string));
		const char *obj = json_object_get_string(need(f, "object", json_type_string));
		long long n = json_object_get_int64(need(f, "samples", json_type_int));
		double pct = json_object_get_double(need(f, "percent", json_type_double));
		double sec = json_object_get_double(need(f, "self_seconds", json_type_double));

		const char *kind = json_object_get_string(need(f, "kind", json_type_string));

		if (json_object_object_get_ex(f, "total_samples", &tot)) {
			long long t =
				json_object_get_int64(need(f, "total_samples", json_type_int));

			need(f, "total_percent", json_type_double);
			need(f, "total_seconds", json_type_double);
			if (t < n)
				fail("a function's total_samples is below its samples");
			if (thread)
				printf("ttotal %d %d %lld %lld %s\n", pid, tid, n, t, name);
			else
				printf("total %d %lld %lld %s\n", pid, n, t, name);
		}
		if (thread) {
			printf("tfunc %d %d %lld %s %s\n", pid, tid, n, name, kind);
			continue;
		}
		printf("func %d %lld %.2f %.3f %s %s", pid, n, pct, sec, name, obj);
		if (json_object_object_get_ex(f, "file", &file)) {
			need(f, "line", json_type_int);
			printf(" %s %d", file ? json_object_get_string(file) : "null",
			       json_object_get_int(need(f, "line", json_type_int)));
		}
		printf(" %s\n", kind);
	}
}

static double num(struct json_object *o, const char *key)
{
	return json_object_get_double(need(o, key, json_type_double));
}

/* A cpu object: "USER SYSTEM". */
static void cpu(struct json_object *o)
{
	struct json_object *c = need(o, "cpu", json_type_object);

	printf(" %.4f %.4f", num(c, "user_seconds"), num(c, "system_seconds"));
}

static void opt_str(struct json_object *o, const char *key, const char *label)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v))
		printf(" %s=%s", label, json_object_get_string(need(o, key, json_type_string)));
}

static void opt_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v))
		printf(" %s=%d", key, json_object_get_int(need(o, key, json_type_int)));
}

static const char **frame_names(struct json_object *p, size_t *n);
static void trees(struct json_object *o, const char *who, const char **names, size_t nnames);

/* total=N of a row or function object with totals (--children), checked. */
static void opt_total(struct json_object *o)
{
	struct json_object *v;
	long long self, total;

	if (!json_object_object_get_ex(o, "total_samples", &v))
		return;
	self = json_object_get_int64(need(o, "samples", json_type_int));
	total = json_object_get_int64(need(o, "total_samples", json_type_int));
	need(o, "total_percent", json_type_double);
	need(o, "total_seconds", json_type_double);
	if (total < self)
		fail("a row's total_samples is below its samples");
	printf(" total=%lld", total);
}

static void whole_run(struct json_object *top)
{
	struct json_object *w = need(top, "whole_run", json_type_object), *keys, *rows;

	keys = need(w, "sort", json_type_array);
	printf("whole ");
	for (size_t i = 0; i < json_object_array_length(keys); i++)
		printf("%s%s", i ? "," : "",
		       json_object_get_string(json_object_array_get_idx(keys, i)));
	printf(" %s %.4f %.4f %lld %.4f\n",
	       json_object_get_string(need(w, "order", json_type_string)), num(w, "seconds"),
	       num(w, "shown_seconds"),
	       (long long)json_object_get_int64(need(w, "hidden_rows", json_type_int)),
	       num(w, "hidden_seconds"));
	if (strcmp(json_object_get_string(need(w, "percent_of", json_type_string)), "run")) {
		printf("schema: whole_run.percent_of is not \"run\"\n");
		exit(1);
	}
	rows = need(w, "rows", json_type_array);
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *r = json_object_array_get_idx(rows, i);

		printf("row %s %lld %.2f %.4f",
		       json_object_get_string(need(r, "kind", json_type_string)),
		       (long long)json_object_get_int64(need(r, "samples", json_type_int)),
		       num(r, "percent"), num(r, "self_seconds"));
		opt_str(r, "comm", "comm");
		opt_int(r, "pid");
		opt_int(r, "tid");
		opt_str(r, "object", "object");
		opt_str(r, "name", "name");
		opt_total(r);
		putchar('\n');
	}
	if (json_object_object_get_ex(w, "frames", &keys)) {
		size_t nnames;
		const char **names = frame_names(w, &nnames);

		trees(w, "run", names, nnames);
		free((void *)names);
	}
}

/* The names of a process's frames (checked), indexed as in "frames". */
static const char **frame_names(struct json_object *p, size_t *n)
{
	struct json_object *arr = need(p, "frames", json_type_array), *file;
	const char **names;

	*n = json_object_array_length(arr);
	names = calloc(*n ? *n : 1, sizeof(*names));
	if (!names)
		fail("out of memory");
	for (size_t i = 0; i < *n; i++) {
		struct json_object *f = json_object_array_get_idx(arr, i);

		names[i] = json_object_get_string(need(f, "name", json_type_string));
		need(f, "object", json_type_string);
		if (json_object_object_get_ex(f, "file", &file) && file &&
		    !json_object_is_type(file, json_type_string))
			fail("frame file is neither a string nor null");
		if (json_object_object_get_ex(f, "file", &file))
			need(f, "line", json_type_int);
	}
	return names;
}

static const char *frame_name(struct json_object *idx, const char **names, size_t n)
{
	long long i;

	if (!json_object_is_type(idx, json_type_int))
		fail("a frame index is not an integer");
	i = json_object_get_int64(idx);
	if (i < 0 || (size_t)i >= n)
		fail("a frame index is outside frames");
	return names[i];
}

static void stacks(struct json_object *p, int pid, const char **names, size_t nnames)
{
	struct json_object *arr = need(p, "stacks", json_type_array);

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);
		struct json_object *fr = need(s, "frames", json_type_array);
		int trunc = json_object_get_boolean(need(s, "truncated", json_type_boolean));
		size_t n = json_object_array_length(fr);

		if (!n)
			fail("a stack without frames");
		if (trunc && strcmp(frame_name(json_object_array_get_idx(fr, n - 1), names, nnames),
				    "[truncated]"))
			fail("a truncated stack does not end with [truncated]");
		printf("stack %d %d %lld %s ", pid,
		       json_object_get_int(need(s, "tid", json_type_int)),
		       (long long)json_object_get_int64(need(s, "samples", json_type_int)),
		       trunc ? "T" : "-");
		for (size_t k = n; k-- > 0;)
			printf("%s%s", frame_name(json_object_array_get_idx(fr, k), names, nnames),
			       k ? ";" : "\n");
	}
}

/* A tree node's fields and its children, depth first; returns its samples. */
static long long nodes(struct json_object *arr, const char *who, int depth, const char **names,
		       size_t nnames)
{
	long long sum = 0;

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *nd = json_object_array_get_idx(arr, i);
		long long n = json_object_get_int64(need(nd, "samples", json_type_int));
		long long self = json_object_get_int64(need(nd, "self_samples", json_type_int));

		need(nd, "percent", json_type_double);
		printf("node %s %d %lld %lld %s\n", who, depth, n, self,
		       frame_name(need(nd, "frame", json_type_int), names, nnames));
		if (self > n ||
		    nodes(need(nd, "children", json_type_array), who, depth + 1, names, nnames) > n)
			fail("a tree node has more samples below it than in it");
		sum += n;
	}
	return sum;
}

/* call_graph, callers and callees of a process or thread object o. */
static void trees(struct json_object *o, const char *who, const char **names, size_t nnames)
{
	static const char *const focus[] = {"callers", "callees"};
	struct json_object *t;

	if (json_object_object_get_ex(o, "call_graph", &t)) {
		long long n = json_object_get_int64(need(t, "samples", json_type_int));

		printf("graph %s %s %g %lld\n", who,
		       json_object_get_string(need(t, "order", json_type_string)),
		       json_object_get_double(need(t, "threshold_percent", json_type_double)), n);
		if (nodes(need(t, "children", json_type_array), who, 0, names, nnames) > n)
			fail("a call graph's roots have more samples than the graph");
	}
	for (int k = 0; k < 2; k++) {
		long long n, self;

		if (!json_object_object_get_ex(o, focus[k], &t))
			continue;
		n = json_object_get_int64(need(t, "samples", json_type_int));
		self = json_object_get_int64(need(t, "self_samples", json_type_int));
		need(t, "threshold_percent", json_type_double);
		printf("%s %s %s %lld %lld %.2f\n", focus[k], who,
		       json_object_get_string(need(t, "function", json_type_string)), n, self,
		       json_object_get_double(need(t, "percent", json_type_double)));
		if (self > n ||
		    nodes(need(t, "children", json_type_array), who, 1, names, nnames) > n)
			fail("a function's tree has more samples below it than in it");
	}
}

int main(int argc, char **argv)
{
	struct json_object *top, *procs;

	if (argc != 2) {
		fprintf(stderr, "usage: report_jsoncheck FILE\n");
		return 2;
	}
	top = json_object_from_file(argv[1]);
	if (!top || !json_object_is_type(top, json_type_object)) {
		printf("schema: not a JSON object\n");
		return 1;
	}
	printf("run %s %.1f %d %lld %lld %d\n",
	       json_object_get_string(need(top, "clock", json_type_string)),
	       json_object_get_double(need(top, "rate_hz", json_type_double)),
	       json_object_get_int(need(top, "nominal_hz", json_type_int)),
	       (long long)json_object_get_int64(need(top, "samples", json_type_int)),
	       (long long)json_object_get_int64(need(top, "lost", json_type_int)),
	       json_object_get_boolean(need(top, "complete", json_type_boolean)));
	need(top, "command", json_type_string);
	need(top, "clock_note", json_type_string);
	need(top, "period_ns", json_type_int);
	need(top, "dropped", json_type_int);
	need(top, "exit", json_type_object);
	need(top, "total_samples", json_type_int);
	need(top, "percent_of", json_type_string);
	need(top, "notes", json_type_array);
	need(need(top, "filters", json_type_object), "pid", json_type_array);
	printf("time %d %s %.4f %.4f %.4f %.4f %.4f",
	       json_object_get_int(need(top, "version", json_type_int)),
	       json_object_get_string(need(top, "kernel", json_type_string)), num(top, "seconds"),
	       num(top, "total_seconds"), num(top, "accounted_seconds"),
	       num(top, "unsampled_seconds"), num(top, "cpu_seconds"));
	cpu(top);
	printf(" %lld\n", (long long)json_object_get_int64(need(top, "throttled", json_type_int)));
	whole_run(top);
	procs = need(top, "processes", json_type_array);
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		struct json_object *p = json_object_array_get_idx(procs, i);
		struct json_object *ex = need(p, "exit", json_type_object), *threads, *st;
		int pid = json_object_get_int(need(p, "pid", json_type_int));
		const char **names = NULL;
		size_t nnames = 0;
		char who[64];

		printf("proc %d %d %s %d %lld %s\n", pid,
		       json_object_get_int(need(p, "parent_pid", json_type_int)),
		       json_object_get_string(need(ex, "kind", json_type_string)),
		       json_object_get_int(need(ex, "code", json_type_int)),
		       (long long)json_object_get_int64(need(p, "samples", json_type_int)),
		       json_object_get_string(need(p, "exe", json_type_string)));
		need(p, "self_seconds", json_type_double);
		printf("image %d %s %.4f %.4f %.4f %.4f", pid,
		       json_object_get_string(need(p, "comm", json_type_string)), num(p, "seconds"),
		       num(p, "accounted_seconds"), num(p, "unsampled_seconds"),
		       num(p, "cpu_seconds"));
		cpu(p);
		putchar('\n');
		funcs(need(p, "functions", json_type_array), pid, 0, 0);
		if (json_object_object_get_ex(p, "frames", &st))
			names = frame_names(p, &nnames);
		if (json_object_object_get_ex(p, "stacks", &st))
			stacks(p, pid, names, nnames);
		snprintf(who, sizeof(who), "%d", pid);
		trees(p, who, names, nnames);
		threads = need(p, "threads", json_type_array);
		for (size_t t = 0; t < json_object_array_length(threads); t++) {
			struct json_object *th = json_object_array_get_idx(threads, t), *tf;
			int tid = json_object_get_int(need(th, "tid", json_type_int));

			printf("thread %d %d %lld %s %.4f %.4f", pid, tid,
			       (long long)json_object_get_int64(need(th, "samples", json_type_int)),
			       json_object_get_string(need(th, "comm", json_type_string)),
			       num(th, "seconds"), num(th, "cpu_seconds"));
			cpu(th);
			putchar('\n');
			if (json_object_object_get_ex(th, "functions", &tf))
				funcs(need(th, "functions", json_type_array), pid, tid, 1);
			snprintf(who, sizeof(who), "%d/%d", pid, tid);
			trees(th, who, names, nnames);
		}
		free(names);
	}
	/* last: the listing's first lines stay as they were before stacks */
	printf("stacks %s %lld %lld\n",
	       json_object_get_string(need(top, "callgraph", json_type_string)),
	       (long long)json_object_get_int64(need(top, "truncated_samples", json_type_int)),
	       (long long)json_object_get_int64(need(top, "stacks_dropped", json_type_int)));
	json_object_put(top);
	return 0;
}
