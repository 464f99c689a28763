// SPDX-License-Identifier: MIT
/*
 * stack_prog SECONDS [SAMPLES]: the program tests/e2e/record_stacks.sh profiles with
 * the agent's call stacks on (built -O2 -fomit-frame-pointer; zlib is
 * Debian's, without frame pointers either, so only DWARF CFI unwinds it).
 *
 *  - main thread: caller_a() and caller_b() call zlib's compress2() on the
 *    same data (levels 6 and 1) until SECONDS of CPU were spent inside
 *    compress2 and the main thread has SAMPLES stacks (at most 4 x SECONDS); each caller measures its own calls with
 *    CLOCK_THREAD_CPUTIME_ID (the ground truth of the split);
 *  - worker thread: worker_main() -> spin_leaf(), spinning meanwhile.
 *
 * Then it reads the stacks the agent dumped (PROFIL_TEST_STACK_DUMP,
 * agent/stack_dump.h, test-only), resolves them against its own functions
 * and libz's text, and prints one line of figures for the test to assert on:
 *
 *   stacks main=N main_complete=N worker=N worker_complete=N zlib=N
 *   zlib_a=N zlib_b=N zlib_unattributed=N truth_a=F leaf=N leaf_complete=N
 *   flagged=N full=N
 *
 * "complete": the stack reaches main() (main thread) or worker_main() (the
 * worker's start routine).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/stack_dump.h"
#include "cpu_clock.h"

#define NOINLINE __attribute__((noinline))
#define BLOCK (2u << 20) /* long calls: fewer call boundaries, less sampling noise */

struct range {
	uintptr_t start, end;
};

static unsigned char src[BLOCK], dst[BLOCK + BLOCK / 8 + 1024];
static uint64_t ns_a, ns_b;
static volatile int worker_stop;
static volatile uint64_t sink;
static pid_t worker_tid;

/* compress2 timed by the calling thread's CPU clock; the result is used, so no tail call. */
static NOINLINE uLongf timed_compress(int level, uint64_t *ns)
{
	uLongf len = sizeof(dst);
	uint64_t t0 = thread_cpu_ns();

	if (compress2(dst, &len, src, sizeof(src), level) != Z_OK)
		len = 0;
	*ns += thread_cpu_ns() - t0;
	return len;
}

NOINLINE uLongf caller_a(void)
{
	uLongf len = timed_compress(6, &ns_a);

	sink += dst[len / 2];
	return len;
}

NOINLINE uLongf caller_b(void)
{
	uLongf len = timed_compress(1, &ns_b);

	sink += dst[len / 3];
	return len;
}

/* the store to sink makes it impure: the compiler may not hoist the call out of the loop */
NOINLINE void spin_leaf(uint64_t n)
{
	uint64_t acc = n;

	for (uint64_t i = 0; i < n; i++)
		acc = acc * 6364136223846793005ull + 1442695040888963407ull;
	sink += acc;
}

NOINLINE void *worker_main(void *arg)
{
	(void)arg;
	worker_tid = gettid();
	while (!worker_stop)
		spin_leaf(200000);
	return NULL;
}

static void fill_source(void)
{
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(src); i++) {
		x = x * 1103515245u + 12345u;
		src[i] = (unsigned char)((i / 7) ^
					 ((x >> 16) & 0x0f)); /* compressible, not trivially */
	}
}

/* ---- reading the dump ------------------------------------------------------ */

static int fn_range(const char *name, struct range *r)
{
	void *addr = dlsym(RTLD_DEFAULT, name);
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size)
		return -1;
	r->start = (uintptr_t)addr;
	r->end = r->start + sym->st_size;
	return 0;
}

