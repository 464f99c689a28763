// SPDX-License-Identifier: MIT
/*
 * output/pprof: encode a small profile built by hand (this program's own
 * code, through its real executable mapping), decode it back with
 * protobuf-c and check every part of the model (pprof.h): sample types,
 * values, labels, one location per link-time address shared by two
 * processes, functions with their mangled names and source lines, the
 * mapping with the build id read independently from our own PT_NOTE; an
 * empty profile; strings that are not UTF-8; write errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "output/pprof.h"
#include "output/profile.pb-c.h"

#define PB(type) Perftools__Profiles__##type
#define PERIOD 1000000

static const int hot_line = __LINE__ + 1;
__attribute__((noinline, used)) int pprof_test_hot(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i;
	return acc;
}

__attribute__((noinline, used)) int pprof_test_other(int n)
{
	volatile int acc = 1;

	for (int i = 0; i < n; i++)
		acc *= 3;
	return acc;
}

/* A C function under a C++ mangled name: test::pp(int) */
int mangled_pp(int n) __asm__("_ZN4test2ppEi");
__attribute__((noinline, used)) int mangled_pp(int n)
{
	return n * 5;
}

/* What dl_iterate_phdr tells about the main program: its executable segment and build id. */
struct self {
	uintptr_t bias;
	uint64_t start, end, pgoff; /* runtime mapping of the executable segment */
	char build_id[2 * 64 + 1];
};

static void note_build_id(struct self *s, const char *p, size_t size)
{
	size_t at = 0;

	while (at + 12 <= size) {
		const uint32_t *h = (const uint32_t *)(p + at);
		size_t desc = at + 12 + ((h[0] + 3) & ~3u);

		if (h[2] == 3 /* NT_GNU_BUILD_ID */ && h[0] == 4 &&
		    !memcmp(p + at + 12, "GNU", 4) && h[1] <= 64) {
			for (uint32_t i = 0; i < h[1]; i++)
				sprintf(s->build_id + 2 * i, "%02x", (unsigned char)p[desc + i]);
			return;
		}
		at = desc + ((h[1] + 3) & ~3u);
	}
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *s = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			s->start = (info->dlpi_addr + ph->p_vaddr) & ~4095ull;
			s->end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			s->pgoff = ph->p_offset & ~4095ull;
		}
		if (ph->p_type == PT_NOTE)
			note_build_id(s, (const char *)(info->dlpi_addr + ph->p_vaddr),
				      ph->p_memsz);
	}
	s->bias = info->dlpi_addr;
	return 1; /* the first object is the main program */
}

/* The gunzipped, decoded Profile written to fd (rewound), or NULL. */
static PB(Profile) * read_back(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	unsigned char *gz = malloc(size > 0 ? (size_t)size : 1), *raw = NULL;
	size_t cap = 1 << 20;
	PB(Profile) *pr = NULL;
	z_stream z = {0};

	if (!gz || size <= 0 || pread(fd, gz, (size_t)size, 0) != size)
		goto out;
	raw = malloc(cap);
	if (!raw || inflateInit2(&z, 15 + 16) != Z_OK)
		goto out;
	z.next_in = gz;
	z.avail_in = (uInt)size;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) == Z_STREAM_END)
		pr = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
out:
	free(gz);
	free(raw);
	return pr;
}

static const char *str(const PB(Profile) * pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "<bad index>";
}

static const PB(Location) * location(const PB(Profile) * pr, uint64_t id)
{
	for (size_t i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == id)
			return pr->location[i];
	return NULL;
}

static const PB(Function) * function(const PB(Profile) * pr, uint64_t id)
{
	for (size_t i = 0; i < pr->n_function; i++)
		if (pr->function[i]->id == id)
			return pr->function[i];
	return NULL;
}

/* Name of the function at a sample's leaf. */
static const char *leaf_name(const PB(Profile) * pr, const PB(Sample) * s)
{
	const PB(Location) *l = s->n_location_id ? location(pr, s->location_id[0]) : NULL;
	const PB(Function) *f = l && l->n_line ? function(pr, l->line[0]->function_id) : NULL;

	return f ? str(pr, f->name) : "";
}

/* The string (or, with num != NULL, the number) of label key of sample s; NULL when absent. */
static const char *label(const PB(Profile) * pr, const PB(Sample) * s, const char *key,
			 int64_t *num)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (strcmp(str(pr, s->label[i]->key), key))
			continue;
		if (num)
			*num = s->label[i]->num;
		return str(pr, s->label[i]->str);
	}
	return NULL;
}

