// SPDX-License-Identifier: MIT
/* profil.data: creation rules, lock-free counting from threads and processes, validation. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pdata.h"

static char dir[] = "/tmp/pdata-test-XXXXXX";
static char path[256];

struct sum {
	uint64_t total, per_pc[8];
	int procs, threads, maps;
};

static int sum_sample(void *arg, const struct pdata_sample *smp)
{
	struct sum *s = arg;

	s->total += smp->count;
	if (smp->pc >= 0x1000 && smp->pc < 0x1008)
		s->per_pc[smp->pc - 0x1000] += smp->count;
	return 0;
}

static int sum_rec(void *arg, const struct pdata_rec *rec)
{
	struct sum *s = arg;

	s->procs += rec->type == PDATA_REC_PROC;
	s->threads += rec->type == PDATA_REC_THREAD;
	s->maps += rec->type == PDATA_REC_MAP;
	return 0;
}

static struct pdata *shared;

static void *hammer(void *arg)
{
	int tid = (int)(long)arg;

	for (int i = 0; i < 100000; i++)
		pdata__count(shared, 1, tid, 0x1000 + (uint64_t)(i % 8), 1);
	return NULL;
}

static void test_counting(void)
{
	struct pdata_create_opts opts = { .table_slots = 1024, .records_cap = 65536 };
	char why[256];
	pthread_t th[4];
	struct sum s;
	int ok = 1;

	CHECKF("create", pdata__create(&shared, path, &opts, why, sizeof(why)) == 0, "%s", why);
	pdata__add_proc(shared, getpid(), getppid(), 0, "/bin/test", pdata__now_ns());
	pdata__add_thread(shared, 1, 42, "worker");
	pdata__add_map(shared, 1, 0x1000, 0x2000, 0, 5, "/bin/test", NULL, 0);
	for (long t = 0; t < 4; t++)
		pthread_create(&th[t], NULL, hammer, (void *)(t + 100));
	/* two processes write the same shared file at the same time */
	pid_t child = fork();
	if (child == 0) {
		hammer((void *)200L);
		_exit(0);
	}
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	waitpid(child, NULL, 0);
	memset(&s, 0, sizeof(s));
	pdata__foreach_sample(shared, sum_sample, &s);
	for (int i = 0; i < 8; i++)
		ok &= s.per_pc[i] == 500000 / 8;
	CHECKF("5 writers x 100000 concurrent counts, none lost", s.total == 500000 && ok,
	       "total %llu", (unsigned long long)s.total);
	CHECK("header sample counter agrees", pdata__header(shared)->samples == 500000);
	pdata__foreach_rec(shared, sum_rec, &s);
	CHECK("records read back", s.procs == 1 && s.threads == 1 && s.maps == 1);
	CHECK("finish", pdata__finish(shared) == 0);
	pdata__close(shared);

	struct pdata *p;
	CHECKF("reopen read-only", pdata__open(&p, path, 0, why, sizeof(why)) == 0, "%s", why);
	CHECK("complete after finish", pdata__header(p)->state == PDATA_COMPLETE);
	pdata__close(p);
}

static void test_table_full(void)
{
	struct pdata_create_opts opts = { .table_slots = 16, .records_cap = 4096 };
	struct pdata *p;
	char why[256];
	int full = 0;

	unlink(path);
	pdata__create(&p, path, &opts, why, sizeof(why));
	for (uint64_t pc = 1; pc <= 20; pc++)
		full += pdata__count(p, 1, 1, pc * 16, 1) == -ENOSPC;
	CHECK("a full table drops and counts the drop", full == 4 && pdata__header(p)->dropped == 4);
	int n = 0;
	while (pdata__add_map(p, 1, 0, 1, 0, 0, "/a/rather/long/path/to/fill/the/area", NULL, 0))
		n++;
	CHECK("a full record area refuses appends", n > 10 && n < 4096 / 40);
	pdata__close(p);
}

static void test_bad_files(void)
{
	char why[256], other[300];
	struct pdata *p;
	int fd;

	/* truncated copy */
	snprintf(other, sizeof(other), "%s/trunc", dir);
	fd = open(other, O_CREAT | O_WRONLY, 0644);
	struct pdata *src;
	pdata__open(&src, path, 0, why, sizeof(why));
	write(fd, pdata__header(src), 4096);
	close(fd);
	pdata__close(src);
	CHECKF("truncated file is refused", pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG &&
						   strstr(why, "truncated"), "%s", why);
	fd = open(other, O_WRONLY | O_TRUNC);
	write(fd, "hello world, not a profile", 26);
	close(fd);
	CHECKF("garbage is refused", pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG, "%s",
	       why);
	fd = open(other, O_WRONLY | O_TRUNC);
	close(fd);
	CHECKF("empty file is refused", pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG &&
						strstr(why, "empty"), "%s", why);
	CHECK("missing file is ENOENT", pdata__open(&p, "/nonexistent/x", 0, why, sizeof(why)) == -ENOENT);

	/* never follows a symlink */
	snprintf(other, sizeof(other), "%s/link", dir);
	symlink("/tmp/somewhere-else", other);
	CHECKF("a symlink is refused", pdata__create(&p, other, NULL, why, sizeof(why)) == -ELOOP, "%s",
	       why);
	struct stat st;
	CHECK("the symlink target was not created", lstat("/tmp/somewhere-else", &st) < 0);
	CHECK("unwritable directory is a clear error",
	      pdata__create(&p, "/proc/profil.data", NULL, why, sizeof(why)) < 0 && why[0]);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/profil.data", dir);
	test_counting();
	test_table_full();
	test_bad_files();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : CHECK_DONE();
}
