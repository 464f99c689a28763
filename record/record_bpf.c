// SPDX-License-Identifier: MIT
/*
 * `profil record --clock bpf`: the perf session's task-clock events run
 * bpf/histclock.bpf.c at every tick, which counts the PC into a
 * memory-mapped histogram in the kernel, per thread.  A tick in a (thread,
 * 64 KiB granule of code) without bins reaches the perf ring as an ordinary
 * sample; this file then gives that thread bins for that granule, so only
 * the code where threads spend time gets bins, and an ended thread's bins
 * go to the next.  The counts move into profil.data at every
 * poll round (a kill of the recorder loses at most the last 50 ms) and when
 * a thread or an image ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/bpfclock.h"
#include "record/kstacks.h"
#include "record/record_bpf.h"

struct record_bpf {
	struct bpfclock *bc; /* flat: the histogram (with stacks, when ks could not load) */
	struct kstacks *ks;  /* call stacks walked in the kernel */
	struct pdata *pd;
	struct perf_session_observer obs;
	int stacks;	  /* call stacks asked for */
	char ks_why[256]; /* why ks could not load */
};

static int on_event_fd(void *arg, int fd)
{
	struct record_bpf *rb = arg;

	return rb->ks ? kstacks__attach(rb->ks, fd) : bpfclock__attach(rb->bc, fd);
}

/*
 * A tick came through the ring: its thread runs in a 64 KiB granule of code
 * without bins.  Give that (thread, granule) bins so that its next ticks
 * stay in the kernel (-EEXIST for a tick in flight, -ENOSPC: the ring keeps
 * working).
 */
static void on_sample(void *arg, pid_t pid, pid_t tid, uint32_t proc, uint64_t pc)
{
	struct record_bpf *rb = arg;

	(void)proc;
	if (!rb->stacks)
		bpfclock__add_region(rb->bc, (uint32_t)pid, (uint32_t)tid, proc, pc, pc + 1);
}

static void on_thread_end(void *arg, pid_t tid)
{
	struct record_bpf *rb = arg;

	if (rb->bc)
		bpfclock__forget_thread(rb->bc, (uint32_t)tid, rb->pd);
}

static void on_image_end(void *arg, pid_t pid)
{
	struct record_bpf *rb = arg;

	if (rb->ks)
		kstacks__forget(rb->ks, pid);
	else
		bpfclock__forget_process(rb->bc, (uint32_t)pid, rb->pd);
}

/*
 * A mapping generation began in pid (code replaced at an address): the
 * histogram's counts so far are the older generation's, and its bins are
 * given back, so that the next ticks come through the ring and get bins
 * under the new id.  (Ticks binned between the new mapping and this call,
 * at most one poll round, count in the older generation.)  The in-kernel
 * walk learns the new id with the mapping (on_map).
 */
static void on_generation(void *arg, pid_t pid, uint32_t proc)
{
	struct record_bpf *rb = arg;

	(void)proc;
	if (rb->bc)
		bpfclock__forget_process(rb->bc, (uint32_t)pid, rb->pd);
}

static void on_map(void *arg, pid_t pid, uint32_t proc, uint64_t start, uint64_t end,
		   uint64_t pgoff, uint64_t dev, uint64_t ino, const char *path)
{
	struct record_bpf *rb = arg;

	kstacks__map(rb->ks, pid, proc, start, end, pgoff, dev, ino, path);
}

static void on_fork(void *arg, pid_t ppid, pid_t pid, uint32_t proc)
{
	struct record_bpf *rb = arg;

	kstacks__fork(rb->ks, ppid, pid, proc);
}

static void on_proc_maps(void *arg, pid_t pid, uint32_t proc)
{
	struct record_bpf *rb = arg;

	kstacks__proc_maps(rb->ks, pid, proc);
}

static void on_exited(void *arg, pid_t pid)
{
	struct record_bpf *rb = arg;

	kstacks__exited(rb->ks, pid);
}

