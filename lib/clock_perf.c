// SPDX-License-Identifier: MIT
/*
 * PERF clock: one perf_event task-clock event per thread (pid = tid,
 * cpu = -1, no inherit, so that it can be mmap'ed), each with a small ring
 * of PERF_SAMPLE_IP|PERF_SAMPLE_TID records.  No signal per sample: the
 * kernel captures the user PC at the task-clock hrtimer, and one helper
 * thread (all signals blocked but the synchronous fault signals) drains
 * every ring, woken by poll() at a watermark or every 20 ms.  New threads
 * are found by thread_table.c (the discovery tick opens and maps their event);
 * an exited thread's event reports POLLHUP and the helper releases it.
 * Samples that land in the kernel are not taken (exclude_kernel).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler.h"
#include "thread_table.h"

#define POLL_MS 20

struct ring {
	int fd; /* atomic where noted: -1 when free */
	void *base;
	size_t map_len;
	size_t data_len;
	unsigned int since_jitter; /* helper only: samples since the last period change */
};

static struct ring rings[THREADS_CAP];
static struct pollfd pfds[THREADS_CAP + 1];
static unsigned int pslot[THREADS_CAP + 1];
static struct clock_params params;
static unsigned int data_pages;
static int wake_fd = -1;
static pthread_t helper;
static int helper_on;
static int helper_stop;	       /* atomic */
static pid_t helper_tid;       /* atomic */
static uint64_t lost;	       /* atomic */
static unsigned int sync_req;  /* atomic: drain requests (fork) */
static unsigned int sync_done; /* atomic: the last request the helper completed */
static int rings_ready;	       /* rings[] initialised (fds -1 when free) */

static void fill_attr(struct perf_event_attr *a, uint64_t period_ns, size_t data_len)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period_ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data_len / 4);
}

static int perf_open(pid_t tid, uint64_t period_ns, size_t data_len)
{
	struct perf_event_attr a;

	fill_attr(&a, period_ns, data_len);
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Open and map an event for tid; smaller rings if the locked-memory budget is short. */
static int open_ring(pid_t tid, uint64_t period_ns, unsigned int pages, struct ring *r)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	for (; pages >= 1; pages /= 2) {
		int fd = perf_open(tid, period_ns, pages * pg);
		void *base;

		if (fd < 0)
			return -errno;
		base = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base != MAP_FAILED) {
			r->base = base;
			r->map_len = (pages + 1) * pg;
			r->data_len = pages * pg;
			r->fd = fd;
			return 0;
		}
		close(fd);
	}
	return -ENOMEM;
}

static void close_ring(struct ring *r)
{
	munmap(r->base, r->map_len);
	close(r->fd);
}

static uintptr_t perf_arm(pid_t tid, unsigned int slot)
{
	struct ring r;
	uint64_t one = 1;
	int saved = errno;

	if (open_ring(tid, params.period_ns, data_pages, &r) < 0) {
		errno = saved;
		return 0;
	}
	rings[slot].base = r.base;
	rings[slot].map_len = r.map_len;
	rings[slot].data_len = r.data_len;
	rings[slot].since_jitter = 0;
	__atomic_store_n(&rings[slot].fd, r.fd, __ATOMIC_RELEASE);
	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) < 0)
		errno = saved; /* the helper polls anyway */
	return (uintptr_t)r.fd + 1;
}

/* An arm that lost the race with quiesce (async context): stop it; perf_stop() frees it. */
static void perf_drop(unsigned int slot, uintptr_t handle)
{
	(void)slot;
	ioctl((int)(handle - 1), PERF_EVENT_IOC_DISABLE, 0);
}

static const struct threads_ops perf_table_ops = {
	.arm = perf_arm,
	.drop = perf_drop,
	.reap_dead = 0, /* the helper releases a thread's event on POLLHUP */
};

