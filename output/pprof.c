// SPDX-License-Identifier: MIT
/* pprof export: see pprof.h for the model and the choice of addresses. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "utils/buildid.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "profile/pdata.h"
#include "output/export.h"
#include "output/output.h"
#include "output/pprof.h"
#include "report/report.h"
#include "output/profile.pb-c.h"
#include "symbols/symbols.h"
#include "utils/cgroup.h"
#include "utils/outfile.h"
#include "utils/sat.h"
#include "utils/utf8.h"
#include "utils/why.h"

#ifndef PROFIL_VERSION
#define PROFIL_VERSION "?"
#endif

/* The generated message types, shorter. */
#define PB(type) Perftools__Profiles__##type

#define GZ_IN_SIZE (256u << 10) /* encoded bytes gathered before deflate */
#define GZ_OUT_SIZE (64u << 10)
#define GZ_LEVEL 1 /* fastest: profiles compress well anyway (as Go's runtime does) */

/* ---- the profile being built ----------------------------------------------- */

struct strtab {
	char **strs; /* owned; strs[0] = "" */
	size_t n, cap;
	struct htab *idx;
};

/* What a Location stands for (parallel to ctx.locs). */
struct loc_key {
	const struct sym_object *obj;
	uint64_t addr;
	int linktime;
};

/* One Mapping per (object, kind of address), and what its locations say. */
struct map_info {
	struct sym_object *obj;
	int linktime;
	uint64_t lo, hi; /* location addresses seen: [lo, hi] */
	int has_files, has_lines;
};

struct loc_inl {
	size_t first;
	uint32_t n;
};

struct func_key {
	int64_t name, system_name, filename, start_line;
};

struct label_set {
	uint32_t proc;
	int tid;
	size_t first, n; /* in ctx.labels */
	uint32_t reason; /* off-CPU samples: enum pdata_kind, else 0 */
	int base;	 /* a sample of the diff's base (OLD): labelled pprof::base */
};

/* A node of the samples' location-id tree. */
struct loc_node {
	uint64_t loc;
	uint32_t parent;
	uint32_t pad;
};

/* (parent, location id) -> node */
struct loc_node_ent {
	uint64_t loc;
	uint32_t parent;
	uint32_t node; /* >= 1: never all zero */
};

static uint64_t loc_node_hash(const void *key)
{
	const struct loc_node_ent *k = key;

	return htab_hash_u64(k->loc ^ htab_hash_u64(k->parent));
}

static bool loc_node_eq(const void *entry, const void *key)
{
	const struct loc_node_ent *e = entry, *k = key;

	return e->loc == k->loc && e->parent == k->parent;
}

static const struct htab_type loc_node_type = {
	.entry_size = sizeof(struct loc_node_ent),
	.hash = loc_node_hash,
	.eq = loc_node_eq, /* an entry starts with its key (loc, parent): hash(entry) is its hash */
};

struct pprof_ctx {
	const struct pview *v;
	struct resolver *r;
	struct report *rep; /* for the time without samples; NULL: samples only */
	int64_t period;
	size_t nvalues;	    /* [samples, cpu], and off_cpu with off-CPU time */
	uint64_t offcpu_ns; /* written as off_cpu values */
	int base; /* adding a diff's base (OLD): values negated, labels pprof::base=true */
	struct strtab st;
	/* locations (one Line each) */
	PB(Location) * locs;
	PB(Line) * lines;
	struct loc_key *loc_keys;
	size_t nlocs, locs_cap, lines_cap, keys_cap;
	/* the Lines of functions inlined at a location, before its own (xlines[first, +n)) */
	struct loc_inl *loc_inl;
	size_t inl_cap;
	PB(Line) * xlines;
	size_t nxlines, xlines_cap;
	struct htab *loc_idx;
	/* functions */
	PB(Function) * funcs;
	struct func_key *func_keys;
	size_t nfuncs, funcs_cap, fkeys_cap;
	struct htab *func_idx;
	/* mappings */
	PB(Mapping) * maps;
	struct map_info *map_infos;
	size_t nmaps, maps_cap, infos_cap;
	/* label sets, per (proc, tid) */
	PB(Label) * labels;
	size_t nlabels, labels_cap;
	struct label_set *sets;
	size_t nsets, sets_cap;
	struct htab *set_idx;
	/*
	 * samples: values [count, cpu] in a flat array; location ids as a tree
	 * of (parent, location id) nodes from the outermost frame inwards, a
	 * sample holding its innermost node: samples that share their callers
	 * share their nodes (memory per node, not samples x depth), and a
	 * sample's ids are read back when it is packed (pack_samples).
	 */
	PB(Sample) * samples;
	uint32_t *sample_set;
	uint32_t *sample_node;
	int64_t *values;
	struct loc_node *lnodes; /* [0] unused: node 0 is "no caller" */
	struct htab *lnode_idx;	 /* of struct loc_node_ent */
	struct htab *caller_idx; /* of struct caller_ent */
	size_t nsamples, samples_cap, set_cap, node_cap, values_cap, nlnodes, lnodes_cap;
	uint64_t total;
	uint64_t timed_ns;     /* CPU time of the samples without a count (c->rep) */
	size_t first_base;     /* a diff: the first sample of the base (OLD); else SIZE_MAX */
	const char *diff_note; /* a diff: the comment that says so */
};

static int str_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct strtab *st = ctx;

	return !strcmp(st->strs[idx], key);
}

