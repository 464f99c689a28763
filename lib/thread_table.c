// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ptimer.h"
#include "sampler.h"
#include "thread_table.h"

#define TID_EMPTY 0
#define TID_TOMB (-1)
#define REAP_SCAN 16 /* slots looked at per discovery tick */
#define SCAN_EVERY 4 /* discovery ticks between two scans of /proc/self/task */

struct slot {
	int tid;	  /* atomic: TID_EMPTY, TID_TOMB or a thread id */
	uintptr_t handle; /* atomic: 0 while arming or when free */
};

static struct slot table[THREADS_CAP];
static const struct threads_ops *ops;
static int running;		 /* atomic */
static int armed;		 /* atomic */
static int discover_id;		 /* the discovery timer's kernel id */
static int discover_on;		 /* atomic: 1 while discover_id is ours to delete */
static unsigned int reap_cursor; /* atomic */
static pid_t skip;
static int inflight;	   /* atomic: discovery handlers running */
static unsigned int ticks; /* atomic: discovery ticks so far */

static void scan_tasks(void);

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static unsigned int hash_tid(pid_t tid)
{
	return ((unsigned int)tid * 2654435761u) & (THREADS_CAP - 1);
}

/* Find tid's slot, or claim one for it.  *found tells which.  Returns the slot or -1 (full). */
static int find_or_claim(pid_t tid, int *found)
{
	for (;;) {
		unsigned int i = hash_tid(tid), n;
		int tomb = -1, cur = TID_EMPTY;

		for (n = 0; n < THREADS_CAP; n++, i = (i + 1) & (THREADS_CAP - 1)) {
			cur = __atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE);
			if (cur == tid) {
				*found = 1;
				return (int)i;
			}
			if (cur == TID_TOMB && tomb < 0)
				tomb = (int)i;
			if (cur == TID_EMPTY)
				break;
		}
		*found = 0;
		if (tomb < 0 && n == THREADS_CAP)
			return -1;
		if (tomb >= 0) {
			cur = TID_TOMB;
			i = (unsigned int)tomb;
		}
		if (__atomic_compare_exchange_n(&table[i].tid, &cur, tid, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return (int)i;
		/* somebody else claimed it: look again */
	}
}

/* Arm thread tid unless it already is.  Async-signal-safe. */
static void arm_thread(pid_t tid)
{
	int found, slot = find_or_claim(tid, &found);
	uintptr_t h;

	if (slot < 0 || found)
		return;
	h = ops->arm(tid, (unsigned int)slot);
	if (!h) {
		__atomic_store_n(&table[slot].tid, TID_TOMB, __ATOMIC_RELEASE);
		return;
	}
	__atomic_fetch_add(&armed, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&table[slot].handle, h, __ATOMIC_RELEASE);
	/* Lost the race with threads_quiesce(): whoever takes the handle drops it. */
	if (!__atomic_load_n(&running, __ATOMIC_SEQ_CST)) {
		h = threads_take((unsigned int)slot);
		if (h)
			ops->drop((unsigned int)slot, h);
	}
}

uintptr_t threads_take(unsigned int slot)
{
	uintptr_t h = __atomic_exchange_n(&table[slot].handle, 0, __ATOMIC_ACQ_REL);

	if (h) {
		__atomic_fetch_sub(&armed, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&table[slot].tid, TID_TOMB, __ATOMIC_RELEASE);
	}
	return h;
}

static void reap_some(void)
{
	pid_t pid = getpid();

	for (int n = 0; n < REAP_SCAN; n++) {
		unsigned int i =
			__atomic_fetch_add(&reap_cursor, 1, __ATOMIC_RELAXED) & (THREADS_CAP - 1);
		pid_t tid = __atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE);
		uintptr_t h;

		if (tid <= 0 || !__atomic_load_n(&table[i].handle, __ATOMIC_ACQUIRE))
			continue;
		if (syscall(SYS_tgkill, pid, tid, 0) == 0 || errno != ESRCH)
			continue;
		h = threads_take(i);
		if (h)
			ops->drop(i, h);
	}
}

/* Arm the calling thread; on a discovery tick also scan (with stack room for it) and reap.
 * In flight for drain. */
static void arm_caller(int discovery_tick, int can_scan)
{
	pid_t tid;

	__atomic_fetch_add(&inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&running, __ATOMIC_SEQ_CST) && !sampler_quiet()) {
		tid = my_tid();
		if (tid != skip)
			arm_thread(tid);
		if (discovery_tick &&
		    __atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED) % SCAN_EVERY == 0 && can_scan)
			scan_tasks();
		if (discovery_tick && ops->reap_dead)
			reap_some();
	}
	__atomic_fetch_sub(&inflight, 1, __ATOMIC_SEQ_CST);
}

void threads_discover(int can_scan)
{
	arm_caller(1, can_scan);
}

void threads_arm_self(void)
{
	arm_caller(0, 1);
}

void threads_drain(void)
{
	while (__atomic_load_n(&inflight, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* struct linux_dirent64, as getdents64 returns it */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * Arm every thread of /proc/self/task.  Raw system calls and a stack
 * buffer only, so that the discovery handler can run it: a new thread that
 * has not been current at a discovery tick yet is armed by the next scan.
 */
static void scan_tasks(void)
{
	char buf[2048] __attribute__((aligned(8)));
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0) {
		arm_thread(my_tid()); /* at least the caller */
		return;
	}
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
			pid_t tid = 0;
			const char *c;

			for (c = d->name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (!*c && tid > 0 && tid != skip)
				arm_thread(tid);
			off += d->reclen;
		}
	}
	syscall(SYS_close, fd);
}

int threads_start(const struct threads_ops *o, const struct clock_params *p, pid_t skip_tid)
{
	int ret;

	memset(table, 0, sizeof(table));
	ops = o;
	skip = skip_tid;
	__atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&running, 1, __ATOMIC_SEQ_CST);
	scan_tasks();
	ret = ptimer_create(CLOCK_PROCESS_CPUTIME_ID, p->signo, 0,
			    clock_tag(p->gen, CLOCK_TAG_DISCOVER), &discover_id);
	if (ret == 0) {
		__atomic_store_n(&discover_on, 1, __ATOMIC_RELEASE);
		ret = ptimer_arm(discover_id, THREADS_DISCOVER_NS, THREADS_DISCOVER_NS);
	}
	if (ret < 0)
		threads_quiesce();
	return ret;
}

void threads_quiesce(void)
{
	__atomic_store_n(&running, 0, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&discover_on, 0, __ATOMIC_ACQ_REL))
		ptimer_delete(discover_id);
}

void threads_reset(void)
{
	threads_drain();
	memset(table, 0, sizeof(table));
	__atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
}

void threads_forget(void)
{
	__atomic_store_n(&inflight, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&running, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&discover_on, 0, __ATOMIC_RELEASE);
	threads_reset();
}

uintptr_t threads_handle(unsigned int slot)
{
	return __atomic_load_n(&table[slot].handle, __ATOMIC_ACQUIRE);
}

pid_t threads_tid(unsigned int slot)
{
	return __atomic_load_n(&table[slot].tid, __ATOMIC_ACQUIRE);
}

int threads_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_RELAXED);
}
