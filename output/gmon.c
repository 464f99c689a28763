// SPDX-License-Identifier: MIT
/* gmon.out writer: see gmon.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils/array.h"
#include "utils/htab.h"
#include "utils/outfile.h"
#include "utils/why.h"
#include "utils/sat.h"
#include "utils/cmp.h"
#include "report/callgraph.h"
#include "output/export.h"
#include "output/gmon.h"
#include "profile/pdata.h"
#include "profile/pview.h"
#include "symbols/symbols.h"

#define GMON_MAGIC "gmon"
#define GMON_VERSION 1
#define GMON_TAG_HIST 0
#define GMON_TAG_CG_ARC 1
#define ARC_COUNT_MAX 0x7fffffffu /* per record: gprof reads a 32-bit count */
/*
 * Records of one arc at most: an arc saturates at 64 * (2^31 - 1) samples
 * (1.4e11: 16 days of one edge at 100 kHz), as bins do, so that a damaged
 * or hostile count (2^64 - 1: 8.6e9 records, 180 GB) costs 1.3 KiB.
 */
#define ARC_MAX_RECORDS 64
#define ARC_MAX_COUNT ((uint64_t)ARC_MAX_RECORDS * ARC_COUNT_MAX)
/*
 * Text bytes per bin: gprof's own resolution (its UNIT is 2 bytes).  Wider
 * bins would straddle function boundaries (functions need not be aligned,
 * e.g. at -O1) and gprof splits such a bin between both functions.
 */
#define GMON_BIN_BYTES 2
#define GMON_MAX_BINS (1u << 23)      /* wider bins beyond this */
#define GMON_MAX_BYTES (512ull << 20) /* beyond this, saturate instead of adding records */
#define BIN_MAX 65535u

struct hist {
	uint64_t lo, hi, bin_bytes;
	uint32_t nbins;
	uint64_t *counts;
	uint64_t in_text, outside;
};

/*
 * The objects of the profile's mappings, one per file (canonical path: the
 * same library under /lib and /usr/lib is one object), with their samples.
 * Each mapping's aux holds its object's index + 1 (0: not a file).
 */
struct gobj {
	const char *path; /* as the first mapping names it (owned by the pview) */
	char *real;	  /* canonical path */
	uint64_t samples;
};

struct objects {
	struct gobj *o;
	size_t n, cap;
	struct htab *by_path; /* struct str_ent: a mapping's path -> index */
	struct htab *by_real; /* struct str_ent: a canonical path -> index */
};

struct str_ent {
	uint64_t hash; /* never 0 */
	const char *s;
	size_t idx;
};

static uint64_t str_key_hash(const void *key)
{
	return htab_hash_str(*(const char *const *)key) | 1;
}

static bool str_ent_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct str_ent *)entry)->s, *(const char *const *)key);
}

static const struct htab_type str_type = {
	.entry_size = sizeof(struct str_ent),
	.hash = str_key_hash,
	.eq = str_ent_eq,
	.stored_hash = HTAB_STORED_HASH(struct str_ent, hash),
};

/* The index of s in t, added as idx when new; *fresh says which. NULL: out of memory. */
static struct str_ent *str_find_or_add(struct htab *t, const char *s, size_t idx, bool *fresh)
{
	struct str_ent *e = htab__insert(t, &str_type, &s, fresh);

	if (e && *fresh)
		*e = (struct str_ent){str_key_hash(&s), s, idx};
	return e;
}

static int object_of_real(struct objects *os, const char *path, char *real, size_t *idx)
{
	struct str_ent *e;
	bool fresh;

	if (array__reserve(&os->o, &os->cap, os->n + 1, sizeof(*os->o)))
		return -ENOMEM;
	e = str_find_or_add(os->by_real, real, os->n, &fresh);
	if (!e)
		return -ENOMEM;
	*idx = e->idx;
	if (!fresh) {
		free(real);
		return 0;
	}
	os->o[os->n++] = (struct gobj){path, real, 0};
	return 0;
}