static void on_user_stack(void *arg, pid_t tid, uint64_t time, uint64_t sp, const uint64_t *pcs,
			  unsigned int n, unsigned int flags)
{
	struct record_bpf *rb = arg;

	kstacks__check(rb->ks, tid, time, sp, pcs, n, flags);
}

/*
 * With call stacks: the in-kernel walk, else (a kernel that cannot run it)
 * the histogram's program with no bins: every tick through the ring.
 */
static int open_stacks(struct record_bpf *rb, char *why, size_t whylen)
{
	int rc = kstacks__open(&rb->ks, rb->pd, rb->ks_why, sizeof(rb->ks_why));

	if (rc == 0) {
		rb->obs.map = on_map;
		rb->obs.fork = on_fork;
		rb->obs.proc_maps = on_proc_maps;
		rb->obs.exited = on_exited;
		rb->obs.user_stack = on_user_stack;
		return 0;
	}
	if (rc == -EPERM) {
		snprintf(why, whylen, "%s", rb->ks_why);
		return rc;
	}
	return bpfclock__open(&rb->bc, why, whylen);
}

int record_bpf__open(struct record_bpf **out, struct pdata *pd, int stacks, char *why,
		     size_t whylen)
{
	struct record_bpf *rb = calloc(1, sizeof(*rb));
	int rc;

	if (!rb)
		return -ENOMEM;
	rb->pd = pd;
	rb->stacks = stacks;
	rb->obs = (struct perf_session_observer){.arg = rb,
						 .event_fd = on_event_fd,
						 .sample = on_sample,
						 .thread_end = on_thread_end,
						 .image_end = on_image_end,
						 .generation = on_generation};
	rc = stacks ? open_stacks(rb, why, whylen) : bpfclock__open(&rb->bc, why, whylen);
	if (rc < 0) {
		free(rb);
		return rc;
	}
	*out = rb;
	return 0;
}

int record_bpf__kernel_stacks(const struct record_bpf *rb)
{
	return rb && rb->ks;
}

struct kstacks *record_bpf__kstacks(struct record_bpf *rb)
{
	return rb ? rb->ks : NULL;
}

int record_bpf__wake_fd(struct record_bpf *rb)
{
	return rb && rb->ks ? kstacks__wake_fd(rb->ks) : -1;
}

int record_bpf__track(struct record_bpf *rb, pid_t pid)
{
	return rb && rb->ks ? kstacks__track(rb->ks, pid) : 0;
}

const struct perf_session_observer *record_bpf__observer(struct record_bpf *rb)
{
	return rb ? &rb->obs : NULL;
}

void record_bpf__flush(struct record_bpf *rb, uint64_t synced_until)
{
	if (rb && rb->ks)
		kstacks__flush(rb->ks, synced_until);
	else if (rb)
		bpfclock__flush(rb->bc, rb->pd);
}

void record_bpf__describe(struct record_bpf *rb, char *buf, size_t len)
{
	struct bpfclock_stats st;

	if (rb->ks) {
		kstacks__describe(rb->ks, buf, len);
		return;
	}
	bpfclock__stats(rb->bc, &st);
	if (rb->stacks) {
		snprintf(buf, len, "%llu ticks, all through the ring (call stacks; %s)",
			 (unsigned long long)st.ticks, rb->ks_why);
		return;
	}
	snprintf(buf, len, "%.1f%% binned in the kernel, %llu via the ring (%llu %s of bins%s)",
		 st.ticks ? 100.0 * (double)st.binned / (double)st.ticks : 0.0,
		 (unsigned long long)st.unresolved, (unsigned long long)st.regions,
		 st.regions == 1 ? "block" : "blocks",
		 st.refused ? ", some refused: all in use" : "");
}

void record_bpf__close(struct record_bpf *rb)
{
	if (!rb)
		return;
	kstacks__close(rb->ks);
	bpfclock__close(rb->bc);
	free(rb);
}
