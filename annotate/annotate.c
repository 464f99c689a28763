// SPDX-License-Identifier: MIT
/*
 * annotate: the model (see annotate.h).  The samples are summed per
 * function at their exact PCs in one pass over the profile; the functions
 * asked for (or the hottest) are then disassembled and given their lines.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"
#include "annotate/disasm.h"
#include "annotate/kcore.h"
#include "annotate/source.h"
#include "profile/pview.h"
#include "report/resolve.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "utils/why.h"
#include "utils/search.h"
#include "utils/cmp.h"
#include "utils/sat.h"

#define KCORE_PATH "/proc/kcore"
#define KERNEL_FUNC_GUESS 4096 /* a kernel symbol of unknown size: read this much at most */
#define CLOSEST_NAMES 3

enum fkind { F_USER = 1, F_KERNEL = 2, F_NOCODE = 3 };

struct pcount {
	uint64_t addr, count;
};

/* A function with samples. */
struct fent {
	enum fkind kind;
	struct sym_object *obj; /* F_USER */
	uint64_t start, end;
	const char *name, *object, *path;
	const char *why_nocode; /* F_NOCODE */
	uint64_t samples;
	struct pcount *pcs;
	size_t npcs, cap;
};

/* Index entry: the function's key and its index + 1 (never 0: an entry is never all zero). */
struct fkey {
	const void *obj;
	uint64_t start;
	const char *name;
	uint64_t kind_idx1; /* kind << 32 | index + 1 */
};

struct priv {
	struct pview *v;
	struct resolver *r;
	int borrowed; /* v and r are the caller's (annotate__load_view) */
	struct sources *src;
	struct disasm *dis;
	struct kcore *kcore;
	int kcore_tried;
	char kcore_why[200];
	struct fent *f;
	size_t nf, fcap;
	struct htab *idx;
};

static uint64_t fkey_hash(const void *key)
{
	const struct fkey *k = key;

	return htab_hash_u64((uintptr_t)k->obj ^ htab_hash_u64(k->start) ^
			     htab_hash_u64((uintptr_t)k->name) ^ (k->kind_idx1 >> 32));
}

static bool fkey_eq(const void *entry, const void *key)
{
	const struct fkey *e = entry, *k = key;

	return e->obj == k->obj && e->start == k->start && e->name == k->name &&
	       (e->kind_idx1 >> 32) == (k->kind_idx1 >> 32);
}

static uint64_t fkey_entry_hash(const void *entry)
{
	return fkey_hash(entry);
}

static const struct htab_type fkey_type = {
	.entry_size = sizeof(struct fkey),
	.hash = fkey_hash,
	.eq = fkey_eq,
	.entry_hash = fkey_entry_hash,
};

/* ---- the samples, per function and PC ------------------------------------------- */

static struct fent *fent_of(struct priv *pv, const struct fent *proto)
{
	struct fkey key = {proto->obj, proto->start, proto->name, (uint64_t)proto->kind << 32};
	struct fkey *e;
	bool fresh;

	e = htab__insert(pv->idx, &fkey_type, &key, &fresh);
	if (!e)
		return NULL;
	if (!fresh)
		return &pv->f[(e->kind_idx1 & 0xffffffffu) - 1];
	if (array__reserve(&pv->f, &pv->fcap, pv->nf + 1, sizeof(*pv->f))) {
		htab__cancel_fresh(pv->idx);
		return NULL;
	}
	*e = key;
	pv->f[pv->nf] = *proto;
	e->kind_idx1 |= ++pv->nf;
	return &pv->f[pv->nf - 1];
}

static int add_pc(struct fent *f, uint64_t addr, uint64_t count)
{
	if (array__reserve(&f->pcs, &f->cap, f->npcs + 1, sizeof(*f->pcs)))
		return -ENOMEM;
	f->pcs[f->npcs++] = (struct pcount){addr, count};
	f->samples = sat_add(f->samples, count);
	return 0;
}

/* What function a sampled PC is in, as a prototype entry, and its address there. */
static int classify(struct priv *pv, const struct pv_proc *p, uint32_t gen, uint64_t pc,
		    struct fent *proto, uint64_t *addr)
{
	struct resolve_loc loc;
	struct sym_result res;

