// SPDX-License-Identifier: MIT
/* Off-CPU time from the perf session's switch records (unprivileged).  See offcpu_switch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/pdata.h"
#include "record/offcpu.h"
#include "record/offcpu_switch.h"
#include "record/perf_session.h"
#include "utils/htab.h"

/* One thread of the tree. */
struct sw_thread {
	uint64_t tid; /* + 1: never 0 */
	pid_t pid;
	int preempt;	    /* its pending interval began with a preemption */
	uint64_t out;	    /* its pending interval's start, 0: on the CPU */
	uint64_t begin;	    /* its fork (or exec for the command), else its first record */
	uint64_t wait;	    /* off the CPU waiting so far, not yet in the profile */
	uint64_t preempted; /* off the CPU runnable so far, not yet in the profile */
	uint64_t total;	    /* every interval, in the profile or not */
	int ended;
};

static const struct htab_type sw_type = HTAB_U64_TYPE(struct sw_thread);

struct offcpu_switch {
	struct pdata *pd;
	struct perf_session *s;
	struct perf_session_observer obs;
	struct htab *threads;
	uint64_t switches, intervals, ns, unplaced;
	uint64_t last; /* the newest record's time */
};

static struct sw_thread *thread_of(struct offcpu_switch *os, pid_t pid, pid_t tid, uint64_t time)
{
	uint64_t key = (uint64_t)(uint32_t)tid + 1;
	struct sw_thread *t = htab__find(os->threads, &sw_type, &key);
	bool fresh;

	if (t && !t->ended)
		return t;
	t = htab__insert(os->threads, &sw_type, &key, &fresh);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t)); /* new, or a tid used again */
	t->tid = key;
	t->pid = pid;
	t->begin = time;
	return t;
}

/* Move a thread's totals so far into the profile; its lifetime up to `until` into its record. */
static void flush(struct offcpu_switch *os, struct sw_thread *t, uint64_t until)
{
	uint64_t pc = PDATA_PC_OFFCPU;
	struct pdata_thread *rec = NULL;
	struct pdata_proc *img;
	pid_t tid = (pid_t)(t->tid - 1);

	img = os->s ? perf_session__image(os->s, t->pid, tid, &rec) : NULL;
	if (!img) {
		os->unplaced += t->wait + t->preempted;
		t->wait = t->preempted = 0;
		return;
	}
	if (t->wait)
		pdata__count_offcpu(os->pd, img->id, tid, &pc, 1, 0, PDATA_KIND_SLEEP, t->wait);
	if (t->preempted)
		pdata__count_offcpu(os->pd, img->id, tid, &pc, 1, 0, PDATA_KIND_PREEMPTED,
				    t->preempted);
	t->wait = t->preempted = 0;
	if (rec && until > t->begin)
		pdata__thread_life(rec, until - t->begin, t->total);
}

static void add_interval(struct offcpu_switch *os, struct sw_thread *t, uint64_t time)
{
	uint64_t ns = time > t->out ? time - t->out : 0;

	if (t->preempt)
		t->preempted += ns;
	else
		t->wait += ns;
	t->total += ns;
	os->ns += ns;
	os->intervals++;
	t->out = 0;
}

static void on_switched(void *arg, pid_t pid, pid_t tid, uint64_t time, int out, int preempt)
{
	struct offcpu_switch *os = arg;
	struct sw_thread *t;

	if (!tid)
		return;
	t = thread_of(os, pid, tid, time);
	if (!t || time < t->begin)
		return; /* before an attached thread's start (offcpu_switch__attach) */
	os->switches++;
	if (time > os->last)
		os->last = time;
	if (out) {
		t->out = time;
		t->preempt = preempt;
	} else if (t->out) {
		add_interval(os, t, time);
	}
}

static void on_task(void *arg, pid_t pid, pid_t tid, uint64_t time, int begin)
{
	struct offcpu_switch *os = arg;
	uint64_t key = (uint64_t)(uint32_t)tid + 1;
	struct sw_thread *t;

	if (time > os->last)
		os->last = time;
	if (begin) { /* an exec of a known thread keeps its lifetime (thread_of) */
		thread_of(os, pid, tid, time);
		return;
	}
	t = htab__find(os->threads, &sw_type, &key);
	if (!t || t->ended)
		return;
	if (t->out)
		add_interval(os, t, time); /* exiting: on the CPU again */
	flush(os, t, time);
	t->ended = 1;
}

void offcpu_switch__attach(struct offcpu_switch *os, pid_t pid, const struct offcpu_seed *threads,
			   size_t n, uint64_t now)
{
	for (size_t i = 0; os && i < n; i++) {
		uint64_t key = (uint64_t)(uint32_t)threads[i].tid + 1;
		struct sw_thread *t = htab__find(os->threads, &sw_type, &key);

		if (t && !t->ended)
			continue; /* its records came first */
		t = thread_of(os, pid, threads[i].tid, now);
		if (t && strchr("SDTt", threads[i].state) &&
		    threads[i].state) /* waiting: from now */
			t->out = now;
	}
}

int offcpu_switch__new(struct offcpu_switch **out, struct pdata *pd)
{
	struct offcpu_switch *os = calloc(1, sizeof(*os));

	if (!os)
		return -ENOMEM;
	os->threads = htab__new(&sw_type, 64);
	if (!os->threads) {
		free(os);
		return -ENOMEM;
	}
	os->pd = pd;
	os->obs =
		(struct perf_session_observer){.arg = os, .switched = on_switched, .task = on_task};
	*out = os;
	return 0;
}

const struct perf_session_observer *offcpu_switch__observer(struct offcpu_switch *os)
{
	return os ? &os->obs : NULL;
}

void offcpu_switch__session(struct offcpu_switch *os, struct perf_session *s)
{
	if (os)
		os->s = s;
}

void offcpu_switch__finish(struct offcpu_switch *os)
{
	struct sw_thread *t;
	size_t pos = 0;
	uint64_t now;

	if (!os)
		return;
	now = pdata__clock_ns(CLOCK_MONOTONIC);
	if (os->last > now)
		now = os->last;
	while ((t = htab__next(os->threads, &pos))) {
		if (t->ended)
			continue;
		if (t->out)
			add_interval(os, t, now); /* still off the CPU: closed at the end */
		flush(os, t, now);
	}
	if (os->unplaced) {
		__atomic_add_fetch(&pdata__header(os->pd)->offcpu_ns, os->unplaced,
				   __ATOMIC_RELAXED);
		__atomic_add_fetch(&pdata__header(os->pd)->offcpu_lost, os->unplaced,
				   __ATOMIC_RELAXED);
	}
}

void offcpu_switch__describe(const struct offcpu_switch *os, char *buf, size_t len)
{
	snprintf(buf, len,
		 "off-CPU: each thread's total from its switch records (BPF not permitted): "
		 "%llu intervals, %.3f s; no stacks, no kernel frames, and \"sleep\" holds "
		 "uninterruptible waits too (the records do not tell them apart); with BPF "
		 "(root or CAP_BPF+CAP_PERFMON) every interval has its stack and reason",
		 (unsigned long long)os->intervals, (double)os->ns / 1e9);
}

void offcpu_switch__free(struct offcpu_switch *os)
{
	if (!os)
		return;
	htab__free(os->threads);
	free(os);
}