/* The object index of a file mapping, + 1 (0: not a file). */
static int map_object(struct objects *os, struct pv_map *m)
{
	char buf[PATH_MAX], *real;
	struct str_ent *e;
	bool fresh;
	size_t idx;
	int rc;

	if (m->aux || m->path[0] != '/')
		return 0;
	e = str_find_or_add(os->by_path, m->path, 0, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh) {
		m->aux = (void *)(uintptr_t)(e->idx + 1);
		return 0;
	}
	/* realpath costs syscalls: once per distinct path */
	real = strdup(realpath(m->path, buf) ? buf : m->path);
	rc = real ? object_of_real(os, m->path, real, &idx) : -ENOMEM;
	if (rc < 0) {
		htab__cancel_fresh(os->by_path);
		free(real);
		return rc;
	}
	e = htab__find(os->by_path, &str_type, &(const char *){m->path});
	e->idx = idx;
	m->aux = (void *)(uintptr_t)(idx + 1);
	return 0;
}

static void objects_free(struct objects *os)
{
	ARRAY_FREE_FIELD(os->o, os->n, real);
	htab__free(os->by_path);
	htab__free(os->by_real);
}

/* Every mapping's object, and every sample counted in the object it hit. */
static int objects_load(struct objects *os, struct pview *v)
{
	const struct pv_proc *p = NULL;
	int rc = 0;

	os->by_path = htab__new(&str_type, 64);
	os->by_real = htab__new(&str_type, 64);
	if (!os->by_path || !os->by_real)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < v->nprocs; i++)
		for (size_t k = 0; !rc && k < v->procs[i].nmaps; k++)
			rc = map_object(os, &v->procs[i].maps[k]);
	for (size_t i = 0; !rc && i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];
		const struct pv_map *m;

		p = pview__sample_proc(v, s, p);
		m = p ? pview__map_of(v, p, s->gen, s->pc) : NULL;
		if (m && m->aux) {
			struct gobj *o = &os->o[(uintptr_t)m->aux - 1];

			o->samples = sat_add(o->samples, s->count);
		}
	}
	return rc;
}

/* The index of the root process's executable, or -1. */
static long root_exe(const struct objects *os, const struct pview *v)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < v->nprocs; i++) {
		const struct pv_proc *p = &v->procs[i];
		const char *real;

		if (p->pid != v->hdr.root_pid || !p->exe[0])
			continue;
		real = realpath(p->exe, buf) ? buf : p->exe;
		for (size_t k = 0; k < os->n; k++)
			if (!strcmp(os->o[k].real, real))
				return (long)k;
	}
	return -1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The object asked for: a path (any name of the file), or a base name. */
static int find_object(const struct objects *os, const char *want, size_t *idx, char *why,
		       size_t whylen)
{
	char buf[PATH_MAX];
	const char *real = realpath(want, buf) ? buf : want;
	long found = -1;

	for (size_t k = 0; k < os->n; k++) {
		const struct gobj *o = &os->o[k];
		int match = strchr(want, '/') ? !strcmp(o->real, real) || !strcmp(o->path, want) :
						!strcmp(base_name(o->real), want) ||
							!strcmp(base_name(o->path), want);

		if (!match)
			continue;
		if (found >= 0)
			return why_fail(why, whylen, -EINVAL,
					"--object %s is ambiguous: %s and %s; give the path", want,
					os->o[found].path, o->path);
		found = (long)k;
	}
	if (found < 0)
		return why_fail(why, whylen, -ENOENT,
				"--object %s: no process of the profile mapped such an object",
				want);
	*idx = (size_t)found;
	return 0;
}

static uint64_t total_in_objects(const struct objects *os)
{
	uint64_t t = 0;

	for (size_t k = 0; k < os->n; k++)
		t += os->o[k].samples;
	return t;
}