	memset(proto, 0, sizeof(*proto));
	if (pc >= PDATA_KERNEL_START && pc != PDATA_PC_TRUNCATED) {
		const struct pv_ksym *k = pview__ksym(pv->v, pc);

		if (k) {
			proto->kind = F_KERNEL;
			proto->start = k->start;
			proto->end = k->start + (k->size && k->size < ANNOTATE_MAX_FUNC_BYTES ?
							 k->size :
							 KERNEL_FUNC_GUESS);
			proto->name = k->name;
			proto->object = proto->path = "[kernel]";
			*addr = pc;
			return 0;
		}
	}
	if (resolver__locate(pv->r, p, gen, pc, 0, &loc) < 0)
		return -ENOMEM;
	proto->name = loc.f->name;
	proto->object = loc.f->object;
	proto->path = loc.f->objpath;
	*addr = loc.addr;
	if (!loc.obj || !loc.linktime) {
		proto->kind = F_NOCODE;
		proto->why_nocode =
			!loc.obj				 ? (pc >= PDATA_KERNEL_START ?
									    "kernel code the profile has no symbol for" :
									    (strcmp(loc.f->object, "[jit]") ?
										     "no mapping of the process holds it" :
										     "JIT code: its machine code is not kept")) :
			(symobj__flags(loc.obj) & SYMOBJ_PSEUDO) ? "not the code of a file" :
								   symobj__why(loc.obj);
		return 0;
	}
	symobj__lookup(loc.obj, loc.addr, &res);
	proto->kind = F_USER;
	proto->obj = loc.obj;
	proto->name = res.name;
	proto->start = res.start;
	proto->end = res.end;
	if (proto->end - proto->start > ANNOTATE_MAX_FUNC_BYTES)
		proto->end = proto->start + ANNOTATE_MAX_FUNC_BYTES;
	return 0;
}

static int collect(struct priv *pv)
{
	const struct pv_proc *p = NULL;

	for (size_t i = 0; i < pv->v->nsamples; i++) {
		const struct pv_sample *s = &pv->v->samples[i];
		struct fent proto, *f;
		uint64_t addr;

		if (!s->count)
			continue;
		p = pview__sample_proc(pv->v, s, p);
		if (!p)
			continue;
		if (classify(pv, p, s->gen, s->pc, &proto, &addr) < 0)
			return -ENOMEM;
		f = fent_of(pv, &proto);
		if (!f || add_pc(f, addr, s->count) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- choosing the functions ------------------------------------------------------ */

static int cmp_fent_ptr(const void *a, const void *b)
{
	const struct fent *x = *(const struct fent *const *)a, *y = *(const struct fent *const *)b;

	return CMP(y->samples, x->samples) ?: strcmp(x->name, y->name);
}

/* Where "OBJECT:NAME" splits: the first ':' that is not part of a "::" (C++), or NULL. */
static const char *object_colon(const char *spec)
{
	for (const char *c = strchr(spec, ':'); c; c = strchr(c + 1, ':')) {
		if (c[1] == ':') {
			c++;
			continue;
		}
		if (c > spec && c[-1] == ':')
			continue;
		return c;
	}
	return NULL;
}

static int parse_addr(const char *s, uint64_t *out)
{
	char *end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return errno || *end || end == s + 2 ? -1 : 0;
}

static int object_matches(const struct fent *f, const char *obj, size_t len)
{
	return (strlen(f->object) == len && !strncmp(f->object, obj, len)) ||
	       (strlen(f->path) == len && !strncmp(f->path, obj, len));
}

/* Does f answer the spec (name, object:name, address, object:address)? */
static int matches(const struct fent *f, const char *spec)
{
	const char *colon = object_colon(spec), *what = colon ? colon + 1 : spec;
	uint64_t addr;

	if (colon && !object_matches(f, spec, (size_t)(colon - spec)))
		return !strcmp(f->name, spec); /* a name with a colon of its own ("JS:*f") */
	if (parse_addr(what, &addr) == 0)
		return f->kind != F_NOCODE && addr >= f->start && addr < f->end;
	return !strcmp(f->name, what);
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 64), lb = strnlen(b, 64), row[65];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], tmp;

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			diag = tmp;
		}
	}
	return row[lb];
}

struct near {
	size_t dist;
	const char *name;
};

static int cmp_near(const void *a, const void *b)
{
	const struct near *x = a, *y = b;

	return CMP(x->dist, y->dist) ?: strcmp(x->name, y->name);
}