/* Index of s in the string table (a sanitised copy is added once); -ENOMEM. */
static int64_t str_index(struct pprof_ctx *c, const char *s)
{
	struct strtab *st = &c->st;
	struct htab_islot *slot;
	uint64_t h;
	char *copy;

	if (!s || !*s)
		return 0;
	copy = utf8__dup_valid(s, strlen(s));
	if (!copy)
		return -ENOMEM;
	h = htab_hash_str(copy);
	slot = htab__index_slot(&st->idx, h, str_eq, st, copy);
	if (!slot || slot->idx1) {
		free(copy);
		return slot ? (int64_t)slot->idx1 - 1 : -ENOMEM;
	}
	if (array__reserve((void **)&st->strs, &st->cap, st->n + 1, sizeof(*st->strs)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	st->strs[st->n] = copy;
	*slot = (struct htab_islot){h, ++st->n};
	return (int64_t)st->n - 1;
}

static int strtab_init(struct strtab *st)
{
	st->strs = calloc(64, sizeof(*st->strs));
	if (!st->strs)
		return -ENOMEM;
	st->cap = 64;
	st->strs[0] = strdup("");
	st->n = st->strs[0] ? 1 : 0;
	return st->n ? 0 : -ENOMEM;
}

/* A count as a protobuf int64 (saturating: the file's counts are untrusted). */
static int64_t clamp64(uint64_t n)
{
	return n > INT64_MAX ? INT64_MAX : (int64_t)n;
}

static int64_t cpu_ns(uint64_t count, int64_t period)
{
	if (period <= 0 || !count)
		return 0;
	if (count > (uint64_t)INT64_MAX / (uint64_t)period)
		return INT64_MAX;
	return (int64_t)(count * (uint64_t)period);
}

/* ---- mappings ---------------------------------------------------------------- */

static int64_t build_id_string(struct pprof_ctx *c, const struct sym_object *o)
{
	const unsigned char *id;
	size_t n = symobj__build_id(o, &id);
	char hex[2 * BUILDID_MAX + 1];

	if (buildid__hex(id, n, 0, hex, sizeof(hex)) < 0)
		return 0;
	return str_index(c, hex);
}

/* Index of the mapping of (obj, linktime), created on first use; -ENOMEM. */
static long mapping_of(struct pprof_ctx *c, struct sym_object *obj, int linktime)
{
	PB(Mapping) * m;
	struct map_info *mi;
	int64_t file, bid = 0;
	unsigned fl = symobj__flags(obj);

	for (size_t i = 0; i < c->nmaps; i++) /* few objects: a scan is enough */
		if (c->map_infos[i].obj == obj && c->map_infos[i].linktime == linktime)
			return (long)i;
	file = str_index(c, symobj__path(obj));
	if (!(fl & (SYMOBJ_MISSING | SYMOBJ_NOT_ELF | SYMOBJ_PSEUDO)))
		bid = build_id_string(c, obj);
	if (file < 0 || bid < 0 ||
	    array__reserve((void **)&c->maps, &c->maps_cap, c->nmaps + 1, sizeof(*c->maps)) < 0 ||
	    array__reserve((void **)&c->map_infos, &c->infos_cap, c->nmaps + 1,
			   sizeof(*c->map_infos)) < 0)
		return -ENOMEM;
	m = &c->maps[c->nmaps];
	perftools__profiles__mapping__init(m);
	m->id = c->nmaps + 1;
	m->filename = file;
	m->build_id = bid;
	/* names from the object's own symbols or unwind tables (see resolve.c) */
	m->has_functions = linktime;
	mi = &c->map_infos[c->nmaps];
	memset(mi, 0, sizeof(*mi));
	mi->obj = obj;
	mi->linktime = linktime;
	mi->lo = UINT64_MAX;
	return (long)c->nmaps++;
}

/* Address range and file offset of every mapping, from the addresses of its locations. */
static void finish_mappings(struct pprof_ctx *c)
{
	for (size_t i = 0; i < c->nmaps; i++) {
		PB(Mapping) *m = &c->maps[i];
		struct map_info *mi = &c->map_infos[i];
		uint64_t lo = mi->lo, hi = mi->hi, tlo, thi, off;

		if (lo > hi)
			lo = hi = 0;
		m->has_filenames = mi->has_files;
		m->has_line_numbers = mi->has_lines;
		if (mi->linktime) {
			/* the executable segments, widened to every location */
			if (symobj__text_range(mi->obj, &tlo, &thi) < 0) {
				tlo = lo & ~4095ull;
				thi = (hi | 4095ull) + 1;
			}
			m->memory_start = lo < tlo ? lo : tlo;
			m->memory_limit = hi >= thi ? hi + 1 : thi;
			if (symobj__vaddr_to_offset(mi->obj, m->memory_start, &off) == 0)
				m->file_offset = off;
		} else if (symobj__flags(mi->obj) & SYMOBJ_PSEUDO) {
			m->memory_start = 0;
			m->memory_limit = hi + 1;
		} else {
			/* file offsets as addresses, by 4 KiB page */
			m->memory_start = lo & ~4095ull;
			m->memory_limit = (hi | 4095ull) + 1;
			m->file_offset = m->memory_start;
		}
		if (m->memory_limit <= m->memory_start) /* hi at the very top */
			m->memory_limit = UINT64_MAX;
	}
}

/* The main program first: the mapping of the root process's executable (ids follow). */
static void main_mapping_first(struct pprof_ctx *c)
{
	const struct pview *v = c->v;
	const char *exe = NULL;
	size_t k;

	for (size_t i = 0; i < v->nprocs && !exe; i++)
		if (v->procs[i].pid == v->hdr.root_pid && v->procs[i].exe[0])
			exe = v->procs[i].exe;
	for (k = 0; exe && k < c->nmaps; k++)
		if (c->map_infos[k].linktime && !strcmp(symobj__path(c->map_infos[k].obj), exe))
			break;
	if (!exe || k == 0 || k == c->nmaps)
		return;
	for (size_t i = 0; i < c->nlocs; i++) {
		if (c->locs[i].mapping_id == k + 1)
			c->locs[i].mapping_id = 1;
		else if (c->locs[i].mapping_id && c->locs[i].mapping_id <= k)
			c->locs[i].mapping_id++;
	}
	{
		PB(Mapping) m = c->maps[k];
		struct map_info mi = c->map_infos[k];

		memmove(c->maps + 1, c->maps, k * sizeof(*c->maps));
		memmove(c->map_infos + 1, c->map_infos, k * sizeof(*c->map_infos));
		c->maps[0] = m;
		c->map_infos[0] = mi;
	}
	for (size_t i = 0; i < c->nmaps; i++)
		c->maps[i].id = i + 1;
}

/* ---- functions ----------------------------------------------------------------- */

static int func_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pprof_ctx *c = ctx;

	return !memcmp(&c->func_keys[idx], key, sizeof(struct func_key));
}

/* Id of the function (name, system name, file, start line), created on first use; -ENOMEM. */
static int64_t function_id(struct pprof_ctx *c, const struct func_key *k)
{
	uint64_t h = htab_hash_combine(
		htab_hash_combine((uint64_t)k->name, (uint64_t)k->system_name),
		htab_hash_combine((uint64_t)k->filename, (uint64_t)k->start_line));
	struct htab_islot *slot = htab__index_slot(&c->func_idx, h, func_eq, c, k);
	PB(Function) * f;

	if (!slot)
		return -ENOMEM;
	if (slot->idx1)
		return slot->idx1;
	if (array__reserve((void **)&c->funcs, &c->funcs_cap, c->nfuncs + 1, sizeof(*c->funcs)) <
		    0 ||
	    array__reserve((void **)&c->func_keys, &c->fkeys_cap, c->nfuncs + 1,
			   sizeof(*c->func_keys)) < 0)
		return -ENOMEM;
	f = &c->funcs[c->nfuncs];
	perftools__profiles__function__init(f);
	f->id = c->nfuncs + 1;
	f->name = k->name;
	f->system_name = k->system_name;
	f->filename = k->filename;
	f->start_line = k->start_line;
	c->func_keys[c->nfuncs] = *k;
	*slot = (struct htab_islot){h, ++c->nfuncs};
	return (int64_t)c->nfuncs;
}

/*
 * The function of a location: report's name; the symbol's own (mangled)
 * name; the location's source file; the line of the function's first
 * instruction when that is in the same file.
 */
static int64_t location_function(struct pprof_ctx *c, const struct resolve_loc *rl,
				 const struct func *f)
{
	struct func_key k = {0};
	struct sym_result res;
	const char *sysname = f->name, *file;
	int line;

	if (rl->linktime) {
		symobj__lookup(rl->obj, rl->addr, &res);
		if (res.from_symbol && res.system_name)
			sysname = res.system_name;
		if (f->file && symobj__srcline(rl->obj, res.start, &file, &line) == 0 &&
		    !strcmp(file, f->file))
			k.start_line = line;
	}
	k.name = str_index(c, f->name);
	k.system_name = str_index(c, sysname);
	k.filename = str_index(c, f->file);
	if (k.name < 0 || k.system_name < 0 || k.filename < 0)
		return -ENOMEM;
	return function_id(c, &k);
}

/* ---- locations ------------------------------------------------------------------ */

static int loc_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pprof_ctx *c = ctx;
	const struct loc_key *a = &c->loc_keys[idx], *b = key;

	return a->obj == b->obj && a->addr == b->addr && a->linktime == b->linktime;
}

