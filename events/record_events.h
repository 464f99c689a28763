/* SPDX-License-Identifier: MIT */
/* `profil record --events FILE`: the prof/profil event stream of the profiled tree (record_events.c). */
#ifndef PROFIL_RECORD_EVENTS_H
#define PROFIL_RECORD_EVENTS_H

#include <stddef.h>

struct record_events;
struct pdata;

/*
 * Open the stream ("-" = stdout; event_writer__create says how it is
 * opened) and the socket libprofil reports calls on.
 */
int record_events__open(struct record_events **out, const char *path, char *why, size_t whylen);

/* Put the socket in PROFIL_EVENTS_FD of the environment the command will inherit. */
void record_events__export_fd(struct record_events *re);

/* Start following the profile, sampled by pdata_clock (enum pdata_clock). */
void record_events__start(struct record_events *re, struct pdata *pd, int pdata_clock);

/* Emit what happened since the last call (every poll round). */
void record_events__poll(struct record_events *re);

/* The last events: after the recorder has written every process's end. */
void record_events__finish(struct record_events *re);

/*
 * Close the stream.  Returns 0, or -errno with one sentence in why when it
 * could not be written whole (the first write error stopped it: a file of
 * the caller's ends at its last whole event).
 */
int record_events__close(struct record_events *re, char *why, size_t whylen);

#endif