/* "no function X in the profile; the closest names it has: a, b, c". */
static int not_found(const struct priv *pv, const char *spec, char *why, size_t whylen)
{
	const char *colon = object_colon(spec), *what = colon ? colon + 1 : spec;
	struct near *all = calloc(pv->nf + 1, sizeof(*all));
	char names[400] = "";
	size_t n = 0;

	if (!all)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < pv->nf; i++) {
		/* a name that holds what was asked for is as close as it gets */
		size_t d = strstr(pv->f[i].name, what) ? 0 : edit_distance(what, pv->f[i].name);

		all[i] = (struct near){d, pv->f[i].name};
	}
	qsort(all, pv->nf, sizeof(*all), cmp_near);
	for (size_t i = 0; i < pv->nf && n < CLOSEST_NAMES; i++) {
		size_t at = strlen(names);

		if (i && !strcmp(all[i].name, all[i - 1].name))
			continue;
		snprintf(names + at, sizeof(names) - at, "%s%s", n++ ? ", " : "", all[i].name);
	}
	free(all);
	if (!n)
		return why_fail(why, whylen, -ENOENT,
				"no function %s in the profile: it has no samples", spec);
	return why_fail(why, whylen, -ENOENT,
			"no function %s in the profile; the closest names it has: %s", spec, names);
}

/*
 * An object of the profile rebuilt since the recording, without a copy by its build id:
 * its names are the new file's, so a function asked for may be missing for that reason.
 */
static int rebuilt(const struct priv *pv, char *why, size_t whylen)
{
	for (size_t i = 0; i < pv->nf; i++)
		if (pv->f[i].kind == F_USER &&
		    (symobj__flags(pv->f[i].obj) & SYMOBJ_BUILD_ID_DIFFERS))
			return why_fail(why, whylen, -ESTALE,
					"%s was rebuilt since the recording and no copy with its "
					"build id was found: its functions cannot be annotated",
					pv->f[i].path);
	return 0;
}

/* The functions to annotate, into *chosen (pointers into pv->f). */
static int choose(struct priv *pv, const struct annotate_opts *o, struct fent ***chosen, size_t *n,
		  char *why, size_t whylen)
{
	struct fent **all = calloc(pv->nf + 1, sizeof(*all)), **out;
	size_t top = o->top ? o->top : ANNOTATE_DEFAULT_TOP, k = 0;

	out = calloc(pv->nf + 1, sizeof(*out));
	if (!all || !out) {
		free(all);
		free(out);
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pv->nf; i++)
		all[i] = &pv->f[i];
	qsort(all, pv->nf, sizeof(*all), cmp_fent_ptr);
	for (size_t s = 0; s < o->nfuncs; s++) {
		size_t before = k;

		for (size_t i = 0; i < pv->nf; i++) {
			int dup = 0;

			if (!matches(all[i], o->funcs[s]))
				continue;
			for (size_t j = 0; j < k; j++)
				dup |= out[j] == all[i];
			if (!dup)
				out[k++] = all[i];
		}
		if (k == before) {
			int rc =
				rebuilt(pv, why, whylen) ?: not_found(pv, o->funcs[s], why, whylen);

			free(all);
			free(out);
			return rc;
		}
	}
	/* the hottest: functions with code first (JIT and unreadable code cannot be shown) */
	for (size_t i = 0; !o->nfuncs && i < pv->nf && k < top; i++)
		if (all[i]->kind != F_NOCODE)
			out[k++] = all[i];
	free(all);
	*chosen = out;
	*n = k;
	return 0;
}

/* ---- one function ----------------------------------------------------------------- */

