// SPDX-License-Identifier: MIT
/* The Tracee JSON writer: field names and order, argument values, escaping. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check.h"
#include "events/events.h"

static const char *const tracee_fields[] = {
	"timestamp", "threadStartTime", "processorId",	 "processId",	   "cgroupId",
	"threadId",  "parentProcessId", "hostProcessId", "hostThreadId",   "hostParentProcessId",
	"userId",    "mountNamespace",	"pidNamespace",	 "processName",	   "executable",
	"hostName",  "containerId",	"eventId",	 "eventName",	   "matchedPolicies",
	"argsNum",   "returnValue",	"syscall",	 "stackAddresses", "contextFlags",
	"args",
};

static struct json_object *render(const struct profil_event *ev)
{
	char *json;
	size_t len;

	if (profil_event__to_json(ev, &json, &len))
		return NULL;
	struct json_object *obj = json_tokener_parse(json);
	free(json);
	return obj;
}

static struct json_object *field(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

/* The value of argument name in args[], or NULL. */
static struct json_object *arg(struct json_object *obj, const char *name)
{
	struct json_object *args = field(obj, "args");

	for (size_t i = 0; args && i < json_object_array_length(args); i++) {
		struct json_object *a = json_object_array_get_idx(args, i);
		if (!strcmp(json_object_get_string(field(a, "name")), name))
			return field(a, "value");
	}
	return NULL;
}

static void test_field_order(void)
{
	struct profil_event ev = {.id = PEV_PROFIL,
				  .timestamp = 1657322300534562489ull,
				  .pid = 42,
				  .tid = 43,
				  .host_pid = 4242,
				  .return_value = 0};
	struct json_object *obj = render(&ev);
	size_t i = 0, n = sizeof(tracee_fields) / sizeof(tracee_fields[0]);
	int in_order = 1;

	CHECK("json parses", obj != NULL);
	if (!obj)
		return;
	json_object_object_foreach(obj, key, val)
	{
		(void)val;
		if (i >= n || strcmp(key, tracee_fields[i]))
			in_order = 0;
		i++;
	}
	CHECKF("tracee fields in tracee order", in_order && i == n, "%zu fields", i);
	CHECK("eventId is a string \"495\"",
	      json_object_is_type(field(obj, "eventId"), json_type_string) &&
		      !strcmp(json_object_get_string(field(obj, "eventId")), "495"));
	CHECK("timestamp exact",
	      (uint64_t)json_object_get_int64(field(obj, "timestamp")) == 1657322300534562489ull);
	CHECK("argsNum 5 for profil", json_object_get_int(field(obj, "argsNum")) == 5);
	CHECK("executable is an object with path",
	      json_object_is_type(field(field(obj, "executable"), "path"), json_type_string));
	CHECK("contextFlags.isCompat false",
	      !json_object_get_boolean(field(field(obj, "contextFlags"), "isCompat")));
	json_object_put(obj);
}

static void test_profil_args(void)
{
	struct profil_event ev = {.id = PEV_PROFIL};
	ev.profil.buf = 0x7ffd12345670ull;
	ev.profil.buflen = 4096;
	ev.profil.offset = 0x1234;
	ev.profil.scale = 0x8000;
	ev.profil.pc = 0x55555555a1b2ull;
	struct json_object *obj = render(&ev);

	CHECK("profil buf", (uint64_t)json_object_get_int64(arg(obj, "buf")) == 0x7ffd12345670ull);
	CHECK("profil buflen", json_object_get_int64(arg(obj, "buflen")) == 4096);
	CHECK("profil offset", json_object_get_int64(arg(obj, "offset")) == 0x1234);
	CHECK("profil scale", json_object_get_int64(arg(obj, "scale")) == 0x8000);
	CHECK("profil pc", (uint64_t)json_object_get_int64(arg(obj, "pc")) == 0x55555555a1b2ull);
	json_object_put(obj);
}

