// SPDX-License-Identifier: MIT
/*
 * Figures for the recorder's unwinder (`make unwind-bench`; not part of
 * make check: it times things).
 *
 *   unwind_bench [-F HZ] [-s STACK_BYTES] [-r REPS] [-o OBJECT]... [-O ROUNDS]
 *                [-- PROGRAM ARGS...]
 *
 * 1. Table building, per ELF object of the program (and each -o OBJECT):
 *    listing the FDEs (what the first sample in an object costs) and
 *    compiling every FDE (what an eager table would cost), rows, memory.
 * 2. A corpus of real samples of PROGRAM (default: tests/progs/unwind_zlib
 *    1.0) at HZ with STACK_BYTES of stack each: completeness, the cost of
 *    unwinding per sample and per frame (first pass, with the lazy
 *    compilation; then REPS warm passes), libdwfl's cost over the same
 *    copies (one Dwfl for the process; and one per sample, as perf does,
 *    on a subset), and how often both give the same PCs.
 * 3. With -O ROUNDS: the overhead on the program itself (unwind_zlib -n
 *    ROUNDS) of flat samples and of samples with stacks, at 1 and 10 kHz.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unwind/unwind.h"
#include "unwind/unwind_cfi.h"
#include "object_fixture.h"
#include "unwind_corpus.h"

#define MAX_FRAMES UNWIND_MAX_FRAMES

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- 1. tables -------------------------------------------------------- */

static void table_figures(const char *path)
{
	struct object_cfi o = {0};
	struct unw_table *t = &o.t;
	struct unw_cfi_stats st;
	double t0, t1, t2;

	if (!object_file__open(&o.file, path)) {
		printf("  %-48s cannot open\n", path);
		goto cleanup;
	}
	t0 = now();
	if (unw_cfi_open(o.file.elf, t, &o.cfi, o.why, sizeof(o.why)) < 0 || !o.cfi) {
		printf("  %-48s %s\n", path, o.why);
		goto cleanup;
	}
	t1 = now();
	unw_cfi_compile_all(o.cfi, t);
	t2 = now();
	unw_cfi_get_stats(o.cfi, &st);
	printf("  %-48s %6zu FDEs listed in %7.2f ms; all compiled in %8.2f ms: %7zu rows "
	       "(%zu merged, %.1f MiB), %zu unsupported, %zu FDEs failed, %zu over a bound, "
	       "%.1f MB of CFI interpreted\n",
	       path, st.fdes, (t1 - t0) * 1e3, (t2 - t1) * 1e3, st.rows, t->nrows,
	       (double)(t->nrows * sizeof(struct unw_row) + t->nfdes * sizeof(struct unw_fde)) /
		       1048576.0,
	       st.unsupported, st.fdes_failed, st.fdes_bound, (double)st.bytes / 1e6);
cleanup:
	object_cfi__close(&o);
}

/* ---- 2. unwinding ----------------------------------------------------- */

static size_t reasons[11]; /* samples per UNWIND_* flag bit */

static void print_reasons(void)
{
	static const char *const names[11] = {
		[1] = "frame-pointer steps",	 [2] = "signal frames",
		[4] = "truncated: stack copy",	 [5] = "truncated: no mapping",
		[6] = "truncated: no CFI",	 [7] = "truncated: unsupported rule",
		[8] = "truncated: loop",	 [9] = "truncated: depth",
		[10] = "truncated: no registers"};

	for (int bit = 1; bit < 11; bit++)
		if (reasons[bit] && names[bit])
			printf("  %s: %zu samples\n", names[bit], reasons[bit]);
}

static struct unwinder *fresh_unwinder(const struct corpus *c)
{
	struct unwinder *u = unwinder__new();

	for (size_t i = 0; u && i < c->nmaps; i++)
		unwinder__add_map(u, c->maps[i].pid, c->maps[i].start, c->maps[i].end,
				  c->maps[i].pgoff, c->maps[i].dev, c->maps[i].ino,
				  c->maps[i].path);
	return u;
}

