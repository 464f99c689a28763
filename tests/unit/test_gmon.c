// SPDX-License-Identifier: MIT
/*
 * output/gmon: gmon.out written for a profile of this program's own
 * functions (written by the test, with call stacks), parsed back by the
 * test as shared/reference/semantics.md section 4 describes the format:
 * the header, histogram records (link-time range, bins of 2 bytes, the
 * rate rounded from the period, "seconds"/'s'), every sample in the bin of
 * its link-time address, a bin over 65535 carried by a second record of
 * exactly the same range, arcs from the stacks (call site -> callee start,
 * once per sample however often recursion repeats an edge, nothing to or
 * from kernel frames or "[truncated]"), an arc count over 2^31 - 1 split
 * into several records and saturated at 64 records (counts of 2^64 - 1
 * wrap nowhere); the summary; the object asked for; an object no
 * process mapped; an unknown rate; an output that is the profile itself.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "output/output.h"
#include "profile_fixture.h"

FIXTURE_WORK(gm_main, 1);
FIXTURE_WORK(gm_a, 2);
FIXTURE_WORK(gm_b, 3);
FIXTURE_WORK(gm_c, 4);

#define KTEXT 0xffffffff81000000ull
#define FN(f) ((uint64_t)(uintptr_t)(f))
#define STACK(...) (const uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8
#define PERIOD 1003009ull /* 997.0 Hz */
#define BIG (1ull << 32)  /* an arc count beyond 2^31 - 1 */

static char profile[256], out_path[256];
static uint64_t bias;
static uint64_t libc_pc;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr; /* the main program: its load bias (0 if not a PIE) */
	return 1;
}

/*
 * Samples (link-time bins): gm_a + 2: 100, gm_a + 3: 50, gm_b + 4: 70000
 * flat + 7 + 1 with stacks, gm_c + 2: 3; outside: libc 10, kernel 5 and
 * BIG + 5 (whose callers' arc is in the text).
 */