static void test_prof_args(void)
{
	struct profil_event ev = {.id = PEV_PROF};
	char buf[128];

	ev.prof.flags = PROF_FLAG_DISABLE | PROF_FLAG_ON_EXIT | PROF_FLAG_CLOCK_ITIMER;
	ev.prof.nevents = 2;
	ev.prof.events[0] = PROF_EVENT_ITIMER(2);
	ev.prof.events[1] = PROF_EVENT_PERF(1, 1);
	struct json_object *obj = render(&ev);
	struct json_object *evs = arg(obj, "EVENTS");

	CHECK("prof FLAGS value",
	      (uint64_t)json_object_get_int64(arg(obj, "FLAGS")) ==
		      (PROF_FLAG_DISABLE | PROF_FLAG_ON_EXIT | PROF_FLAG_CLOCK_ITIMER));
	CHECK("prof EVENTS array of 2", evs && json_object_array_length(evs) == 2);
	CHECK("prof EVENTS[0] = ITIMER_PROF encoding 0x01000002",
	      evs && json_object_get_int64(json_object_array_get_idx(evs, 0)) == 0x01000002);
	CHECK("prof EVENTS[1] = PERF 1:1 encoding 0x03010001",
	      evs && json_object_get_int64(json_object_array_get_idx(evs, 1)) == 0x03010001);
	CHECKF("flags decode",
	       !strcmp(profil_prof_flags_str(ev.prof.flags, buf, sizeof(buf)),
		       "DISABLE|ON_EXIT|CLOCK_ITIMER"),
	       "%s", buf);
	CHECKF("event decode",
	       !strcmp(profil_prof_event_str(PROF_EVENT_ITIMER(2), buf, sizeof(buf)),
		       "ITIMER_PROF"),
	       "%s", buf);
	json_object_put(obj);
}

static void test_clockid_names(void)
{
	char buf[64];
	/* clock_getcpuclockid(1234) == ~1234 << 3 | 2 (process, SCHED) */
	int32_t proc_clock = (int32_t)((~1234u << 3) | 2);
	int32_t thread_clock = (int32_t)((~77u << 3) | 4 | 2);

	CHECK("CLOCK_PROCESS_CPUTIME_ID name",
	      !strcmp(profil_clockid_str(2, buf, sizeof(buf)), "CLOCK_PROCESS_CPUTIME_ID"));
	CHECKF("dynamic process clock name",
	       !strcmp(profil_clockid_str(proc_clock, buf, sizeof(buf)),
		       "CPUCLOCK_PROCESS(pid=1234,SCHED)"),
	       "%s", buf);
	CHECKF("dynamic thread clock name",
	       !strcmp(profil_clockid_str(thread_clock, buf, sizeof(buf)),
		       "CPUCLOCK_THREAD(tid=77,SCHED)"),
	       "%s", buf);
}

static void test_escaping(void)
{
	struct profil_event ev = {.id = PEV_SCHED_PROCESS_EXEC};
	/* quote, backslash, newline, tab, a control byte, UTF-8 e-acute, invalid 0xff */
	strcpy(ev.comm, "a\"b\\c\nd\te\001f\xc3\xa9\xff");
	strcpy(ev.exec.pathname, "/tmp/we\"ird\\path");
	char *json;
	size_t len;

	CHECK("render odd names", profil_event__to_json(&ev, &json, &len) == 0);
	CHECK("no raw newline in the line", memchr(json, '\n', len) == NULL);
	CHECK("no raw control byte in the line", memchr(json, '\001', len) == NULL);
	struct json_object *obj = json_tokener_parse(json);
	CHECK("odd names parse", obj != NULL);
	const char *comm = obj ? json_object_get_string(field(obj, "processName")) : "";
	CHECKF("processName round-trips (0xff as U+00FF)",
	       !strcmp(comm, "a\"b\\c\nd\te\001f\xc3\xa9\xc3\xbf"), "%s", comm);
	CHECK("pathname round-trips",
	      obj && !strcmp(json_object_get_string(arg(obj, "pathname")), "/tmp/we\"ird\\path"));
	json_object_put(obj);
	free(json);
}

