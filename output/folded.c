// SPDX-License-Identifier: MIT
/* folded: collapsed stacks (see folded.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/callgraph.h"
#include "utils/array.h"
#include "output/export.h"
#include "output/folded.h"
#include "utils/htab.h"
#include "utils/outfile.h"
#include "utils/why.h"

/* One line: its text (the key) and its samples. */
struct line_ent {
	uint64_t hash; /* never 0 */
	char *text;
	uint64_t count;
};

struct line_key {
	uint64_t hash;
	const char *text;
};

static uint64_t line_hash(const void *key)
{
	return ((const struct line_key *)key)->hash;
}

static bool line_eq(const void *entry, const void *key)
{
	const struct line_ent *e = entry;
	const struct line_key *k = key;

	return e->hash == k->hash && !strcmp(e->text, k->text);
}

static const struct htab_type line_type = {
	.entry_size = sizeof(struct line_ent),
	.hash = line_hash,
	.eq = line_eq,
};

/* A growing text buffer. */
struct buf {
	char *s;
	size_t len, cap;
};

/* Room for n more bytes and the NUL. */
static int buf_room(struct buf *b, size_t n)
{
	return array__reserve(&b->s, &b->cap, b->len + n + 1, 1);
}

/* Append a frame: one per ';'-separated field, one stack per line. */
static int buf_frame(struct buf *b, int first, const char *name)
{
	size_t n = strlen(name);

	if (buf_room(b, n + 1))
		return -ENOMEM;
	if (!first)
		b->s[b->len++] = ';';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		b->s[b->len++] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	b->s[b->len] = 0;
	return 0;
}

/* The first frame of a process image's lines (see folded.h). */
static const char *command_name(const struct pv_proc *p)
{
	const struct pv_thread *t = pv_proc__thread(p, p->pid);
	const char *slash;

	if (t && t->comm[0])
		return t->comm;
	if (p->exe[0]) {
		slash = strrchr(p->exe, '/');
		if (slash && slash[1])
			return slash + 1;
		if (!slash)
			return p->exe;
	}
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].comm[0])
			return p->threads[i].comm;
	return "[unknown]";
}

struct folding {
	struct htab *lines;
	struct buf b;
	uint64_t samples;
};

static int add_line(struct folding *fo, uint64_t count)
{
	struct line_key k = {htab_hash_str(fo->b.s) | 1, fo->b.s};
	struct line_ent *e;
	bool fresh;

	e = htab__insert(fo->lines, &line_type, &k, &fresh);
	if (!e)
		return -ENOMEM;
	if (fresh) {
		char *text = strdup(fo->b.s);

		if (!text) {
			htab__cancel_fresh(fo->lines);
			return -ENOMEM;
		}
		*e = (struct line_ent){k.hash, text, 0};
	}
	e->count = e->count + count < e->count ? UINT64_MAX : e->count + count;
	fo->samples = fo->samples + count < fo->samples ? UINT64_MAX : fo->samples + count;
	return 0;
}

/* Every stack of process image p as a line, counted by value (enum folded_value). */
static int fold_proc(struct folding *fo, const struct pview *v, struct resolver *r,
		     const struct pv_proc *p, int value)
{
	struct callgraph *cg = callgraph__new();
	const char *comm = command_name(p);
	uint64_t period = value == FOLDED_WALL ? v->hdr.period_ns : 0;
	int rc = !cg		     ? -ENOMEM :
		 value == FOLDED_CPU ? callgraph__add_samples(cg, v, r, p, NULL) :
				       callgraph__add_weighted(cg, v, r, p, NULL, period, 1);

	for (size_t i = 0; !rc && i < callgraph__nstacks(cg); i++) {
		const struct func *frames[CALLGRAPH_MAX_FRAMES];
		struct cg_stack s;
		unsigned n;

		callgraph__stack(cg, i, &s);
		n = callgraph__frames(cg, &s, frames);
		fo->b.len = 0;
		rc = buf_frame(&fo->b, 1, comm);
		for (uint32_t k = n; !rc && k-- > 0;)
			rc = buf_frame(&fo->b, 0, frames[k]->name);
		if (!rc)
			rc = add_line(fo, s.count);
	}
	callgraph__free(cg);
	return rc;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line_ent *)a)->text, ((const struct line_ent *)b)->text);
}

/*
 * Write the folded stacks of v (names from r) to out.  sum may be NULL.
 * Returns 0, or -errno with one sentence in why.
 */
/* The folded stacks of v (names from r) to out, counted by value (enum folded_value). */
static int folded__write_value(FILE *out, const struct pview *v, struct resolver *r, int value,
			       struct folded_summary *sum, char *why, size_t whylen)
{
	struct folding fo = {htab__new(&line_type, 1023), {0}, 0};
	struct line_ent *lines = NULL;
	size_t n = 0;
	int rc = fo.lines ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < v->nprocs; i++)
		if ((value != FOLDED_OFFCPU && v->procs[i].samples) ||
		    (value != FOLDED_CPU && v->procs[i].offcpu_ns))
			rc = fold_proc(&fo, v, r, &v->procs[i], value);
	if (!rc) {
		lines = htab__take(fo.lines, &n);
		if (n > 1)
			qsort(lines, n, sizeof(*lines), cmp_line);
		errno = 0;
		for (size_t i = 0; i < n && !ferror(out); i++)
			fprintf(out, "%s %llu\n", lines[i].text,
				(unsigned long long)lines[i].count);
		if (ferror(out)) /* the write's own error: a full disk, a file size limit */
			rc = why_fail(why, whylen, errno ? -errno : -EIO, "%s",
				      strerror(errno ? errno : EIO));
	} else {
		rc = why_fail(why, whylen, rc, "out of memory");
	}
	if (!rc && sum) {
		sum->samples = fo.samples;
		sum->lines = n;
	}
	ARRAY_FREE_FIELD(lines, n, text);
	HTAB_FREE_OWNED(fo.lines, struct line_ent, text); /* after an error it still holds lines */
	free(fo.b.s);
	return rc;
}

struct folded_job {
	const struct pview *v;
	struct resolver *r;
	struct folded_summary *sum;
	int value;
};

static int fill_folded(FILE *f, void *arg, char *why, size_t whylen)
{
	struct folded_job *job = arg;

	return folded__write_value(f, job->v, job->r, job->value, job->sum, why, whylen);
}

int folded__export(const char *data_path, const char *out_path, struct folded_summary *sum,
		   char *why, size_t whylen)
{
	return folded__export_value(data_path, out_path, FOLDED_CPU, sum, why, whylen);
}

int folded__export_value(const char *data_path, const char *out_path, int value,
			 struct folded_summary *sum, char *why, size_t whylen)
{
	struct folded_summary local;
	struct pview *v = NULL;
	struct resolver *r = NULL;
	int rc;

	/* ("-" is stdout, written in place) */
	rc = export__load_view(&v, data_path, out_path, why, whylen);
	if (rc < 0)
		return rc;
	if (value != FOLDED_CPU && !v->noffcpu) {
		rc = why_fail(why, whylen, -EINVAL,
			      "%s has no off-CPU time (record it with profil record --off-cpu)",
			      data_path);
		pview__free(v);
		return rc;
	}
	r = resolver__new(v, 0);
	if (!r)
		rc = why_fail(why, whylen, -ENOMEM, "out of memory");
	else
		rc = outfile__write_stream(out_path, &pdata__output_rules, fill_folded,
					   &(struct folded_job){v, r, sum ? sum : &local, value},
					   why, whylen);
	resolver__free(r);
	pview__free(v);
	return rc;
}
