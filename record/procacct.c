// SPDX-License-Identifier: MIT
/* The kernel's accounting of a recorded tree, user half.  See procacct.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/procacct.h"
#include "utils/array.h"

#ifdef PROFIL_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/procacct.h"
#include "procacct.skel.h"
#include "record/bpfload.h"

struct procacct {
	struct procacct_bpf *skel;
	struct ring_buffer *rb;
	struct procacct_event *ev; /* read, not yet applied */
	size_t nev, cap;
	uint64_t seq;
	pid_t root;
	int root_ended;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct procacct *pa = ctx;
	const struct procacct_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (array__reserve(&pa->ev, &pa->cap, pa->nev + 1, sizeof(*pa->ev)))
		return 0; /* out of memory: this event is lost */
	pa->ev[pa->nev++] = *e;
	if (e->kind == PROCACCT_EXIT && e->group_dead && (pid_t)e->pid == pa->root)
		pa->root_ended = 1;
	return 0;
}

int procacct__open(struct procacct **out, int follow_children, char *why, size_t whylen)
{
	struct procacct *pa = calloc(1, sizeof(*pa));
	int err;

	if (!pa)
		return -ENOMEM;
	bpfload__quiet();
	pa->skel = procacct_bpf__open();
	if (!pa->skel) {
		err = -errno;
		goto fail;
	}
	pa->skel->rodata->follow_children = follow_children ? 1 : 0;
	err = procacct_bpf__load(pa->skel);
	if (!err)
		err = procacct_bpf__attach(pa->skel);
	if (err)
		goto fail;
	pa->rb = ring_buffer__new(bpf_map__fd(pa->skel->maps.acct_events), on_event, pa, NULL);
	if (!pa->rb) {
		err = -errno;
		goto fail;
	}
	*out = pa;
	return 0;
fail:
	err = bpfload__failed(err, "accounting programs", why, whylen);
	procacct_bpf__destroy(pa->skel);
	free(pa);
	return err;
}

int procacct__track(struct procacct *pa, pid_t pid)
{
	__u32 key = (__u32)pid, one = 1;

	pa->root = pid;
	if (bpf_map_update_elem(bpf_map__fd(pa->skel->maps.acct_tracked), &key, &one, BPF_ANY) < 0)
		return -errno;
	return 0;
}

void procacct__read(struct procacct *pa)
{
	if (pa)
		ring_buffer__consume(pa->rb);
}

static int by_time(const void *a, const void *b)
{
	const struct procacct_event *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

size_t procacct__apply(struct procacct *pa, uint64_t until,
		       void (*fn)(void *arg, const struct procacct_event *e), void *arg)
{
	size_t n = 0;

	if (!pa || !pa->nev)
		return 0;
	/* the ring is in order of reservation, nearly the order of time; a stable order is kept */
	qsort(pa->ev, pa->nev, sizeof(*pa->ev), by_time);
	while (n < pa->nev && pa->ev[n].time <= until)
		fn(arg, &pa->ev[n++]);
	memmove(pa->ev, pa->ev + n, (pa->nev - n) * sizeof(*pa->ev));
	pa->nev -= n;
	return n;
}

int procacct__root_ended(const struct procacct *pa)
{
	return pa && pa->root_ended;
}

uint64_t procacct__dropped(struct procacct *pa)
{
	uint64_t sum;

	if (!pa)
		return 0;
	bpfload__sum_percpu(bpf_map__fd(pa->skel->maps.drops), 1, &sum);
	return sum;
}

int procacct__switch_maps(struct procacct *pa, int fds[PROCACCT_SWITCH_MAPS])
{
	const struct bpf_map *m[PROCACCT_SWITCH_MAPS] = {
		pa->skel->maps.acct_tracked, pa->skel->maps.acct_base, pa->skel->maps.acct_exiting,
		pa->skel->maps.acct_events, pa->skel->maps.drops};

	for (int i = 0; i < PROCACCT_SWITCH_MAPS; i++)
		if ((fds[i] = bpf_map__fd(m[i])) < 0)
			return fds[i];
	return 0;
}

void procacct__switch_taken(struct procacct *pa)
{
	bpf_link__destroy(pa->skel->links.acct_switch);
	pa->skel->links.acct_switch = NULL;
}

void procacct__close(struct procacct *pa)
{
	if (!pa)
		return;
	ring_buffer__free(pa->rb);
	procacct_bpf__destroy(pa->skel);
	free(pa->ev);
	free(pa);
}

#else /* !PROFIL_HAVE_BPF */

int procacct__open(struct procacct **out, int follow_children, char *why, size_t whylen)
{
	(void)out, (void)follow_children;
	snprintf(why, whylen, "this profil was built without BPF support");
	return -ENOTSUP;
}

int procacct__track(struct procacct *pa, pid_t pid)
{
	(void)pa, (void)pid;
	return -ENOTSUP;
}

void procacct__read(struct procacct *pa)
{
	(void)pa;
}

size_t procacct__apply(struct procacct *pa, uint64_t until,
		       void (*fn)(void *arg, const struct procacct_event *e), void *arg)
{
	(void)pa, (void)until, (void)fn, (void)arg;
	return 0;
}

int procacct__root_ended(const struct procacct *pa)
{
	(void)pa;
	return 0;
}

uint64_t procacct__dropped(struct procacct *pa)
{
	(void)pa;
	return 0;
}

int procacct__switch_maps(struct procacct *pa, int fds[PROCACCT_SWITCH_MAPS])
{
	(void)pa, (void)fds;
	return -ENOTSUP;
}

void procacct__switch_taken(struct procacct *pa)
{
	(void)pa;
}

void procacct__close(struct procacct *pa)
{
	(void)pa;
}
#endif