static const PB(Sample) * sample_at(const PB(Profile) * pr, const char *fn, int64_t pid)
{
	for (size_t i = 0; i < pr->n_sample; i++) {
		int64_t p = -1;

		label(pr, pr->sample[i], "pid", &p);
		if (p == pid && !strcmp(leaf_name(pr, pr->sample[i]), fn))
			return pr->sample[i];
	}
	return NULL;
}

struct fixture {
	struct pview v;
	struct pv_proc procs[2];
	struct pv_map map;
	struct pv_thread threads[2], child_thread;
	struct pv_sample samples[5];
	char exe[4096];
	struct self self;
};

/*
 * Image 1 (pid 100): main thread 100 in pprof_test_hot (30) and at an
 * unmapped pc (5), thread 101 (a name that is not UTF-8) in
 * pprof_test_other (20) and mangled_pp (4).  Image 2 (pid 200), forked from
 * it (no maps of its own): pprof_test_hot (10).
 */
static void fixture_init(struct fixture *f)
{
	ssize_t n;

	memset(f, 0, sizeof(*f));
	dl_iterate_phdr(find_self, &f->self);
	n = readlink("/proc/self/exe", f->exe, sizeof(f->exe) - 1);
	f->exe[n > 0 ? n : 0] = 0;
	f->map = (struct pv_map){.start = f->self.start,
				 .end = f->self.end,
				 .pgoff = f->self.pgoff,
				 .prot = PROT_READ | PROT_EXEC,
				 .path = f->exe};
	f->threads[0] = (struct pv_thread){.tid = 100, .comm = "main"};
	f->threads[1] = (struct pv_thread){.tid = 101, .comm = "bad\xff\xfe"};
	f->child_thread = (struct pv_thread){.tid = 200, .comm = "child"};
	f->procs[0] = (struct pv_proc){.id = 1,
				       .pid = 100,
				       .exe = f->exe,
				       .maps = &f->map,
				       .nmaps = 1,
				       .threads = f->threads,
				       .nthreads = 2,
				       .samples = 59};
	f->procs[1] = (struct pv_proc){.id = 2,
				       .parent = 1,
				       .pid = 200,
				       .ppid = 100,
				       .exe = f->exe,
				       .threads = &f->child_thread,
				       .nthreads = 1,
				       .samples = 10};
	f->samples[0] = (struct pv_sample){.proc = 1, .tid = 100, .pc = 0x10, .count = 5};
	f->samples[1] = (struct pv_sample){
		.proc = 1, .tid = 100, .pc = (uintptr_t)pprof_test_hot + 4, .count = 30};
	f->samples[2] = (struct pv_sample){
		.proc = 1, .tid = 101, .pc = (uintptr_t)pprof_test_other + 4, .count = 20};
	f->samples[3] =
		(struct pv_sample){.proc = 1, .tid = 101, .pc = (uintptr_t)mangled_pp, .count = 4};
	f->samples[4] = (struct pv_sample){
		.proc = 2, .tid = 200, .pc = (uintptr_t)pprof_test_hot + 4, .count = 10};
	f->v.procs = f->procs;
	f->v.nprocs = 2;
	f->v.samples = f->samples;
	f->v.nsamples = 5;
	f->v.total = 69;
	f->v.hdr.period_ns = PERIOD;
	f->v.hdr.nominal_hz = 997;
	f->v.hdr.root_pid = 100;
	f->v.hdr.start_ns = 1700000000000000000ull;
	f->v.hdr.end_ns = f->v.hdr.start_ns + 2000000000ull;
	f->v.hdr.state = PDATA_COMPLETE;
	strcpy(f->v.hdr.command, "test_pprof");
}

/* A new resolver of the fixture: the maps' aux slots belong to one resolver at a time. */
static struct resolver *new_resolver(struct fixture *f)
{
	f->map.aux = NULL;
	return resolver__new(&f->v, 1);
}

/* Encode the fixture to a fresh anonymous file and decode it back. */
static PB(Profile) *
	round_trip(struct fixture *f, struct pprof_summary *sum, char *why, size_t whylen)
{
	const struct pview *v = &f->v;
	struct resolver *r = new_resolver(f);
	PB(Profile) *pr = NULL;
	int fd = memfd_create("pprof", 0);

	if (r && fd >= 0 && pprof__write(fd, v, r, sum, why, whylen) == 0)
		pr = read_back(fd);
	if (fd >= 0)
		close(fd);
	resolver__free(r);
	return pr;
}

