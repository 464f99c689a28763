// SPDX-License-Identifier: MIT
/* TEST-ONLY stack dump (see stack_dump.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/stack_dump.h"

static struct stack_dump_header *dump; /* NULL: off */
static int32_t dump_pid;

static void forked(void)
{
	dump_pid = (int32_t)getpid();
}

/* Another process created the file: wait (1 s at most) until it is sized and stamped. */
static int wait_ready(int fd)
{
	struct stat st;

	for (int i = 0; i < 1000; i++) {
		if (fstat(fd, &st) < 0)
			return -errno;
		if (st.st_size >= (off_t)STACK_DUMP_SIZE)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

static int map_file(const char *path, int *created, void **out)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int ret = 0;

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (*created && ftruncate(fd, STACK_DUMP_SIZE) < 0)
		ret = -errno;
	else if (!*created)
		ret = wait_ready(fd);
	if (ret == 0) {
		*out = mmap(NULL, STACK_DUMP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (*out == MAP_FAILED)
			ret = -errno;
	}
	close(fd);
	return ret;
}

int stack_dump_open(const char *path)
{
	struct stack_dump_header *h;
	int created, ret;
	void *m = NULL;

	ret = map_file(path, &created, &m);
	if (ret < 0)
		return ret;
	h = m;
	if (created) {
		h->size = STACK_DUMP_SIZE;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(h->magic, STACK_DUMP_MAGIC, 8);
	}
	for (int i = 0; i < 1000 && memcmp(h->magic, STACK_DUMP_MAGIC, 8); i++)
		usleep(1000);
	if (memcmp(h->magic, STACK_DUMP_MAGIC, 8) || h->size != STACK_DUMP_SIZE) {
		munmap(m, STACK_DUMP_SIZE);
		return -EBADMSG;
	}
	dump_pid = (int32_t)getpid();
	pthread_atfork(NULL, NULL, forked);
	dump = h;
	return 0;
}

void stack_dump_append(uint32_t proc, int tid, const uint64_t *pcs, int n, unsigned int flags)
{
	uint32_t head = (uint32_t)((sizeof(struct stack_dump_rec) + 7) / 8);
	uint32_t words = head + (uint32_t)n;
	struct stack_dump_rec *r;
	uint64_t at;

	if (!dump || n < 1)
		return;
	at = __atomic_fetch_add(&dump->used, (uint64_t)words * 8, __ATOMIC_RELAXED);
	if (sizeof(*dump) + at + (uint64_t)words * 8 > STACK_DUMP_SIZE) {
		__atomic_fetch_add(&dump->full, 1, __ATOMIC_RELAXED);
		return;
	}
	r = (struct stack_dump_rec *)((char *)(dump + 1) + at);
	r->flags = flags;
	r->proc = proc;
	r->tid = tid;
	r->pid = dump_pid;
	r->n = (uint32_t)n;
	memcpy((uint64_t *)r + head, pcs, (size_t)n * 8);
	__atomic_store_n(&r->words, words, __ATOMIC_RELEASE);
}