/* One pass over the corpus; count: tally the end reasons (and show the odd ones). */
static double unwind_pass(struct unwinder *u, const struct corpus *c, uint64_t *frames,
			  size_t *complete, int count)
{
	uint64_t pcs[MAX_FRAMES];
	double t0 = now();

	*frames = 0;
	*complete = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct corpus_sample *s = &c->s[i];
		unsigned int flags;
		int n;

		if (s->abi != 2)
			continue;
		n = unwinder__unwind(u, s->pid, s->regs, c->regs_mask, s->stack, s->stack_size, pcs,
				     MAX_FRAMES, &flags);
		*frames += (uint64_t)n;
		*complete += (flags & UNWIND_COMPLETE) != 0;
		for (int bit = 1; count && bit < 11; bit++)
			reasons[bit] += (flags >> bit) & 1;
		if (count && (flags & (UNWIND_TRUNC_UNSUPPORTED | UNWIND_TRUNC_NO_CFI)) && n) {
			const struct corpus_map *m = corpus_find_map(c, s->pid, pcs[n - 1]);

			printf("  (flags %#x at the frame in %s+%#llx)\n", flags, m ? m->path : "?",
			       m ? (unsigned long long)(pcs[n - 1] - m->start + m->pgoff) : 0ull);
		}
	}
	return now() - t0;
}

static void unwind_figures(const struct corpus *c, int reps)
{
	struct unwinder *u = fresh_unwinder(c);
	struct unwinder_stats st;
	uint64_t frames, pcs[MAX_FRAMES], ref_pcs[MAX_FRAMES];
	size_t complete, agree = 0, compared = 0, fresh_n = 0;
	double first, warm = 1e30, ref_s = 0, fresh_s = 0;
	struct dwref *ref = NULL;
	pid_t ref_pid = 0;
	char why[256] = "no sample";
	unsigned int flags;

	if (!u || !c->n)
		return;
	memset(reasons, 0, sizeof(reasons));
	first = unwind_pass(u, c, &frames, &complete, 1);
	unwinder__stats(u, &st);
	for (int r = 0; r < reps; r++) {
		double t = unwind_pass(u, c, &frames, &complete, 0);

		if (t < warm)
			warm = t;
	}
	printf("\nunwinding %zu samples (%.1f frames each): %zu complete (%.2f %%)\n", c->n,
	       (double)frames / (double)c->n, complete, 100.0 * (double)complete / (double)c->n);
	print_reasons();
	printf("  ours, first pass:  %7.0f ns per sample (tables: %llu objects, %llu of %llu "
	       "FDEs compiled, %llu rows, %.2f ms)\n",
	       first * 1e9 / (double)c->n, (unsigned long long)st.objects,
	       (unsigned long long)st.fdes_compiled, (unsigned long long)st.fdes,
	       (unsigned long long)st.rows, (double)st.build_ns * 1e-6);
	printf("  ours, warm (best of %d): %7.0f ns per sample, %5.1f ns per frame\n", reps,
	       warm * 1e9 / (double)c->n, warm * 1e9 / (double)frames);

	for (size_t i = 0; i < c->n; i++) {
		const struct corpus_sample *s = &c->s[i];
		double t0;
		int n, nref;

		if (s->abi != 2)
			continue;
		if (!ref || ref_pid != s->pid) { /* one Dwfl per process, samples in order */
			dwref_free(ref);
			ref_pid = s->pid;
			ref = dwref_new(c, s->pid, why, sizeof(why));
			if (!ref)
				continue;
		}
		n = unwinder__unwind(u, s->pid, s->regs, c->regs_mask, s->stack, s->stack_size, pcs,
				     MAX_FRAMES, &flags);
		t0 = now();
		nref = dwref_unwind(ref, s, ref_pcs, MAX_FRAMES);
		ref_s += now() - t0;
		compared++;
		agree += n == nref && !memcmp(pcs, ref_pcs, (size_t)n * sizeof(*pcs));
	}
	dwref_free(ref);
	if (!compared) {
		printf("  libdwfl: %s\n", why);
		unwinder__free(u);
		return;
	}
	/* as perf does it: a new Dwfl (modules reported again) for each sample */
	for (size_t i = 0; i < c->n && fresh_n < 200; i += 1 + c->n / 200) {
		double t0 = now();
		struct dwref *d = dwref_new(c, c->s[i].pid, why, sizeof(why));

		if (!d)
			break;
		dwref_unwind(d, &c->s[i], ref_pcs, MAX_FRAMES);
		dwref_free(d);
		fresh_s += now() - t0;
		fresh_n++;
	}
	printf("  libdwfl, one Dwfl: %7.0f ns per sample; a Dwfl per sample (perf's way, %zu "
	       "samples): %.0f ns\n",
	       ref_s * 1e9 / (double)compared, fresh_n,
	       fresh_n ? fresh_s * 1e9 / (double)fresh_n : 0.0);
	printf("  the same PCs as libdwfl: %zu of %zu (%.2f %%)\n", agree, compared,
	       100.0 * (double)agree / (double)compared);
	unwinder__free(u);
}

/* ---- 3. overhead on the program --------------------------------------- */

