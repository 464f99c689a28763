// SPDX-License-Identifier: MIT
/*
 * record/unwind with REAL samples: tests/progs/unwind_zlib (built -O2
 * -fomit-frame-pointer; it calls Debian's libz, itself built without frame
 * pointers, from two callers, and spins in a worker thread) runs under
 * per-CPU task-clock sampling with user registers and stack copies; every
 * sample is unwound and checked:
 *  - >= 99 % of the samples are complete (they reach the outermost frame);
 *  - every complete sample whose leaf is in libz has one of the two callers;
 *  - >= 99 % of the worker's samples reach its start routine;
 *  - libdwfl, unwinding the same copies, gives the same PCs for >= 99 %.
 * Lines starting with '#' give the figures (not asserted: timing belongs
 * to the benchmark).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"
#include "unwind_corpus.h"

#define MAX_FRAMES 64
#define HZ 4000
#define STACK_BYTES 8192 /* the program's stacks are shallow */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The function name of a runtime address of pid, or "" */
static const char *name_of(struct symbols *syms, const struct corpus *c, pid_t pid, uint64_t addr)
{
	const struct corpus_map *m = corpus_find_map(c, pid, addr);
	struct sym_object *o;
	struct sym_result r;
	uint64_t vaddr;

	if (!m || m->path[0] != '/')
		return "";
	o = symbols__object(syms, m->path);
	if (!o || symobj__to_vaddr(o, m->start, m->pgoff, addr, &vaddr) < 0 ||
	    symobj__lookup(o, vaddr, &r) < 0 || !r.name)
		return "";
	return r.name;
}

static int has_function(struct symbols *syms, const struct corpus *c, pid_t pid,
			const uint64_t *pcs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name_of(syms, c, pid, unwind_lookup_pc(pcs, i)), name))
			return 1;
	return 0;
}

static int leaf_in_libz(const struct corpus *c, pid_t pid, uint64_t pc)
{
	const struct corpus_map *m = corpus_find_map(c, pid, pc);
	const char *base = m ? strrchr(m->path, '/') : NULL;

	return base && !strncmp(base + 1, "libz.so", 7);
}

struct tally {
	size_t samples, complete, fp_fallback, truncated[11];
	size_t libz, libz_complete, libz_with_caller, caller_a, caller_b;
	size_t worker, worker_with_start;
	size_t compared, agree;
	double ours_s, ref_s;
};

static void show_disagreement(struct symbols *syms, const struct corpus *c,
			      const struct corpus_sample *s, const uint64_t *a, int na,
			      unsigned int flags, const uint64_t *b, int nb)
{
	printf("# differs (tid %d, flags %#x): ours %d frames, libdwfl %d\n", s->tid, flags, na,
	       nb);
	for (int i = 0; i < (na > nb ? na : nb) && i < 24; i++)
		printf("#   %2d %#14llx %-28s %#14llx %s\n", i,
		       i < na ? (unsigned long long)a[i] : 0ull,
		       i < na ? name_of(syms, c, s->pid, unwind_lookup_pc(a, i)) : "",
		       i < nb ? (unsigned long long)b[i] : 0ull,
		       i < nb ? name_of(syms, c, s->pid, unwind_lookup_pc(b, i)) : "");
}

static void check_sample(struct unwinder *u, struct dwref *ref, struct symbols *syms,
			 const struct corpus *c, const struct corpus_sample *s, struct tally *t)
{
	uint64_t pcs[MAX_FRAMES], ref_pcs[MAX_FRAMES];
	unsigned int flags = 0;
	double t0 = now(), t1, t2;
	int n, nref;

	n = unwinder__unwind(u, s->pid, s->regs, c->regs_mask, s->stack, s->stack_size, pcs,
			     MAX_FRAMES, &flags);
	t1 = now();
	nref = dwref_unwind(ref, s, ref_pcs, MAX_FRAMES);
	t2 = now();
	t->ours_s += t1 - t0;
	t->ref_s += t2 - t1;
	t->samples++;
	t->complete += (flags & UNWIND_COMPLETE) != 0;
	t->fp_fallback += (flags & UNWIND_FP_FALLBACK) != 0;
	for (int bit = 4; bit < 11; bit++)
		t->truncated[bit] += (flags >> bit) & 1;
	t->compared++;
	if (n == nref && !memcmp(pcs, ref_pcs, (size_t)n * sizeof(*pcs)))
		t->agree++;
	else if (t->compared - t->agree <= 3)
		show_disagreement(syms, c, s, pcs, n, flags, ref_pcs, nref);
	if (getenv("UNWIND_SHOW_TRUNCATED") && !(flags & UNWIND_COMPLETE))
		show_disagreement(syms, c, s, pcs, n, flags, ref_pcs, nref);
	if (n && leaf_in_libz(c, s->pid, pcs[0])) {
		int a = has_function(syms, c, s->pid, pcs, n, "unwind_zlib_caller_a");
		int b = has_function(syms, c, s->pid, pcs, n, "unwind_zlib_caller_b");

		t->libz++;
		if (flags & UNWIND_COMPLETE) {
			t->libz_complete++;
			t->libz_with_caller += a || b;
			t->caller_a += a;
			t->caller_b += b;
		}
	}
	if (s->tid != s->pid) {
		t->worker++;
		t->worker_with_start += has_function(syms, c, s->pid, pcs, n, "unwind_zlib_worker");
	}
}

