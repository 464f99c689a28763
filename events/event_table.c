// SPDX-License-Identifier: MIT
/*
 * The table format of the event stream, rendered from a parsed Tracee JSON
 * object (so `profil events` and `profil watch` print identical tables):
 *
 *   TIME(UTC)        PID     TID     COMM             EVENT               RET  ARGS
 *   14:03:07.123456  4242    4242    demo             prof                0    FLAGS=ENABLE|CLOCK_ITIMER EVENTS=[ITIMER_PROF]
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "events/events.h"

#define TABLE_FMT "%-15s  %-7s %-7s %-16s %-18s %-5s %s\n"

void event_table__header(FILE *out)
{
	fprintf(out, TABLE_FMT, "TIME(UTC)", "PID", "TID", "COMM", "EVENT", "RET", "ARGS");
}

static struct json_object *get(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

static const char *str_of(struct json_object *v)
{
	const char *s = v ? json_object_get_string(v) : NULL;

	return s ? s : "";
}

/* Copy s into buf with control characters replaced, so a row stays one line. */
static const char *printable(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < len; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

static void print_arg(FILE *out, struct json_object *arg)
{
	struct json_object *name = get(arg, "name"), *val = get(arg, "value");
	const char *n = name ? str_of(name) : "?";
	char tmp[256];

	if (val && json_object_is_type(val, json_type_int) && !strcmp(n, "FLAGS")) {
		fprintf(out, "%s=%s", n,
			profil_prof_flags_str((uint64_t)json_object_get_int64(val), tmp,
					      sizeof(tmp)));
	} else if (val && json_object_is_type(val, json_type_array) && !strcmp(n, "EVENTS")) {
		fprintf(out, "%s=[", n);
		for (size_t i = 0; i < json_object_array_length(val); i++) {
			uint32_t e =
				(uint32_t)json_object_get_int64(json_object_array_get_idx(val, i));
			fprintf(out, "%s%s", i ? "," : "",
				profil_prof_event_str(e, tmp, sizeof(tmp)));
		}
		fputc(']', out);
	} else if (val && json_object_is_type(val, json_type_int) &&
		   (!strcmp(n, "buf") || !strcmp(n, "pc") || !strcmp(n, "offset") ||
		    !strcmp(n, "profp") || !strcmp(n, "tvp"))) {
		fprintf(out, "%s=0x%" PRIx64, n, (uint64_t)json_object_get_int64(val));
	} else if (val && json_object_is_type(val, json_type_string)) {
		fprintf(out, "%s=%s", n, printable(str_of(val), tmp, sizeof(tmp)));
	} else {
		fprintf(out, "%s=%s", n,
			val ? json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN) : "null");
	}
}

void event_table__row(FILE *out, struct json_object *ev)
{
	struct json_object *ts = get(ev, "timestamp"), *args = get(ev, "args");
	char when[32] = "?", pid[16], tid[16], comm[64], ret[24];
	uint64_t ns = ts ? (uint64_t)json_object_get_int64(ts) : 0;
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ts && gmtime_r(&secs, &tm)) {
		size_t n = strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(when + n, sizeof(when) - n, ".%06u",
			 (unsigned int)(ns % 1000000000u / 1000));
	}
	snprintf(pid, sizeof(pid), "%d", json_object_get_int(get(ev, "hostProcessId")));
	snprintf(tid, sizeof(tid), "%d", json_object_get_int(get(ev, "hostThreadId")));
	snprintf(ret, sizeof(ret), "%" PRId64, json_object_get_int64(get(ev, "returnValue")));
	printable(str_of(get(ev, "processName")), comm, sizeof(comm));
	fprintf(out, "%-15s  %-7s %-7s %-16s %-18s %-5s ", when, pid, tid, comm,
		str_of(get(ev, "eventName")), ret);
	for (size_t i = 0; args && i < json_object_array_length(args); i++) {
		if (i)
			fputc(' ', out);
		print_arg(out, json_object_array_get_idx(args, i));
	}
	fputc('\n', out);
}
