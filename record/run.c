// SPDX-License-Identifier: MIT
/*
 * The steps every recording shares (a command's, command.c, and an attach,
 * attach.c): the signals, one round of the poll loop, the header's last
 * fields and the result.  See run.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "record/jitcollect.h"
#include "record/kstacks.h"
#include "record/ksyms.h"
#include "record/offcpu.h"
#include "record/offcpu_switch.h"
#include "record/proctree.h"
#include "record/perf_session.h"
#include "record/procacct.h"
#include "record/record_bpf.h"
#include "record/run.h"
#include "record/stacks.h"
#include "utils/procfile.h"

/*
 * The signals stay blocked when the recording is over: one that arrives at
 * the very end must not kill the recorder before it reports the program's
 * status.  SIGPIPE and SIGXFSZ are held too (not read): a reader of the event
 * stream that goes away, or a file size limit, makes a write fail (EPIPE,
 * EFBIG) and the stream stop with a sentence, instead of killing the
 * recorder and, with it, the command.  The command gets the old mask back.
 */
int record_run__setup_signals(struct record_run *r)
{
	sigset_t set, held;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	held = set;
	sigaddset(&held, SIGPIPE);
	sigaddset(&held, SIGXFSZ);
	if (sigprocmask(SIG_BLOCK, &held, &r->oldmask) < 0)
		return -errno;
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->sfd < 0 ? -errno : 0;
}

/* Forward a signal sent to the recorder alone; a terminal's already reached the program. */
static void on_signal(struct record_run *r, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGCHLD)
		return;
	if (r->o->attach_pid) {
		r->detached = 1; /* Ctrl-C / SIGTERM ends an attach session */
		return;
	}
	if (r->o->all_cpus)
		r->detached = 1; /* and a whole-machine one (its command gets it as below) */
	if (si->ssi_code == SI_KERNEL && si->ssi_signo != SIGTERM)
		return;
	if (r->child > 0 && !r->exited)
		kill(r->child, (int)si->ssi_signo);
}

static void drain_signals(struct record_run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		on_signal(r, &si);
}

uint32_t record_run__perf_callgraph(const struct record_opts *o)
{
	switch (o->callgraph) {
	case RECORD_CG_AUTO:
	case RECORD_CG_DWARF:
		return PDATA_CG_DWARF;
	case RECORD_CG_FP:
		return PDATA_CG_FP;
	default:
		return PDATA_CG_NONE;
	}
}

int record_run__create(struct record_run *r, char *why, size_t whylen)
{
	struct pdata_create_opts co = {0};

	/* 1M frame nodes (16 MiB while recording): a few thousand distinct stacks use ~1 % */
	if (r->o->callgraph != RECORD_CG_NONE)
		co.frame_slots = PDATA_DEFAULT_FRAMES;
	/* format 3 (off-CPU slots); header.offcpu says later what could be recorded */
	co.offcpu = r->o->offcpu ? PDATA_OFFCPU_BPF : PDATA_OFFCPU_NONE;
	return pdata__create(&r->pd, r->o->output, &co, why, whylen);
}