/*
 * Location c->nlocs (not yet counted) with its one Line: function fid at
 * line (0: unknown), mapping mi (-1: none), its key.  The caller counts it.
 * Returns the Line, or NULL when out of memory.
 */
static PB(Line) * push_location(struct pprof_ctx *c, const struct loc_key *key, int64_t fid,
				long mi, int line)
{
	PB(Location) * l;
	PB(Line) * ln;

	if (array__reserve((void **)&c->locs, &c->locs_cap, c->nlocs + 1, sizeof(*c->locs)) < 0 ||
	    array__reserve((void **)&c->lines, &c->lines_cap, c->nlocs + 1, sizeof(*c->lines)) <
		    0 ||
	    array__reserve((void **)&c->loc_keys, &c->keys_cap, c->nlocs + 1,
			   sizeof(*c->loc_keys)) < 0 ||
	    array__reserve((void **)&c->loc_inl, &c->inl_cap, c->nlocs + 1, sizeof(*c->loc_inl)) <
		    0)
		return NULL;
	c->loc_inl[c->nlocs] = (struct loc_inl){c->nxlines, 0};
	l = &c->locs[c->nlocs];
	perftools__profiles__location__init(l);
	l->id = c->nlocs + 1;
	l->address = key->addr;
	l->mapping_id = mi < 0 ? 0 : (uint64_t)mi + 1;
	ln = &c->lines[c->nlocs];
	perftools__profiles__line__init(ln);
	ln->function_id = (uint64_t)fid;
	ln->line = line > 0 ? line : 0;
	c->loc_keys[c->nlocs] = *key;
	return ln;
}

/* A Line of a function inlined at location idx (frame f of its chain). */
static int push_inline_line(struct pprof_ctx *c, size_t idx, const struct func *f)
{
	struct func_key k = {0};
	int64_t fid;
	PB(Line) * ln;

	k.name = k.system_name = str_index(c, f->name);
	k.filename = str_index(c, f->file);
	if (k.name < 0 || k.filename < 0)
		return -ENOMEM;
	fid = function_id(c, &k);
	if (fid < 0 ||
	    array__reserve((void **)&c->xlines, &c->xlines_cap, c->nxlines + 1, sizeof(*c->xlines)))
		return -ENOMEM;
	ln = &c->xlines[c->nxlines++];
	perftools__profiles__line__init(ln);
	ln->function_id = (uint64_t)fid;
	ln->line = f->line > 0 ? f->line : 0;
	c->loc_inl[idx].n++;
	return 0;
}

/*
 * A location: its mapping, then its Lines: the functions inlined at its
 * address, innermost first, then its own function at the call of the
 * outermost inlined one (pprof: the last Line is the function the others
 * were inlined into).
 */
static int new_location(struct pprof_ctx *c, const struct pv_proc *p, uint32_t gen, uint64_t pc,
			const struct resolve_loc *rl)
{
	const struct loc_key key = {rl->obj, rl->addr, rl->linktime};
	const struct func *chain[RESOLVE_MAX_INLINE + 1];
	int n = resolver__frames(c->r, p, gen, pc, 0, chain, RESOLVE_MAX_INLINE + 1);
	const struct func *own = n > 0 ? chain[n - 1] : rl->f;
	int64_t fid = n < 0 ? -ENOMEM : location_function(c, rl, own);
	PB(Line) * ln;
	long mi = -1;

	if (fid < 0)
		return -ENOMEM;
	if (rl->obj) {
		mi = mapping_of(c, rl->obj, rl->linktime);
		if (mi < 0)
			return -ENOMEM;
	}
	ln = push_location(c, &key, fid, mi, own->line);
	if (!ln)
		return -ENOMEM;
	for (int i = 0; i + 1 < n; i++)
		if (push_inline_line(c, c->nlocs, chain[i]) < 0)
			return -ENOMEM;
	if (mi >= 0) {
		struct map_info *m = &c->map_infos[mi];

		if (rl->addr < m->lo)
			m->lo = rl->addr;
		if (rl->addr > m->hi)
			m->hi = rl->addr;
		m->has_files |= own->file != NULL;
		m->has_lines |= ln->line > 0;
	}
	return 0;
}

/*
 * Id of the location of pc in process image p; callers (!leaf) are looked up
 * at pc - 1, except the pseudo PC of a cut-short stack (and a damaged 0).
 */
