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
#include "profile/pdata.h"
#include "profile/pview.h"

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

/*
 * fn(100)..fn(103) in four threads and fn(200) in a forked child at the same
 * time: two processes and several threads write one shared file.
 */
static void write_concurrently(void *(*fn)(void *))
{
	pthread_t th[4];
	pid_t child;

	for (long t = 0; t < 4; t++)
		pthread_create(&th[t], NULL, fn, (void *)(t + 100));
	child = fork();
	if (child == 0) {
		fn((void *)200L);
		_exit(0);
	}
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	waitpid(child, NULL, 0);
}

static void test_counting(void)
{
	struct pdata_create_opts opts = {.table_slots = 1024, .records_cap = 65536};
	char why[256];
	struct sum s;
	int ok = 1;

	CHECKF("create", pdata__create(&shared, path, &opts, why, sizeof(why)) == 0, "%s", why);
	pdata__add_proc(shared, getpid(), getppid(), 0, "/bin/test", pdata__now_ns());
	pdata__add_thread(shared, 1, 42, "worker");
	pdata__add_map(shared, 1, 0x1000, 0x2000, 0, 5, "/bin/test", NULL, 0);
	write_concurrently(hammer);
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
	/* a process that outlives the recorder (the file still mapped) changes nothing any more */
	CHECK("no count into a finished profile",
	      pdata__count(shared, 1, 42, 0x1000, 5) == -ESTALE &&
		      pdata__count_stack(shared, 1, 42, (uint64_t[]){0x1000}, 1, 0, 5) == -ESTALE &&
		      pdata__header(shared)->samples == 500000);
	CHECK("no record into a finished profile",
	      !pdata__add_proc(shared, 1, 1, 0, "/bin/late", 0) &&
		      !pdata__add_thread(shared, 1, 43, "late"));
	pdata__close(shared);

	struct pdata *p;
	CHECKF("reopen read-only", pdata__open(&p, path, 0, why, sizeof(why)) == 0, "%s", why);
	CHECK("complete after finish", pdata__header(p)->state == PDATA_COMPLETE);
	pdata__close(p);
}

static void test_table_full(void)
{
	struct pdata_create_opts opts = {.table_slots = 16, .records_cap = 4096};
	struct pdata *p;
	char why[256];
	int full = 0;

	unlink(path);
	pdata__create(&p, path, &opts, why, sizeof(why));
	for (uint64_t pc = 1; pc <= 20; pc++)
		full += pdata__count(p, 1, 1, pc * 16, 1) == -ENOSPC;
	CHECK("a full table drops and counts the drop",
	      full == 4 && pdata__header(p)->dropped == 4);
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
	CHECKF("truncated file is refused",
	       pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG && strstr(why, "truncated"),
	       "%s", why);
	fd = open(other, O_WRONLY | O_TRUNC);
	write(fd, "hello world, not a profile", 26);
	close(fd);
	CHECKF("garbage is refused", pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG, "%s",
	       why);
	fd = open(other, O_WRONLY | O_TRUNC);
	close(fd);
	CHECKF("empty file is refused",
	       pdata__open(&p, other, 0, why, sizeof(why)) == -EBADMSG && strstr(why, "empty"),
	       "%s", why);
	CHECK("missing file is ENOENT",
	      pdata__open(&p, "/nonexistent/x", 0, why, sizeof(why)) == -ENOENT);

	/* never follows a symlink */
	snprintf(other, sizeof(other), "%s/link", dir);
	symlink("/tmp/somewhere-else", other);
	CHECKF("a symlink is refused", pdata__create(&p, other, NULL, why, sizeof(why)) == -ELOOP,
	       "%s", why);
	struct stat st;
	CHECK("the symlink target was not created", lstat("/tmp/somewhere-else", &st) < 0);
	CHECK("unwritable directory is a clear error",
	      pdata__create(&p, "/proc/profil.data", NULL, why, sizeof(why)) < 0 && why[0]);
}