static void test_header(const PB(Profile) * pr)
{
	CHECK("string_table[0] is empty", pr->n_string_table && !strcmp(pr->string_table[0], ""));
	CHECK("sample types samples/count, cpu/nanoseconds",
	      pr->n_sample_type == 2 && !strcmp(str(pr, pr->sample_type[0]->type), "samples") &&
		      !strcmp(str(pr, pr->sample_type[0]->unit), "count") &&
		      !strcmp(str(pr, pr->sample_type[1]->type), "cpu") &&
		      !strcmp(str(pr, pr->sample_type[1]->unit), "nanoseconds"));
	CHECK("period cpu/nanoseconds",
	      pr->period_type && !strcmp(str(pr, pr->period_type->type), "cpu") &&
		      !strcmp(str(pr, pr->period_type->unit), "nanoseconds") &&
		      pr->period == PERIOD);
	CHECK("default sample type cpu", !strcmp(str(pr, pr->default_sample_type), "cpu"));
	CHECK("time and duration",
	      pr->time_nanos == 1700000000000000000ll && pr->duration_nanos == 2000000000ll);
	CHECK("comments", pr->n_comment >= 3 && strstr(str(pr, pr->comment[1]), "test_pprof"));
}

static void test_samples(const PB(Profile) * pr)
{
	int64_t total = 0, num = 0, cpu_ok = 1;
	const PB(Sample) *hot = sample_at(pr, "pprof_test_hot", 100);
	const PB(Sample) *child = sample_at(pr, "pprof_test_hot", 200);
	const PB(Sample) *other = sample_at(pr, "pprof_test_other", 100);
	const char *comm;

	for (size_t i = 0; i < pr->n_sample; i++) {
		const PB(Sample) *s = pr->sample[i];

		total += s->n_value == 2 ? s->value[0] : -1000;
		cpu_ok &= s->n_value == 2 && s->value[1] == s->value[0] * PERIOD;
	}
	CHECKF("samples and total", pr->n_sample == 5 && total == 69, "%zu samples, total %lld",
	       pr->n_sample, (long long)total);
	CHECK("cpu value = count x period", cpu_ok);
	CHECK("hot sample", hot && hot->value[0] == 30 && hot->n_location_id == 1);
	CHECK("child sample", child && child->value[0] == 10);
	/* one mapping for both processes: the same link-time address is one location */
	CHECK("processes share the location",
	      hot && child && hot->location_id[0] == child->location_id[0]);
	CHECK("label pid", child && label(pr, child, "pid", &num) && num == 200);
	CHECK("label tid", other && label(pr, other, "tid", &num) && num == 101);
	CHECK("label process_comm",
	      hot && !strcmp(label(pr, hot, "process_comm", NULL) ?: "", "test_pprof"));
	CHECK("label thread_comm",
	      hot && !strcmp(label(pr, hot, "thread_comm", NULL) ?: "", "main"));
	comm = other ? label(pr, other, "thread_comm", NULL) : NULL;
	CHECKF("thread_comm not UTF-8 is replaced",
	       comm && !strcmp(comm, "bad\xef\xbf\xbd\xef\xbf\xbd"), "'%s'", comm ? comm : "");
}

