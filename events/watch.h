/* SPDX-License-Identifier: MIT */
/*
 * The user half of `profil watch`: a system-wide view of profiling
 * activity from eBPF (bpf/watch.bpf.c): the calls to profil()/sprofil()
 * (uprobes on glibc and libprofil), setitimer, timer_create on CPU clocks
 * and perf_event_open (syscall tracepoints), and the fork/exec/exit of the
 * processes that profile themselves.  From these it derives the `prof`
 * events (ENABLE when a process turns a sampling clock on, DISABLE at exec,
 * exit or an explicit stop), and reports ring-buffer drops as events_lost.
 * The events go to the caller (events/events.h), which filters and writes
 * them.  Needs root, or CAP_BPF and CAP_PERFMON.
 */
#ifndef PROFIL_EVENTS_WATCH_H
#define PROFIL_EVENTS_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "events/events.h"

#define WATCH_MAX_LIBS 16

struct watch_opts {
	const char *libs[WATCH_MAX_LIBS]; /* also probe profil()/sprofil() in these files */
	unsigned int nlibs;
	unsigned int ringbuf_kb; /* ring buffer size, 0 = as built (1 MiB) */
	bool verbose;		 /* libbpf's diagnostics on stderr */
};

/* Where the watch's output goes. */
struct watch_sink {
	void *arg;
	/* Every event, events_lost included (unfiltered: filtering is the caller's). */
	void (*event)(void *arg, const struct profil_event *ev);
	/* One sentence that does not stop the watch (a file that cannot be probed). */
	void (*warn)(void *arg, const char *sentence);
};

struct watch;

/*
 * Can the watch run here?  0, or -ENOTSUP (this build has no BPF) or -EPERM
 * (neither root nor CAP_BPF and CAP_PERFMON) with one sentence in why.
 */
int watch__check(char *why, size_t whylen);

/*
 * Load the BPF programs and attach the tracepoints.  Returns 0, or -errno
 * with one sentence in why.
 */
int watch__open(struct watch **out, const struct watch_opts *o, const struct watch_sink *sink,
		char *why, size_t whylen);

/*
 * Probe profil()/sprofil() in glibc, in libprofil next to this program and
 * where it installs, and in opts->libs; the files probed, comma-separated,
 * into summary ("" when none).
 */
void watch__attach_uprobes(struct watch *w, char *summary, size_t len);

/*
 * Deliver events until *stop becomes non-zero or duration_s seconds passed
 * (0: no limit).  Returns 0, or -errno when the ring buffer cannot be read
 * (one sentence in why).
 */
int watch__run(struct watch *w, double duration_s, const volatile sig_atomic_t *stop, char *why,
	       size_t whylen);

void watch__close(struct watch *w);

#endif /* PROFIL_EVENTS_WATCH_H */