static int add_note(struct ann_func *af, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_note(struct ann_func *af, const char *fmt, ...)
{
	char buf[PATH_MAX + 300], **n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < af->nnotes; i++)
		if (!strcmp(af->notes[i], buf))
			return 0;
	n = realloc(af->notes, (af->nnotes + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	af->notes = n;
	af->notes[af->nnotes] = strdup(buf);
	return af->notes[af->nnotes] ? (int)(af->nnotes++, 0) : -ENOMEM;
}

struct insn_sink {
	struct ann_func *af;
	size_t cap;
};

static int on_insn(void *arg, const struct dis_insn *in)
{
	struct insn_sink *k = arg;
	struct ann_func *af = k->af;
	struct ann_insn *a = array__push(&af->insns, &af->ninsns, &k->cap, sizeof(*af->insns));

	if (!a)
		return -ENOMEM;
	a->addr = in->addr;
	a->size = in->size;
	memcpy(a->text, in->text, sizeof(a->text));
	a->is_call = in->is_call;
	a->is_jump = in->is_jump;
	a->is_ret = in->is_ret;
	a->target = in->target;
	return 0;
}

/* The instruction holding addr (the last one starting at or before it), or NULL. */
static struct ann_insn *insn_at(struct ann_func *af, uint64_t addr)
{
	size_t lo = SEARCH_UPPER(af->insns, af->ninsns, addr, addr);
	if (!lo || addr - af->insns[lo - 1].addr >= af->insns[lo - 1].size)
		return NULL;
	return &af->insns[lo - 1];
}

/* Each sample to the instruction at its PC (a bin's samples: the instruction holding its start). */
static void count_samples(struct ann_func *af, const struct fent *f)
{
	uint64_t best = 0, outside = 0;

	for (size_t i = 0; i < f->npcs; i++) {
		struct ann_insn *in = insn_at(af, f->pcs[i].addr);

		if (in)
			in->samples = sat_add(in->samples, f->pcs[i].count);
		else
			outside += f->pcs[i].count;
	}
	for (size_t i = 0; i < af->ninsns; i++) {
		if (af->insns[i].samples > best) {
			best = af->insns[i].samples;
			af->hottest_insn = af->insns[i].addr;
		}
	}
	if (outside && af->ninsns)
		add_note(af, "%llu samples fell outside the instructions read (the code changed?)",
			 (unsigned long long)outside);
}

/* A return among [from, to): the jump back to from is out-of-line code's way home, not a loop. */
static int returns_between(const struct ann_insn *from, const struct ann_insn *to)
{
	for (const struct ann_insn *i = from; i < to; i++)
		if (i->is_ret)
			return 1;
	return 0;
}

/* Jumps backwards inside the function end loops; calls and jumps get their target's name. */
static void mark_branches(struct priv *pv, struct ann_func *af, const struct fent *f)
{
	for (size_t i = 0; i < af->ninsns; i++) {
		struct ann_insn *in = &af->insns[i];
		char buf[600];

		if (!in->target)
			continue;
		if (in->target >= af->start && in->target < af->end) {
			struct ann_insn *t = insn_at(af, in->target);

			if (in->is_jump && in->target <= in->addr && t && !returns_between(t, in)) {
				in->loop_back = 1;
				t->loop_start = 1;
			}
			snprintf(buf, sizeof(buf), "%s+0x%llx", af->name,
				 (unsigned long long)(in->target - af->start));
		} else if (f->kind == F_USER) {
			struct sym_result res;

			symobj__lookup(f->obj, in->target, &res);
			if (res.start == in->target)
				snprintf(buf, sizeof(buf), "%s", res.name);
			else
				snprintf(buf, sizeof(buf), "%s+0x%llx", res.name,
					 (unsigned long long)(in->target - res.start));
		} else {
			const struct pv_ksym *k = pview__ksym(pv->v, in->target);

			if (!k)
				continue;
			snprintf(buf, sizeof(buf), "%s+0x%llx", k->name,
				 (unsigned long long)(in->target - k->start));
		}
		in->target_name = symbols__intern(resolver__symbols(pv->r), buf);
	}
}

static struct ann_line *line_of(struct ann_func *af, const char *file, int line, size_t *cap)
{
	struct ann_line *l;

	for (size_t i = af->nlines; i > 0; i--)
		if (af->lines[i - 1].line == line && !strcmp(af->lines[i - 1].file, file))
			return &af->lines[i - 1];
	l = array__push(&af->lines, &af->nlines, cap, sizeof(*af->lines));
	if (l) {
		l->file = file;
		l->line = line;
	}
	return l;
}

/* Where an instruction's source file is: its name, made absolute by its CU's directory. */
static const char *source_path(struct priv *pv, const struct fent *f, const struct ann_insn *in)
{
	const char *dir;
	char buf[PATH_MAX];

	if (in->file[0] == '/' || !(dir = symobj__comp_dir(f->obj, in->addr)))
		return in->file;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, in->file) >= sizeof(buf))
		return in->file;
	return symbols__intern(resolver__symbols(pv->r), buf) ?: in->file;
}