/* ---- call stacks ---------------------------------------------------------- */

static struct pdata *stacked;

/* Stack k (0..3) of depth 10+k: frames 0x5000 + 16*i, with a distinct leaf per k. */
static unsigned make_stack(int k, uint64_t *pcs)
{
	unsigned n = 10 + (unsigned)k;

	for (unsigned i = 0; i < n; i++)
		pcs[n - 1 - i] = 0x5000 + 16 * i; /* shared outer frames */
	pcs[0] = 0x9000 + (uint64_t)k;		  /* the leaf differs */
	return n;
}

static void *stack_hammer(void *arg)
{
	int tid = (int)(long)arg;
	uint64_t pcs[16];

	for (int i = 0; i < 20000; i++) {
		unsigned n = make_stack(i % 4, pcs);

		pdata__count_stack(stacked, 1, tid, pcs, n, 0, 1);
	}
	return NULL;
}

struct stack_sum {
	uint64_t per_leaf[4], bad, total;
};

static int check_stack_sample(void *arg, const struct pdata_sample *smp)
{
	struct stack_sum *ss = arg;
	uint64_t got[PDATA_MAX_DEPTH], want[16];
	int n = pdata__stack(stacked, smp->stack, got, PDATA_MAX_DEPTH);
	int k = (int)(smp->pc - 0x9000);

	ss->total += smp->count;
	if (k < 0 || k > 3 || n != (int)make_stack(k, want) || memcmp(got, want, n * 8)) {
		ss->bad += smp->count;
		return 0;
	}
	ss->per_leaf[k] += smp->count;
	return 0;
}

static void test_stacks(void)
{
	struct pdata_create_opts opts = {
		.table_slots = 1024, .frame_slots = 1024, .records_cap = 65536};
	struct stack_sum ss = {0};
	char why[256];
	int ok = 1;

	unlink(path);
	CHECKF("create with a frame table",
	       pdata__create(&stacked, path, &opts, why, sizeof(why)) == 0, "%s", why);
	pdata__add_proc(stacked, getpid(), getppid(), 0, "/bin/test", pdata__now_ns());
	write_concurrently(stack_hammer);
	pdata__foreach_sample(stacked, check_stack_sample, &ss);
	for (int k = 0; k < 4; k++)
		ok &= ss.per_leaf[k] == 5 * 20000 / 4;
	CHECKF("5 writers x 20000 stacks: every sample with its exact stack", ok && !ss.bad,
	       "bad %llu, leaf0 %llu", (unsigned long long)ss.bad,
	       (unsigned long long)ss.per_leaf[0]);
	/* 4 stacks of 10..13 frames sharing their outer frames: at most 13 + 4 nodes, plus duplicates
	 * from racing writers (a handful) */
	uint32_t used = pdata__frames_used(stacked);
	CHECKF("repeated stacks cost no new nodes", used >= 13 && used <= 40, "%u nodes", used);

	/* a stack deeper than PDATA_MAX_DEPTH keeps its innermost frames and is marked cut */
	uint64_t deep[300], got[PDATA_MAX_DEPTH];
	for (int i = 0; i < 300; i++)
		deep[i] = 0x7000 + 16 * (uint64_t)i;
	pdata__count_stack(stacked, 1, 7, deep, 300, 0, 3);
	struct pdata_header *h = pdata__header(stacked);
	CHECK("a too deep stack counts as truncated", h->truncated == 3);

	/* a full frame table: the sample still counts, flat, and the loss is said */
	uint64_t many[64];
	uint64_t before = h->samples;
	for (int r = 0; r < 40; r++) { /* 40 distinct 64-frame stacks: more than 1024 nodes */
		for (int i = 0; i < 64; i++)
			many[i] = 0x100000 + 0x10000 * (uint64_t)r + 16 * (uint64_t)i;
		pdata__count_stack(stacked, 1, 8, many, 64, 0, 1);
	}
	CHECK("samples whose stack did not fit still count",
	      h->samples == before + 40 && h->stacks_dropped > 0);
	(void)got;
	CHECK("finish", pdata__finish(stacked) == 0);
}