/* The object with the most samples (ties: the root's executable, then the first). */
static long choose_object(const struct objects *os, const struct pview *v)
{
	long best = root_exe(os, v);

	for (size_t k = 0; k < os->n; k++)
		if (best < 0 || os->o[k].samples > os->o[best].samples)
			best = (long)k;
	return best;
}

static size_t objects_with_samples(const struct objects *os)
{
	size_t n = 0;

	for (size_t k = 0; k < os->n; k++)
		n += os->o[k].samples > 0;
	return n;
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

/* Add every sample of every image that falls in the text of object idx. */
static void hist_fill(struct hist *h, const struct pview *v, size_t idx, struct sym_object *obj)
{
	const struct pv_proc *p = NULL;

	for (size_t i = 0; i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];
		const struct pv_map *m;
		uint64_t vaddr;

		p = pview__sample_proc(v, s, p);
		m = p ? pview__map_of(v, p, s->gen, s->pc) : NULL;
		if (!m || (uintptr_t)m->aux != idx + 1 ||
		    symobj__to_vaddr(obj, m->start, m->pgoff, s->pc, &vaddr) < 0 || vaddr < h->lo ||
		    vaddr >= h->hi) {
			h->outside = sat_add(h->outside, s->count);
			continue;
		}
		h->counts[(vaddr - h->lo) / h->bin_bytes] =
			sat_add(h->counts[(vaddr - h->lo) / h->bin_bytes], s->count);
		h->in_text = sat_add(h->in_text, s->count);
	}
}

/* ---- call-graph arcs from the stacks ---------------------------------------- */

/* One arc: the key (from_pc, self_pc), and the samples whose stack held the edge. */
struct arc {
	uint64_t from, self;
	uint64_t count;
	uint64_t used; /* 1: an entry is never all zero */
};

static const struct htab_type arc_type = {
	.entry_size = sizeof(struct arc),
	.hash = htab_2words_hash,
	.eq = htab_2words_eq,
};

/* Link-time address -> start of its function (symbolised once each). */
struct fstart {
	uint64_t vaddr1; /* vaddr + 1: never 0 */
	uint64_t start;
};

static const struct htab_type fstart_type = HTAB_U64_TYPE(struct fstart);