/* Each instruction's source line (and the function inlined there); the lines' sums and text. */
static int add_lines(struct priv *pv, struct ann_func *af, const struct fent *f)
{
	size_t cap = 0, with_line = 0;

	for (size_t i = 0; i < af->ninsns; i++) {
		struct ann_insn *in = &af->insns[i];
		struct sym_inline inl[1];
		struct ann_line *l;
		const char *why;

		if (symobj__srcline(f->obj, in->addr, &in->file, &in->line) < 0) {
			in->file = NULL;
			continue;
		}
		with_line++;
		if (symobj__inlines(f->obj, in->addr, inl, 1) == 1)
			in->inlined = inl[0].name;
		l = line_of(af, in->file, in->line, &cap);
		if (!l)
			return -ENOMEM;
		l->samples = sat_add(l->samples, in->samples);
		if (in->inlined)
			l->inlined = in->inlined;
		if (!l->text) {
			l->text = sources__line(pv->src, f->obj, source_path(pv, f, in), in->line,
						&why);
			if (why && add_note(af, "%s", why) < 0)
				return -ENOMEM;
		}
	}
	if (!with_line && af->ninsns)
		return add_note(af,
				"%s has no line information (stripped, or built without -g): "
				"instructions only",
				symobj__file(f->obj));
	return 0;
}

/* The machine code of a user function: its object's bytes, or why there are none. */
static int user_code(struct ann_func *af, const struct fent *f, int asked, const uint8_t **code,
		     size_t *len, char *why, size_t whylen)
{
	unsigned flags = symobj__flags(f->obj);

	af->file = symobj__file(f->obj);
	if (flags & SYMOBJ_BUILD_ID_DIFFERS) {
		if (asked)
			return why_fail(why, whylen, -ESTALE,
					"%s was rebuilt since the recording and no copy with its "
					"build id was found: cannot annotate %s",
					f->path, f->name);
		return add_note(af,
				"%s was rebuilt since the recording and no copy with its build "
				"id was found: not annotated",
				f->path);
	}
	if ((flags & SYMOBJ_BY_BUILD_ID) &&
	    add_note(af,
		     "%s was rebuilt or removed since the recording: annotating %s, found by "
		     "its build id",
		     f->path, af->file) < 0)
		return -ENOMEM;
	*len = (size_t)(f->end - f->start);
	if (symobj__code(f->obj, f->start, len, code) < 0 || !*len)
		return add_note(af, "%s holds no machine code for %s (a debug file's copy?)",
				af->file, f->name);
	return 1;
}

static int kernel_code(struct priv *pv, struct ann_func *af, const struct fent *f, uint8_t **buf,
		       size_t *len)
{
	long got;

	af->file = KCORE_PATH;
	if (!pv->kcore_tried) {
		pv->kcore_tried = 1;
		kcore__open(&pv->kcore, KCORE_PATH, pv->kcore_why, sizeof(pv->kcore_why));
	}
	if (!pv->kcore)
		return add_note(af, "%s", pv->kcore_why);
	*buf = malloc(f->end - f->start);
	if (!*buf)
		return -ENOMEM;
	got = kcore__read(pv->kcore, f->start, *buf, f->end - f->start);
	if (got <= 0)
		return add_note(af,
				"%s does not hold %s's code (not the kernel that was recorded?)",
				KCORE_PATH, f->name);
	*len = (size_t)got;
	return add_note(af,
			"the kernel's code as it runs now (%s): the recorded kernel's if the "
			"machine has not restarted since",
			KCORE_PATH) < 0 ?
		       -ENOMEM :
		       1;
}

static int build_func(struct priv *pv, struct annotation *a, const struct fent *f,
		      struct ann_func *af, int asked, char *why, size_t whylen)
{
	struct insn_sink sink = {af, 0};
	const uint8_t *code = NULL;
	uint8_t *kbuf = NULL;
	size_t len = 0;
	int rc;