static void test_writer_file(void)
{
	char path[] = "/tmp/test_events.XXXXXX";
	int fd = mkstemp(path);
	struct profil_event ev = {.id = PEV_EVENTS_LOST, .events_lost.count = 7};
	struct profil_event bad = {.id = 12345};

	if (fd < 0) {
		SKIP("writer to file", "mkstemp failed");
		return;
	}
	close(fd);
	struct event_writer *w = event_writer__open(path);
	CHECK("writer open", w != NULL);
	if (!w)
		return;
	CHECK("emit 1", event_writer__emit(w, &ev) == 0);
	ev.events_lost.count = 8;
	CHECK("emit 2", event_writer__emit(w, &ev) == 0);
	CHECK("unknown id is -EINVAL", event_writer__emit(w, &bad) == -EINVAL);
	CHECK("close", event_writer__close(w, NULL, 0) == 0);

	FILE *f = fopen(path, "r");
	char line[4096];
	int lines = 0, parsed = 0;
	while (f && fgets(line, sizeof(line), f)) {
		struct json_object *obj = json_tokener_parse(line);
		lines++;
		if (obj && json_object_get_int64(arg(obj, "count")) == 6 + lines)
			parsed++;
		json_object_put(obj);
	}
	if (f)
		fclose(f);
	unlink(path);
	CHECKF("two lines, each a JSON event", lines == 2 && parsed == 2, "%d lines %d ok", lines,
	       parsed);
	CHECK("open in a missing directory fails",
	      event_writer__open("/nonexistent-dir/x.events") == NULL && errno == ENOENT);
}

static void test_every_event_renders(void)
{
	unsigned int n;
	const struct profil_event_def *defs = profil_event_defs(&n);
	int ok = 1;

	for (unsigned int i = 0; i < n; i++) {
		struct profil_event ev = {.id = defs[i].id};
		struct json_object *obj = render(&ev);
		if (!obj || json_object_get_int(field(obj, "argsNum")) != (int)defs[i].nargs ||
		    json_object_array_length(field(obj, "args")) != defs[i].nargs ||
		    profil_event_def__by_name(defs[i].name) != &defs[i])
			ok = 0;
		json_object_put(obj);
	}
	CHECKF("every defined event renders with argsNum args", ok && n == 10, "%u defs", n);
}

/* Every number at its widest renders whole: no line of the writer is cut. */
static void test_widest_numbers(void)
{
	struct profil_event ev = {.id = PEV_PROFIL,
				  .timestamp = UINT64_MAX,
				  .thread_start_time = UINT64_MAX,
				  .processor_id = UINT32_MAX,
				  .pid = UINT32_MAX,
				  .tid = UINT32_MAX,
				  .ppid = UINT32_MAX,
				  .host_pid = UINT32_MAX,
				  .host_tid = UINT32_MAX,
				  .host_ppid = UINT32_MAX,
				  .uid = UINT32_MAX,
				  .cgroup_id = UINT64_MAX,
				  .mnt_ns = UINT32_MAX,
				  .pid_ns = UINT32_MAX,
				  .return_value = INT64_MIN};
	struct json_object *obj = render(&ev);

	CHECK("widest numbers render as JSON", obj != NULL);
	CHECK("widest timestamp whole",
	      obj && (uint64_t)json_object_get_uint64(field(obj, "timestamp")) == UINT64_MAX);
	CHECK("widest cgroup whole",
	      obj && (uint64_t)json_object_get_uint64(field(obj, "cgroupId")) == UINT64_MAX);
	CHECK("widest return value whole",
	      obj && json_object_get_int64(field(obj, "returnValue")) == INT64_MIN);
	json_object_put(obj);
}

int main(void)
{
	test_widest_numbers();
	test_field_order();
	test_profil_args();
	test_prof_args();
	test_clockid_names();
	test_escaping();
	test_writer_file();
	test_every_event_renders();
	return CHECK_DONE();
}