static int write_profile(const char *path, uint64_t period_ns, char *why, size_t whylen)
{
	struct fixture_header h = FIXTURE_FP_HEADER("gmon", period_ns);
	struct pdata *pd;
	struct pdata_proc *p;
	int rc = fixture__start(&pd, path, &h, getpid(), &p, why, whylen);

	if (rc < 0)
		return rc;
	pdata__count(pd, p->id, 1, FN(gm_a) + 2, 100);
	pdata__count(pd, p->id, 1, FN(gm_a) + 3, 50);
	pdata__count(pd, p->id, 1, FN(gm_b) + 4, 70000);
	pdata__count_stack(pd, p->id, 1, STACK(FN(gm_b) + 4, FN(gm_a) + 9, FN(gm_main) + 9), 0, 7);
	pdata__count_stack(pd, p->id, 1, STACK(FN(gm_b) + 4, FN(gm_a) + 9), 1, 1);
	pdata__count_stack(pd, p->id, 1,
			   STACK(FN(gm_c) + 2, FN(gm_c) + 9, FN(gm_c) + 9, FN(gm_main) + 9), 0, 3);
	pdata__count_stack(pd, p->id, 1, STACK(KTEXT + 0x10, FN(gm_a) + 9, FN(gm_main) + 9), 0,
			   BIG + 5);
	if (libc_pc)
		pdata__count(pd, p->id, 1, libc_pc, 10);
	pdata__count(pd, p->id, 1, KTEXT + 0x20, 5);
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

/* ---- the file, parsed back --------------------------------------------------------- */

struct hist_rec {
	uint64_t lo, hi;
	int32_t nbins, rate;
	char dimen[16];
	char abbrev;
	const unsigned char
		*bins; /* u16 counts, at any alignment (a record starts after a tag byte) */
};

static uint16_t bin_at(const struct hist_rec *h, uint64_t i)
{
	uint16_t c;

	memcpy(&c, h->bins + 2 * i, 2);
	return c;
}

struct arc_rec {
	uint64_t from, self;
	uint32_t count;
};

struct gmon_file {
	unsigned char *data;
	size_t len;
	int header_ok;
	struct hist_rec hist[8];
	size_t nhist;
	struct arc_rec arcs[80];
	size_t narcs;
	int bad; /* a record that does not parse, or too many */
};

static void parse(struct gmon_file *g, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	size_t at = 20;

	memset(g, 0, sizeof(*g));
	if (fd < 0 || fstat(fd, &st) < 0 || !(g->data = malloc((size_t)st.st_size + 1)) ||
	    read(fd, g->data, (size_t)st.st_size) != st.st_size) {
		g->bad = 1;
		goto out;
	}
	g->len = (size_t)st.st_size;
	g->header_ok = g->len >= 20 && !memcmp(g->data, "gmon", 4) &&
		       !memcmp(g->data + 4, &(int32_t){1}, 4) &&
		       !memcmp(g->data + 8, (char[12]){0}, 12);
	while (!g->bad && at < g->len) {
		unsigned char tag = g->data[at++];

		if (tag == 0 && at + 40 <= g->len && g->nhist < 8) {
			struct hist_rec *h = &g->hist[g->nhist++];

			memcpy(&h->lo, g->data + at, 8);
			memcpy(&h->hi, g->data + at + 8, 8);
			memcpy(&h->nbins, g->data + at + 16, 4);
			memcpy(&h->rate, g->data + at + 20, 4);
			memcpy(h->dimen, g->data + at + 24, 15);
			h->abbrev = (char)g->data[at + 39];
			at += 40;
			h->bins = g->data + at;
			if (h->nbins < 0 || at + (size_t)h->nbins * 2 > g->len)
				g->bad = 1;
			at += (size_t)h->nbins * 2;
		} else if (tag == 1 && at + 20 <= g->len && g->narcs < 80) {
			struct arc_rec *a = &g->arcs[g->narcs++];

			memcpy(&a->from, g->data + at, 8);
			memcpy(&a->self, g->data + at + 8, 8);
			memcpy(&a->count, g->data + at + 16, 4);
			at += 20;
		} else {
			g->bad = 1;
		}
	}
out:
	if (fd >= 0)
		close(fd);
}

/* A bin's count summed over the histogram records; -1 when pc is outside. */
static int64_t bin_sum(const struct gmon_file *g, uint64_t pc)
{
	uint64_t vaddr = pc - bias;
	int64_t sum = 0;

	for (size_t r = 0; r < g->nhist; r++) {
		const struct hist_rec *h = &g->hist[r];

		if (vaddr < h->lo || vaddr >= h->hi)
			return -1;
		sum += bin_at(h, (vaddr - h->lo) / 2);
	}
	return sum;
}

static uint64_t bins_total(const struct gmon_file *g)
{
	uint64_t t = 0;

	for (size_t r = 0; r < g->nhist; r++)
		for (int32_t i = 0; i < g->hist[r].nbins; i++)
			t += bin_at(&g->hist[r], (uint64_t)i);
	return t;
}

/* The arc (from call site in caller, callee) summed over its records, and how many records. */
static uint64_t arc(const struct gmon_file *g, uint64_t call_site, const void *callee,
		    size_t *records)
{
	uint64_t sum = 0;

	*records = 0;
	for (size_t i = 0; i < g->narcs; i++)
		if (g->arcs[i].from == call_site - bias && g->arcs[i].self == FN(callee) - bias) {
			sum += g->arcs[i].count;
			++*records;
		}
	return sum;
}

static void test_export(void)
{
	struct gmon_summary sum;
	struct gmon_file g;
	char why[512] = "";
	size_t recs = 0;
	uint64_t want_bins[4][2] = {
		{FN(gm_a) + 2, 0}, {FN(gm_a) + 3, 0}, {FN(gm_b) + 4, 0}, {FN(gm_c) + 2, 0}};
	uint64_t counts[4] = {100, 50, 70008, 3};
	int rc, same_range = 1;

	memset(&sum, 0, sizeof(sum));
	rc = gmon_export_opts(profile, out_path, NULL, &sum, why, sizeof(why));
	CHECKF("export", rc == 0, "%d %s", rc, why);
	if (rc)
		return;
	parse(&g, out_path);
	CHECK("the file parses to the end", !g.bad && g.header_ok);
	CHECKF("two histogram records (a bin over 65535), six arc records",
	       g.nhist == 2 && g.narcs == 6, "%zu %zu", g.nhist, g.narcs);
	if (g.nhist < 1)
		goto out;
	for (size_t r = 1; r < g.nhist; r++)
		same_range &= g.hist[r].lo == g.hist[0].lo && g.hist[r].hi == g.hist[0].hi &&
			      g.hist[r].nbins == g.hist[0].nbins;
	CHECK("histogram: exactly the same range in each record", same_range);
	CHECK("histogram: 2-byte bins over a link-time text that holds the functions",
	      g.hist[0].nbins == (int32_t)((g.hist[0].hi - g.hist[0].lo) / 2) &&
		      g.hist[0].lo <= FN(gm_main) - bias && FN(gm_c) - bias < g.hist[0].hi);
	CHECK("histogram: rate rounded from the period, seconds",
	      g.hist[0].rate == 997 && !strcmp(g.hist[0].dimen, "seconds") &&
		      g.hist[0].abbrev == 's');
	/* samples in one bin add up (gm_a + 2 and + 3 share one when gm_a + 2 is even) */
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			if ((want_bins[i][0] - bias - g.hist[0].lo) / 2 ==
			    (want_bins[k][0] - bias - g.hist[0].lo) / 2)
				want_bins[i][1] += counts[k];
	for (int i = 0; i < 4; i++) {
		int64_t got = bin_sum(&g, want_bins[i][0]);

		CHECKF(i == 0 ? "bin of gm_a + 2" :
		       i == 1 ? "bin of gm_a + 3" :
		       i == 2 ? "bin of gm_b + 4 (over 65535)" :
				"bin of gm_c + 2",
		       got == (int64_t)want_bins[i][1], "%lld, want %llu", (long long)got,
		       (unsigned long long)want_bins[i][1]);
	}
	CHECK("the first record saturates at 65535, the second carries the rest",
	      g.nhist == 2 &&
		      bin_at(&g.hist[0], (FN(gm_b) + 4 - bias - g.hist[0].lo) / 2) == 65535 &&
		      bin_at(&g.hist[1], (FN(gm_b) + 4 - bias - g.hist[0].lo) / 2) ==
			      want_bins[2][1] - 65535);
	CHECKF("nothing else in the histogram: the kernel and libc left out",
	       bins_total(&g) == 100 + 50 + 70008 + 3, "%llu", (unsigned long long)bins_total(&g));
	CHECKF("arc gm_a -> gm_b: its stacks, the cut-short one too",
	       arc(&g, FN(gm_a) + 8, gm_b, &recs) == 8 && recs == 1, "%llu",
	       (unsigned long long)arc(&g, FN(gm_a) + 8, gm_b, &recs));
	CHECK("arc gm_c -> gm_c: recursion once per sample",
	      arc(&g, FN(gm_c) + 8, gm_c, &recs) == 3 && recs == 1);
	CHECK("arc gm_main -> gm_c", arc(&g, FN(gm_main) + 8, gm_c, &recs) == 3 && recs == 1);
	CHECKF("arc gm_main -> gm_a: a count over 2^31 - 1 in three records",
	       arc(&g, FN(gm_main) + 8, gm_a, &recs) == BIG + 12 && recs == 3, "%llu in %zu",
	       (unsigned long long)arc(&g, FN(gm_main) + 8, gm_a, &recs), recs);
	CHECKF("summary",
	       !strcmp(sum.exe, fixture__exe()) && sum.rate == 997 &&
		       sum.in_text == 100 + 50 + 70008 + 3 &&
		       sum.outside == (libc_pc ? 10 : 0) + 5 + BIG + 5 && sum.records == 2 &&
		       !sum.saturated && sum.arcs == 4 && sum.chosen &&
		       sum.objects == (libc_pc ? 2u : 1u) &&
		       strstr(sum.why, "chosen as the object with the most samples"),
	       "%s %u %llu %llu %llu %zu %zu '%s'", sum.exe, sum.rate,
	       (unsigned long long)sum.in_text, (unsigned long long)sum.outside,
	       (unsigned long long)sum.records, sum.arcs, sum.objects, sum.why);
out:
	free(g.data);
	unlink(out_path);
}

static void test_objects(void)
{
	struct gmon_summary sum;
	struct gmon_opts o = {.object = "libc.so.6"};
	char why[512] = "";
	int rc;

	if (libc_pc) {
		memset(&sum, 0, sizeof(sum));
		rc = gmon_export_opts(profile, out_path, &o, &sum, why, sizeof(why));
		CHECKF("--object by base name: libc",
		       rc == 0 && sum.in_text == 10 && !sum.chosen && sum.arcs == 0 &&
			       strstr(sum.why, "asked for"),
		       "%d %s %llu", rc, why, (unsigned long long)sum.in_text);
		unlink(out_path);
	} else {
		SKIP("--object by base name: libc", "no libc pc");
	}
	o.object = fixture__exe();
	memset(&sum, 0, sizeof(sum));
	rc = gmon_export_opts(profile, out_path, &o, &sum, why, sizeof(why));
	CHECKF("--object by path", rc == 0 && sum.in_text == 100 + 50 + 70008 + 3 && !sum.chosen,
	       "%d %s", rc, why);
	unlink(out_path);
	o.object = "libnothing.so";
	why[0] = 0;
	rc = gmon_export_opts(profile, out_path, &o, &sum, why, sizeof(why));
	CHECKF("--object no process mapped: -ENOENT, one sentence",
	       rc == -ENOENT && strstr(why, "libnothing.so") && !strchr(why, '\n') &&
		       access(out_path, F_OK) < 0,
	       "%d '%s'", rc, why);
	why[0] = 0;
	rc = gmon_export_opts(profile, profile, NULL, &sum, why, sizeof(why));
	CHECKF("the profile itself is not an output", rc < 0 && why[0] && !strchr(why, '\n'),
	       "%d '%s'", rc, why);
}

static void test_no_rate(void)
{
	char path[256], why[512] = "";
	int rc;

	fixture__path(path, sizeof(path), "norate.data");
	rc = write_profile(path, 0, why, sizeof(why));
	rc = rc ? rc : gmon_export_opts(path, out_path, NULL, NULL, why, sizeof(why));
	CHECKF("no rate: -EINVAL, one sentence, no file",
	       rc == -EINVAL && strstr(why, "the sampling rate is unknown") &&
		       access(out_path, F_OK) < 0,
	       "%d '%s'", rc, why);
}

/* Two samples of 2^64 - 1 in the kernel under gm_b <- gm_main: the arc saturates, nothing wraps. */
static void test_arc_saturation(void)
{
	static const struct fixture_header h = FIXTURE_FP_HEADER(NULL, PERIOD);
	struct gmon_summary sum = {0};
	struct gmon_file g = {0};
	struct pdata *pd;
	struct pdata_proc *p;
	char path[256], why[512] = "";
	size_t recs = 0;
	int rc;

	fixture__path(path, sizeof(path), "arcmax.data");
	rc = fixture__start(&pd, path, &h, getpid(), &p, why, sizeof(why));
	if (rc == 0) {
		pdata__count_stack(pd, p->id, 1, STACK(KTEXT + 0x10, FN(gm_b) + 9, FN(gm_main) + 9),
				   0, UINT64_MAX);
		pdata__count_stack(pd, p->id, 2, STACK(KTEXT + 0x30, FN(gm_b) + 9, FN(gm_main) + 9),
				   0, UINT64_MAX);
		rc = fixture__finish(pd, PDATA_END_EXITED, 0);
	}
	rc = rc ? rc : gmon_export_opts(path, out_path, NULL, &sum, why, sizeof(why));
	CHECKF("export of counts of 2^64 - 1", rc == 0, "%d %s", rc, why);
	if (rc)
		return;
	parse(&g, out_path);
	CHECKF("an arc of 2^64 - 1 twice: 64 records of 2^31 - 1, saturated",
	       !g.bad && g.nhist == 1 &&
		       arc(&g, FN(gm_main) + 8, gm_b, &recs) == 64ull * 0x7fffffff && recs == 64 &&
		       sum.arcs == 1 && sum.arcs_saturated && sum.in_text == 0 &&
		       sum.outside == UINT64_MAX && bins_total(&g) == 0,
	       "%zu records, %llu", recs,
	       (unsigned long long)arc(&g, FN(gm_main) + 8, gm_b, &recs));
	free(g.data);
	unlink(out_path);
}

int main(void)
{
	static const check_fn tests[] = {test_export, test_objects, test_no_rate,
					 test_arc_saturation, NULL};
	char why[512] = "";
	void *fn = dlsym(RTLD_NEXT, "getpid");
	int rc;

	gm_main(1), gm_a(1), gm_b(1), gm_c(1);
	dl_iterate_phdr(first_object, &bias);
	libc_pc = fn ? FN(fn) : 0;
	fixture__path(profile, sizeof(profile), "gmon.data");
	fixture__path(out_path, sizeof(out_path), "gmon.out");
	rc = write_profile(profile, PERIOD, why, sizeof(why));
	return check_run("write the profile", rc, why, tests);
}