	memset(af, 0, sizeof(*af));
	af->name = f->name;
	af->object = f->object;
	af->path = f->path;
	af->file = f->path;
	af->start = f->start;
	af->end = f->end;
	af->samples = f->samples;
	af->seconds = (double)f->samples * a->period_s;
	af->run_percent = a->run_samples ? 100.0 * (double)f->samples / (double)a->run_samples : 0;
	if (f->kind == F_NOCODE)
		return add_note(af, "no instructions: %s", f->why_nocode);
	if (f->kind == F_USER)
		rc = user_code(af, f, asked, &code, &len, why, whylen);
	else
		rc = kernel_code(pv, af, f, &kbuf, &len);
	if (rc <= 0) {
		free(kbuf);
		return rc;
	}
	rc = disasm__run(pv->dis, kbuf ? kbuf : code, len, f->start, on_insn, &sink);
	free(kbuf);
	if (rc < 0)
		return rc;
	af->end = af->start + len;
	count_samples(af, f);
	mark_branches(pv, af, f);
	return f->kind == F_USER ? add_lines(pv, af, f) : 0;
}

/* ---- the whole ----------------------------------------------------------------------- */

void annotate__free(struct annotation *a)
{
	struct priv *pv;

	if (!a)
		return;
	for (size_t i = 0; i < a->nfuncs; i++) {
		struct ann_func *af = &a->funcs[i];

		ARRAY_FREE_PTRS(af->notes, af->nnotes);
		free(af->insns);
		free(af->lines);
	}
	free(a->funcs);
	pv = a->priv;
	if (pv) {
		ARRAY_FREE_FIELD(pv->f, pv->nf, pcs);
		htab__free(pv->idx);
		sources__free(pv->src);
		disasm__free(pv->dis);
		kcore__close(pv->kcore);
		if (!pv->borrowed) {
			resolver__free(pv->r);
			pview__free(pv->v);
		}
		free(pv);
	}
	free(a);
}

static int open_all(struct annotation *a, const struct annotate_opts *o, struct pview *v,
		    struct resolver *r, char *why, size_t whylen)
{
	struct priv *pv = calloc(1, sizeof(*pv));
	int rc;

	if (!pv)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	a->priv = pv;
	if (v) {
		pv->v = v;
		pv->r = r;
		pv->borrowed = 1;
	} else {
		rc = pview__load(&pv->v, o->input, why, whylen);
		if (rc < 0)
			return rc;
		pv->r = resolver__new(pv->v, 0);
	}
	pv->idx = htab__new(&fkey_type, 1023);
	pv->dis = disasm__new();
	pv->src = pv->r ? sources__new(resolver__symbols(pv->r)) : NULL;
	if (!pv->r || !pv->idx || !pv->dis || !pv->src)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	a->input = o->input ? o->input : "";
	a->run_samples = pv->v->total;
	a->period_s = (double)pv->v->hdr.period_ns / 1e9;
	a->binned = pv->v->hdr.clock == PDATA_CLOCK_BPF;
	return 0;
}

static int load(struct annotation **out, const struct annotate_opts *o, struct pview *v,
		struct resolver *r, char *why, size_t whylen)
{
	struct annotation *a = calloc(1, sizeof(*a));
	struct fent **chosen = NULL;
	struct priv *pv;
	size_t n = 0;
	int rc;

	if (!a)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	rc = open_all(a, o, v, r, why, whylen);
	pv = a->priv;
	if (!rc && collect(pv) < 0)
		rc = why_fail(why, whylen, -ENOMEM, "out of memory");
	if (!rc)
		rc = choose(pv, o, &chosen, &n, why, whylen);
	if (!rc && !n && o->nfuncs)
		rc = why_fail(why, whylen, -ENOENT,
			      "%s has no samples in code that can be annotated", a->input);
	if (!rc && !(a->funcs = calloc(n + 1, sizeof(*a->funcs))))
		rc = why_fail(why, whylen, -ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		rc = build_func(pv, a, chosen[i], &a->funcs[i], o->nfuncs > 0, why, whylen);
		a->nfuncs = i + 1;
		if (rc == -ENOMEM)
			why_fail(why, whylen, rc, "out of memory");
	}
	free(chosen);
	if (rc < 0) {
		annotate__free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int annotate__load(struct annotation **out, const struct annotate_opts *o, char *why, size_t whylen)
{
	struct annotation *a;
	int rc = load(&a, o, NULL, NULL, why, whylen);

	if (rc < 0)
		return rc;
	if (!a->nfuncs) {
		annotate__free(a);
		return why_fail(why, whylen, -ENOENT,
				"%s has no samples in code that can be annotated", o->input);
	}
	*out = a;
	return 0;
}

int annotate__load_view(struct annotation **out, struct pview *v, struct resolver *r,
			const struct annotate_opts *o, char *why, size_t whylen)
{
	return load(out, o, v, r, why, whylen);
}