static void report(const struct unwinder *u, const struct tally *t, const struct corpus *c)
{
	static const char *const why[11] = {
		[4] = "stack", [5] = "no_map", [6] = "no_cfi",	[7] = "unsupported",
		[8] = "loop",  [9] = "depth",  [10] = "no_regs"};
	struct unwinder_stats st;

	unwinder__stats(u, &st);
	printf("# %zu samples (%llu lost), %zu complete, %zu with a frame-pointer step\n",
	       t->samples, (unsigned long long)c->lost, t->complete, t->fp_fallback);
	for (int bit = 4; bit < 11; bit++)
		if (t->truncated[bit])
			printf("#   truncated (%s): %zu\n", why[bit], t->truncated[bit]);
	printf("# libz leaves %zu (complete %zu: caller_a %zu, caller_b %zu); worker %zu, "
	       "reaching its start routine %zu\n",
	       t->libz, t->libz_complete, t->caller_a, t->caller_b, t->worker,
	       t->worker_with_start);
	printf("# libdwfl agrees on %zu of %zu\n", t->agree, t->compared);
	printf("# cost per sample: ours %.0f ns (%.0f ns per frame, tables excluded), "
	       "libdwfl %.0f ns\n",
	       (t->ours_s * 1e9 - (double)st.build_ns) / (double)t->samples,
	       (t->ours_s * 1e9 - (double)st.build_ns) / (double)st.frames,
	       t->ref_s * 1e9 / (double)t->samples);
	printf("# tables: %llu objects, %llu FDEs listed, %llu compiled, %llu rows, %.2f ms\n",
	       (unsigned long long)st.objects, (unsigned long long)st.fdes,
	       (unsigned long long)st.fdes_compiled, (unsigned long long)st.rows,
	       (double)st.build_ns * 1e-6);
}

int main(void)
{
	const char *b = getenv("PROFIL_BUILD") ? getenv("PROFIL_BUILD") : "build";
	char prog[4096], why[256] = "";
	char *argv[] = {prog, "0.4", NULL};
	struct tally t = {0};
	struct corpus c;
	struct unwinder *u;
	struct symbols *syms;
	struct dwref *ref;
	int rc;

	snprintf(prog, sizeof(prog), "%s/tests/progs/unwind_zlib", b);
	rc = corpus_collect(&c, argv, HZ, STACK_BYTES, why, sizeof(why));
	if (rc == -EACCES || rc == -EPERM || rc == -ENOSYS || rc == -ENOENT) {
		SKIP("unwind_real", why);
		return 0;
	}
	CHECKF("collect", rc == 0, "%s", why);
	if (rc < 0)
		return CHECK_DONE();
	CHECKF("program_ran", c.status == 0, "wait status %#x", c.status);
	CHECKF("enough_samples", c.n >= 500, "%zu samples", c.n);

	u = unwinder__new();
	syms = symbols__new();
	ref = dwref_new(&c, c.pid, why, sizeof(why));
	CHECKF("libdwfl_reference", ref != NULL, "%s", why);
	if (!u || !syms || !ref)
		return CHECK_DONE();
	for (size_t i = 0; i < c.nmaps; i++)
		unwinder__add_map(u, c.maps[i].pid, c.maps[i].start, c.maps[i].end, c.maps[i].pgoff,
				  c.maps[i].dev, c.maps[i].ino, c.maps[i].path);
	for (size_t i = 0; i < c.n; i++)
		if (c.s[i].abi == 2 /* PERF_SAMPLE_REGS_ABI_64 */)
			check_sample(u, ref, syms, &c, &c.s[i], &t);
	report(u, &t, &c);

	CHECKF("complete_99pct", t.samples && t.complete * 100 >= t.samples * 99,
	       "%zu of %zu complete", t.complete, t.samples);
	CHECKF("libz_samples", t.libz >= 50 && t.libz_complete * 100 >= t.libz * 99,
	       "%zu libz leaves, %zu complete", t.libz, t.libz_complete);
	CHECKF("libz_callers", t.libz_complete && t.libz_with_caller == t.libz_complete,
	       "%zu of %zu complete libz stacks show a caller", t.libz_with_caller,
	       t.libz_complete);
	CHECKF("both_callers", t.caller_a >= 10 && t.caller_b >= 10, "caller_a %zu, caller_b %zu",
	       t.caller_a, t.caller_b);
	CHECKF("worker_start_routine",
	       t.worker >= 100 && t.worker_with_start * 100 >= t.worker * 99,
	       "%zu of %zu worker samples", t.worker_with_start, t.worker);
	CHECKF("libdwfl_agrees_99pct", t.compared && t.agree * 100 >= t.compared * 99, "%zu of %zu",
	       t.agree, t.compared);

	dwref_free(ref);
	symbols__free(syms);
	unwinder__free(u);
	corpus_free(&c);
	return CHECK_DONE();
}
