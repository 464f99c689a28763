// SPDX-License-Identifier: MIT
/*
 * The event writer: one event per write(2) of a whole line, as Tracee JSON
 * (events.c renders it) or as a table row (event_table.c).  See events.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "events/events.h"
#include "profile/pdata.h"
#include "utils/outfile.h"
#include "utils/why.h"

struct event_writer {
	int fd;
	enum outfile_kind kind; /* IN_PLACE: not ours to cut short */
	enum event_format fmt;
	bool header_done;
	uint64_t good;	 /* bytes of whole events written */
	uint64_t events; /* events written */
	int err;	 /* the first write error: nothing more is written */
	char *path;
	char why[PATH_MAX + 200];
};

int event_writer__create(struct event_writer **out, const char *path, enum event_format fmt,
			 char *why, size_t whylen)
{
	struct event_writer *w = calloc(1, sizeof(*w));
	int fd;

	if (!w || !(w->path = strdup(path))) {
		free(w);
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	}
	fd = outfile__open_stream(path, &pdata__output_rules, &w->kind, why, whylen);
	if (fd < 0) {
		free(w->path);
		free(w);
		return fd;
	}
	w->fd = fd;
	w->fmt = fmt;
	*out = w;
	return 0;
}

struct event_writer *event_writer__open(const char *path)
{
	struct event_writer *w;
	int rc = event_writer__create(&w, path, EVENT_FORMAT_JSON, NULL, 0);

	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	return w;
}

/* write(2) all of buf, retrying on EINTR and short writes. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The table row of an event goes through its JSON form: one formatter for all tables. */
static int table_row(struct event_writer *w, const char *json, char **text, size_t *len)
{
	struct json_object *obj = json_tokener_parse(json);
	FILE *f;

	if (!obj)
		return -EINVAL;
	f = open_memstream(text, len);
	if (!f) {
		json_object_put(obj);
		return -ENOMEM;
	}
	if (!w->header_done)
		event_table__header(f);
	event_table__row(f, obj);
	json_object_put(obj);
	return fclose(f) ? -ENOMEM : 0;
}

/*
 * The first write error stops the stream.  A file of ours is cut back to
 * its last whole event (a full disk may have taken half a line); what is
 * written in place (a pipe, a terminal, the user's stdout) is not ours to cut.
 */
static int fail(struct event_writer *w, int err)
{
	int cut = w->kind != OUTFILE_IN_PLACE && ftruncate(w->fd, (off_t)w->good) == 0;

	w->err = err;
	snprintf(w->why, sizeof(w->why), "cannot write events to %s: %s; %s (%llu event%s)",
		 w->path, strerror(-err),
		 cut ? "it ends at its last whole event" : "the stream stops there",
		 (unsigned long long)w->events, w->events == 1 ? "" : "s");
	return err;
}

int event_writer__emit(struct event_writer *w, const struct profil_event *ev)
{
	char *json, *text;
	size_t len;
	int err;

	if (w->err)
		return w->err;
	err = profil_event__to_json(ev, &json, &len);
	if (err)
		return err;
	if (w->fmt == EVENT_FORMAT_TABLE) {
		err = table_row(w, json, &text, &len);
		free(json);
		if (err)
			return err;
	} else {
		text = json;
		text[len++] = '\n'; /* the buffer always has room for the NUL */
	}
	err = write_all(w->fd, text, len);
	free(text);
	if (err)
		return fail(w, err);
	w->good += len;
	w->events++;
	w->header_done = true;
	return 0;
}

const char *event_writer__why(const struct event_writer *w)
{
	return w && w->err ? w->why : NULL;
}

int event_writer__close(struct event_writer *w, char *why, size_t whylen)
{
	int err;

	if (!w)
		return 0;
	/* a file of ours on disk before it is called written */
	if (!w->err && w->kind != OUTFILE_IN_PLACE && fsync(w->fd) < 0)
		fail(w, -errno);
	if (close(w->fd) < 0 && !w->err && errno != EINTR)
		fail(w, -errno);
	err = w->err;
	if (err)
		why_fail(why, whylen, err, "%s", w->why);
	free(w->path);
	free(w);
	return err;
}