static double run_cpu(char *const argv[], int hz, uint32_t stack, double *wall, size_t *bytes,
		      size_t *samples)
{
	struct corpus c;
	char why[256];
	double cpu;

	if (corpus_collect(&c, argv, hz, stack, why, sizeof(why)) < 0) {
		printf("  %s\n", why);
		return -1;
	}
	cpu = c.cpu_s;
	*wall = c.wall_s;
	*bytes = c.record_bytes;
	*samples = c.n;
	corpus_free(&c);
	return cpu;
}

static void overhead_figures(const char *prog, long rounds, uint32_t stack, int reps)
{
	char n[32];
	char *argv[] = {(char *)prog, "-n", n, NULL};
	static const int rates[] = {1000, 10000};

	snprintf(n, sizeof(n), "%ld", rounds);
	printf("\noverhead on `%s -n %ld` (CPU seconds of the program, best of %d):\n", prog,
	       rounds, reps);
	for (int r = 0; r < 2; r++) {
		double best[3] = {1e30, 1e30, 1e30}, wall[3] = {0};
		size_t bytes = 0, samples = 0;

		for (int k = 0; k < reps; k++) {
			for (int mode = 0; mode < 3; mode++) {
				double w;
				size_t b = 0, s = 0;
				double cpu = run_cpu(argv, mode ? rates[r] : 0,
						     mode == 2 ? stack : 0, &w, &b, &s);

				if (cpu < 0)
					return;
				if (cpu < best[mode]) {
					best[mode] = cpu;
					wall[mode] = w;
				}
				if (mode == 2) {
					bytes = b;
					samples = s;
				}
			}
		}
		printf("  %5d Hz: none %.3f s, flat %.3f s (+%.1f %%), with %u-byte stacks %.3f s "
		       "(+%.1f %%): %.2fx the flat overhead; %.0f bytes per sample record\n",
		       rates[r], best[0], best[1], 100 * (best[1] / best[0] - 1), stack, best[2],
		       100 * (best[2] / best[0] - 1),
		       best[1] > best[0] ? (best[2] - best[0]) / (best[1] - best[0]) : 0.0,
		       samples ? (double)bytes / (double)samples : 0.0);
		printf("          (wall: none %.3f s, flat %.3f s, stacks %.3f s)\n", wall[0],
		       wall[1], wall[2]);
	}
}

int main(int argc, char **argv)
{
	const char *b = getenv("PROFIL_BUILD") ? getenv("PROFIL_BUILD") : "build";
	char prog[4096], why[256];
	char *def_argv[] = {prog, "1.0", NULL};
	char **pargv = def_argv;
	const char *objects[16];
	int nobjects = 0, hz = 4000, reps = 5;
	long rounds = 0;
	uint32_t stack = UNWIND_STACK_BYTES;
	struct corpus c;
	int opt;

	snprintf(prog, sizeof(prog), "%s/tests/progs/unwind_zlib", b);
	while ((opt = getopt(argc, argv, "F:s:r:o:O:")) != -1) {
		switch (opt) {
		case 'F':
			hz = atoi(optarg);
			break;
		case 's':
			stack = (uint32_t)atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'o':
			if (nobjects < 16)
				objects[nobjects++] = optarg;
			break;
		case 'O':
			rounds = atol(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-F HZ] [-s STACK_BYTES] [-r REPS] [-o OBJECT]... "
				"[-O ROUNDS] [-- PROGRAM ARGS...]\n",
				argv[0]);
			return 2;
		}
	}
	if (hz <= 0 || stack == 0 || stack % 8 || stack > 60000 || reps <= 0) {
		fprintf(stderr, "%s: bad -F, -s or -r\n", argv[0]);
		return 2;
	}
	if (optind < argc)
		pargv = argv + optind;
	elf_version(EV_CURRENT);

	if (corpus_collect(&c, pargv, hz, stack, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		return 1;
	}
	printf("corpus: `%s`, %d Hz, %u-byte stacks: %zu samples, %llu lost, %.0f bytes per "
	       "sample record\n",
	       pargv[0], hz, stack, c.n, (unsigned long long)c.lost,
	       c.n ? (double)c.record_bytes / (double)c.n : 0.0);
	printf("\ntables (per object, once):\n");
	for (size_t i = 0; i < c.nmaps; i++)
		if (c.maps[i].path[0] == '/')
			table_figures(c.maps[i].path);
	for (int i = 0; i < nobjects; i++)
		table_figures(objects[i]);
	unwind_figures(&c, reps);
	corpus_free(&c);
	if (rounds > 0)
		overhead_figures(prog, rounds, stack, reps < 3 ? reps : 3);
	return 0;
}