static void copy_from_ring(void *dst, const char *data, size_t data_len, uint64_t pos, size_t n)
{
	size_t off = (size_t)(pos % data_len), first = data_len - off;

	if (first >= n) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy((char *)dst + first, data, n - first);
	}
}

/* Deliver every record of the ring; returns the number of samples. */
static unsigned int drain_ring(const struct ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	const char *data = (const char *)r->base +
			   (mp->data_offset ? mp->data_offset : r->map_len - r->data_len);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	union {
		struct perf_event_header h;
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
		} sample;
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
		} lost;
	} rec;

	unsigned int samples = 0;

	while (tail < head) {
		copy_from_ring(&rec.h, data, r->data_len, tail, sizeof(rec.h));
		if (rec.h.size < sizeof(rec.h))
			break;
		if (rec.h.size <= sizeof(rec))
			copy_from_ring(&rec, data, r->data_len, tail, rec.h.size);
		if (rec.h.type == PERF_RECORD_SAMPLE && rec.h.size >= sizeof(rec.sample)) {
			sampler_deliver((uintptr_t)rec.sample.ip, (pid_t)rec.sample.tid);
			samples++;
		} else if (rec.h.type == PERF_RECORD_LOST && rec.h.size >= sizeof(rec.lost))
			__atomic_fetch_add(&lost, rec.lost.lost, __ATOMIC_RELAXED);
		tail += rec.h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return samples;
}

/* The thread of slot i has exited: drain its last samples and free its event. */
static void release_slot(unsigned int i)
{
	struct ring r = rings[i];
	int fd = r.fd;

	if (!threads_take(i))
		return;
	drain_ring(&r);
	/* Mark free before closing, so that the fd number cannot have been reused yet. */
	__atomic_compare_exchange_n(&rings[i].fd, &fd, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	close_ring(&r);
}

static int collect_fds(void)
{
	int n = 1;

	pfds[0].fd = wake_fd;
	pfds[0].events = POLLIN;
	for (unsigned int i = 0; i < THREADS_CAP; i++) {
		uintptr_t h = threads_handle(i);

		if (!h)
			continue;
		pfds[n].fd = (int)(h - 1);
		pfds[n].events = POLLIN;
		pslot[n] = i;
		n++;
	}
	return n;
}

/*
 * Sampling must not run in lock step with the program (a loop whose length is near a multiple
 * of the period would be sampled at the same few PCs): every JITTER_EVERY samples, give the
 * event a new period drawn uniformly from [0.75, 1.25] x nominal.  A period change restarts
 * the count (the kernel drops the elapsed part), so it is rare enough to cost under 1 % of
 * the rate; the mean period stays the nominal one.
 */
#define JITTER_EVERY 64
static void jitter_period(int fd, uint64_t *rng)
{
	uint64_t x = *rng, period;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	period = params.period_ns * 3 / 4 + x % (params.period_ns / 2 + 1);
	ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
}

static void *helper_main(void *arg)
{
	uint64_t v, rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&v;

	(void)arg;
	pthread_setname_np(pthread_self(), "profil-perf"); /* visible in ps/top/gdb */
	__atomic_store_n(&helper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&helper_stop, __ATOMIC_ACQUIRE)) {
		unsigned int req = __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE);
		int n = collect_fds();

		if (poll(pfds, (nfds_t)n, POLL_MS) < 0 && errno != EINTR)
			break;
		if (pfds[0].revents & POLLIN && read(wake_fd, &v, sizeof(v)) < 0)
			v = 0;
		for (int k = 1; k < n; k++) {
			unsigned int i = pslot[k];

			if (threads_handle(i) != (uintptr_t)pfds[k].fd + 1)
				continue;
			rings[i].since_jitter += drain_ring(&rings[i]);
			if (pfds[k].revents & (POLLHUP | POLLERR)) {
				release_slot(i);
			} else if (rings[i].since_jitter >= JITTER_EVERY) {
				rings[i].since_jitter = 0;
				jitter_period(pfds[k].fd, &rng);
			}
		}
		__atomic_store_n(&sync_done, req, __ATOMIC_RELEASE);
	}
	for (unsigned int i = 0; i < THREADS_CAP; i++)
		if (threads_handle(i))
			drain_ring(&rings[i]);
	return NULL;
}