struct arcs {
	struct htab *arcs;   /* struct arc */
	struct htab *starts; /* struct fstart */
	size_t idx;	     /* the object's index: its mappings' aux is idx + 1 */
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

static int text_pc(struct arcs *a, const struct pview *v, const struct pv_proc *p, uint32_t gen,
		   uint64_t pc, struct text_pc *t)
{
	struct pv_map *m = (struct pv_map *)pview__map_of(v, p, gen, pc);

	t->in = 0;
	if (pc >= PDATA_KERNEL_START || !m)
		return 0;
	if ((uintptr_t)m->aux != a->idx + 1 ||
	    symobj__to_vaddr(a->obj, m->start, m->pgoff, pc, &t->vaddr) < 0 ||
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
	e->count = sat_add(e->count, count);
	return 0;
}

/*
 * The edges of one sample's stack: caller frame i + 1 -> callee frame i,
 * both in the executable, each pair of functions once per sample.
 */
static int sample_arcs(struct arcs *a, const struct pview *v, const struct pv_proc *p,
		       const struct pv_sample *s)
{
	uint64_t pcs[CALLGRAPH_MAX_PCS], seen[CALLGRAPH_MAX_PCS][2];
	struct text_pc t[CALLGRAPH_MAX_PCS];
	unsigned n, nseen = 0;
	int truncated, rc = 0;

	if (!s->stack || !s->count)
		return 0;
	n = callgraph__lookup_pcs(v, s, pcs, &truncated);
	n -= (unsigned)truncated; /* "[truncated]" is not a function */
	for (unsigned i = 0; !rc && i < n; i++)
		rc = text_pc(a, v, p, s->gen, pcs[i], &t[i]);
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

	return CMP(a->from, b->from) ?: CMP(a->self, b->self);
}

/* The arcs of every sample of every image: edges whose two frames are in the object. */
static int arcs_fill(struct arcs *a, const struct pview *v)
{
	const struct pv_proc *p = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < v->nsamples; i++) {
		p = pview__sample_proc(v, &v->samples[i], p);
		if (p)
			rc = sample_arcs(a, v, p, &v->samples[i]);
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

/*
 * Tag 1 records: from_pc, self_pc (8 bytes each here), count (4 bytes),
 * native order; an arc's count saturated at ARC_MAX_COUNT.
 */
static int write_arcs(FILE *f, const struct arc *arcs, size_t n)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		uint64_t left = arcs[i].count > ARC_MAX_COUNT ? ARC_MAX_COUNT : arcs[i].count;

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

static int fill_gmon(FILE *f, void *arg, char *why, size_t whylen)
{
	const struct gmon_out *g = arg;

	(void)why, (void)whylen;
	return write_gmon(f, g->h, g->rate, g->nrec, g->arcs, g->narcs);
}

static uint32_t gmon_rate(const struct pdata_header *hdr)
{
	double r = hdr->period_ns ? 1e9 / (double)hdr->period_ns : hdr->nominal_hz;

	if (r < 1)
		return 0;
	return r > INT32_MAX ? INT32_MAX : (uint32_t)llround(r);
}

/* Why this object, and what gprof will make of its symbols. */
static void explain(struct gmon_summary *sum, const struct pview *v, const struct objects *os,
		    size_t idx, const struct sym_object *obj, int asked)
{
	unsigned fl = symobj__flags(obj);
	uint64_t total = total_in_objects(os);

	sum->chosen = !asked;
	sum->objects = objects_with_samples(os);
	sum->offcpu_ns = v->offcpu_total; /* left out: gmon.out is CPU time only */
	if (asked)
		snprintf(sum->why, sizeof(sum->why), "the object asked for (--object)");
	else if (os->o[idx].samples)
		snprintf(sum->why, sizeof(sum->why),
			 "chosen as the object with the most samples (%llu of %llu in %zu "
			 "object%s; --object PATH picks another)",
			 (unsigned long long)os->o[idx].samples, (unsigned long long)total,
			 sum->objects, sum->objects == 1 ? "" : "s");
	else
		snprintf(sum->why, sizeof(sum->why),
			 "chosen as the root process's executable: no sample is in any object "
			 "(--object PATH picks another)");
	sum->warning[0] = 0;
	if (fl & (SYMOBJ_DYNSYM | SYMOBJ_NOSYMS))
		snprintf(sum->warning, sizeof(sum->warning),
			 "%s has no symbol table (stripped): gprof will say it has no symbols; "
			 "use an unstripped build of it (profil report names what it can)",
			 os->o[idx].path);
	else if (fl & SYMOBJ_DEBUG_SYMS)
		snprintf(sum->warning, sizeof(sum->warning),
			 "%s is stripped: its symbols are in a separate debug file, which gprof "
			 "does not read",
			 os->o[idx].path);
}

void gmon_print_summary(FILE *out, const char *prefix, const char *out_path,
			const struct gmon_summary *sum)
{
	char arcs[64] = "";

	if (sum->arcs)
		snprintf(arcs, sizeof(arcs), ", %zu call-graph arc%s", sum->arcs,
			 sum->arcs == 1 ? "" : "s");
	fprintf(out,
		"%s: %s: %llu samples of %s at %u Hz (%llu elsewhere left out)%s%s%s; %s; "
		"read it with: gprof %s %s\n",
		prefix, out_path, (unsigned long long)sum->in_text, sum->exe, sum->rate,
		(unsigned long long)sum->outside, sum->saturated ? ", some bins saturated" : "",
		arcs, sum->arcs_saturated ? " (some saturated)" : "", sum->why, sum->exe, out_path);
	if (sum->warning[0])
		fprintf(out, "%s: warning: %s\n", prefix, sum->warning);
	if (sum->offcpu_ns)
		fprintf(out,
			"%s: %s holds CPU time only: the profile's %.3f s off the CPU are left "
			"out (profil report, pprof and folded --value off-cpu show them)\n",
			prefix, out_path, (double)sum->offcpu_ns / 1e9);
}

/* The object to export: asked for, else chosen.  0, or -errno with why. */
static int pick(const struct objects *os, const struct pview *v, const struct gmon_opts *o,
		const char *data_path, size_t *idx, char *why, size_t whylen)
{
	long best;

	if (o && o->object)
		return find_object(os, o->object, idx, why, whylen);
	best = choose_object(os, v);
	if (best < 0)
		return why_fail(why, whylen, -ENOENT, "%s: no object recorded", data_path);
	*idx = (size_t)best;
	return 0;
}

int gmon_export_opts(const char *data_path, const char *out_path, const struct gmon_opts *o,
		     struct gmon_summary *sum, char *why, size_t whylen)
{
	struct objects os = {0};
	struct pview *v = NULL;
	struct symbols *syms = NULL;
	struct sym_object *obj;
	struct gmon_summary local;
	struct hist h = {0};
	struct arcs arcs = {0};
	struct arc *arc_list = NULL;
	size_t narcs = 0;
	uint64_t max = 0, nrec;
	uint32_t rate;
	size_t idx = 0;
	int rc;

	if (!sum)
		sum = &local;
	rc = export__load_view(&v, data_path, out_path, why, whylen);
	if (rc < 0)
		return rc;
	rate = gmon_rate(&v->hdr);
	syms = symbols__new();
	if (!rate) {
		rc = why_fail(why, whylen, -EINVAL, "%s: the sampling rate is unknown", data_path);
		goto out;
	}
	rc = syms ? objects_load(&os, v) : -ENOMEM;
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "%s: out of memory", data_path);
		goto out;
	}
	rc = pick(&os, v, o, data_path, &idx, why, whylen);
	if (rc < 0)
		goto out;
	obj = symbols__object(syms, os.o[idx].real);
	if (!obj || (symobj__flags(obj) & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF))) {
		rc = why_fail(why, whylen, -ENOENT, "cannot read %s: %s", os.o[idx].path,
			      obj ? symobj__why(obj) : "out of memory");
		goto out;
	}
	rc = hist_init(&h, obj);
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "%s: %s", os.o[idx].path,
			      rc == -ENOMEM ? "out of memory" : "no executable segment");
		goto out;
	}
	hist_fill(&h, v, idx, obj);
	arcs = (struct arcs){htab__new(&arc_type, 255), htab__new(&fstart_type, 255), idx, obj, &h};
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
			nrec = 1; /* the summary says "some bins saturated" */
	}
	rc = outfile__write_stream(out_path, &pdata__output_rules, fill_gmon,
				   &(struct gmon_out){&h, rate, nrec, arc_list, narcs}, why,
				   whylen);
	if (!rc) {
		snprintf(sum->exe, sizeof(sum->exe), "%s", os.o[idx].path);
		sum->rate = rate;
		sum->in_text = h.in_text;
		/* everything not in this object's text: other objects, the kernel */
		sum->outside = v->total - h.in_text;
		sum->records = nrec;
		sum->saturated = max > nrec * BIN_MAX;
		sum->arcs = narcs;
		sum->arcs_saturated = 0;
		for (size_t i = 0; i < narcs; i++)
			sum->arcs_saturated |= arc_list[i].count > ARC_MAX_COUNT;
		explain(sum, v, &os, idx, obj, o && o->object);
	}
out:
	free(arc_list);
	htab__free(arcs.arcs);
	htab__free(arcs.starts);
	free(h.counts);
	objects_free(&os);
	symbols__free(syms);
	pview__free(v);
	return rc;
}