static int64_t location_id(struct pprof_ctx *c, const struct pv_proc *p, uint32_t gen, uint64_t pc,
			   int leaf, uint64_t count)
{
	struct resolve_loc rl;
	struct loc_key key;
	struct htab_islot *slot;
	uint64_t h;

	if (!leaf && pc != PDATA_PC_TRUNCATED && pc)
		pc--;
	if (resolver__locate(c->r, p, gen, pc, leaf ? count : 0, &rl) < 0)
		return -ENOMEM;
	key = (struct loc_key){rl.obj, rl.addr, rl.linktime};
	h = htab_hash_combine(htab_hash_combine((uintptr_t)key.obj, key.addr),
			      (uint64_t)key.linktime);
	slot = htab__index_slot(&c->loc_idx, h, loc_eq, c, &key);
	if (!slot)
		return -ENOMEM;
	if (!slot->idx1) {
		if (new_location(c, p, gen, pc, &rl) < 0)
			return -ENOMEM;
		*slot = (struct htab_islot){h, ++c->nlocs};
	}
	return slot->idx1;
}

/* ---- labels --------------------------------------------------------------------- */

static int set_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pprof_ctx *c = ctx;
	const struct label_set *a = &c->sets[idx], *b = key;

	return a->proc == b->proc && a->tid == b->tid && a->reason == b->reason &&
	       a->base == b->base;
}