static int start_helper(void)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	__atomic_store_n(&helper_stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&helper_tid, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&helper, NULL, helper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0)
		return ret;
	helper_on = 1;
	while (!__atomic_load_n(&helper_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

static void stop_helper(void)
{
	uint64_t one = 1;

	if (!helper_on)
		return;
	__atomic_store_n(&helper_stop, 1, __ATOMIC_RELEASE);
	if (write(wake_fd, &one, sizeof(one)) < 0)
		one = 0; /* it wakes within POLL_MS anyway */
	pthread_join(helper, NULL);
	helper_on = 0;
}

/* Before fork: have the helper drain every ring, so that the child's copy of the buffers holds
 * every sample taken before the fork (bounded wait: the helper wakes within POLL_MS). */
static void perf_sync(void)
{
	unsigned int req = __atomic_add_fetch(&sync_req, 1, __ATOMIC_ACQ_REL);
	uint64_t one = 1;
	struct timespec t0, t;

	if (!helper_on || write(wake_fd, &one, sizeof(one)) < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((int)(__atomic_load_n(&sync_done, __ATOMIC_ACQUIRE) - req) < 0) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 1)
			break;
	}
}

static int perf_probe(void)
{
	struct ring r;
	int ret = open_ring(0, 1000000, 1, &r);

	if (ret == 0)
		close_ring(&r);
	return ret;
}

static void perf_quiesce(void)
{
	threads_quiesce();
	if (!rings_ready)
		return;
	for (unsigned int i = 0; i < THREADS_CAP; i++) {
		int fd = __atomic_load_n(&rings[i].fd, __ATOMIC_ACQUIRE);

		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
}

static void free_all(void)
{
	for (unsigned int i = 0; rings_ready && i < THREADS_CAP; i++) {
		threads_take(i);
		if (rings[i].fd >= 0)
			close_ring(&rings[i]);
		rings[i].fd = -1;
	}
	threads_reset();
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
}

static void perf_stop(void)
{
	threads_quiesce();
	threads_drain();
	stop_helper();
	free_all();
}

static int perf_start(const struct clock_params *p)
{
	int ret;

	params = *p;
	data_pages = p->hz > 2000 ? 32 : 8;
	__atomic_store_n(&lost, 0, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < THREADS_CAP; i++)
		rings[i].fd = -1;
	rings_ready = 1;
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
		return -errno;
	ret = start_helper();
	if (ret == 0)
		ret = threads_start(&perf_table_ops, p, helper_tid);
	if (ret == 0 && threads_armed() == 0)
		ret = -EPERM; /* not even the caller's own thread could be armed */
	if (ret < 0)
		perf_stop();
	return ret;
}

/* Fork child: the fds are the parent's threads' events (drop our references); the rings and
 * the helper thread were not inherited (perf maps are VM_DONTCOPY). */
static void perf_forget(void)
{
	threads_forget();
	for (unsigned int i = 0; rings_ready && i < THREADS_CAP; i++) {
		if (rings[i].fd >= 0)
			close(rings[i].fd);
		rings[i].fd = -1;
	}
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	helper_on = 0;
}

static uint64_t perf_lost(void)
{
	return __atomic_load_n(&lost, __ATOMIC_RELAXED);
}

const struct clock_ops clock_perf_ops = {
	.id = PROFIL_CLOCK_PERF,
	.default_hz = 997,
	.max_hz = 100000,
	.uses_signal = 1, /* for the discovery tick */
	.probe = perf_probe,
	.start = perf_start,
	.quiesce = perf_quiesce,
	.stop = perf_stop,
	.forget = perf_forget,
	.sync = perf_sync,
	.lost = perf_lost,
	.threads = threads_armed,
	.thread_started = threads_arm_self,
};