static int find_libz(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg;

	(void)size;
	if (!strstr(info->dlpi_name, "libz.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			r->start = info->dlpi_addr + ph->p_vaddr;
			r->end = r->start + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* Frame i of a stack: the leaf is where execution was, a caller's PC is a return address. */
static int in(const struct range *r, const uint64_t *pcs, uint32_t i)
{
	uint64_t pc = i ? pcs[i] - 1 : pcs[i];

	return pc >= r->start && pc < r->end;
}

static int stack_has(const struct range *r, const uint64_t *pcs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (in(r, pcs, i))
			return 1;
	return 0;
}

struct tally {
	long main, main_complete, worker, worker_complete, zlib, zlib_a, zlib_b, zlib_none;
	long leaf, leaf_complete, flagged;
};

struct fns {
	struct range main, a, b, worker, leaf, libz;
};

static void tally_main(struct tally *t, const struct fns *f, const uint64_t *pcs, uint32_t n)
{
	t->main++;
	t->main_complete += stack_has(&f->main, pcs, n);
	if (!stack_has(&f->libz, pcs, n))
		return;
	t->zlib++;
	for (uint32_t i = 0; i < n; i++) {
		if (in(&f->a, pcs, i)) {
			t->zlib_a++;
			return;
		}
		if (in(&f->b, pcs, i)) {
			t->zlib_b++;
			return;
		}
	}
	t->zlib_none++;
}

static void tally_worker(struct tally *t, const struct fns *f, const uint64_t *pcs, uint32_t n)
{
	int complete = stack_has(&f->worker, pcs, n);

	t->worker++;
	t->worker_complete += complete;
	if (in(&f->leaf, pcs, 0)) {
		t->leaf++;
		t->leaf_complete += complete;
	}
}

static const struct stack_dump_header *map_dump(const char *path)
{
	const struct stack_dump_header *h;
	struct stat st;
	int fd = path ? open(path, O_RDONLY) : -1;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)STACK_DUMP_SIZE) {
		close(fd);
		return NULL;
	}
	h = mmap(NULL, STACK_DUMP_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED || memcmp(h->magic, STACK_DUMP_MAGIC, 8))
		return NULL;
	return h;
}

/* Stacks of thread tid in the dump so far. */
static long count_stacks(const struct stack_dump_header *h, pid_t tid)
{
	const char *p = (const char *)(h + 1);
	const char *end = p + __atomic_load_n(&h->used, __ATOMIC_ACQUIRE);
	long n = 0;

	if (end > (const char *)h + STACK_DUMP_SIZE)
		end = (const char *)h + STACK_DUMP_SIZE;
	while (p + sizeof(struct stack_dump_rec) <= end) {
		const struct stack_dump_rec *r = (const void *)p;
		uint32_t words = __atomic_load_n(&r->words, __ATOMIC_ACQUIRE);

		if (!words)
			break;
		n += r->tid == tid;
		p += (size_t)words * 8;
	}
	return n;
}

static int read_dump(const char *path, const struct fns *f, pid_t main_tid, struct tally *t,
		     uint64_t *full)
{
	const struct stack_dump_header *h = map_dump(path);
	const char *p, *end;

	if (!h)
		return -1;
	p = (const char *)(h + 1);
	end = p + __atomic_load_n(&h->used, __ATOMIC_ACQUIRE);
	if (end > (const char *)h + STACK_DUMP_SIZE)
		end = (const char *)h + STACK_DUMP_SIZE;
	while (p + sizeof(struct stack_dump_rec) <= end) {
		const struct stack_dump_rec *r = (const void *)p;
		uint32_t words = __atomic_load_n(&r->words, __ATOMIC_ACQUIRE);
		const uint64_t *pcs = (const uint64_t *)r + (sizeof(*r) + 7) / 8;

		if (!words)
			break; /* being written (our own main thread's tick) */
		if (r->n && r->tid == main_tid)
			tally_main(t, f, pcs, r->n);
		else if (r->n && r->tid == worker_tid)
			tally_worker(t, f, pcs, r->n);
		t->flagged += r->flags != 0 && (r->tid == main_tid || r->tid == worker_tid);
		p += (size_t)words * 8;
	}
	*full = h->full;
	return 0;
}

static int report(pid_t main_tid)
{
	const char *path = getenv("PROFIL_TEST_STACK_DUMP");
	struct tally t = {0};
	struct fns f = {0};
	uint64_t full = 0;

	if (!path || fn_range("main", &f.main) || fn_range("caller_a", &f.a) ||
	    fn_range("caller_b", &f.b) || fn_range("worker_main", &f.worker) ||
	    fn_range("spin_leaf", &f.leaf) || !dl_iterate_phdr(find_libz, &f.libz)) {
		fprintf(stderr, "stack_prog: no dump, or a symbol is missing\n");
		return 2;
	}
	if (read_dump(path, &f, main_tid, &t, &full) < 0) {
		fprintf(stderr, "stack_prog: cannot read the dump %s\n", path);
		return 2;
	}
	printf("stacks main=%ld main_complete=%ld worker=%ld worker_complete=%ld zlib=%ld "
	       "zlib_a=%ld zlib_b=%ld zlib_unattributed=%ld truth_a=%.4f leaf=%ld "
	       "leaf_complete=%ld flagged=%ld full=%llu\n",
	       t.main, t.main_complete, t.worker, t.worker_complete, t.zlib, t.zlib_a, t.zlib_b,
	       t.zlib_none, (double)ns_a / (double)(ns_a + ns_b), t.leaf, t.leaf_complete,
	       t.flagged, (unsigned long long)full);
	return 0;
}

/*
 * At least SECONDS of compress2 CPU, then on until the main thread has SAMPLES
 * stacks in the dump (the effective rate drops when the machine is busy), or
 * 4 x SECONDS.
 */
int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	long samples = argc > 2 ? atol(argv[2]) : 0;
	const struct stack_dump_header *dump = map_dump(getenv("PROFIL_TEST_STACK_DUMP"));
	pid_t main_tid = gettid();
	pthread_t worker;

	fill_source();
	if (pthread_create(&worker, NULL, worker_main, NULL))
		return 2;
	for (;;) {
		double spent = (double)(ns_a + ns_b) / 1e9;

		if (spent >= 4 * seconds ||
		    (spent >= seconds && (!dump || count_stacks(dump, main_tid) >= samples)))
			break;
		caller_a();
		caller_b();
	}
	worker_stop = 1;
	pthread_join(worker, NULL);
	return report(main_tid);
}
