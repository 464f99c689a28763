/* SPDX-License-Identifier: MIT */
/*
 * Reading a recorded Tracee JSON-lines event stream (what `profil record
 * --events` and `profil watch` write), streamed, one line at a time, each
 * checked strictly: one JSON object with every field the filters and the
 * table need.  A line that is not such an event stops the reading with one
 * sentence naming the file and the line.  Empty lines are skipped.
 */
#ifndef PROFIL_EVENTS_EVENT_READER_H
#define PROFIL_EVENTS_EVENT_READER_H

#include <stddef.h>
#include <stdint.h>

struct json_object;
struct event_reader;

/* One event as read. */
struct event_line {
	const char *text; /* the line as read, without its newline (not NUL-terminated) */
	size_t len;
	struct json_object *obj; /* the parsed event (for event_table__row) */
	uint32_t id;		 /* eventId */
	int64_t pid, host_pid;	 /* processId, hostProcessId */
	const char *comm;	 /* processName */
};

/* Read path ("-" = stdin).  0, or -errno with one sentence in why. */
int event_reader__open(struct event_reader **out, const char *path, char *why, size_t whylen);

/*
 * The next event into *ev, valid until the next call: 1; 0 at the end of the
 * stream; -errno with one sentence in why (-EBADMSG: a line that is not a
 * Tracee JSON event, "FILE:LINE: ...").
 */
int event_reader__next(struct event_reader *r, struct event_line *ev, char *why, size_t whylen);

void event_reader__close(struct event_reader *r);

#endif /* PROFIL_EVENTS_EVENT_READER_H */
