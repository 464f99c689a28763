// SPDX-License-Identifier: MIT
/*
 * Attach to a running process (perf clock only): events on every thread it
 * has, again until no new thread appeared meanwhile, its existing mappings
 * from /proc, and a pidfd that says when it ends.  Ctrl-C (or SIGTERM)
 * detaches and leaves it running.  See record.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "record/offcpu.h"
#include "record/offcpu_switch.h"
#include "record/perf_session.h"
#include "record/proctree.h"
#include "record/record.h"
#include "record/run.h"
#include "record/shquote.h"
#include "utils/array.h"
#include "utils/outfile.h"
#include "utils/why.h"

/*
 * At most this many threads of an attached process (per-thread events: far
 * more than the descriptors a process may hold), and as many entries of
 * /proc/PID/task read, which a process making threads meanwhile could grow.
 */
#define ATTACH_MAX_THREADS 65536

static int list_tids(pid_t pid, pid_t **out)
{
	char path[64];
	struct dirent *d;
	pid_t *tids = NULL;
	size_t cap = 0;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	for (int seen = 0; seen < ATTACH_MAX_THREADS && (d = readdir(dir)); seen++) {
		int tid = atoi(d->d_name);

		if (tid <= 0)
			continue;
		if (array__reserve(&tids, &cap, (size_t)n + 1, sizeof(*tids)) < 0) {
			free(tids);
			closedir(dir);
			return -ENOMEM;
		}
		tids[n++] = tid;
	}
	closedir(dir);
	*out = tids;
	return n;
}

/* ---- off-CPU time of an attached process ---------------------------------------- */

/* The first line of /proc/PID/task/TID/NAME into buf; 0 or -1. */
static int read_task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
	char path[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* Thread tid as /proc shows it: its state, CPU time and the user PC of its system call. */
static void read_seed(pid_t pid, pid_t tid, struct offcpu_seed *out)
{
	char buf[512], *close_paren;
	unsigned long long a, b;

	*out = (struct offcpu_seed){.tid = tid, .state = 'R'};
	/* stat: "tid (comm) S ...": the state follows the last ')' (a comm may hold one) */
	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) == 0 &&
	    (close_paren = strrchr(buf, ')')) && close_paren[1] == ' ' && close_paren[2])
		out->state = close_paren[2];
	if (read_task_file(pid, tid, "schedstat", buf, sizeof(buf)) == 0 &&
	    sscanf(buf, "%llu", &a) == 1)
		out->runtime_ns = a;
	/* syscall: "NR args... sp pc", "-1 sp pc" (blocked outside one) or "running" */
	if (strchr("SDTt", out->state) &&
	    read_task_file(pid, tid, "syscall", buf, sizeof(buf)) == 0) {
		char *last = strrchr(buf, ' ');

		if (last && sscanf(last, " 0x%llx", &b) == 1)
			out->upc = b;
	}
}

/*
 * --off-cpu: the process and its threads into the off-CPU half (its
 * programs or the session's switch records are on already): lifetimes and
 * waits from now.
 */
static void attach_offcpu(struct record_run *r, pid_t pid)
{
	struct offcpu_seed *seeds;
	pid_t *tids = NULL;
	uint64_t now;
	int n;

	if (!r->offcpu && !r->offcpu_sw)
		return;
	record_run__offcpu_session(r);
	offcpu__walk_track(r->offcpu, pid);
	n = list_tids(pid, &tids);
	seeds = n > 0 ? calloc((size_t)n, sizeof(*seeds)) : NULL;
	for (int i = 0; seeds && i < n; i++)
		read_seed(pid, tids[i], &seeds[i]);
	now = pdata__clock_ns(CLOCK_MONOTONIC);
	if (r->offcpu && offcpu__attach(r->offcpu, pid, seeds, seeds ? (size_t)n : 0, now) < 0) {
		record_run__close_offcpu(r);
		pdata__header(r->pd)->offcpu = PDATA_OFFCPU_NONE;
		snprintf(r->offcpu_note, sizeof(r->offcpu_note),
			 "not recorded: the process could not be put in the BPF programs' tree");
	}
	offcpu_switch__attach(r->offcpu_sw, pid, seeds, seeds ? (size_t)n : 0, now);
	free(seeds);
	free(tids);
}

/* Open events for every thread, again until no new thread appeared meanwhile. */
static int attach_threads(struct record_run *r, pid_t pid, char *why, size_t whylen)
{
	/* kernel PCs where permitted; each new thread's task clock at its exit */
	struct perf_session_opts po = {.hz = r->hz,
				       .follow_children = r->o->inherit,
				       .attach = 1,
				       .kernel = 1,
				       .thread_cpu = 1,
				       .thread_cpu_split = 1,
				       .callgraph = r->callgraph,
				       .stack_bytes = r->o->stack_bytes};
	pid_t *done = NULL;

	record_run__open_offcpu(r, &po, pid, 1);
	int ndone = 0, rc = 0;

	for (int round = 0; round < 16; round++) {
		pid_t *tids = NULL, *fresh;
		int n = list_tids(pid, &tids), nf = 0;

		if (n < 0) {
			snprintf(why, whylen, "no process %d: %s", pid, strerror(-n));
			rc = n;
			break;
		}
		fresh = malloc(sizeof(pid_t) * (n ? n : 1));
		for (int i = 0; fresh && i < n; i++) {
			int known = 0;

			for (int j = 0; j < ndone && !known; j++)
				known = done[j] == tids[i];
			if (!known)
				fresh[nf++] = tids[i];
		}
		free(tids);
		if (!fresh) {
			rc = -ENOMEM;
			break;
		}
		if (!nf) {
			free(fresh);
			break;
		}
		if (!r->perf)
			rc = perf_session__open(&r->perf, r->pd, &po, fresh, nf, why, whylen);
		else
			rc = perf_session__add_tids(r->perf, fresh, nf, why, whylen);
		if (rc == 0) {
			pid_t *nd = realloc(done, sizeof(pid_t) * (ndone + nf));

			if (nd) {
				memcpy(nd + ndone, fresh, sizeof(pid_t) * nf);
				done = nd;
				ndone += nf;
			}
		}
		free(fresh);
		if (rc < 0)
			break;
	}
	free(done);
	return rc;
}

