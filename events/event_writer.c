// SPDX-License-Identifier: MIT
/*
 * The event writer: one event per write(2) of a whole line, as Tracee JSON
 * (events.c renders it) or as a table row (event_table.c).  See events.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "events/events.h"

struct event_writer {
	int fd;
	bool owns_fd;
	enum event_format fmt;
	bool header_done;
	FILE *table; /* fdopen'ed stream for the table format */
};

struct event_writer *event_writer__open(const char *path)
{
	return event_writer__open_format(path, EVENT_FORMAT_JSON);
}

struct event_writer *event_writer__open_format(const char *path, enum event_format fmt)
{
	struct event_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fmt = fmt;
	if (!strcmp(path, "-")) {
		w->fd = STDOUT_FILENO;
	} else {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (w->fd < 0) {
			int err = errno;

			free(w);
			errno = err;
			return NULL;
		}
		w->owns_fd = true;
	}
	if (fmt == EVENT_FORMAT_TABLE) {
		w->table = w->owns_fd ? fdopen(w->fd, "w") : stdout;
		if (!w->table) {
			int err = errno;

			close(w->fd);
			free(w);
			errno = err;
			return NULL;
		}
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
static int event_writer__table_row(struct event_writer *w, const char *json)
{
	struct json_object *obj = json_tokener_parse(json);

	if (!obj)
		return -EINVAL;
	if (!w->header_done) {
		event_table__header(w->table);
		w->header_done = true;
	}
	event_table__row(w->table, obj);
	json_object_put(obj);
	return fflush(w->table) ? -errno : 0;
}

int event_writer__emit(struct event_writer *w, const struct profil_event *ev)
{
	char *json;
	size_t len;
	int err = profil_event__to_json(ev, &json, &len);

	if (err)
		return err;
	if (w->fmt == EVENT_FORMAT_TABLE) {
		err = event_writer__table_row(w, json);
	} else {
		json[len] = '\n'; /* the buffer always has room for the NUL */
		err = write_all(w->fd, json, len + 1);
	}
	free(json);
	return err;
}

int event_writer__close(struct event_writer *w)
{
	int err = 0;

	if (!w)
		return 0;
	if (w->table && fflush(w->table))
		err = -errno;
	if (w->owns_fd) {
		if (w->table) {
			if (fclose(w->table) && !err)
				err = -errno;
		} else if (close(w->fd) && !err) {
			err = -errno;
		}
	}
	free(w);
	return err;
}