static int count_bytes(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (int)st.st_size : -1;
}

static void test_compact(void)
{
	struct pview *v = NULL;
	char why[256];
	int before = count_bytes(path), after;

	CHECKF("compact", pdata__compact(stacked, path, why, sizeof(why)) == 0, "%s", why);
	after = count_bytes(path);
	CHECKF("the compact copy is small", after > 0 && after < before / 2, "%d -> %d bytes",
	       before, after);
	pdata__close(stacked);
	CHECKF("the compact copy loads", pview__load(&v, path, why, sizeof(why)) == 0, "%s", why);
	if (!v)
		return;
	uint64_t per_leaf[4] = {0}, deep = 0, total = 0;
	int ok = 1;
	for (size_t i = 0; i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];
		const struct pv_stack *st = pview__stack(v, s->stack);
		uint64_t want[16], got[PDATA_MAX_DEPTH];
		unsigned n = pview__stack_pcs(v, st, got, PDATA_MAX_DEPTH);
		int k = (int)(s->pc - 0x9000);

		total += s->count;
		if (s->tid == 7) {
			deep += s->count;
			ok &= st->truncated && st->n == PDATA_MAX_DEPTH - 1 && n == st->n &&
			      got[0] == 0x7000;
			continue;
		}
		if (s->tid == 8)
			continue;
		if (k < 0 || k > 3 || st->n != make_stack(k, want) || st->truncated || n != st->n ||
		    memcmp(got, want, st->n * 8)) {
			ok = 0;
			continue;
		}
		per_leaf[k] += s->count;
	}
	for (int k = 0; k < 4; k++)
		ok &= per_leaf[k] == 5 * 20000 / 4;
	CHECKF("every sample and stack survives compaction", ok && deep == 3 && total == 100043,
	       "total %llu deep %llu", (unsigned long long)total, (unsigned long long)deep);
	CHECK("state and counters survive",
	      v->hdr.state == PDATA_COMPLETE && v->hdr.samples == 100043 && v->hdr.truncated == 3);
	CHECK("records survive", v->nprocs == 1 && !strcmp(v->procs[0].exe, "/bin/test"));
	pview__free(v);
}

static void test_replacing(void)
{
	char why[256], old[300], notes[300];
	struct pdata *p;
	struct stat st;
	int fd;

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	CHECKF("a new profile over the previous one",
	       pdata__create(&p, path, NULL, why, sizeof(why)) == 0, "%s", why);
	pdata__close(p);
	CHECK("the previous profile is kept as .old",
	      stat(old, &st) == 0 && count_bytes(old) < 200000);
	CHECK("a root's profile is private",
	      geteuid() != 0 || (stat(path, &st) == 0 && (st.st_mode & 0777) == 0600));
	snprintf(notes, sizeof(notes), "%s/notes.txt", dir);
	fd = open(notes, O_CREAT | O_WRONLY, 0644);
	write(fd, "my notes\n", 9);
	close(fd);
	CHECKF("a file that is not a profile is never replaced",
	       pdata__create(&p, notes, NULL, why, sizeof(why)) == -EEXIST &&
		       strstr(why, "not a profile") && count_bytes(notes) == 9,
	       "%s", why);
}

/* A valid header for a file of size bytes: 64 slots, 4096 bytes of records. */
static struct pdata_header good_header(uint64_t *size)
{
	struct pdata_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PDATA_MAGIC, 8);
	h.version = PDATA_VERSION;
	h.header_size = PDATA_HEADER_SIZE;
	h.state = PDATA_RECORDING;
	h.table_off = PDATA_HEADER_SIZE;
	h.table_slots = 64;
	h.records_off = h.table_off + 64 * sizeof(struct pdata_slot);
	h.records_cap = 4096;
	*size = h.file_size = h.records_off + h.records_cap;
	return h;
}

