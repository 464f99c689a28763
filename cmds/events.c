// SPDX-License-Identifier: MIT
/*
 * profil events [-i FILE] [--pid P] [--comm NAME] [--event NAME] [--format json|table]
 *
 * Read a recorded Tracee JSON-lines event stream (default profil.events,
 * "-" = stdin), keep the events that pass the filters and print them as
 * JSON lines (the input lines, byte for byte) or as a table.  The input is
 * streamed, so `profil watch | profil events --format table` works; a line
 * that is not a Tracee event stops the command with one sentence naming
 * the file and line, and exit status 1.
 *
 * Limits (the input is untrusted): a line is at most EVENTS_MAX_LINE
 * bytes and holds no NUL byte, a string field at most EVENTS_MAX_STRING
 * bytes, args at most EVENTS_MAX_ARGS entries; beyond them the line is
 * refused like any other malformed line.  Memory stays bounded whatever
 * the input (`-i /dev/zero` is one sentence, not gigabytes).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmds.h"
#include "event_filter.h"
#include "events.h"

/* Far above anything a Tracee or profil event needs (a line is < 4 KiB). */
#define EVENTS_MAX_LINE (64 * 1024)
#define EVENTS_MAX_LINE_STR "65536"
#define EVENTS_MAX_STRING 4096
#define EVENTS_MAX_ARGS 64

static void events_usage(FILE *out)
{
	fprintf(out,
		"usage: profil events [-i FILE] [--pid P] [--comm NAME] [--event NAME]\n"
		"                     [--format json|table]\n"
		"  -i, --input FILE   event stream to read (default %s, '-' = stdin)\n"
		"  --pid P            only events of process P (processId or hostProcessId)\n"
		"  --comm NAME        only events of processes named NAME\n"
		"  --event NAME       only events NAME (prof, profil, sprofil, setitimer, ...)\n"
		"  --format FMT       json (default: the input lines) or table\n"
		"Options may be repeated and take comma-separated lists.\n",
		PROFIL_EVENTS_DEFAULT_PATH);
}

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

struct events_opts {
	const char *input;
	bool table;
	struct event_filter filter;
};

static int events_parse_args(int argc, char **argv, struct events_opts *o)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"pid", required_argument, NULL, 'p'},
		{"comm", required_argument, NULL, 'c'},
		{"event", required_argument, NULL, 'e'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'p':
			if (event_filter__add(&o->filter, "profil events", "--pid", optarg))
				return 2;
			break;
		case 'c':
			if (event_filter__add(&o->filter, "profil events", "--comm", optarg))
				return 2;
			break;
		case 'e':
			if (event_filter__add(&o->filter, "profil events", "--event", optarg))
				return 2;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"profil events: --format is json or table, not '%s'\n",
					optarg);
				return 2;
			}
			o->table = !strcmp(optarg, "table");
			break;
		case 'h':
			events_usage(stdout);
			return -1;
		default:
			events_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil events: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
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

enum line_status { LINE_OK, LINE_END, LINE_TOO_LONG, LINE_NUL };

/*
 * One line, without its newline, into buf (EVENTS_MAX_LINE + 1 bytes):
 * never more than the limit in memory, whatever the input.
 */
static enum line_status read_line(FILE *in, char *buf, size_t *len, bool *complete)
{
	size_t n = 0;
	int c;

	*complete = false;
	while ((c = getc_unlocked(in)) != EOF) {
		if (c == '\n') {
			*complete = true;
			break;
		}
		if (c == 0)
			return LINE_NUL;
		if (n == EVENTS_MAX_LINE)
			return LINE_TOO_LONG;
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	*len = n;
	return n || *complete ? LINE_OK : LINE_END;
}

static int events_process(FILE *in, const char *name, const struct events_opts *o)
{
	struct json_tokener *tok = json_tokener_new();
	char *line = malloc(EVENTS_MAX_LINE + 1);
	size_t len, lineno = 0;
	enum line_status st;
	int rc = 0;
	bool header = false, complete;

	if (!tok || !line) {
		fprintf(stderr, "profil events: out of memory\n");
		json_tokener_free(tok);
		free(line);
		return 1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	while ((st = read_line(in, line, &len, &complete)) != LINE_END) {
		lineno++;
		if (st != LINE_OK) {
			fprintf(stderr, "profil events: %s:%zu: not a Tracee JSON event (%s)\n",
				name, lineno,
				st == LINE_NUL ? "a NUL byte" :
						 "longer than " EVENTS_MAX_LINE_STR " bytes");
			rc = 1;
			break;
		}
		if (len == 0)
			continue; /* an empty line separates nothing and means nothing */
		struct json_object *obj = parse_line(tok, line, len);
		const char *why = obj ? tracee_event_problem(obj) : "not valid JSON";
		if (why) {
			fprintf(stderr, "profil events: %s:%zu: not a Tracee JSON event (%s%s)\n",
				name, lineno, why, complete ? "" : ", last line truncated");
			json_object_put(obj);
			rc = 1;
			break;
		}
		const char *id_str = json_object_get_string(get(obj, "eventId"));
		uint32_t id = (uint32_t)strtoul(id_str, NULL, 10);
		if (event_filter__match(&o->filter, json_object_get_int64(get(obj, "processId")),
					json_object_get_int64(get(obj, "hostProcessId")),
					json_object_get_string(get(obj, "processName")), id)) {
			if (o->table) {
				if (!header)
					event_table__header(stdout);
				header = true;
				event_table__row(stdout, obj);
			} else {
				fwrite(line, 1, len, stdout);
				fputc('\n', stdout);
			}
		}
		json_object_put(obj);
	}
	if (!rc && ferror(in)) {
		fprintf(stderr, "profil events: %s: read error: %s\n", name, strerror(errno));
		rc = 1;
	}
	free(line);
	json_tokener_free(tok);
	if (fflush(stdout) && !rc) {
		fprintf(stderr, "profil events: writing the output failed: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}

int cmd_events(int argc, char **argv)
{
	struct events_opts o = {.input = PROFIL_EVENTS_DEFAULT_PATH};
	int rc = events_parse_args(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	bool use_stdin = !strcmp(o.input, "-");
	FILE *in = use_stdin ? stdin : fopen(o.input, "r");
	if (!in) {
		fprintf(stderr, "profil events: cannot open %s: %s\n", o.input, strerror(errno));
		return 1;
	}
	rc = events_process(in, use_stdin ? "<stdin>" : o.input, &o);
	if (!use_stdin)
		fclose(in);
	return rc;
}
