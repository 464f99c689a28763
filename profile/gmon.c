// SPDX-License-Identifier: MIT
/* gmon.out writer: see gmon.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils/htab.h"
#include "utils/outfile.h"
#include "utils/why.h"
#include "profile/callgraph.h"
#include "profile/gmon.h"
#include "profile/pdata.h"
#include "profile/pview.h"
#include "profile/symbols.h"

#define GMON_MAGIC "gmon"
#define GMON_VERSION 1
#define GMON_TAG_HIST 0
#define GMON_TAG_CG_ARC 1
#define ARC_COUNT_MAX 0x7fffffffu /* per record: gprof reads a 32-bit count */
/*
 * Text bytes per bin: gprof's own resolution (its UNIT is 2 bytes).  Wider
 * bins would straddle function boundaries (functions need not be aligned,
 * e.g. at -O1) and gprof splits such a bin between both functions.
 */
#define GMON_BIN_BYTES 2
#define GMON_MAX_BINS (1u << 23)      /* wider bins beyond this */
#define GMON_MAX_BYTES (512ull << 20) /* beyond this, saturate instead of adding records */
#define BIN_MAX 65535u

struct exe_total {
	const char *path; /* a proc's exe (owned by the pview) */
	uint64_t samples;
};

struct hist {
	uint64_t lo, hi, bin_bytes;
	uint32_t nbins;
	uint64_t *counts;
	uint64_t in_text, outside;
};

/* Does path name the executable exe (whose canonical path is exe_real, or NULL)? */
static int same_file(const char *path, const char *exe, const char *exe_real)
{
	char real[PATH_MAX];

	if (!path[0])
		return 0;
	if (!strcmp(path, exe))
		return 1;
	return exe_real && realpath(path, real) && !strcmp(real, exe_real);
}

/* Samples that land in each proc's own executable, summed per executable path. */
static const char *choose_exe(const struct pview *v)
{
	struct exe_total *tot = calloc(v->nprocs ? v->nprocs : 1, sizeof(*tot));
	const char *best = NULL;
	uint64_t best_n = 0;
	size_t ntot = 0, at = 0;

	if (!tot)
		return NULL;
	for (size_t i = 0; i < v->nprocs; i++) {
		const struct pv_proc *p = &v->procs[i];
		uint64_t n = 0;
		size_t k;

		while (at < v->nsamples && v->samples[at].proc < p->id)
			at++;
		for (; at < v->nsamples && v->samples[at].proc == p->id; at++) {
			const struct pv_map *m = pview__map_of(v, p, v->samples[at].pc);

			if (m && !strcmp(m->path, p->exe))
				n += v->samples[at].count;
		}
		if (!p->exe[0])
			continue;
		for (k = 0; k < ntot && strcmp(tot[k].path, p->exe); k++)
			;
		if (k == ntot)
			tot[ntot++].path = p->exe;
		tot[k].samples += n;
	}
	for (size_t k = 0; k < ntot; k++) {
		if (tot[k].samples > best_n) {
			best_n = tot[k].samples;
			best = tot[k].path;
		}
	}
	free(tot);
	if (best)
		return best;
	/* nothing sampled in an executable: the root process's, else the first */
	for (size_t i = 0; i < v->nprocs; i++)
		if (v->procs[i].pid == v->hdr.root_pid && v->procs[i].exe[0])
			return v->procs[i].exe;
	for (size_t i = 0; i < v->nprocs; i++)
		if (v->procs[i].exe[0])
			return v->procs[i].exe;
	return NULL;
}

static int hist_init(struct hist *h, const struct sym_object *obj)
{
	uint64_t lo, hi;

	if (symobj__text_range(obj, &lo, &hi) < 0)
		return -ENOENT;
	h->bin_bytes = GMON_BIN_BYTES;
	while ((hi - lo) / h->bin_bytes + 2 > GMON_MAX_BINS)
		h->bin_bytes *= 2;
	h->lo = lo / h->bin_bytes * h->bin_bytes;
	h->hi = (hi + h->bin_bytes - 1) / h->bin_bytes * h->bin_bytes;
	h->nbins = (uint32_t)((h->hi - h->lo) / h->bin_bytes);
	h->counts = calloc(h->nbins, sizeof(*h->counts));
	return h->counts ? 0 : -ENOMEM;
}

#define AUX_MAIN ((void *)1)
#define AUX_OTHER ((void *)2)

/* Add every sample of every image of exe that falls in exe's text. */
static void hist_fill(struct hist *h, const struct pview *v, const char *exe,
		      struct sym_object *obj)
{
	char exe_real[PATH_MAX];
	const char *real = realpath(exe, exe_real) ? exe_real : NULL;
	size_t at = 0;

