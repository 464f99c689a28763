// SPDX-License-Identifier: MIT
/*
 * output/html.c: the page around the data (every marker replaced, one
 * data element), the data (unique frames, summed rows, stacks leaf first,
 * processes and threads), and hostile strings: no '<' inside the data, so
 * nothing in a profile can close the script element.  The profile is built
 * in memory over this very program's code, so PCs name real functions.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/html.h"

#define EVIL "</script><img src=x onerror=alert(1)><!--<script>"

__attribute__((noinline)) int unit_hot(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) int unit_cold(int n)
{
	return unit_hot(n) + 1;
}

/* This program's executable mapping that holds pc, from /proc/self/maps. */
static int own_map(uint64_t pc, struct pv_map *m, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    !pos || pc < s || pc >= e)
			continue;
		snprintf(path, len, "%s", line + pos);
		path[strcspn(path, "\n")] = 0;
		m->start = s;
		m->end = e;
		m->pgoff = off;
		m->prot = 5;
		m->path = path;
		found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* The text between the data element's tags; NULL if the page does not have exactly one. */
static char *page_data(const char *page)
{
	static const char open[] = "<script type=\"application/json\" id=\"profile-data\">";
	const char *a = strstr(page, open), *b;

	if (!a || strstr(a + 1, open))
		return NULL;
	a += strlen(open);
	b = strstr(a, "</script>");
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

static struct json_object *at(struct json_object *o, const char *k)
{
	return json_object_object_get(o, k);
}

static struct json_object *idx(struct json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

static const char *str_at(struct json_object *o, const char *k)
{
	return json_object_get_string(at(o, k));
}

int main(void)
{
	struct pv_thread threads[2] = {{100, "main"}, {101, "<b>x</b>"}};
	struct pv_map map = {0};
	struct pv_proc proc = {0};
	struct pview v = {0};
	struct resolver *r;
	struct html_report *h;
	struct json_object *d = NULL, *frames, *samples, *meta;
	uint64_t hot = (uintptr_t)unit_hot, cold = (uintptr_t)unit_cold;
	uint64_t stack[3] = {hot + 4, cold + 4, 0x10}; /* 0x10: in no mapping */
	char path[512], why[256] = "", *page = NULL, *data = NULL;
	const char *notes[] = {"note with " EVIL};
	size_t len = 0;
	FILE *out;
	int rc;

	unit_cold(10);
	if (own_map(hot, &map, path, sizeof(path)) < 0 || own_map(cold, &map, path, sizeof(path))) {
		SKIP("html", "cannot find this program's code in /proc/self/maps");
		return 0;
	}
	snprintf(v.hdr.command, sizeof(v.hdr.command), "prog %s", EVIL);
	v.hdr.period_ns = 1000000;
	v.hdr.state = PDATA_COMPLETE;
	proc.id = 1;
	proc.pid = 100;
	proc.exe = path;
	proc.maps = &map;
	proc.nmaps = 1;
	proc.threads = threads;
	proc.nthreads = 2;
	v.procs = &proc;
	v.nprocs = 1;
	v.total = 16;

	r = resolver__new(&v, 0);
	h = r ? html__new(&v, r) : NULL;
	if (!h) {
		CHECK("html_new", 0);
		return 1;
	}
	/* two PCs of one function in one thread: one frame, one row of 3 + 4 */
	rc = html__add_stack(h, &proc, 0, 100, (uint64_t[]){hot + 1}, 1, 3);
	rc |= html__add_stack(h, &proc, 0, 100, (uint64_t[]){hot + 2}, 1, 4);
	rc |= html__add_stack(h, &proc, 0, 101, (uint64_t[]){hot + 2}, 1, 1);
	rc |= html__add_stack(h, &proc, 0, 101, stack, 3, 8);
	CHECK("add_status", rc == 0);
	CHECK("add_empty_stack", html__add_stack(h, &proc, 0, 100, stack, 0, 1) == -EINVAL);

	out = open_memstream(&page, &len);
	rc = out ? html__write(h, out, notes, 1, why, sizeof(why)) : -1;
	if (out)
		fclose(out);
	CHECKF("write_status", rc == 0, "rc %d: %s", rc, why);
	CHECK("doctype", page && !strncmp(page, "<!DOCTYPE html>", 15));
	CHECK("no_marker_left", page && !strstr(page, "@@"));
	CHECK("ends_html", page && len > 8 && strstr(page + len - 9, "</html>"));
	data = page ? page_data(page) : NULL;
	CHECK("one_data_element", data != NULL);
	CHECK("no_lt_in_data", data && !strchr(data, '<'));
	CHECK("no_evil_markup", page && !strstr(page, "<img") && !strstr(page, "<b>x"));
	d = data ? json_tokener_parse(data) : NULL;
	CHECK("data_parses", d != NULL);
	if (!d)
		goto out;
	meta = at(d, "meta");
	frames = at(d, "frames");
	samples = at(d, "samples");
	CHECK("version", json_object_get_int(at(d, "version")) == 1);
	CHECK("command_unescaped", !strcmp(str_at(meta, "command"), "prog " EVIL));
	CHECK("note",
	      !strcmp(json_object_get_string(idx(at(meta, "notes"), 0)), "note with " EVIL));
	CHECK("seconds_per_sample",
	      json_object_get_double(at(meta, "seconds_per_sample")) == 0.001);
	CHECK("complete", json_object_get_boolean(at(meta, "complete")));
	CHECK("one_proc", json_object_array_length(at(d, "procs")) == 1 &&
				  json_object_get_int(at(idx(at(d, "procs"), 0), "pid")) == 100 &&
				  !strcmp(str_at(idx(at(d, "procs"), 0), "comm"), "main"));
	CHECK("two_threads",
	      json_object_array_length(at(d, "threads")) == 2 &&
		      !strcmp(str_at(idx(at(d, "threads"), 1), "comm"), "<b>x</b>") &&
		      json_object_get_int(at(idx(at(d, "threads"), 1), "tid")) == 101);
	/* frames: unit_hot, unit_cold, [unknown] in order of first use */
	CHECKF("three_frames", json_object_array_length(frames) == 3, "%zu frames",
	       json_object_array_length(frames));
	CHECKF("frame_names",
	       json_object_array_length(frames) == 3 &&
		       !strcmp(str_at(idx(frames, 0), "name"), "unit_hot") &&
		       !strcmp(str_at(idx(frames, 1), "name"), "unit_cold") &&
		       !strcmp(str_at(idx(frames, 2), "name"), "[unknown]"),
	       "%s", json_object_to_json_string(frames));
	CHECK("frame_object", !strcmp(str_at(idx(frames, 0), "object"), path));
	CHECK("frame_file_null",
	      json_object_get_type(at(idx(frames, 0), "file")) == json_type_null);
	/* rows: [thread, count, leaf .. outermost] */
	CHECKF("rows",
	       !strcmp(json_object_to_json_string_ext(samples, JSON_C_TO_STRING_PLAIN),
		       "[[0,7,0],[1,1,0],[1,8,0,1,2]]"),
	       "%s", json_object_to_json_string_ext(samples, JSON_C_TO_STRING_PLAIN));
out:
	json_object_put(d);
	free(data);
	free(page);
	html__free(h);
	resolver__free(r);
	return CHECK_DONE();
}