static void test_locations(const PB(Profile) * pr, const struct fixture *f)
{
	const PB(Sample) *hot = sample_at(pr, "pprof_test_hot", 100);
	const PB(Sample) *unk = sample_at(pr, "[unknown]", 100);
	const PB(Sample) *mangled = NULL;
	const PB(Location) *l = hot ? location(pr, hot->location_id[0]) : NULL;
	const PB(Function) *fn = l && l->n_line == 1 ? function(pr, l->line[0]->function_id) : NULL;
	const PB(Mapping) *m = pr->n_mapping ? pr->mapping[0] : NULL;
	uint64_t vaddr = (uintptr_t)pprof_test_hot + 4 - f->self.bias;
	const char *file = fn ? str(pr, fn->filename) : "";
	size_t flen = strlen(file);

	CHECKF("link-time address", l && l->address == vaddr, "0x%llx, want 0x%llx",
	       l ? (unsigned long long)l->address : 0ull, (unsigned long long)vaddr);
	CHECK("in the mapping", l && m && l->mapping_id == m->id && m->memory_start <= vaddr &&
					vaddr < m->memory_limit);
	CHECK("one mapping", pr->n_mapping == 1 && m && !strcmp(str(pr, m->filename), f->exe));
	CHECKF("build id from the ELF note", m && !strcmp(str(pr, m->build_id), f->self.build_id),
	       "'%s', want '%s'", m ? str(pr, m->build_id) : "", f->self.build_id);
	CHECK("has functions, files, lines",
	      m && m->has_functions && m->has_filenames && m->has_line_numbers);
	CHECK("function name", fn && !strcmp(str(pr, fn->name), "pprof_test_hot") &&
				       !strcmp(str(pr, fn->system_name), "pprof_test_hot"));
	CHECKF("function file", flen >= 12 && !strcmp(file + flen - 12, "test_pprof.c"), "'%s'",
	       file);
	CHECKF("function start line",
	       fn && fn->start_line >= hot_line && fn->start_line <= hot_line + 2,
	       "%lld, declared at %d", fn ? (long long)fn->start_line : -1ll, hot_line);
	CHECK("location line",
	      l && l->line[0]->line >= hot_line && l->line[0]->line < hot_line + 8);
	l = unk ? location(pr, unk->location_id[0]) : NULL;
	CHECK("unmapped pc: no mapping, its runtime address",
	      l && l->mapping_id == 0 && l->address == 0x10);
	for (size_t i = 0; i < pr->n_sample; i++) {
		int64_t tid = 0;

		label(pr, pr->sample[i], "tid", &tid);
		if (tid == 101 && pr->sample[i]->value[0] == 4)
			mangled = pr->sample[i];
	}
	l = mangled ? location(pr, mangled->location_id[0]) : NULL;
	fn = l ? function(pr, l->line[0]->function_id) : NULL;
	if (fn && !strcmp(str(pr, fn->name), "_ZN4test2ppEi"))
		SKIP("demangled name", "no C++ demangler (libstdc++) here");
	else
		CHECKF("demangled name, mangled system name",
		       fn && !strcmp(str(pr, fn->name), "test::pp(int)") &&
			       !strcmp(str(pr, fn->system_name), "_ZN4test2ppEi"),
		       "'%s' / '%s'", fn ? str(pr, fn->name) : "",
		       fn ? str(pr, fn->system_name) : "");
}

static void test_empty(struct fixture *f)
{
	PB(Profile) * pr;
	char why[256] = "";

	f->v.nsamples = 0;
	f->v.total = 0;
	pr = round_trip(f, NULL, why, sizeof(why));
	CHECKF("empty profile decodes", pr != NULL, "%s", why);
	CHECK("empty: no samples, sample types kept",
	      pr && pr->n_sample == 0 && pr->n_location == 0 && pr->n_sample_type == 2);
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	f->v.nsamples = 5;
	f->v.total = 69;
}

static void test_write_errors(struct fixture *f)
{
	struct resolver *r = new_resolver(f);
	char why[256] = "";
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		SKIP("disk full", "no /dev/full");
	} else {
		rc = pprof__write(fd, &f->v, r, NULL, why, sizeof(why));
		CHECKF("disk full", rc == -ENOSPC && strstr(why, "No space"), "%d '%s'", rc, why);
		close(fd);
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	rc = pprof__write(fd, &f->v, r, NULL, why, sizeof(why));
	CHECKF("not writable", rc == -EBADF, "%d '%s'", rc, why);
	close(fd);
	resolver__free(r);
}

int main(void)
{
	static struct fixture f;
	struct pprof_summary sum = {0};
	PB(Profile) * pr;
	char why[256] = "";

	fixture_init(&f);
	pr = round_trip(&f, &sum, why, sizeof(why));
	CHECKF("write and decode", pr != NULL, "%s", why);
	CHECK("summary", sum.samples == 69 && sum.nsamples == 5 && sum.nmappings == 1 &&
				 sum.nlocations == 4 && sum.out_bytes > 20);
	if (pr) {
		test_header(pr);
		test_samples(pr);
		test_locations(pr, &f);
		perftools__profiles__profile__free_unpacked(pr, NULL);
	}
	test_empty(&f);
	test_write_errors(&f);
	return CHECK_DONE();
}
