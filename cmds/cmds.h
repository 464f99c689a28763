/* SPDX-License-Identifier: MIT */
/* Subcommands of the profil command: each gets argv[0] == its own name. */
#ifndef PROFIL_CMDS_H
#define PROFIL_CMDS_H

#include "events/event_filter.h"
#include "utils/opts.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_annotate(int argc, char **argv);

/* The filter options of `profil events` and `profil watch`, as parsed. */
struct event_filter_opts {
	struct opt_ids pids;
	struct opt_list comms, events;
};

/* Their table entries, for member m (a struct event_filter_opts) of struct T. */
#define EVENT_FILTER_OPTIONS(T, m)                                                                 \
	{"pid",                                                                                    \
	 0,                                                                                        \
	 OPT_ID_LIST,                                                                              \
	 "LIST",                                                                                   \
	 OPT_AT(T, m.pids),                                                                        \
	 "only events of these processes (processId or hostProcessId)",                            \
	 .what = "positive process ids separated by commas"},                                      \
		{"comm",                                                                           \
		 0,                                                                                \
		 OPT_LIST,                                                                         \
		 "LIST",                                                                           \
		 OPT_AT(T, m.comms),                                                               \
		 "only events of processes of these names"},                                       \
	{                                                                                          \
		"event", 0, OPT_LIST, "LIST", OPT_AT(T, m.events),                                 \
			"only these events (prof, profil, sprofil, setitimer, ...)"                \
	}

/*
 * The filter the options give (f's lists point into o).  OPTS_GO_ON, or the
 * exit status after one sentence (an unknown event name).
 */
int event_filter_opts__filter(const char *cmd, const struct event_filter_opts *o,
			      struct event_filter *f);

/*
 * Show the manual page PAGE(SECTION) this build installed (or formatted, in
 * the build tree) with man(1).  0 when man showed it; -ENOENT when there is
 * no such page; another -errno when man could not run or failed.
 */
int manpage__show(const char *page, int section);

#endif
