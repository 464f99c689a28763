// SPDX-License-Identifier: MIT
/*
 * `profil record --clock bpf`: the perf session's task-clock events run
 * bpf/histclock.bpf.c at every tick, which counts the user PC into a
 * memory-mapped histogram in the kernel; this file registers every
 * executable mapping the session learns as a histogram region and moves
 * the counts into profil.data at every poll round (so a kill of the
 * recorder loses at most the last 50 ms) and when an image ends.  Ticks in
 * mappings not registered yet reach the perf ring as ordinary samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfclock.h"
#include "record_bpf.h"

struct record_bpf {
	struct bpfclock *bc;
	struct pdata *pd;
	struct perf_session_observer obs;
	uint64_t regions_refused;
};

static int on_event_fd(void *arg, int fd)
{
	struct record_bpf *rb = arg;

	return bpfclock__attach(rb->bc, fd);
}

static void on_map(void *arg, pid_t pid, uint32_t proc, uint64_t start, uint64_t end)
{
	struct record_bpf *rb = arg;

	/* a refusal (bins used up, crowded granule) only means those ticks use the ring */
	if (bpfclock__add_region(rb->bc, (uint32_t)pid, proc, start, end) < 0)
		rb->regions_refused++;
}

static void on_image_end(void *arg, pid_t pid)
{
	struct record_bpf *rb = arg;

	bpfclock__forget(rb->bc, (uint32_t)pid, rb->pd);
}

int record_bpf__open(struct record_bpf **out, struct pdata *pd, char *why, size_t whylen)
{
	struct record_bpf *rb = calloc(1, sizeof(*rb));
	int rc;

	if (!rb)
		return -ENOMEM;
	rc = bpfclock__open(&rb->bc, why, whylen);
	if (rc < 0) {
		free(rb);
		return rc;
	}
	rb->pd = pd;
	rb->obs = (struct perf_session_observer){ .arg = rb,
						  .event_fd = on_event_fd,
						  .map = on_map,
						  .image_end = on_image_end };
	*out = rb;
	return 0;
}

const struct perf_session_observer *record_bpf__observer(struct record_bpf *rb)
{
	return rb ? &rb->obs : NULL;
}

void record_bpf__flush(struct record_bpf *rb)
{
	if (rb)
		bpfclock__flush(rb->bc, rb->pd);
}

void record_bpf__describe(struct record_bpf *rb, char *buf, size_t len)
{
	struct bpfclock_stats st;

	bpfclock__stats(rb->bc, &st);
	snprintf(buf, len, "%.1f%% binned in the kernel, %llu via the ring",
		 st.ticks ? 100.0 * (double)st.binned / (double)st.ticks : 0.0,
		 (unsigned long long)st.unresolved);
}

void record_bpf__close(struct record_bpf *rb)
{
	if (!rb)
		return;
	bpfclock__close(rb->bc);
	free(rb);
}