static int add_label(struct pprof_ctx *c, const char *key, const char *str, int64_t num)
{
	PB(Label) * l;
	int64_t k = str_index(c, key), s = str ? str_index(c, str) : 0;

	if (k < 0 || s < 0 ||
	    array__reserve((void **)&c->labels, &c->labels_cap, c->nlabels + 1,
			   sizeof(*c->labels)) < 0)
		return -ENOMEM;
	l = &c->labels[c->nlabels++];
	perftools__profiles__label__init(l);
	l->key = k;
	l->str = s;
	l->num = str ? 0 : num;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * A whole machine's profile: the host, and where the process ran, as the
 * fleet's servers group by them (Pyroscope's and Parca's series labels).
 */
static int add_machine_labels(struct pprof_ctx *c, const struct pv_proc *p)
{
	char label[96];
	int rc = 0;

	if (c->v->hdr.hostname[0])
		rc = add_label(c, "host", c->v->hdr.hostname, 0);
	if (!rc && p->cgroup[0])
		rc = add_label(c, "cgroup", p->cgroup, 0);
	if (!rc && cgroup__label(p->cgroup, label, sizeof(label)))
		rc = add_label(c, "container", label, 0);
	if (!rc && p->nspid && p->nspid != p->pid)
		rc = add_label(c, "nspid", NULL, p->nspid);
	return rc;
}

/* Index of the label set of thread tid of image p, created on first use; -ENOMEM. */
static long label_set(struct pprof_ctx *c, const struct pv_proc *p, int tid, uint32_t reason)
{
	struct label_set key = {p->id, tid, 0, 0, reason, c->base}, *set;
	uint64_t h = htab_hash_combine(htab_hash_combine(p->id, (uint32_t)tid),
				       reason | (uint64_t)c->base << 32);
	struct htab_islot *slot = htab__index_slot(&c->set_idx, h, set_eq, c, &key);
	const struct pv_thread *th = pv_proc__thread(p, tid);
	int rc;

	if (!slot)
		return -ENOMEM;
	if (slot->idx1)
		return (long)slot->idx1 - 1;
	if (array__reserve((void **)&c->sets, &c->sets_cap, c->nsets + 1, sizeof(*c->sets)) < 0)
		return -ENOMEM;
	key.first = c->nlabels;
	rc = add_label(c, "pid", NULL, p->pid);
	if (!rc)
		rc = add_label(c, "tid", NULL, tid);
	if (!rc && p->exe[0])
		rc = add_label(c, "process_comm", base_name(p->exe), 0);
	if (!rc && th && th->comm[0])
		rc = add_label(c, "thread_comm", th->comm, 0);
	if (!rc && reason)
		rc = add_label(c, "off_cpu_reason", pdata__kind_name(reason), 0);
	if (!rc && c->base) /* what pprof -diff_base marks its base's samples with */
		rc = add_label(c, "pprof::base", "true", 0);
	if (!rc && (c->v->hdr.flags & PDATA_F_SYSTEM))
		rc = add_machine_labels(c, p);
	if (rc)
		return rc;
	key.n = c->nlabels - key.first;
	set = &c->sets[c->nsets];
	*set = key;
	*slot = (struct htab_islot){h, ++c->nsets};
	return (long)c->nsets - 1;
}

/* ---- samples -------------------------------------------------------------------- */

/* The node of location id loc below parent, made when new.  Its number, or -ENOMEM. */
static long loc_node(struct pprof_ctx *c, uint32_t parent, uint64_t loc)
{
	struct loc_node_ent k = {loc, parent, 0}, *e;
	bool fresh;

	if (!c->lnode_idx && !(c->lnode_idx = htab__new(&loc_node_type, 1024)))
		return -ENOMEM;
	if (!c->nlnodes) { /* node 0: no caller */
		if (array__reserve((void **)&c->lnodes, &c->lnodes_cap, 1, sizeof(*c->lnodes)) < 0)
			return -ENOMEM;
		c->lnodes[c->nlnodes++] = (struct loc_node){0};
	}
	e = htab__insert(c->lnode_idx, &loc_node_type, &k, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh)
		return e->node;
	if (c->nlnodes >= UINT32_MAX - 1 ||
	    array__reserve((void **)&c->lnodes, &c->lnodes_cap, c->nlnodes + 1,
			   sizeof(*c->lnodes)) < 0) {
		htab__cancel_fresh(c->lnode_idx);
		return -ENOMEM;
	}
	c->lnodes[c->nlnodes] = (struct loc_node){loc, parent, 0};
	*e = (struct loc_node_ent){loc, parent, (uint32_t)c->nlnodes};
	return (long)c->nlnodes++;
}

/* The ids of node's list, innermost first, into ids (room for n).  Returns their number. */
static size_t loc_ids(const struct pprof_ctx *c, uint32_t node, uint64_t *ids, size_t n)
{
	size_t k = 0;

	for (; node && k < n; node = c->lnodes[node].parent)
		ids[k++] = c->lnodes[node].loc;
	return k;
}

/*
 * A Sample of label set `set` whose n location ids are node's list, with
 * values [count, cpu] (and off_cpu: offcpu).  Returns 0 or -ENOMEM.
 */
static int push_sample(struct pprof_ctx *c, long set, uint32_t node, size_t n, int64_t count,
		       int64_t cpu, int64_t offcpu)
{
	size_t at = c->nvalues * c->nsamples;
	PB(Sample) * s;

	if (array__reserve((void **)&c->samples, &c->samples_cap, c->nsamples + 1,
			   sizeof(*c->samples)) < 0 ||
	    array__reserve((void **)&c->sample_set, &c->set_cap, c->nsamples + 1,
			   sizeof(*c->sample_set)) < 0 ||
	    array__reserve((void **)&c->sample_node, &c->node_cap, c->nsamples + 1,
			   sizeof(*c->sample_node)) < 0 ||
	    array__reserve((void **)&c->values, &c->values_cap, at + c->nvalues,
			   sizeof(*c->values)) < 0)
		return -ENOMEM;
	s = &c->samples[c->nsamples];
	perftools__profiles__sample__init(s);
	s->n_location_id = n;
	s->n_value = c->nvalues;
	c->values[at] = c->base ? -count : count;
	c->values[at + 1] = c->base ? -cpu : cpu;
	if (c->nvalues > 2)
		c->values[at + 2] = c->base ? -offcpu : offcpu;
	c->sample_set[c->nsamples] = (uint32_t)set;
	c->sample_node[c->nsamples] = node;
	c->nsamples++;
	return 0;
}

/* A process image's view node (pview.frames) and the location-id node of its callers' chain. */
struct caller_key {
	uint64_t key; /* proc id << 32 | view node (>= 1): never 0 */
	uint64_t gen; /* the mapping generation the PCs resolve in */
};

struct caller_ent {
	struct caller_key k;
	uint64_t lnode; /* the location-id node of the chain from the view node outwards */
};

static const struct htab_type caller_type = {
	.entry_size = sizeof(struct caller_ent),
	.hash = htab_2words_hash,
	.eq = htab_2words_eq, /* an entry starts with its key: hash(entry) is its hash */
};

/*
 * The location-id node of the callers' chain from view node vnode outwards
 * (return addresses, looked up at pc - 1, then the cut-short mark), made
 * once per (process image, generation, view node): a sample's callers cost a lookup,
 * not one per frame.  The chain's new locations are made innermost first,
 * as a walk of each sample's frames would.  Returns it (0: no callers), or
 * -ENOMEM.
 */
static long callers_node(struct pprof_ctx *c, const struct pv_proc *p, uint32_t gen, uint32_t vnode)
{
	const struct pview *v = c->v;
	uint32_t chain[PDATA_MAX_DEPTH + 1];
	uint64_t ids[PDATA_MAX_DEPTH + 1];
	unsigned n = 0;
	long node = 0;

	if (!c->caller_idx && !(c->caller_idx = htab__new(&caller_type, 1024)))
		return -ENOMEM;
	for (; vnode && vnode < v->nframes && n <= PDATA_MAX_DEPTH;
	     vnode = v->frames[vnode].parent) {
		struct caller_key key = {(uint64_t)p->id << 32 | vnode, gen};
		const struct caller_ent *e = htab__find(c->caller_idx, &caller_type, &key);
		int64_t id;

		if (e) {
			node = (long)e->lnode;
			break;
		}
		id = location_id(c, p, gen, v->frames[vnode].pc, 0, 0);
		if (id < 0)
			return -ENOMEM;
		ids[n] = (uint64_t)id;
		chain[n++] = vnode;
	}
	for (unsigned i = n; i-- > 0;) {
		struct caller_key key = {(uint64_t)p->id << 32 | chain[i], gen};
		struct caller_ent *e;
		bool fresh;

		node = loc_node(c, (uint32_t)node, ids[i]);
		e = node < 0 ? NULL : htab__insert(c->caller_idx, &caller_type, &key, &fresh);
		if (!e)
			return -ENOMEM;
		*e = (struct caller_ent){key, (uint64_t)node};
	}
	return node;
}

/*
 * One sample of process image p: its own PC as the leaf, then the callers
 * of its stack, in its mapping generation.  reason: an off-CPU slot's
 * (count is ns), else 0.  Returns 0 or -ENOMEM.
 */
static int add_sample(struct pprof_ctx *c, const struct pv_proc *p, const struct pv_sample *s,
		      uint32_t reason)
{
	const struct pview *v = c->v;
	const struct pv_stack *st = pview__stack(v, s->stack);
	uint64_t count = s->count;
	int tid = s->tid;
	/* a stack of no PC but the cut-short mark: the mark is its callers */
	uint32_t callers = st->n && st->node < v->nframes ? v->frames[st->node].parent : st->node;
	long set = label_set(c, p, tid, reason), node;
	int64_t leaf;
	size_t n;

	if (set < 0)
		return -ENOMEM;
	leaf = location_id(c, p, s->gen, s->pc, 1, reason ? 0 : count);
	node = leaf < 0 ? -ENOMEM : callers_node(c, p, s->gen, callers);
	if (node >= 0)
		node = loc_node(c, (uint32_t)node, (uint64_t)leaf);
	if (node < 0)
		return -ENOMEM;
	n = 1 + (callers && callers < v->nframes ? v->frames[callers].depth : 0);
	if (reason) {
		if (push_sample(c, set, (uint32_t)node, n, 0, 0, clamp64(count)) < 0)
			return -ENOMEM;
		c->offcpu_ns = sat_add(c->offcpu_ns, count);
		return 0;
	}
	if (push_sample(c, set, (uint32_t)node, n, clamp64(count), cpu_ns(count, c->period), 0) < 0)
		return -ENOMEM;
	c->total = sat_add(c->total, count);
	return 0;
}

/*
 * Every sample of the view (off: every off-CPU slot), with its call stack
 * (one PC for a flat sample).
 */
static int add_samples(struct pprof_ctx *c, int off)
{
	const struct pview *v = c->v;
	const struct pv_sample *all = off ? v->offcpu : v->samples;
	size_t nall = off ? v->noffcpu : v->nsamples;
	size_t at = 0;

	for (size_t i = 0; i < v->nprocs; i++) {
		const struct pv_proc *p = &v->procs[i];

		while (at < nall && all[at].proc < p->id)
			at++;
		for (; at < nall && all[at].proc == p->id; at++) {
			const struct pv_sample *s = &all[at];

			if (s->count && add_sample(c, p, s, off ? s->kind : 0) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The location of a row of time without samples ([kernel] accounted,
 * [unsampled]): no mapping, address 0, function f; one per kind.
 */
static int64_t timed_location_id(struct pprof_ctx *c, const struct func *f, int kind)
{
	/* linktime 2 + kind: a key no resolved location has (0 or 1) */
	struct loc_key key = {NULL, 0, 2 + kind};
	uint64_t h = htab_hash_combine(htab_hash_combine(0, 0), (uint64_t)key.linktime);
	struct htab_islot *slot = htab__index_slot(&c->loc_idx, h, loc_eq, c, &key);
	struct func_key k = {0};
	int64_t fid;

	if (!slot)
		return -ENOMEM;
	if (slot->idx1)
		return slot->idx1;
	k.name = k.system_name = str_index(c, f->name);
	k.filename = str_index(c, NULL);
	fid = k.name < 0 || k.filename < 0 ? -ENOMEM : function_id(c, &k);
	if (fid < 0 || !push_location(c, &key, fid, -1, 0))
		return -ENOMEM;
	*slot = (struct htab_islot){h, ++c->nlocs};
	return slot->idx1;
}

/* One sample of time without samples: values [0, ns], a one-frame stack. */
static int add_timed(void *arg, const struct report_item *it)
{
	struct pprof_ctx *c = arg;
	long set = label_set(c, it->p, it->tid, 0);
	int64_t id = set < 0 ? -ENOMEM : timed_location_id(c, it->f, it->kind);
	long node = id < 0 ? -ENOMEM : loc_node(c, 0, (uint64_t)id);

	if (node < 0 || push_sample(c, set, (uint32_t)node, 1, 0, clamp64(it->ns), 0) < 0)
		return -ENOMEM;
	c->timed_ns += it->ns;
	return 0;
}

/* Every image's time without samples, as the report has it. */
static int add_timed_samples(struct pprof_ctx *c)
{
	int rc = 0;

	for (size_t i = 0; c->rep && !rc && i < c->v->nprocs; i++)
		rc = report__timed_items(c->rep, i, add_timed, c);
	return rc;
}

/* ---- the Profile message ------------------------------------------------------------ */

struct pb_arrays {
	PB(ValueType) types[3], period_type;
	PB(ValueType) * type_ptrs[3];
	PB(Sample) * *samples;
	PB(Location) * *locs;
	PB(Line) * *line_ptrs;
	PB(Function) * *funcs;
	PB(Mapping) * *maps;
	PB(Label) * *label_ptrs;
	int64_t *comments;
};

static void pb_arrays_free(struct pb_arrays *a)
{
	free(a->samples);
	free(a->locs);
	free(a->line_ptrs);
	free(a->funcs);
	free(a->maps);
	free(a->label_ptrs);
	free(a->comments);
}

static int value_type(struct pprof_ctx *c, PB(ValueType) * vt, const char *type, const char *unit)
{
	perftools__profiles__value_type__init(vt);
	vt->type = str_index(c, type);
	vt->unit = str_index(c, unit);
	return vt->type < 0 || vt->unit < 0 ? -ENOMEM : 0;
}

/* Remarks on the data (Profile.comment): what recorded it, and how well. */
static int add_comments(struct pprof_ctx *c, PB(Profile) * pr, struct pb_arrays *a)
{
	const struct pdata_header *h = &c->v->hdr;
	char buf[7][2300];
	size_t n = 0;

	snprintf(buf[n++], sizeof(buf[0]), "profil %s", PROFIL_VERSION);
	if (c->diff_note)
		snprintf(buf[n++], sizeof(buf[0]), "%s", c->diff_note);
	if (h->command[0])
		snprintf(buf[n++], sizeof(buf[0]), "command: %s", h->command);
	snprintf(buf[n++], sizeof(buf[0]), "clock: %s%s%s%s, nominal %u Hz, effective %.1f Hz",
		 pdata__clock_name(h->clock), h->clock_note[0] ? " (" : "", h->clock_note,
		 h->clock_note[0] ? ")" : "", h->nominal_hz, pview__rate_hz(c->v));
	snprintf(buf[n++], sizeof(buf[0]), "samples: %llu taken, %llu lost, %llu dropped",
		 (unsigned long long)h->samples, (unsigned long long)h->lost,
		 (unsigned long long)h->dropped);
	if (h->state != PDATA_COMPLETE)
		snprintf(buf[n++], sizeof(buf[0]),
			 "incomplete: the recorder did not finish; the data up to then");
	if (c->v->bad_records)
		snprintf(buf[n++], sizeof(buf[0]), "%zu malformed record%s ignored",
			 c->v->bad_records, c->v->bad_records == 1 ? "" : "s");
	a->comments = calloc(n, sizeof(*a->comments));
	if (!a->comments)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		a->comments[i] = str_index(c, buf[i]);
		if (a->comments[i] < 0)
			return -ENOMEM;
	}
	pr->n_comment = n;
	pr->comment = a->comments;
	return 0;
}

/* Point the messages at each other, now that no array moves any more. */
static int link_messages(struct pprof_ctx *c, PB(Profile) * pr, struct pb_arrays *a)
{
	a->samples = calloc(c->nsamples + 1, sizeof(*a->samples));
	a->locs = calloc(c->nlocs + 1, sizeof(*a->locs));
	a->line_ptrs = calloc(c->nlocs + c->nxlines + 1, sizeof(*a->line_ptrs));
	a->funcs = calloc(c->nfuncs + 1, sizeof(*a->funcs));
	a->maps = calloc(c->nmaps + 1, sizeof(*a->maps));
	a->label_ptrs = calloc(c->nlabels + 1, sizeof(*a->label_ptrs));
	if (!a->samples || !a->locs || !a->line_ptrs || !a->funcs || !a->maps || !a->label_ptrs)
		return -ENOMEM;
	for (size_t i = 0; i < c->nlabels; i++)
		a->label_ptrs[i] = &c->labels[i];
	for (size_t i = 0; i < c->nsamples; i++) {
		PB(Sample) *s = &c->samples[i];
		const struct label_set *set = &c->sets[c->sample_set[i]];

		s->location_id = NULL; /* when it is packed: pack_samples */
		s->value = c->values + c->nvalues * i;
		s->label = a->label_ptrs + set->first; /* shared by the thread's samples */
		s->n_label = set->n;
		a->samples[i] = s;
	}
	for (size_t i = 0, k = 0; i < c->nlocs; i++) {
		const struct loc_inl *in = &c->loc_inl[i];

		c->locs[i].line = &a->line_ptrs[k];
		for (uint32_t j = 0; j < in->n; j++)
			a->line_ptrs[k++] = &c->xlines[in->first + j];
		a->line_ptrs[k++] = &c->lines[i];
		c->locs[i].n_line = in->n + 1;
		a->locs[i] = &c->locs[i];
	}
	for (size_t i = 0; i < c->nfuncs; i++)
		a->funcs[i] = &c->funcs[i];
	for (size_t i = 0; i < c->nmaps; i++)
		a->maps[i] = &c->maps[i];
	pr->n_sample = c->nsamples;
	pr->sample = a->samples;
	pr->n_location = c->nlocs;
	pr->location = a->locs;
	pr->n_function = c->nfuncs;
	pr->function = a->funcs;
	pr->n_mapping = c->nmaps;
	pr->mapping = a->maps;
	return 0;
}

/* A profile whose samples go into the Profile: its view, its resolver, its report (or NULL). */
struct pprof_src {
	const struct pview *v;
	struct resolver *r;
	struct report *rep;
};

static int64_t src_period(const struct pview *v)
{
	if (v->hdr.period_ns)
		return clamp64(v->hdr.period_ns);
	if (v->hdr.nominal_hz)
		return (int64_t)(1e9 / v->hdr.nominal_hz + 0.5);
	return 0;
}

/* The samples of src (its off-CPU slots too); base: a diff's base (OLD), negated and labelled. */
static int add_source(struct pprof_ctx *c, const struct pprof_src *src, int base)
{
	int rc;

	c->v = src->v;
	c->r = src->r;
	c->rep = src->rep;
	c->period = src_period(src->v);
	c->base = base;
	htab__free(c->caller_idx); /* its keys are the view's process ids and nodes */
	c->caller_idx = NULL;
	c->first_base = base ? c->nsamples : SIZE_MAX;
	rc = add_samples(c, 0);
	if (!rc && src->v->noffcpu)
		rc = add_samples(c, 1);
	if (!rc)
		rc = add_timed_samples(c);
	return rc;
}

/*
 * A diff's -normalize, as pprof's: NEW's values scaled so that each type's
 * total is OLD's.
 */
static void normalize_new(struct pprof_ctx *c)
{
	size_t nb = c->first_base < c->nsamples ? c->first_base : c->nsamples;

	for (size_t k = 0; k < c->nvalues; k++) {
		double sum_new = 0, sum_old = 0, ratio;

		for (size_t i = 0; i < c->nsamples; i++)
			*(i < nb ? &sum_new : &sum_old) +=
				fabs((double)c->values[c->nvalues * i + k]);
		if (sum_new <= 0 || sum_old <= 0)
			continue;
		ratio = sum_old / sum_new;
		for (size_t i = 0; i < nb; i++) {
			double v = llround((double)c->values[c->nvalues * i + k] * ratio);

			c->values[c->nvalues * i + k] = v >= 9.2e18 ? INT64_MAX : (int64_t)v;
		}
	}
}

/* The Profile of the samples added (add_source), with the first source's (NEW's) header. */
static int build_profile(struct pprof_ctx *c, const struct pprof_src *first, PB(Profile) * pr,
			 struct pb_arrays *a)
{
	const struct pdata_header *h = &first->v->hdr;
	int rc;

	c->v = first->v; /* the main program, the comments: NEW's */
	c->period = src_period(first->v);
	finish_mappings(c);
	main_mapping_first(c);
	perftools__profiles__profile__init(pr);
	if (value_type(c, &a->types[0], "samples", "count") < 0 ||
	    value_type(c, &a->types[1], "cpu", "nanoseconds") < 0 ||
	    value_type(c, &a->types[2], "off_cpu", "nanoseconds") < 0 ||
	    value_type(c, &a->period_type, "cpu", "nanoseconds") < 0 || add_comments(c, pr, a) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < c->nvalues; i++)
		a->type_ptrs[i] = &a->types[i];
	pr->n_sample_type = c->nvalues;
	pr->sample_type = a->type_ptrs;
	pr->period_type = &a->period_type;
	pr->period = c->period;
	pr->default_sample_type = a->types[1].type;
	pr->time_nanos = clamp64(h->start_ns);
	if (h->end_ns > h->start_ns && h->start_ns)
		pr->duration_nanos = clamp64(h->end_ns - h->start_ns);
	rc = link_messages(c, pr, a);
	/* last: every string is in the table by now */
	pr->n_string_table = c->st.n;
	pr->string_table = c->st.strs;
	return rc;
}

static void ctx_free(struct pprof_ctx *c)
{
	ARRAY_FREE_PTRS(c->st.strs, c->st.n);
	htab__free(c->st.idx);
	free(c->locs);
	free(c->lines);
	free(c->loc_keys);
	free(c->loc_inl);
	free(c->xlines);
	htab__free(c->loc_idx);
	free(c->funcs);
	free(c->func_keys);
	htab__free(c->func_idx);
	free(c->maps);
	free(c->map_infos);
	free(c->labels);
	free(c->sets);
	htab__free(c->set_idx);
	free(c->samples);
	free(c->sample_set);
	free(c->sample_node);
	free(c->values);
	free(c->lnodes);
	htab__free(c->lnode_idx);
	htab__free(c->caller_idx);
}

/* ---- gzip output ---------------------------------------------------------------------- */

/* A protobuf-c output buffer that deflates into fd as the message is packed. */
struct gz_sink {
	ProtobufCBuffer base; /* first: protobuf-c calls base.append */
	z_stream z;
	int fd;
	int err; /* -errno of the first failure */
	size_t in_len;
	uint64_t written;
	unsigned char in[GZ_IN_SIZE];
	unsigned char out[GZ_OUT_SIZE];
};

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Deflate in[0..len) (all of it); flush: Z_NO_FLUSH or Z_FINISH. */
static int gz_deflate(struct gz_sink *g, const unsigned char *in, size_t len, int flush)
{
	int zrc;

	g->z.next_in = (Bytef *)in;
	g->z.avail_in = (uInt)len;
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		zrc = deflate(&g->z, flush);
		if (zrc == Z_STREAM_ERROR)
			return -EIO;
		if (sizeof(g->out) - g->z.avail_out) {
			int rc = write_all(g->fd, g->out, sizeof(g->out) - g->z.avail_out);

			if (rc < 0)
				return rc;
			g->written += sizeof(g->out) - g->z.avail_out;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zrc != Z_STREAM_END));
	return 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_sink *g = (struct gz_sink *)b;

	while (!g->err && len) {
		size_t n = sizeof(g->in) - g->in_len;

		if (n > len)
			n = len;
		memcpy(g->in + g->in_len, data, n);
		g->in_len += n;
		data += n;
		len -= n;
		if (g->in_len == sizeof(g->in)) {
			g->err = gz_deflate(g, g->in, g->in_len, Z_NO_FLUSH);
			g->in_len = 0;
		}
	}
}

/*
 * pr packed as protobuf-c packs it (fields in the order of their numbers),
 * its samples one at a time, each with its location ids read back from the
 * tree: the ids of every sample are never in memory at once.
 */
static void pack_profile(const struct pprof_ctx *c, PB(Profile) * pr, ProtobufCBuffer *out)
{
	size_t nsample = pr->n_sample, ntype = pr->n_sample_type;
	uint64_t ids[PDATA_MAX_DEPTH + 1];
	PB(Profile) head;

	perftools__profiles__profile__init(&head); /* field 1, sample_type */
	head.n_sample_type = ntype;
	head.sample_type = pr->sample_type;
	protobuf_c_message_pack_to_buffer(&head.base, out);
	for (size_t i = 0; i < nsample; i++) { /* field 2, sample: tag, length, message */
		PB(Sample) *s = pr->sample[i];
		uint8_t tag[1 + 10];
		size_t len, n = 1;

		s->n_location_id = loc_ids(c, c->sample_node[i], ids, PDATA_MAX_DEPTH + 1);
		s->location_id = ids;
		len = protobuf_c_message_get_packed_size(&s->base);
		tag[0] = (2 << 3) | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
		do {
			tag[n++] = (uint8_t)((len & 0x7f) | (len > 0x7f ? 0x80 : 0));
			len >>= 7;
		} while (len);
		out->append(out, n, tag);
		protobuf_c_message_pack_to_buffer(&s->base, out);
		s->location_id = NULL;
	}
	pr->n_sample = 0; /* the rest: fields 3 and after */
	pr->n_sample_type = 0;
	protobuf_c_message_pack_to_buffer(&pr->base, out);
	pr->n_sample = nsample;
	pr->n_sample_type = ntype;
}

/* Pack pr into fd through gzip.  Returns 0 or -errno. */
static int write_gz(int fd, const struct pprof_ctx *c, PB(Profile) * pr, uint64_t *written)
{
	struct gz_sink *g = calloc(1, sizeof(*g));
	int rc;

	if (!g)
		return -ENOMEM;
	g->base.append = gz_append;
	g->fd = fd;
	if (deflateInit2(&g->z, GZ_LEVEL, Z_DEFLATED, 15 + 16 /* gzip */, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		free(g);
		return -ENOMEM;
	}
	pack_profile(c, pr, &g->base);
	rc = g->err ? g->err : gz_deflate(g, g->in, g->in_len, Z_FINISH);
	*written = g->written;
	deflateEnd(&g->z);
	free(g);
	return rc;
}

/* What one Profile is made of: one source, or a diff's NEW and OLD. */
struct pprof_job {
	struct pprof_src src[2];
	int nsrc;
	int normalize;	       /* a diff: NEW scaled to OLD's totals */
	const char *diff_note; /* a diff: the comment that says what it is */
	struct pprof_summary *sum;
};

static int write_profile(int fd, const struct pprof_job *job, char *why, size_t whylen)
{
	struct pprof_ctx c = {.nvalues = 2, .diff_note = job->diff_note};
	struct pprof_summary *sum = job->sum;
	struct pb_arrays a = {0};
	PB(Profile) pr;
	uint64_t written = 0;
	int rc = strtab_init(&c.st);

	/* off_cpu values only where a profile has off-CPU time (the OpenTelemetry name) */
	for (int i = 0; i < job->nsrc; i++)
		if (job->src[i].v->noffcpu)
			c.nvalues = 3;
	for (int i = 0; !rc && i < job->nsrc; i++)
		rc = add_source(&c, &job->src[i], i > 0);
	if (!rc && job->normalize)
		normalize_new(&c);
	if (!rc)
		rc = build_profile(&c, &job->src[0], &pr, &a);
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "out of memory");
		goto out;
	}
	rc = write_gz(fd, &c, &pr, &written);
	if (rc < 0) {
		rc = why_fail(why, whylen, rc, "%s", strerror(-rc));
		goto out;
	}
	if (sum) {
		sum->samples = c.total;
		sum->timed_ns = c.timed_ns;
		sum->offcpu_ns = c.offcpu_ns;
		sum->nsamples = c.nsamples;
		sum->nlocations = c.nlocs;
		sum->nfunctions = c.nfuncs;
		sum->nmappings = c.nmaps;
		sum->out_bytes = written;
	}
out:
	pb_arrays_free(&a);
	ctx_free(&c);
	return rc;
}

int pprof__write(int fd, const struct pview *v, struct resolver *r, struct pprof_summary *sum,
		 char *why, size_t whylen)
{
	const struct pprof_job job = {.src = {{v, r, NULL}}, .nsrc = 1, .sum = sum};

	return write_profile(fd, &job, why, whylen);
}

static int fill_pprof(int fd, void *arg, char *why, size_t whylen)
{
	return write_profile(fd, arg, why, whylen);
}

int pprof__export(const char *data_path, const char *out_path, struct pprof_summary *sum, char *why,
		  size_t whylen)
{
	/* the report's model: its resolver (with source lines) and its time without samples */
	const struct report_opts o = {.lines = 1};
	struct pprof_summary local;
	struct report *rep = NULL;
	int rc;

	rc = export__load_report(&rep, data_path, &o, out_path, why, whylen);
	if (rc < 0)
		return rc;
	rc = outfile__write(out_path, &pdata__output_rules, fill_pprof,
			    &(struct pprof_job){.src = {{rep->v, rep->r, rep}},
						.nsrc = 1,
						.sum = sum ? sum : &local},
			    why, whylen);
	report__free(rep);
	return rc;
}

int diff__write_pprof(const struct diff *d, const struct diff_print *o, const char *path,
		      struct pprof_summary *sum, char *why, size_t whylen)
{
	struct pprof_summary local;
	char note[2 * PATH_MAX + 200];
	struct pprof_job job = {
		.src = {{d->new->v, d->new->r, d->new}, {d->old->v, d->old->r, d->old}},
		.nsrc = 2,
		.normalize = o->normalize,
		.diff_note = note,
		.sum = sum ? sum : &local,
	};
	int rc = outfile__check(path, &pdata__output_rules, why, whylen);

	if (rc < 0)
		return rc;
	snprintf(note, sizeof(note),
		 "diff: %s minus %s (its samples negated, label pprof::base=true)%s", o->new_path,
		 o->old_path,
		 o->normalize ? "; the new profile scaled to the old one's totals" : "");
	return outfile__write(path, &pdata__output_rules, fill_pprof, &job, why, whylen);
}