/* pdata__check_header: offsets that wrap around or leave the file, with overflow-safe checks. */
static void test_check_header(void)
{
	struct pdata_layout lay;
	struct pdata_header h;
	uint64_t size;
	char why[256];

	h = good_header(&size);
	CHECKF("a valid header passes", pdata__check_header(&h, size, &lay, why, sizeof(why)) == 0,
	       "%s", why);
	CHECK("the layout is the header's",
	      lay.table_off == h.table_off && lay.table_slots == 64 &&
		      lay.table_bytes == 64 * sizeof(struct pdata_slot) &&
		      lay.records_off == h.records_off && lay.records_cap == 4096 &&
		      lay.file_size == size);
#define REFUSED(name, field, value)                                                                \
	do {                                                                                       \
		h = good_header(&size);                                                            \
		h.field = value;                                                                   \
		CHECKF(name, pdata__check_header(&h, size, &lay, why, sizeof(why)) == -EBADMSG,    \
		       "accepted");                                                                \
	} while (0)
	/* table_off + 64 * 24 wraps around to 512: an end inside the file, before the records */
	REFUSED("table offset whose end wraps around", table_off, (uint64_t)-1024);
	REFUSED("table offset just below 2^64", table_off, (uint64_t)-8);
	REFUSED("table beyond the file", table_slots, 1u << 31);
	REFUSED("table size not a power of two", table_slots, 48);
	REFUSED("no table", table_slots, 0);
	REFUSED("table inside the header", table_off, 8);
	REFUSED("misaligned table", table_off, PDATA_HEADER_SIZE + 4);
	REFUSED("records offset that wraps around", records_off, (uint64_t)-4096);
	REFUSED("records capacity that wraps around", records_cap, (uint64_t)-1);
	REFUSED("records over the table", records_off, PDATA_HEADER_SIZE);
	REFUSED("misaligned records", records_off, PDATA_HEADER_SIZE + 64 * 24 + 4);
	REFUSED("header size", header_size, 0xffffffffu);
	REFUSED("file size", file_size, 1);
	REFUSED("state", state, 7);
	REFUSED("version", version, PDATA_VERSION + 1);
	REFUSED("format 1", version, 1);
#undef REFUSED
	h = good_header(&size);
	h.version = PDATA_VERSION_CPU;
	CHECK("format 2 (no generations) is read",
	      pdata__check_header(&h, size, &lay, why, sizeof(why)) == 0 &&
		      lay.version == PDATA_VERSION_CPU);
	h = good_header(&size);
	CHECK("a file smaller than the header",
	      pdata__check_header(&h, 100, &lay, why, sizeof(why)) == -EBADMSG);
	h.records_used = (uint64_t)-8;
	CHECK("a damaged records_used is not a damaged layout (readers bound it)",
	      pdata__check_header(&h, size, &lay, why, sizeof(why)) == 0);
}

/* The newest mapping of image p's generation gen holding pc: its path, or "" */
static const char *path_at(const struct pview *v, const struct pv_proc *p, uint32_t gen,
			   uint64_t pc)
{
	const struct pv_map *m = pview__map_of(v, p, gen, pc);

	return m ? m->path : "";
}

/* A new profile dir/name (its path in file): the writer, or NULL after a failed check. */
static struct pdata *create_in_dir(const char *name, const struct pdata_create_opts *opts,
				   char *file, size_t len)
{
	struct pdata *w;
	char why[256];

	snprintf(file, len, "%s/%s", dir, name);
	if (pdata__create(&w, file, opts, why, sizeof(why)) < 0) {
		CHECKF("create", 0, "%s", why);
		return NULL;
	}
	return w;
}

/* A profile being written in the directory, with one image: pid 100, /bin/prog. */
struct one_image {
	struct pdata *w;
	struct pdata_proc *proc;
	char file[300];
};