void record_run__set_note(struct record_run *r, const char *fmt, const char *a, const char *b)
{
	snprintf(r->note, sizeof(r->note), fmt, a, b);
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

unsigned int record_run__max_perf_rate(void)
{
	return (unsigned int)procfile__number("/proc/sys/kernel/perf_event_max_sample_rate", 0);
}

/* Proc records of pid (the agent writes them in fallback mode): the latest image. */
struct find_proc_arg {
	pid_t pid;
	struct pdata_proc *found;
};

static int find_proc_cb(void *arg, const struct pdata_rec *rec)
{
	struct find_proc_arg *a = arg;

	/* the record in the mapping (rec is a copy): its end is written later */
	if (rec->type == PDATA_REC_PROC && rec->size >= sizeof(struct pdata_proc) &&
	    ((const struct pdata_proc *)rec)->pid == a->pid)
		a->found = (struct pdata_proc *)pdata__rec_live(rec);
	return 0;
}

struct pdata_proc *record_run__latest_proc(struct pdata *pd, pid_t pid)
{
	struct find_proc_arg a = {pid, NULL};

	pdata__foreach_rec(pd, find_proc_cb, &a);
	return a.found;
}

/* "; call stacks: ..." after the note, when the samples carry stacks. */
static void append_stacks(struct record_run *r, char *note, size_t len)
{
	size_t at = strlen(note);

	if (!r->perf || !perf_session__stacks(r->perf) || at + 2 >= len)
		return;
	if (r->callgraph == PDATA_CG_KERNEL) { /* the kernel's walk says it all (finish_header) */
		struct stacks_stats ss;

		stacks__stats(perf_session__stacks(r->perf), &ss);
		if (ss.samples)
			snprintf(note + at, len - at,
				 "; the ring's %llu unwound by the recorder, "
				 "%.2f%% complete",
				 (unsigned long long)ss.samples,
				 100.0 * (double)(ss.samples - ss.truncated) / (double)ss.samples);
		return;
	}
	snprintf(note + at, len - at, "; ");
	at += 2;
	stacks__describe(perf_session__stacks(r->perf), note + at, len - at);
	at = strlen(note);
	snprintf(note + at, len - at, "; rings of %llu KiB per CPU%s",
		 (unsigned long long)perf_session__ring_pages(r->perf) * (uint64_t)getpagesize() /
			 1024,
		 perf_session__ring_limited(r->perf) ? " (the locked-memory limit)" : "");
}

/*
 * Lost samples are said in the summary; with stacks (16 KiB a sample) a
 * share worth acting on gets a sentence why.
 */
static void warn_lost(struct record_run *r, const struct pdata_header *h)
{
	uint64_t lost = h->lost, all = h->samples + h->lost;

	if (!r->perf || !perf_session__stacks(r->perf) || r->res->warning[0] || !all ||
	    lost * 100 < all)
		return;
	snprintf(r->res->warning, sizeof(r->res->warning),
		 "%.1f%% of the samples were lost: the recorder did not read its rings (%llu KiB "
		 "per CPU) in time%s",
		 100.0 * (double)lost / (double)all,
		 (unsigned long long)perf_session__ring_pages(r->perf) * (uint64_t)getpagesize() /
			 1024,
		 perf_session__ring_limited(r->perf) ?
			 "; the locked-memory limit kept them small (ulimit -l, "
			 "kernel.perf_event_mlock_kb)" :
			 "; a lower -F helps");
}

/* The note's end from a clause boundary: the longest that fits in room bytes, or NULL. */
static const char *note_tail(const char *note, size_t room)
{
	const char *tail = NULL;

	for (const char *p = note + strlen(note); p > note; p--)
		if (!strncmp(p, "; ", 2) && strlen(p + 2) < room)
			tail = p + 2;
	return tail;
}

void record_run__copy_note(char *dst, size_t len, const char *note)
{
	size_t n = strlen(note), head;
	const char *tail;
	char mark[64];

	if (n < len) {
		memcpy(dst, note, n + 1);
		return;
	}
	/* the first clause (the clock), the marker, and as many of the last (the findings) as fit */
	head = strcspn(note, ";");
	snprintf(mark, sizeof(mark), "; [note cut: %zu bytes]; ", n);
	tail = head + strlen(mark) < len ? note_tail(note + head, len - head - strlen(mark)) : NULL;
	if (tail && tail > note + head) {
		snprintf(mark, sizeof(mark), "; [note cut: %zu bytes]; ",
			 (size_t)(tail - (note + head)) - 4);
		snprintf(dst, len, "%.*s%s%s", (int)head, note, mark, tail);
		return;
	}
	/* else the head, cut at its last clause that fits */
	snprintf(mark, sizeof(mark), "; [note cut: %zu more bytes]", n);
	head = len - strlen(mark) - 1;
	while (head > 0 && strncmp(note + head, "; ", 2))
		head--;
	snprintf(mark, sizeof(mark), "; [note cut: %zu more bytes]", n - head);
	snprintf(dst, len, "%.*s%s", (int)head, note, mark);
}

void record_run__start_header(struct record_run *r)
{
	struct pdata_header *h = pdata__header(r->pd);
	char note[sizeof(r->note)];

	h->clock = (uint32_t)r->clock;
	h->nominal_hz = r->hz;
	h->callgraph = r->callgraph;
	snprintf(note, sizeof(note), "%s", r->note);
	append_stacks(r, note, sizeof(note));
	record_run__copy_note(h->clock_note, sizeof(h->clock_note), note);
}

static void append(char *note, size_t len, const char *fmt, const char *a)
{
	size_t at = strlen(note);

	if (at < len)
		snprintf(note + at, len - at, fmt, a);
}

static void apply_event(void *arg, const struct procacct_event *e)
{
	perf_session__account(arg, e);
}

void record_run__account(struct record_run *r, int final)
{
	if (!r->acct || !r->perf)
		return;
	procacct__read(r->acct);
	procacct__apply(r->acct, final ? UINT64_MAX : perf_session__handled_until(r->perf),
			apply_event, r->perf);
}

/* The JIT code names the samples need, into the profile (and the note, when some are lost). */
static void store_jit(struct record_run *r)
{
	char why[160], buf[240];
	size_t files;
	int n = jitcollect__store(r->jit, &files, why, sizeof(why));

	jitcollect__free(r->jit);
	r->jit = NULL;
	if (n < 0) {
		snprintf(buf, sizeof(buf), "; JIT code names lost: %s", why);
		append(r->note, sizeof(r->note), "%s", buf);
	}
}

void record_run__kernel(struct record_run *r)
{
	struct pdata_header *h = pdata__header(r->pd);
	char why[160], kept[200];
	int n;

	store_jit(r);
	if (!r->perf)
		return;
	perf_session__keep_objects(r->perf, kept, sizeof(kept));
	if (kept[0])
		append(r->note, sizeof(r->note), "; %s", kept);
	if (perf_session__gens_refused(r->perf)) {
		snprintf(kept, sizeof(kept),
			 "; %llu mapping replacements past %d generations of an image named by the "
			 "newest mapping",
			 (unsigned long long)perf_session__gens_refused(r->perf), PDATA_GENS_MAX);
		append(r->note, sizeof(r->note), "%s", kept);
	}
	if (!perf_session__kernel(r->perf)) {
		append(r->note, sizeof(r->note), "%s",
		       r->acct ? "; kernel not sampled: its time is each thread's system time" :
				 "; kernel not sampled (not permitted): its time is each thread's "
				 "task clock less its user samples");
		return;
	}
	h->flags |= PDATA_F_KERNEL;
	append(r->note, sizeof(r->note), "%s", "; kernel sampled");
	n = r->keep_ksyms ?
		    ksyms__store_cached(r->pd, &r->ksyms, 60, "/proc/kallsyms", why, sizeof(why)) :
		    ksyms__store(r->pd, "/proc/kallsyms", why, sizeof(why));
	if (n < 0)
		append(r->note, sizeof(r->note), " (its functions unnamed: %s)", why);
}

void record_run__children_cpu(const struct record_run *r, struct pdata_cpu *out)
{
	struct rusage now;
	uint64_t u0 = tv_ns(r->children0.ru_utime), s0 = tv_ns(r->children0.ru_stime);

	memset(out, 0, sizeof(*out));
	if (getrusage(RUSAGE_CHILDREN, &now) < 0)
		return;
	out->user_ns = tv_ns(now.ru_utime) > u0 ? tv_ns(now.ru_utime) - u0 : 0;
	out->sys_ns = tv_ns(now.ru_stime) > s0 ? tv_ns(now.ru_stime) - s0 : 0;
	out->cpu_ns = out->user_ns + out->sys_ns;
}

void record_run__finish_header(struct record_run *r, const struct pdata_cpu *tree)
{
	struct pdata_header *h = pdata__header(r->pd);
	uint64_t missed, dropped;
	char buf[160];

	h->clock = (uint32_t)r->clock;
	h->nominal_hz = r->hz;
	h->cpu_ns = tree->cpu_ns;
	h->user_ns = tree->user_ns;
	h->sys_ns = tree->sys_ns;
	/* one sample is one period of the clock: the rate in effect, capped or not */
	h->period_ns = 1000000000ull / (r->hz ? r->hz : 1);
	if (r->perf && perf_session__throttled(r->perf)) {
		h->throttled = perf_session__throttled_samples(r->perf);
		snprintf(buf, sizeof(buf),
			 "; the kernel throttled the events %llu times (%llu samples not taken)",
			 (unsigned long long)perf_session__throttled(r->perf),
			 (unsigned long long)h->throttled);
		append(r->note, sizeof(r->note), "%s", buf);
	}
	/*
	 * More than one in a hundred skipped: the kernel's timer could not keep
	 * the rate.  Samples lost in the rings were taken: not counted twice.
	 */
	missed = r->perf ? perf_session__missed_samples(r->perf) : 0;
	missed = missed > h->lost ? missed - h->lost : 0;
	if (missed * 100 > h->samples && missed > h->throttled) {
		snprintf(buf, sizeof(buf),
			 "; %llu samples not taken: the kernel's timer ran late (the threads' "
			 "runtime was worth more)",
			 (unsigned long long)(missed - h->throttled));
		h->throttled = missed;
		append(r->note, sizeof(r->note), "%s", buf);
	}
	if (r->bpf) {
		char bbuf[400];

		record_bpf__describe(r->bpf, bbuf, sizeof(bbuf));
		append(r->note, sizeof(r->note), "; %s", bbuf);
	}
	dropped = r->acct ? procacct__dropped(r->acct) : 0;
	if (dropped) {
		snprintf(buf, sizeof(buf), "; %llu accounting events lost",
			 (unsigned long long)dropped);
		append(r->note, sizeof(r->note), "%s", buf);
	}
	append_stacks(r, r->note, sizeof(r->note));
	h->callgraph = r->callgraph;
	record_run__copy_note(h->clock_note, sizeof(h->clock_note), r->note);
}

/*
 * Where this recording's file is now (res->output, res->file_size): at the
 * output path (compacted there: at_path), or moved aside to OUTPUT.old by
 * another recorder on the same -o, or nowhere by either name.
 */
static void locate_output(struct record_run *r, int at_path)
{
	struct record_result *res = r->res;
	struct stat mine, st;
	char old[sizeof(res->output)];

	res->output[0] = 0;
	res->file_size = 0;
	if (fstat(pdata__fd(r->pd), &mine) < 0)
		return;
	res->file_size = (uint64_t)mine.st_size;
	if (stat(r->o->output, &st) == 0 &&
	    (at_path || (st.st_dev == mine.st_dev && st.st_ino == mine.st_ino))) {
		snprintf(res->output, sizeof(res->output), "%s", r->o->output);
		res->file_size = (uint64_t)st.st_size;
		return;
	}
	if (snprintf(old, sizeof(old), "%s.old", r->o->output) < (int)sizeof(old) &&
	    stat(old, &st) == 0 && st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)
		snprintf(res->output, sizeof(res->output), "%s", old);
}

/* 1 when the file being recorded has no name any more (a compact copy replaced it). */
static int replaced(struct pdata *pd)
{
	struct stat st;

	return fstat(pdata__fd(pd), &st) == 0 && st.st_nlink == 0;
}

void record_run__finish(struct record_run *r)
{
	struct pdata_header *h = pdata__header(r->pd);
	struct record_result *res = r->res;
	char why[200];
	int compacted = 0;

	res->flush_err = pdata__seal(r->pd);
	/* the compact copy replaces the full-size file; failing that, the latter stays, complete */
	if (!res->flush_err) {
		compacted = pdata__compact(r->pd, r->o->output, why, sizeof(why)) == 0;
		if (!compacted && !res->warning[0])
			snprintf(res->warning, sizeof(res->warning),
				 "%s (the profile is complete, at full size)", why);
		if (!replaced(r->pd)) /* it stays the profile (or nothing was to gain) */
			res->flush_err = pdata__sync(r->pd);
	}
	locate_output(r, compacted);
	res->samples = h->samples;
	res->lost = h->lost + h->dropped;
	res->processes = h->processes;
	res->clock_name = pdata__clock_name((uint32_t)r->clock);
	/* the rate a reader states: one sample per period_ns of CPU time */
	res->effective_hz = h->period_ns ? 1e9 / (double)h->period_ns : 0;
	res->hz = r->hz;
	res->throttled = h->throttled;
	res->kernel = (h->flags & PDATA_F_KERNEL) != 0;
	warn_lost(r, h);
	res->callgraph_name = pdata__callgraph_name(h->callgraph);
	res->stacks_truncated = h->truncated;
	res->stacks_dropped = h->stacks_dropped;
	res->offcpu_ns = h->offcpu_ns;
	res->offcpu_name = pdata__offcpu_name(h->offcpu);
}

/*
 * A ring whose event hung up (its thread ended, attach mode) still receives
 * the other threads' records but would make poll return at once forever:
 * it is no longer polled.  Rings past the first MAX_POLLED_RINGS CPUs are
 * drained on the 50 ms timeout, which also bounds the reorder delay.
 */
int record_run__poll_once(struct record_run *r, int extra_fd)
{
	struct pollfd pfd[MAX_POLLED_RINGS + 2];
	int map[MAX_POLLED_RINGS + 2];
	int n = 0, nring = 0, extra_ready = 0;
	const int *rfds = r->perf ? perf_session__fds(r->perf, &nring) : NULL;

	/* the records the last round published: new JIT processes, their files' new names */
	if (!r->jit)
		r->jit = jitcollect__new(r->pd);
	jitcollect__poll(r->jit);
	pfd[n++] = (struct pollfd){.fd = r->sfd, .events = POLLIN};
	if (extra_fd >= 0)
		pfd[n++] = (struct pollfd){.fd = extra_fd, .events = POLLIN};
	for (int i = 0; i < nring && i < MAX_POLLED_RINGS; i++) {
		if (r->ring_hup[i])
			continue;
		map[n] = i;
		pfd[n++] = (struct pollfd){.fd = rfds[i], .events = POLLIN};
	}
	if (poll(pfd, (nfds_t)n, r->poll_ms > 0 ? r->poll_ms : 50) < 0 && errno != EINTR)
		return 0;
	if (pfd[0].revents)
		drain_signals(r);
	if (extra_fd >= 0 && pfd[1].revents)
		extra_ready = 1;
	for (int k = extra_fd >= 0 ? 2 : 1; k < n; k++)
		if (pfd[k].revents & (POLLHUP | POLLERR))
			r->ring_hup[map[k]] = 1;
	return extra_ready;
}

/* ---- off-CPU time (record/offcpu.h, record/offcpu_switch.h) ------------------------ */

/*
 * --off-cpu where BPF is not permitted: each thread's totals from the
 * session's switch records (record/offcpu_switch.h), when the session has
 * no other observer (the bpf clock needs BPF anyway).
 */
static int open_offcpu_switch(struct record_run *r, struct perf_session_opts *po)
{
	if (po->observer || offcpu_switch__new(&r->offcpu_sw, r->pd) < 0)
		return -1;
	po->observer = offcpu_switch__observer(r->offcpu_sw);
	po->context_switch = 1;
	pdata__header(r->pd)->offcpu = PDATA_OFFCPU_SWITCH;
	return 0;
}

/*
 * The BPF off-CPU programs; with -g (dwarf), user stacks walked in the kernel
 * at new places where issue 17's walk loads (the bpf clock's tables, else
 * tables of their own, fed by the session as its observer), else copied.
 * PROFIL_OFFCPU_NO_KWALK (benchmarks): copied always.
 */
static int open_offcpu_bpf(struct record_run *r, struct perf_session_opts *po,
			   struct offcpu_opts *oo, char *why, size_t whylen)
{
	char kwhy[256];
	int rc;

	if (oo->stacks && oo->copies && !getenv("PROFIL_OFFCPU_NO_KWALK")) {
		oo->ks = record_bpf__kstacks(r->bpf);
		if (!oo->ks && !po->observer &&
		    kstacks__open(&oo->ks, r->pd, kwhy, sizeof(kwhy)) == 0)
			oo->own_ks = 1;
	}
	rc = offcpu__open(&r->offcpu, r->pd, oo, why, whylen);
	if (rc < 0 && oo->ks) { /* without the walk, the copies */
		if (oo->own_ks)
			kstacks__close(oo->ks);
		oo->ks = NULL;
		oo->own_ks = 0;
		rc = offcpu__open(&r->offcpu, r->pd, oo, why, whylen);
	}
	if (rc == 0 && oo->own_ks)
		po->observer = offcpu__observer(r->offcpu);
	return rc;
}

void record_run__open_offcpu(struct record_run *r, struct perf_session_opts *po, pid_t pid,
			     int attach)
{
	struct offcpu_opts oo = {.follow_children = r->o->inherit,
				 .stacks = r->o->callgraph != RECORD_CG_NONE,
				 .copies = record_run__perf_callgraph(r->o) == PDATA_CG_DWARF,
				 .no_reuse = getenv("PROFIL_OFFCPU_NO_REUSE") != NULL,
				 .acct = r->acct};
	char why[256];

	if (!r->o->offcpu)
		return;
	/* an attached process is put in the tree with its threads once its events are on */
	if (open_offcpu_bpf(r, po, &oo, why, sizeof(why)) == 0 &&
	    (attach || offcpu__track(r->offcpu, pid) == 0)) {
		po->forgetting = offcpu__forgetting;
		po->forgetting_arg = r->offcpu;
		if (!attach)
			offcpu__walk_track(r->offcpu, pid);
		return;
	}
	offcpu__close(r->offcpu);
	r->offcpu = NULL;
	if (open_offcpu_switch(r, po) == 0) {
		if (!r->res->warning[0])
			snprintf(r->res->warning, sizeof(r->res->warning),
				 "--off-cpu: %.160s: each thread's off-CPU total only, without "
				 "stacks or kernel frames",
				 why);
		return;
	}
	pdata__header(r->pd)->offcpu = PDATA_OFFCPU_NONE;
	snprintf(r->offcpu_note, sizeof(r->offcpu_note),
		 "not recorded: %s; the profile has CPU time only", why);
}

void record_run__offcpu_session(struct record_run *r)
{
	offcpu__session(r->offcpu, r->perf);
	offcpu_switch__session(r->offcpu_sw, r->perf);
}

void record_run__finish_offcpu(struct record_run *r)
{
	if (r->offcpu) {
		offcpu__finish(r->offcpu, r->perf);
		offcpu__describe(r->offcpu, r->offcpu_note, sizeof(r->offcpu_note));
	}
	if (r->offcpu_sw) {
		offcpu_switch__finish(r->offcpu_sw);
		offcpu_switch__describe(r->offcpu_sw, r->offcpu_note, sizeof(r->offcpu_note));
	}
	if (r->offcpu_note[0])
		pdata__add_note(r->pd, "off-cpu", r->offcpu_note);
}

void record_run__close_offcpu(struct record_run *r)
{
	offcpu__close(r->offcpu);
	r->offcpu = NULL;
	offcpu_switch__free(r->offcpu_sw);
	r->offcpu_sw = NULL;
}