/* The process's command line, quoted as a shell needs it (record/shquote.h). */
static void read_cmdline(pid_t pid, char *dst, size_t len)
{
	char path[64], raw[8192], *argv[1024];
	ssize_t n;
	int fd, argc = 0;

	dst[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	if (n <= 0)
		return;
	raw[n] = 0;
	for (ssize_t i = 0; i < n && argc < (int)(sizeof(argv) / sizeof(argv[0]));
	     i += (ssize_t)strlen(raw + i) + 1)
		argv[argc++] = raw + i;
	shquote__argv(dst, len, argv, argc);
}

/* Until the process ends (its pidfd is readable) or the recorder is told to stop. */
static void attach_loop(struct record_run *r, pid_t pid, int pidfd)
{
	struct pdata_header *h = pdata__header(r->pd);
	int status = 0, have_status = 0;

	for (;;) {
		int gone = record_run__poll_once(r, pidfd);

		perf_session__drain(r->perf, 0);
		offcpu__poll(r->offcpu, r->perf);
		if (r->detached)
			break;
		if (gone) {
			have_status = record_zombie_status(pid, &status);
			r->exited = 1;
			break;
		}
	}
	perf_session__drain(r->perf, 1);
	if (r->detached)
		h->end_kind = PDATA_END_DETACHED;
	else if (have_status)
		record_decode_status(status, &h->end_kind, &h->end_code);
	else
		h->end_kind = PDATA_END_UNKNOWN; /* it ended; its parent took the status */
}

int record__attach(const struct record_opts *o, struct record_result *res)
{
	struct record_run r = {.o = o, .res = res, .sfd = -1};
	pid_t pid = o->attach_pid;
	char exe[PATH_MAX], path[64];
	struct pdata_proc *root, *latest;
	struct pdata_header *h;
	unsigned int cap = record_run__max_perf_rate();
	int pidfd, rc;
	ssize_t n;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return why_fail(res->why, sizeof(res->why), -errno,
				"cannot attach to process %d: %s", pid, strerror(errno));
	r.hz = cap && o->hz > cap ? cap : o->hz;
	r.clock = PDATA_CLOCK_PERF;
	r.callgraph = record_run__perf_callgraph(o);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	outfile__protect(path, "the program being recorded");
	rc = record_run__create(&r, res->why, sizeof(res->why));
	if (rc < 0) {
		close(pidfd);
		return rc;
	}
	pdata__exit_on_truncation(r.pd, "profil record", o->output);
	rc = record_run__setup_signals(&r);
	if (rc < 0) {
		why_fail(res->why, sizeof(res->why), rc, "cannot watch signals: %s", strerror(-rc));
		goto fail;
	}
	{
		char why[sizeof(res->why) - 64];

		rc = attach_threads(&r, pid, why, sizeof(why));
		if (rc < 0) {
			why_fail(res->why, sizeof(res->why), rc,
				 "cannot attach to process %d: %s%s", pid, why,
				 perf_errno_is_refusal(-rc) ? " (attaching needs perf events)" :
							      "");
			goto fail;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	h = pdata__header(r.pd);
	read_cmdline(pid, h->command, sizeof(h->command));
	h->root_pid = pid;
	h->flags = PDATA_F_ATTACH | (o->inherit ? PDATA_F_INHERIT : 0);
	record_run__set_note(&r,
			     "perf_event task-clock, attached to running threads%s; per-thread CPU "
			     "time of the threads that start meanwhile: the task clock at their "
			     "exit, split into user and system time by the samples%s",
			     r.hz < o->hz ? ", rate capped by perf_event_max_sample_rate" : "", "");
	record_run__start_header(&r);
	root = perf_session__add_root(r.perf, pid, 0, exe, 1);
	attach_offcpu(&r, pid);

	attach_loop(&r, pid, pidfd);
	latest = record_run__latest_proc(r.pd, pid);
	root = latest ? latest : root;
	if (root)
		pdata__end_proc(root, h->end_kind, h->end_code, pdata__now_ns(), NULL);
	record_run__finish_offcpu(&r); /* before the kernel's symbols: its stacks name them */
	record_run__kernel(&r);
	/* the task clock of the recorded threads since the attach (no user/system split) */
	record_run__finish_header(&r, &(struct pdata_cpu){perf_session__cpu_ns(r.perf), 0, 0});
	record_run__finish(&r);
	res->exit_status = res->flush_err < 0 ? 1 : 0;
	record_run__close_offcpu(&r);
	perf_session__close(r.perf);
	pdata__close(r.pd);
	close(pidfd);
	close(r.sfd);
	return 0;
fail:
	record_run__close_offcpu(&r);
	perf_session__close(r.perf);
	pdata__close(r.pd);
	unlink(o->output);
	close(pidfd);
	if (r.sfd >= 0)
		close(r.sfd);
	return rc;
}