	for (size_t i = 0; i < v->nprocs; i++) {
		const struct pv_proc *p = &v->procs[i];
		int same = same_file(p->exe, exe, real);

		while (at < v->nsamples && v->samples[at].proc < p->id)
			at++;
		for (; at < v->nsamples && v->samples[at].proc == p->id; at++) {
			const struct pv_sample *s = &v->samples[at];
			struct pv_map *m;
			uint64_t vaddr;

			if (!same)
				continue;
			m = (struct pv_map *)pview__map_of(v, p, s->pc);
			if (m && !m->aux) /* remember per mapping: realpath costs syscalls */
				m->aux = same_file(m->path, exe, real) ? AUX_MAIN : AUX_OTHER;
			if (!m || m->aux != AUX_MAIN ||
			    symobj__to_vaddr(obj, m->start, m->pgoff, s->pc, &vaddr) < 0 ||
			    vaddr < h->lo || vaddr >= h->hi) {
				h->outside += s->count;
				continue;
			}
			h->counts[(vaddr - h->lo) / h->bin_bytes] += s->count;
			h->in_text += s->count;
		}
	}
}

/* ---- call-graph arcs from the stacks ---------------------------------------- */

/* One arc: the key (from_pc, self_pc), and the samples whose stack held the edge. */
struct arc {
	uint64_t from, self;
	uint64_t count;
	uint64_t used; /* 1: an entry is never all zero */
};

static uint64_t arc_hash(const void *key)
{
	const struct arc *a = key;

	return htab_hash_u64(a->from ^ htab_hash_u64(a->self));
}

static bool arc_eq(const void *entry, const void *key)
{
	const struct arc *e = entry, *k = key;

	return e->from == k->from && e->self == k->self;
}

static const struct htab_type arc_type = {
	.entry_size = sizeof(struct arc),
	.hash = arc_hash,
	.eq = arc_eq,
};

/* Link-time address -> start of its function (symbolised once each). */
struct fstart {
	uint64_t vaddr1; /* vaddr + 1: never 0 */
	uint64_t start;
};

static const struct htab_type fstart_type = {
	.entry_size = sizeof(struct fstart),
	.hash = htab_u64_hash,
	.eq = htab_u64_eq,
};

struct arcs {
	struct htab *arcs;   /* struct arc */
	struct htab *starts; /* struct fstart */
	const char *exe, *exe_real;
	struct sym_object *obj;
	const struct hist *h;
};

/* A frame in the executable's text: its address and its function's start. */
struct text_pc {
	uint64_t vaddr, start;
	int in;
};

static int function_start(struct arcs *a, uint64_t vaddr, uint64_t *start)
{
	uint64_t key = vaddr + 1;
	struct fstart *e;
	struct sym_result res;
	bool fresh;

	e = htab__insert(a->starts, &fstart_type, &key, &fresh);
	if (!e)
		return -ENOMEM;
	if (fresh) {
		symobj__lookup(a->obj, vaddr, &res);
		*e = (struct fstart){key, res.start <= vaddr ? res.start : vaddr};
	}
	*start = e->start;
	return 0;
}

static int text_pc(struct arcs *a, const struct pview *v, const struct pv_proc *p, uint64_t pc,
		   struct text_pc *t)
{
	struct pv_map *m = (struct pv_map *)pview__map_of(v, p, pc);

	t->in = 0;
	if (pc >= PDATA_KERNEL_START || !m)
		return 0;
	if (!m->aux) /* as hist_fill: per mapping, realpath costs syscalls */
		m->aux = same_file(m->path, a->exe, a->exe_real) ? AUX_MAIN : AUX_OTHER;
	if (m->aux != AUX_MAIN || symobj__to_vaddr(a->obj, m->start, m->pgoff, pc, &t->vaddr) < 0 ||
	    t->vaddr < a->h->lo || t->vaddr >= a->h->hi)
		return 0;
	t->in = 1;
	return function_start(a, t->vaddr, &t->start);
}

static int arc_add(struct arcs *a, uint64_t from, uint64_t self, uint64_t count)
{
	struct arc key = {from, self, 0, 1}, *e;
	bool fresh;

	e = htab__insert(a->arcs, &arc_type, &key, &fresh);
	if (!e)
		return -ENOMEM;
	if (fresh)
		*e = key;
	e->count = e->count + count < e->count ? UINT64_MAX : e->count + count;
	return 0;
}

/*
 * The edges of one sample's stack: caller frame i + 1 -> callee frame i,
 * both in the executable, each pair of functions once per sample.
 */