/* Create it as name with /lib/a.so mapped at [0x10000, 0x14000): 0, or -1 (a failed check). */
static int one_image__create(struct one_image *o, const char *name,
			     const struct pdata_create_opts *opts)
{
	o->w = create_in_dir(name, opts, o->file, sizeof(o->file));
	if (!o->w)
		return -1;
	o->proc = pdata__add_proc(o->w, 100, 1, 0, "/bin/prog", 1);
	pdata__add_map(o->w, o->proc->id, 0x10000, 0x14000, 0, 5, "/lib/a.so", NULL, 0);
	return 0;
}

/* Finish and close it, then load its file: the view, or NULL (a failed check). */
static struct pview *one_image__load(struct one_image *o)
{
	struct pview *v = NULL;
	char why[256];

	pdata__finish(o->w);
	pdata__close(o->w);
	CHECKF("load", pview__load(&v, o->file, why, sizeof(why)) == 0, "%s", why);
	return v;
}

/*
 * Mapping generations: library A at [0x10000, 0x14000), replaced by B at
 * [0x0f000, 0x13000) (generation 1), then by A again at its first place
 * (generation 2); the program's own text at [0x40000, 0x41000) stays.
 * Samples at one PC in each generation are three samples, each named
 * through its own generation's mapping; the file is format 4 once a
 * generation is recorded, format 2 without one.
 */
static void test_generations(void)
{
	struct pdata_create_opts opts = {
		.table_slots = 1024, .frame_slots = 1024, .records_cap = 65536};
	uint64_t stack[2] = {0x11000, 0x40100};
	struct pdata_gen *g1, *g2;
	struct pview *v = NULL;
	struct pdata_proc *proc;
	const struct pv_proc *p;
	char why[256], file[300];
	uint64_t per_gen[3] = {0};
	struct pdata *w;
	int ok = 1;

	w = create_in_dir("gens.data", &opts, file, sizeof(file));
	if (!w)
		return;
	proc = pdata__add_proc(w, 100, 1, 0, "/bin/prog", 1);
	pdata__add_thread(w, proc->id, 100, "prog");
	pdata__add_map(w, proc->id, 0x40000, 0x41000, 0, 5, "/bin/prog", NULL, 0);
	pdata__add_map(w, proc->id, 0x10000, 0x14000, 0, 5, "/lib/a.so", (const uint8_t *)"AAAA",
		       4);
	CHECK("format 2 until a generation", pdata__header(w)->version == PDATA_VERSION_CPU);
	pdata__count_stack(w, proc->id, 100, stack, 2, 0, 3);
	g1 = pdata__add_gen(w, proc->id, 1, 2);
	pdata__add_map(w, g1->id, 0x0f000, 0x13000, 0, 5, "/lib/b.so", (const uint8_t *)"BBBB", 4);
	pdata__count_stack(w, g1->id, 100, stack, 2, 0, 5);
	g2 = pdata__add_gen(w, proc->id, 2, 3);
	pdata__add_map(w, g2->id, 0x10000, 0x14000, 0, 5, "/lib/a.so", (const uint8_t *)"AAAA", 4);
	pdata__count(w, g2->id, 100, 0x11000, 7);
	CHECK("generation ids are new ids",
	      g1->id != proc->id && g2->id != g1->id && g2->id != proc->id);
	CHECK("format 4 from the first generation", pdata__header(w)->version == PDATA_VERSION_GEN);
	pdata__finish(w);
	CHECKF("compact", pdata__compact(w, file, why, sizeof(why)) == 0, "%s", why);
	pdata__close(w);
	if (pview__load(&v, file, why, sizeof(why)) < 0) {
		CHECKF("load", 0, "%s", why);
		return;
	}
	CHECK("a finished, compacted profile stays format 4", v->hdr.version == PDATA_VERSION_GEN);
	CHECK("one image, with its generations folded in",
	      v->nprocs == 1 && v->procs[0].gens == 2 && v->procs[0].nthreads == 1 &&
		      v->procs[0].nmaps == 4 && v->procs[0].samples == 15);
	p = &v->procs[0];
	for (size_t i = 0; i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];

		ok &= s->proc == p->id && s->pc == 0x11000 && s->gen <= 2;
		if (s->gen <= 2)
			per_gen[s->gen] += s->count;
	}
	CHECKF("samples at one PC told apart by generation",
	       ok && v->nsamples == 3 && per_gen[0] == 3 && per_gen[1] == 5 && per_gen[2] == 7,
	       "%zu samples: %llu %llu %llu", v->nsamples, (unsigned long long)per_gen[0],
	       (unsigned long long)per_gen[1], (unsigned long long)per_gen[2]);
	CHECKF("each generation names the PC by its own mapping",
	       !strcmp(path_at(v, p, 0, 0x11000), "/lib/a.so") &&
		       !strcmp(path_at(v, p, 1, 0x11000), "/lib/b.so") &&
		       !strcmp(path_at(v, p, 2, 0x11000), "/lib/a.so") &&
		       pview__map_of(v, p, 2, 0x11000)->gen == 2,
	       "%s %s %s", path_at(v, p, 0, 0x11000), path_at(v, p, 1, 0x11000),
	       path_at(v, p, 2, 0x11000));
	CHECK("B's own addresses: its generation only",
	      !strcmp(path_at(v, p, 1, 0x0f800), "/lib/b.so") && !*path_at(v, p, 0, 0x0f800));
	CHECK("A's tail B did not cover: A's in generation 1 too",
	      !strcmp(path_at(v, p, 1, 0x13800), "/lib/a.so"));
	CHECK("the program's text in every generation",
	      !strcmp(path_at(v, p, 0, 0x40100), "/bin/prog") &&
		      !strcmp(path_at(v, p, 1, 0x40100), "/bin/prog") &&
		      !strcmp(path_at(v, p, 2, 0x40100), "/bin/prog"));
	pview__free(v);
}

