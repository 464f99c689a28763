// SPDX-License-Identifier: MIT
/*
 * report_jsoncheck FILE: parses `profil report --format json` output with
 * json-c, checks every field doc/report-json.md documents (name and type),
 * and prints a flat listing the e2e tests grep:
 *   run COMMAND_CLOCK RATE NOMINAL SAMPLES LOST COMPLETE
 *   proc PID PARENT KIND CODE SAMPLES EXE
 *   func PID SAMPLES PERCENT SECONDS NAME OBJECT [FILE LINE]
 *   thread PID TID SAMPLES COMM
 *   tfunc PID TID SAMPLES NAME
 * Exits 1 with a "schema:" line on the first violation.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

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

static void funcs(struct json_object *arr, int pid, int tid, int thread)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *f = json_object_array_get_idx(arr, i), *file;
		const char *name = json_object_get_string(need(f, "name", json_type_string));
		const char *obj = json_object_get_string(need(f, "object", json_type_string));
		long long n = json_object_get_int64(need(f, "samples", json_type_int));
		double pct = json_object_get_double(need(f, "percent", json_type_double));
		double sec = json_object_get_double(need(f, "self_seconds", json_type_double));

		if (thread) {
			printf("tfunc %d %d %lld %s\n", pid, tid, n, name);
			continue;
		}
		printf("func %d %lld %.2f %.3f %s %s", pid, n, pct, sec, name, obj);
		if (json_object_object_get_ex(f, "file", &file)) {
			need(f, "line", json_type_int);
			printf(" %s %d", file ? json_object_get_string(file) : "null",
			       json_object_get_int(need(f, "line", json_type_int)));
		}
		putchar('\n');
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
	procs = need(top, "processes", json_type_array);
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		struct json_object *p = json_object_array_get_idx(procs, i);
		struct json_object *ex = need(p, "exit", json_type_object), *threads;
		int pid = json_object_get_int(need(p, "pid", json_type_int));

		printf("proc %d %d %s %d %lld %s\n", pid,
		       json_object_get_int(need(p, "parent_pid", json_type_int)),
		       json_object_get_string(need(ex, "kind", json_type_string)),
		       json_object_get_int(need(ex, "code", json_type_int)),
		       (long long)json_object_get_int64(need(p, "samples", json_type_int)),
		       json_object_get_string(need(p, "exe", json_type_string)));
		funcs(need(p, "functions", json_type_array), pid, 0, 0);
		threads = need(p, "threads", json_type_array);
		for (size_t t = 0; t < json_object_array_length(threads); t++) {
			struct json_object *th = json_object_array_get_idx(threads, t), *tf;
			int tid = json_object_get_int(need(th, "tid", json_type_int));

			printf("thread %d %d %lld %s\n", pid, tid,
			       (long long)json_object_get_int64(need(th, "samples", json_type_int)),
			       json_object_get_string(need(th, "comm", json_type_string)));
			if (json_object_object_get_ex(th, "functions", &tf))
				funcs(need(th, "functions", json_type_array), pid, tid, 1);
		}
	}
	json_object_put(top);
	return 0;
}