static int sample_arcs(struct arcs *a, const struct pview *v, const struct pv_proc *p,
		       const struct pv_sample *s)
{
	uint64_t pcs[CALLGRAPH_MAX_FRAMES], seen[CALLGRAPH_MAX_FRAMES][2];
	struct text_pc t[CALLGRAPH_MAX_FRAMES];
	unsigned n, nseen = 0;
	int truncated, rc = 0;

	if (!s->stack || !s->count)
		return 0;
	n = callgraph__lookup_pcs(v, s, pcs, &truncated);
	n -= (unsigned)truncated; /* "[truncated]" is not a function */
	for (unsigned i = 0; !rc && i < n; i++)
		rc = text_pc(a, v, p, pcs[i], &t[i]);
	for (unsigned i = 0; !rc && i + 1 < n; i++) {
		unsigned k;

		if (!t[i].in || !t[i + 1].in)
			continue;
		for (k = 0; k < nseen; k++)
			if (seen[k][0] == t[i + 1].start && seen[k][1] == t[i].start)
				break;
		if (k < nseen)
			continue; /* recursion: the edge counts once per sample */
		seen[nseen][0] = t[i + 1].start;
		seen[nseen++][1] = t[i].start;
		rc = arc_add(a, t[i + 1].vaddr, t[i].start, s->count);
	}
	return rc;
}

static int cmp_arc(const void *x, const void *y)
{
	const struct arc *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->self > b->self) - (a->self < b->self);
}

/* The arcs of every sample of every image of the executable. */
static int arcs_fill(struct arcs *a, const struct pview *v)
{
	size_t at = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < v->nprocs; i++) {
		const struct pv_proc *p = &v->procs[i];
		int same = same_file(p->exe, a->exe, a->exe_real);

		while (at < v->nsamples && v->samples[at].proc < p->id)
			at++;
		for (; !rc && at < v->nsamples && v->samples[at].proc == p->id; at++)
			if (same)
				rc = sample_arcs(a, v, p, &v->samples[at]);
	}
	return rc;
}

static int put(FILE *f, const void *p, size_t n)
{
	errno = 0;
	return fwrite(p, 1, n, f) == n ? 0 : errno ? -errno : -EIO;
}

/* One histogram record carrying min(65535, count - base) of every bin. */
static int write_hist_record(FILE *f, const struct hist *h, uint32_t rate, uint64_t base)
{
	unsigned char hdr[1 + 8 + 8 + 4 + 4 + 15 + 1];
	uint64_t lo = h->lo, hi = h->hi;
	int32_t nbins = (int32_t)h->nbins, prate = (int32_t)rate;
	size_t at = 0;
	int rc;

	hdr[at++] = GMON_TAG_HIST;
	memcpy(hdr + at, &lo, 8), at += 8;
	memcpy(hdr + at, &hi, 8), at += 8;
	memcpy(hdr + at, &nbins, 4), at += 4;
	memcpy(hdr + at, &prate, 4), at += 4;
	memset(hdr + at, 0, 15);
	memcpy(hdr + at, "seconds", 7), at += 15;
	hdr[at++] = 's';
	rc = put(f, hdr, at);
	for (uint32_t i = 0; !rc && i < h->nbins; i++) {
		uint64_t c = h->counts[i] > base ? h->counts[i] - base : 0;
		/* up to 65535 per record; the last one saturates what could not be carried */
		uint16_t bin = (uint16_t)(c > BIN_MAX ? BIN_MAX : c);

		rc = put(f, &bin, 2);
	}
	return rc;
}

/* Tag 1 records: from_pc, self_pc (8 bytes each here), count (4 bytes), native order. */
static int write_arcs(FILE *f, const struct arc *arcs, size_t n)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		uint64_t left = arcs[i].count;

		while (!rc && left) {
			unsigned char rec[1 + 8 + 8 + 4];
			uint32_t c = left > ARC_COUNT_MAX ? ARC_COUNT_MAX : (uint32_t)left;

			rec[0] = GMON_TAG_CG_ARC;
			memcpy(rec + 1, &arcs[i].from, 8);
			memcpy(rec + 9, &arcs[i].self, 8);
			memcpy(rec + 17, &c, 4);
			rc = put(f, rec, sizeof(rec));
			left -= c;
		}
	}
	return rc;
}

static int write_gmon(FILE *f, const struct hist *h, uint32_t rate, uint64_t nrec,
		      const struct arc *arcs, size_t narcs)
{
	unsigned char hdr[20] = {0};
	int32_t version = GMON_VERSION;
	int rc;

	memcpy(hdr, GMON_MAGIC, 4);
	memcpy(hdr + 4, &version, 4);
	rc = put(f, hdr, sizeof(hdr));
	for (uint64_t r = 0; !rc && r < nrec; r++)
		rc = write_hist_record(f, h, rate, r * BIN_MAX);
	if (!rc)
		rc = write_arcs(f, arcs, narcs);
	return rc;
}

struct gmon_out {
	const struct hist *h;
	uint32_t rate;
	uint64_t nrec;
	const struct arc *arcs;
	size_t narcs;
};