/*
 * Off-CPU time (format 3) and generations: the file becomes format 4, its
 * off-CPU slots still read as such, each under its generation.
 */
static void test_generations_offcpu(void)
{
	struct pdata_create_opts opts = {.table_slots = 64,
					 .frame_slots = 64,
					 .records_cap = 8192,
					 .offcpu = PDATA_OFFCPU_BPF};
	uint64_t pc = 0x11000;
	struct one_image o;
	struct pdata_gen *g;
	struct pview *v;

	if (one_image__create(&o, "gens_off.data", &opts) < 0)
		return;
	CHECK("format 3 with off-CPU time", pdata__header(o.w)->version == PDATA_VERSION_OFFCPU);
	pdata__count_offcpu(o.w, o.proc->id, 100, &pc, 1, 0, PDATA_KIND_SLEEP, 1000);
	g = pdata__add_gen(o.w, o.proc->id, 1, 2);
	pdata__add_map(o.w, g->id, 0x10000, 0x14000, 0, 5, "/lib/b.so", NULL, 0);
	CHECK("off-CPU time is still counted in format 4",
	      pdata__count_offcpu(o.w, g->id, 100, &pc, 1, 0, PDATA_KIND_SLEEP, 3000) == 0);
	pdata__count(o.w, g->id, 100, pc, 4);
	v = one_image__load(&o);
	if (!v)
		return;
	CHECKF("off-CPU slots and samples under their generations",
	       v->hdr.version == PDATA_VERSION_GEN && v->noffcpu == 2 && v->offcpu[0].gen == 0 &&
		       v->offcpu[0].count == 1000 && v->offcpu[1].gen == 1 &&
		       v->offcpu[1].count == 3000 && v->nsamples == 1 && v->samples[0].gen == 1 &&
		       v->samples[0].kind == PDATA_KIND_CPU &&
		       !strcmp(pview__map_of(v, &v->procs[0], 1, pc)->path, "/lib/b.so"),
	       "version %u, %zu off-CPU slots, %zu samples", v->hdr.version, v->noffcpu,
	       v->nsamples);
	pview__free(v);
}

