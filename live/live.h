/* SPDX-License-Identifier: MIT */
/*
 * live: `profil top`, a refreshing view of the whole machine (or of one
 * process, or of a command's processes) as it runs.
 *
 * The recorder (record/record.h) records the whole machine and hands over
 * one complete profile per refresh period (record_opts.hook: no gap, no
 * overlap); each is read (profile/pview.h), its PCs named by one resolver
 * that lives as long as the view (report/resolve.h: an object is read once,
 * an address named once), and added to three tables at once: by function
 * (and object), by process, by cgroup.  A row has the samples of the last
 * period and a decayed total (7/8 of it kept at each refresh, as perf top
 * decays its histogram); with call stacks, a function's children total
 * too (the samples whose stack holds it, once per sample).
 *
 * On a terminal (live/screen.c): the alternate screen, keys read as they
 * are typed (ISIG kept: Ctrl-C ends it, Ctrl-Z stops it, the terminal
 * restored before either), redrawn at each period, at a resize (SIGWINCH)
 * and at a key; every line cut to the width, however narrow.  Elsewhere (a
 * pipe, a file): one table per period.
 */
#ifndef PROFIL_LIVE_LIVE_H
#define PROFIL_LIVE_LIVE_H

#include <stddef.h>
#include <sys/types.h>

enum live_view {
	LIVE_VIEW_FUNCTION, /* function and object */
	LIVE_VIEW_PROCESS,  /* pid and command */
	LIVE_VIEW_CGROUP,   /* cgroup path and the container it shows */
};

struct live_opts {
	unsigned int hz;       /* samples per CPU second */
	unsigned int delay_ms; /* the refresh period */
	int callgraph;	       /* -g: call stacks (dwarf) */
	int children;	       /* --children: totals of the callers too (with -g) */
	pid_t pid;	       /* -p: this process only, 0: all */
	char **argv;	       /* a COMMAND to run and show (its processes), NULL/empty: none */
	const char *cpu_list;  /* -C */
	const char *const *cgroups; /* --cgroup: report__cgroup_passes's filter */
	size_t ncgroups;
	enum live_view view; /* the first view */
	int sort_total;	     /* sort by the decayed total, else by the last period */
	long iterations;     /* stop after this many refreshes, 0: until q or a signal */
	int batch;	     /* tables on stdout even on a terminal */
	unsigned int rows;   /* batch: rows per table, 0: 20 */
};

/*
 * Run the view until q, a signal, the end of COMMAND or iterations.
 * Returns the exit status for profil (0; COMMAND's status when it ran to
 * its end), or -1 with one sentence in why (nothing was shown, or the
 * terminal is restored); *status then is the exit status (2 for what the
 * machine does not permit).
 */
int live__run(const struct live_opts *o, int *status, char *why, size_t whylen);

#endif /* PROFIL_LIVE_LIVE_H */