static int fill_gmon(int fd, void *arg, char *why, size_t whylen)
{
	const struct gmon_out *g = arg;
	int dfd = dup(fd), rc;
	FILE *f = dfd < 0 ? NULL : fdopen(dfd, "wb");

	(void)why, (void)whylen;
	if (!f) {
		rc = -errno;
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	rc = write_gmon(f, g->h, g->rate, g->nrec, g->arcs, g->narcs);
	if (fflush(f) == EOF && !rc)
		rc = -errno;
	if (fclose(f) == EOF && !rc)
		rc = -errno;
	return rc;
}

static uint32_t gmon_rate(const struct pdata_header *hdr)
{
	double r = hdr->period_ns ? 1e9 / (double)hdr->period_ns : hdr->nominal_hz;

	if (r < 1)
		return 0;
	return r > INT32_MAX ? INT32_MAX : (uint32_t)llround(r);
}

int gmon_export(const char *data_path, const char *out_path, char *why, size_t whylen)
{
	return gmon_export_summary(data_path, out_path, NULL, why, whylen);
}

int gmon_export_summary(const char *data_path, const char *out_path, struct gmon_summary *sum,
			char *why, size_t whylen)
{
	struct pview *v = NULL;
	struct symbols *syms = NULL;
	struct sym_object *obj;
	struct hist h = {0};
	struct arcs arcs = {0};
	struct arc *arc_list = NULL;
	size_t narcs = 0;
	char exe_real[PATH_MAX];
	const char *exe;
	uint64_t max = 0, nrec, total_outside = 0;
	uint32_t rate;
	int rc;

	/* refused before any work (outfile__write checks again) */
	rc = outfile__check(out_path, &pdata__output_rules, why, whylen);
	if (rc < 0)
		return rc;
	rc = pview__load(&v, data_path, why, whylen);
	if (rc < 0)
		return rc;
	rate = gmon_rate(&v->hdr);
	exe = choose_exe(v);
	syms = symbols__new();
	if (!rate) {
		rc = why_fail(why, whylen, -EINVAL, "%s: the sampling rate is unknown", data_path);
		goto out;
	}
	if (!exe || !syms) {
		rc = why_fail(why, whylen, -ENOENT, "%s: %s", data_path,
			      syms ? "no executable recorded" : "out of memory");
		goto out;
	}
	obj = symbols__object(syms, exe);
	if (!obj || (symobj__flags(obj) & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF))) {
		rc = why_fail(why, whylen, -ENOENT, "cannot read the executable: %s",
			      obj ? symobj__why(obj) : "out of memory");
		goto out;
	}
	rc = hist_init(&h, obj);
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "%s: %s", exe,
			      rc == -ENOMEM ? "out of memory" : "no executable segment");
		goto out;
	}
	hist_fill(&h, v, exe, obj);
	arcs = (struct arcs){htab__new(&arc_type, 255),
			     htab__new(&fstart_type, 255),
			     exe,
			     realpath(exe, exe_real) ? exe_real : NULL,
			     obj,
			     &h};
	rc = arcs.arcs && arcs.starts ? arcs_fill(&arcs, v) : -ENOMEM;
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "out of memory");
		goto out;
	}
	arc_list = htab__take(arcs.arcs, &narcs);
	if (narcs > 1) /* the same file for the same profile: in address order */
		qsort(arc_list, narcs, sizeof(*arc_list), cmp_arc);
	for (uint32_t i = 0; i < h.nbins; i++)
		if (h.counts[i] > max)
			max = h.counts[i];
	/* without overflow: a damaged count can be close to 2^64 */
	nrec = max ? max / BIN_MAX + (max % BIN_MAX != 0) : 1;
	if (nrec > GMON_MAX_BYTES / (h.nbins * 2ull + 40)) {
		nrec = GMON_MAX_BYTES / (h.nbins * 2ull + 40);
		if (!nrec)
			nrec = 1;
		fprintf(stderr, "profil: warning: gmon.out bins saturate at %llu samples\n",
			(unsigned long long)(nrec * BIN_MAX));
	}
	rc = outfile__write(out_path, &pdata__output_rules, fill_gmon,
			    &(struct gmon_out){&h, rate, nrec, arc_list, narcs}, why, whylen);
	if (!rc && sum) {
		/* everything not in this executable's text: other programs, libraries */
		total_outside = v->total - h.in_text;
		snprintf(sum->exe, sizeof(sum->exe), "%s", exe);
		sum->rate = rate;
		sum->in_text = h.in_text;
		sum->outside = total_outside;
		sum->records = nrec;
		sum->saturated = max > nrec * BIN_MAX;
		sum->arcs = narcs;
	}
out:
	free(arc_list);
	htab__free(arcs.arcs);
	htab__free(arcs.starts);
	free(h.counts);
	symbols__free(syms);
	pview__free(v);
	return rc;
}