/* Generation records that do not fit (unknown image, an id that is a proc's): ignored, counted. */
static void test_generations_damaged(void)
{
	struct pdata_create_opts opts = {.table_slots = 64, .records_cap = 8192};
	struct one_image o;
	struct pdata_gen *g;
	struct pview *v;

	if (one_image__create(&o, "gens_bad.data", &opts) < 0)
		return;
	g = pdata__add_gen(o.w, 999, 1, 2); /* no image 999 */
	pdata__count(o.w, g->id, 100, 0x11000, 2);
	g = pdata__add_gen(o.w, o.proc->id, 1, 2);
	g->id = o.proc->id;			   /* a generation claiming the image's own id */
	g = pdata__add_gen(o.w, o.proc->id, 0, 2); /* generation 0 is the image's own */
	pdata__count(o.w, o.proc->id, 100, 0x11000, 3);
	v = one_image__load(&o);
	if (!v)
		return;
	CHECKF("the damaged generation records are counted, the samples kept",
	       v->bad_records == 3 && v->total == 5 && v->ngens == 0, "bad %zu total %llu gens %zu",
	       v->bad_records, (unsigned long long)v->total, v->ngens);
	pview__free(v);
}

static int count_rec(void *arg, const struct pdata_rec *rec)
{
	int *n = arg;

	(*n)++;
	/* the callback's copy: the live record only for a mapped (writable) file */
	if (n[1] >= 0)
		n[1] = pdata__rec_live(rec) != NULL;
	return 0;
}

static int count_slot(void *arg, const struct pdata_sample *s)
{
	*(uint64_t *)arg += s->count;
	return 0;
}

/* Readers read with pread: a file that shrinks under them is an error, never a SIGBUS. */
static void test_shrinks_while_read(void)
{
	struct pdata_create_opts opts = {.table_slots = 8192, .records_cap = 65536};
	struct pdata *w, *r;
	char why[256], file[300];
	int n[2] = {0, 0};
	uint64_t total = 0;

	w = create_in_dir("shrink.data", &opts, file, sizeof(file));
	if (!w)
		return;
	for (int i = 0; i < 200; i++)
		pdata__add_map(w, 1, 0x1000, 0x2000, 0, 5, "/a/path/long/enough/for/many/bytes",
			       NULL, 0);
	pdata__count(w, 1, 1, 0x1234, 5);
	n[1] = 0;
	pdata__foreach_rec(w, count_rec, n);
	CHECK("mapped: callbacks can reach the live record", n[0] == 200 && n[1] == 1);
	pdata__close(w);
	CHECKF("open read-only", pdata__open(&r, file, 0, why, sizeof(why)) == 0, "%s", why);
	n[0] = 0;
	n[1] = 1;
	CHECK("read-only: every record, no live record",
	      pdata__foreach_rec(r, count_rec, n) == 0 && n[0] == 200 && n[1] == 0);
	CHECK("read-only: the samples",
	      pdata__foreach_sample(r, count_slot, &total) == 0 && total == 5);
	CHECK("truncate it under the reader", truncate(file, PDATA_HEADER_SIZE) == 0);
	n[0] = 0;
	CHECK("records of a file that shrank: -EBADMSG",
	      pdata__foreach_rec(r, count_rec, n) == -EBADMSG);
	CHECK("samples of a file that shrank: -EBADMSG",
	      pdata__foreach_sample(r, count_slot, &total) == -EBADMSG);
	pdata__close(r);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/profil.data", dir);
	test_counting();
	test_table_full();
	test_bad_files();
	test_stacks();
	test_compact();
	test_replacing();
	test_check_header();
	test_shrinks_while_read();
	test_generations();
	test_generations_offcpu();
	test_generations_damaged();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : CHECK_DONE();
}
