// SPDX-License-Identifier: MIT
/*
 * Reading a Tracee JSON-lines event stream.  See event_reader.h.
 *
 * Limits (the input is untrusted): a line is at most EVENTS_MAX_LINE
 * bytes and holds no NUL byte, a string field at most EVENTS_MAX_STRING
 * bytes, args at most EVENTS_MAX_ARGS entries; beyond them the line is
 * refused like any other malformed line.  Memory stays bounded whatever
 * the input (`-i /dev/zero` is one sentence, not gigabytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "events/event_reader.h"
#include "utils/why.h"

/* Far above anything a Tracee or profil event needs (a line is < 4 KiB). */
#define EVENTS_MAX_LINE (64 * 1024)
#define EVENTS_MAX_STRING 4096
#define EVENTS_MAX_ARGS 64

struct event_reader {
	FILE *in;
	const char *name; /* for messages: the path, or <stdin> */
	struct json_tokener *tok;
	struct json_object *obj; /* the last event, freed at the next call */
	char *line;		 /* EVENTS_MAX_LINE + 1 bytes */
	size_t lineno;
};

static struct json_object *get(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

/* NULL when obj has every field the filters and the table need, else what is wrong. */
static const char *tracee_event_problem(struct json_object *obj)
{
	static const struct {
		const char *key;
		enum json_type type;
	} required[] = {
		{"timestamp", json_type_int},	 {"processId", json_type_int},
		{"threadId", json_type_int},	 {"hostProcessId", json_type_int},
		{"hostThreadId", json_type_int}, {"processName", json_type_string},
		{"eventId", json_type_string},	 {"eventName", json_type_string},
		{"returnValue", json_type_int},	 {"args", json_type_array},
	};
	static char why[96];

	if (!json_object_is_type(obj, json_type_object))
		return "not a JSON object";
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		struct json_object *v = get(obj, required[i].key);
		if (!v || !json_object_is_type(v, required[i].type)) {
			snprintf(why, sizeof(why), "field \"%s\" is %s", required[i].key,
				 v ? "of the wrong type" : "missing");
			return why;
		}
		if (required[i].type == json_type_string &&
		    json_object_get_string_len(v) > EVENTS_MAX_STRING) {
			snprintf(why, sizeof(why), "field \"%s\" is longer than %d bytes",
				 required[i].key, EVENTS_MAX_STRING);
			return why;
		}
	}
	if (json_object_array_length(get(obj, "args")) > EVENTS_MAX_ARGS) {
		snprintf(why, sizeof(why), "more than %d args", EVENTS_MAX_ARGS);
		return why;
	}
	return NULL;
}

/* Parse one line strictly: exactly one JSON value and nothing after it. */
static struct json_object *parse_line(struct json_tokener *tok, const char *line, size_t len)
{
	json_tokener_reset(tok);
	struct json_object *obj = json_tokener_parse_ex(tok, line, (int)len);

	if (!obj)
		return NULL;
	size_t used = json_tokener_get_parse_end(tok);
	while (used < len && (line[used] == ' ' || line[used] == '\t' || line[used] == '\r'))
		used++;
	if (used != len) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

int event_reader__open(struct event_reader **out, const char *path, char *why, size_t whylen)
{
	struct event_reader *r = calloc(1, sizeof(*r));
	int use_stdin = !strcmp(path, "-");

	if (!r)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	r->name = use_stdin ? "<stdin>" : path;
	r->in = use_stdin ? stdin : fopen(path, "r");
	if (!r->in) {
		int err = errno;

		free(r);
		return why_fail(why, whylen, -err, "cannot open %s: %s", path, strerror(err));
	}
	r->tok = json_tokener_new();
	r->line = malloc(EVENTS_MAX_LINE + 1);
	if (!r->tok || !r->line) {
		event_reader__close(r);
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	}
	json_tokener_set_flags(r->tok, JSON_TOKENER_STRICT);
	*out = r;
	return 0;
}

enum line_status { LINE_OK, LINE_END, LINE_TOO_LONG, LINE_NUL };

/*
 * One line, without its newline, into r->line: never more than the limit
 * in memory, whatever the input.
 */
static enum line_status read_line(struct event_reader *r, size_t *len, int *complete)
{
	size_t n = 0;
	int c;

	*complete = 0;
	while ((c = getc_unlocked(r->in)) != EOF) {
		if (c == '\n') {
			*complete = 1;
			break;
		}
		if (c == 0)
			return LINE_NUL;
		if (n == EVENTS_MAX_LINE)
			return LINE_TOO_LONG;
		r->line[n++] = (char)c;
	}
	r->line[n] = 0;
	*len = n;
	return n || *complete ? LINE_OK : LINE_END;
}

int event_reader__next(struct event_reader *r, struct event_line *ev, char *why, size_t whylen)
{
	enum line_status st;
	int complete;
	size_t len;

	json_object_put(r->obj);
	r->obj = NULL;
	while ((st = read_line(r, &len, &complete)) != LINE_END) {
		const char *problem;

		r->lineno++;
		if (st != LINE_OK)
			return why_fail(why, whylen, -EBADMSG,
					"%s:%zu: not a Tracee JSON event (%s)", r->name, r->lineno,
					st == LINE_NUL ? "a NUL byte" : "longer than 65536 bytes");
		if (len == 0)
			continue; /* an empty line separates nothing and means nothing */
		r->obj = parse_line(r->tok, r->line, len);
		problem = r->obj ? tracee_event_problem(r->obj) : "not valid JSON";
		if (problem)
			return why_fail(why, whylen, -EBADMSG,
					"%s:%zu: not a Tracee JSON event (%s%s)", r->name,
					r->lineno, problem,
					complete ? "" : ", last line truncated");
		ev->text = r->line;
		ev->len = len;
		ev->obj = r->obj;
		ev->id =
			(uint32_t)strtoul(json_object_get_string(get(r->obj, "eventId")), NULL, 10);
		ev->pid = json_object_get_int64(get(r->obj, "processId"));
		ev->host_pid = json_object_get_int64(get(r->obj, "hostProcessId"));
		ev->comm = json_object_get_string(get(r->obj, "processName"));
		return 1;
	}
	if (ferror(r->in))
		return why_fail(why, whylen, -EIO, "%s: read error: %s", r->name, strerror(errno));
	return 0;
}

void event_reader__close(struct event_reader *r)
{
	if (!r)
		return;
	json_object_put(r->obj);
	if (r->tok)
		json_tokener_free(r->tok);
	free(r->line);
	if (r->in && r->in != stdin)
		fclose(r->in);
	free(r);
}
