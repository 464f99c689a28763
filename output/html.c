// SPDX-License-Identifier: MIT
/*
 * html: the HTML report (see html.h).  The samples are gathered into the
 * document's tables (processes, threads, unique frames, stack rows) with
 * hash maps, then written as one JSON object inside the embedded page.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "utils/array.h"
#include "utils/htab.h"
#include "utils/json.h"
#include "report/callgraph.h"
#include "annotate/annotate.h"
#include "output/html.h"
#include "profile/pdata.h"
#include "utils/outfile.h"
#include "utils/sat.h"
#include "utils/why.h"

/* The page sources, embedded by output/html_assets.S. */
extern const char html_page_start[], html_page_end[];
extern const char html_css_start[], html_css_end[];
extern const char html_js_start[], html_js_end[];
extern const char html_common_js_start[], html_common_js_end[];
extern const char html_diff_page_start[], html_diff_page_end[];
extern const char html_diff_css_start[], html_diff_css_end[];
extern const char html_diff_js_start[], html_diff_js_end[];
extern const char html_top_start[], html_top_end[];
extern const char html_flame_start[], html_flame_end[];
extern const char html_end_start[], html_end_end[];

/* Functions the page annotates (source lines and instructions), the hottest with code. */
#define HTML_ANNOTATED 20

struct html_thread {
	uint32_t proc; /* index into procs */
	int tid;
};

/*
 * One row of "samples" (kind PDATA_KIND_CPU: count samples) or of "offcpu"
 * (an off-CPU reason: count nanoseconds) of one thread with one stack.
 */
struct stack_row {
	uint64_t count;
	uint32_t thread, nframes;
	uint32_t kind, pad;
	uint32_t *frames; /* frame indexes, leaf first */
};

struct html_report {
	const struct pview *v;
	struct resolver *r;
	struct htab *proc_idx, *thread_idx, *frame_idx, *row_idx; /* utils/htab index tables */
	const struct pv_proc **procs;
	size_t nprocs, procs_cap;
	struct html_thread *threads;
	size_t nthreads, threads_cap;
	const struct func **frames;
	size_t nframes, frames_cap;
	struct stack_row *rows;
	size_t nrows, rows_cap;
	uint32_t *scratch; /* frame indexes of the stack being added */
	size_t scratch_cap;
	/* the report's time without samples (html__write_report), which the page states */
	uint64_t accounted_ns, unsampled_ns;
	uint64_t offcpu_ns[PDATA_KIND_NR]; /* the off-CPU rows' time: [0] all, [k] reason k */
	/* the report's process images, and those with time (as its text header says them) */
	size_t images, images_with_time;
	/* the annotations of its hottest functions (html__write_report), or NULL */
	struct json_object *annotations;
};

/* ---- the document's tables ------------------------------------------------ */

struct html_report *html__new(const struct pview *v, struct resolver *r)
{
	struct html_report *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->v = v;
	h->r = r;
	return h;
}

void html__free(struct html_report *h)
{
	if (!h)
		return;
	htab__free(h->proc_idx);
	htab__free(h->thread_idx);
	htab__free(h->frame_idx);
	htab__free(h->row_idx);
	ARRAY_FREE_FIELD(h->rows, h->nrows, frames);
	free(h->procs);
	free(h->threads);
	free(h->frames);
	free(h->scratch);
	json_object_put(h->annotations);
	free(h);
}

/*
 * The index of the element of slot (a lookup of htab__index_slot with hash
 * hash): a new one (slot->idx1 == 0) is val, elem bytes appended to the
 * array *arr (*n elements of *cap).  0, or -ENOMEM (slot NULL, or no room).
 */
static int slot_index(struct htab_islot *slot, uint64_t hash, void *arr, size_t *cap, size_t *n,
		      size_t elem, const void *val, uint32_t *idx)
{
	void *base;

	if (!slot)
		return -ENOMEM;
	if (!slot->idx1) {
		if (array__reserve(arr, cap, *n + 1, elem))
			return -ENOMEM;
		memcpy(&base, arr, sizeof(base));
		memcpy((char *)base + *n * elem, val, elem);
		*slot = (struct htab_islot){hash, ++*n};
	}
	*idx = (uint32_t)(slot->idx1 - 1);
	return 0;
}

static int proc_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct html_report *)ctx)->procs[idx]->id == *(const uint32_t *)key;
}

static int proc_index(struct html_report *h, const struct pv_proc *p, uint32_t *idx)
{
	uint64_t hash = htab_hash_u64(p->id);

	return slot_index(htab__index_slot(&h->proc_idx, hash, proc_eq, h, &p->id), hash, &h->procs,
			  &h->procs_cap, &h->nprocs, sizeof(*h->procs), &p, idx);
}

static int thread_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct html_thread *t = &((const struct html_report *)ctx)->threads[idx];
	const struct html_thread *k = key;

	return t->proc == k->proc && t->tid == k->tid;
}

static int thread_index(struct html_report *h, uint32_t proc, int tid, uint32_t *idx)
{
	struct html_thread key = {proc, tid};
	uint64_t hash = htab_hash_u64((uint64_t)proc << 32 | (uint32_t)tid);

	return slot_index(htab__index_slot(&h->thread_idx, hash, thread_eq, h, &key), hash,
			  &h->threads, &h->threads_cap, &h->nthreads, sizeof(*h->threads), &key,
			  idx);
}

static int frame_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct html_report *)ctx)->frames[idx] == key;
}

/* Frames are unique functions (function + line with --lines): the resolver interns them. */
static int frame_index(struct html_report *h, const struct func *f, uint32_t *idx)
{
	uint64_t hash = htab_hash_u64((uintptr_t)f);

	return slot_index(htab__index_slot(&h->frame_idx, hash, frame_eq, h, f), hash, &h->frames,
			  &h->frames_cap, &h->nframes, sizeof(*h->frames), &f, idx);
}

static uint64_t stack_hash(uint32_t thread, uint32_t kind, const uint32_t *frames, size_t n)
{
	uint64_t x = htab_hash_u64(((uint64_t)kind << 32 | thread) + 0x9e3779b97f4a7c15ull);

	for (size_t i = 0; i < n; i++)
		x = htab_hash_u64(x ^ (frames[i] + 0x632be59bd9b4e019ull));
	return x;
}

/* A row's key: what add_row sums under. */
struct row_key {
	uint32_t thread, kind;
	const uint32_t *frames;
	size_t n;
};

static int row_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct stack_row *row = &((const struct html_report *)ctx)->rows[idx];
	const struct row_key *k = key;

	return row->thread == k->thread && row->kind == k->kind && row->nframes == k->n &&
	       !memcmp(row->frames, k->frames, k->n * sizeof(*k->frames));
}

/* Sum count into the row of (thread, kind, frames), adding the row if it is new. */
static int add_row(struct html_report *h, uint32_t thread, uint32_t kind, const uint32_t *frames,
		   size_t n, uint64_t count)
{
	uint64_t hash = stack_hash(thread, kind, frames, n);
	struct row_key key = {thread, kind, frames, n};
	struct htab_islot *e = htab__index_slot(&h->row_idx, hash, row_eq, h, &key);
	struct stack_row *row;

	if (!e)
		return -ENOMEM;
	if (e->idx1) {
		row = &h->rows[e->idx1 - 1];
		row->count = sat_add(row->count, count);
		return 0;
	}
	if (h->nrows >= UINT32_MAX - 1 ||
	    array__reserve(&h->rows, &h->rows_cap, h->nrows + 1, sizeof(*h->rows)))
		return -ENOMEM;
	row = &h->rows[h->nrows];
	row->frames = malloc(n * sizeof(*frames));
	if (!row->frames)
		return -ENOMEM;
	memcpy(row->frames, frames, n * sizeof(*frames));
	row->count = count;
	row->thread = thread;
	row->kind = kind;
	row->nframes = (uint32_t)n;
	*e = (struct htab_islot){hash, ++h->nrows};
	return 0;
}

/* The stack pcs of thread tid of p (mapping generation gen) as a row of kind (count samples, or ns off the CPU). */
static int add_kind_stack(struct html_report *h, const struct pv_proc *p, uint32_t gen, int tid,
			  const uint64_t *pcs, size_t npcs, uint32_t kind, uint64_t count)
{
	const struct func *inl[RESOLVE_MAX_INLINE + 1];
	size_t nframes = 0;
	uint32_t proc, thread;
	int rc;

	if (!npcs || npcs > UINT32_MAX / (RESOLVE_MAX_INLINE + 1))
		return -EINVAL;
	rc = proc_index(h, p, &proc);
	if (!rc)
		rc = thread_index(h, proc, tid, &thread);
	/* each PC is its function's frame, after the frames of the functions inlined there */
	for (size_t i = 0; !rc && i < npcs; i++) {
		/* the resolver counts samples for its notes; nanoseconds are no samples */
		int k = resolver__frames(h->r, p, gen, pcs[i], kind == PDATA_KIND_CPU ? count : 0,
					 inl, RESOLVE_MAX_INLINE + 1);

		if (k < 0)
			return k;
		if (nframes + (size_t)k > h->scratch_cap) {
			size_t cap = (nframes + (size_t)k) * 2;
			uint32_t *s = realloc(h->scratch, cap * sizeof(*s));

			if (!s)
				return -ENOMEM;
			h->scratch = s;
			h->scratch_cap = cap;
		}
		for (int j = 0; !rc && j < k; j++)
			rc = frame_index(h, inl[j], &h->scratch[nframes++]);
	}
	return rc ? rc : add_row(h, thread, kind, h->scratch, nframes, count);
}

int html__add_stack(struct html_report *h, const struct pv_proc *p, uint32_t gen, int tid,
		    const uint64_t *pcs, size_t npcs, uint64_t count)
{
	return add_kind_stack(h, p, gen, tid, pcs, npcs, PDATA_KIND_CPU, count);
}

int html__add_offcpu(struct html_report *h, const struct pv_proc *p, uint32_t gen, int tid,
		     const uint64_t *pcs, size_t npcs, uint32_t reason, uint64_t ns)
{
	int rc;

	if (!PDATA_KIND_OFFCPU(reason))
		return -EINVAL;
	rc = add_kind_stack(h, p, gen, tid, pcs, npcs, reason, ns);
	if (!rc) {
		h->offcpu_ns[0] = sat_add(h->offcpu_ns[0], ns);
		h->offcpu_ns[reason] = sat_add(h->offcpu_ns[reason], ns);
	}
	return rc;
}

/*
 * Add every sample of the profile with its call stack (callgraph.h's
 * callgraph__lookup_pcs: callers at their return address - 1, a stack cut
 * short under "[truncated]"); a sample without a stack is one frame.
 * 0 or -ENOMEM.
 */
static int add_slots(struct html_report *h, const struct pv_sample *all, size_t nall)
{
	const struct pview *v = h->v;
	const struct pv_proc *p = NULL;
	uint64_t pcs[CALLGRAPH_MAX_PCS];

	for (size_t i = 0; i < nall; i++) {
		const struct pv_sample *s = &all[i];
		int truncated, rc;
		unsigned n;

		if (!s->count)
			continue;
		p = pview__sample_proc(v, s, p);
		if (!p)
			continue; /* cannot happen: pview gives every proc id a process */
		n = callgraph__lookup_pcs(v, s, pcs, &truncated);
		rc = s->kind == PDATA_KIND_CPU ?
			     html__add_stack(h, p, s->gen, s->tid, pcs, n, s->count) :
			     html__add_offcpu(h, p, s->gen, s->tid, pcs, n, s->kind, s->count);
		if (rc && rc != -EINVAL)
			return rc;
	}
	return 0;
}

/* The samples, then the off-CPU slots (their time under the stack each thread left the CPU with). */
static int html__add_samples(struct html_report *h)
{
	int rc = add_slots(h, h->v->samples, h->v->nsamples);

	return rc ? rc : add_slots(h, h->v->offcpu, h->v->noffcpu);
}

/* ---- JSON --------------------------------------------------------------------- */

static double seconds_per_sample(const struct pdata_header *hdr)
{
	if (hdr->period_ns)
		return (double)hdr->period_ns / 1e9;
	return hdr->nominal_hz ? 1.0 / hdr->nominal_hz : 0;
}

static struct json_object *meta_json(const struct html_report *h, const char *const *notes,
				     size_t nnotes)
{
	const struct pdata_header *hdr = &h->v->hdr;
	struct json_object *m = json_object_new_object(), *jnotes = json_object_new_array();
	double per = seconds_per_sample(hdr);
	int rc = m && jnotes ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < nnotes; i++)
		rc = json__push(jnotes, json_object_new_string(notes[i]));
	if (!rc) {
		rc |= json__set(m, "notes", jnotes);
		jnotes = NULL;
	}
	if (!rc) {
		rc |= json__set(m, "command", json_object_new_string(hdr->command));
		rc |= json__set(m, "clock", json_object_new_string(pdata__clock_name(hdr->clock)));
		rc |= json__set(m, "clock_note", json_object_new_string(hdr->clock_note));
		rc |= json__set(m, "rate_hz", json__double(pview__rate_hz(h->v)));
		rc |= json__set(m, "nominal_hz", json__uint(hdr->nominal_hz));
		rc |= json__set(m, "period_ns", json__uint(hdr->period_ns));
		rc |= json__set(m, "seconds_per_sample", json__double(per));
		rc |= json__set(m, "samples", json__uint(hdr->samples));
		rc |= json__set(m, "lost", json__uint(hdr->lost));
		rc |= json__set(m, "dropped", json__uint(hdr->dropped));
		rc |= json__set(m, "complete",
				json_object_new_boolean(hdr->state == PDATA_COMPLETE));
		rc |= json__set(m, "total_samples", json__uint(h->v->total));
		rc |= json__set(m, "total_seconds", json__double((double)h->v->total * per));
		rc |= json__set(m, "cpu_seconds", json__double((double)hdr->cpu_ns / 1e9));
		rc |= json__set(m, "accounted_seconds",
				json__double((double)h->accounted_ns / 1e9));
		rc |= json__set(m, "unsampled_seconds",
				json__double((double)h->unsampled_ns / 1e9));
		rc |= json__set(m, "offcpu_seconds", json__double((double)h->offcpu_ns[0] / 1e9));
		rc |= json__set(m, "process_images", json__uint(h->images));
		rc |= json__set(m, "images_with_time", json__uint(h->images_with_time));
		rc |= json__set(m, "profil_version", json_object_new_string(PROFIL_VERSION));
	}
	json_object_put(jnotes);
	return json__finish(m, rc);
}

/* The name of a process image: its main thread's, else its first thread's, else "". */
static const char *proc_comm(const struct pv_proc *p)
{
	const struct pv_thread *t = pv_proc__thread(p, p->pid);

	if (t)
		return t->comm;
	return p->nthreads ? p->threads[0].comm : "";
}

static int add_procs_threads(const struct html_report *h, struct json_object *top)
{
	struct json_object *procs = json_object_new_array(), *threads = json_object_new_array();
	int rc = procs && threads ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < h->nprocs; i++) {
		struct json_object *o = json_object_new_object();

		rc = o ? 0 : -ENOMEM;
		if (!rc) {
			rc |= json__set(o, "pid", json_object_new_int(h->procs[i]->pid));
			rc |= json__set(o, "exe", json_object_new_string(h->procs[i]->exe));
			rc |= json__set(o, "comm", json_object_new_string(proc_comm(h->procs[i])));
			rc |= json__push(procs, o);
		}
	}
	for (size_t i = 0; !rc && i < h->nthreads; i++) {
		const struct html_thread *t = &h->threads[i];
		const struct pv_thread *pt = pv_proc__thread(h->procs[t->proc], t->tid);
		struct json_object *o = json_object_new_object();

		rc = o ? 0 : -ENOMEM;
		if (!rc) {
			rc |= json__set(o, "proc", json_object_new_int((int32_t)t->proc));
			rc |= json__set(o, "tid", json_object_new_int(t->tid));
			rc |= json__set(o, "comm", json_object_new_string(pt ? pt->comm : ""));
			rc |= json__push(threads, o);
		}
	}
	if (!rc) {
		rc = json__set(top, "procs", procs);
		procs = NULL;
	}
	if (!rc) {
		rc = json__set(top, "threads", threads);
		threads = NULL;
	}
	json_object_put(procs);
	json_object_put(threads);
	return rc;
}

static int add_frames(const struct html_report *h, struct json_object *top)
{
	struct json_object *frames = json_object_new_array();
	int rc = frames ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < h->nframes; i++) {
		const struct func *f = h->frames[i];
		struct json_object *o = json_object_new_object();

		rc = o ? 0 : -ENOMEM;
		if (!rc) {
			rc |= json__set(o, "name", json_object_new_string(f->name));
			rc |= json__set(o, "object", json_object_new_string(f->objpath));
			if (f->file)
				rc |= json__set(o, "file", json_object_new_string(f->file));
			else
				json_object_object_add(o, "file", NULL); /* JSON null */
			rc |= json__set(o, "line", json_object_new_int(f->line));
			rc |= json__push(frames, o);
		}
	}
	if (!rc)
		return json__set(top, "frames", frames);
	json_object_put(frames);
	return rc;
}

/*
 * "samples": [thread, samples, leaf frame, ..., outermost] per CPU row;
 * "offcpu" (off-CPU rows): [thread, reason (enum pdata_kind), ns, leaf, ...].
 */
static int add_samples(const struct html_report *h, struct json_object *top)
{
	struct json_object *samples = json_object_new_array(), *off = json_object_new_array();
	int rc = samples && off ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < h->nrows; i++) {
		const struct stack_row *row = &h->rows[i];
		struct json_object *a = json_object_new_array_ext((int)row->nframes + 3);

		rc = a ? 0 : -ENOMEM;
		if (!rc) {
			rc |= json__push(a, json_object_new_int64(row->thread));
			if (row->kind != PDATA_KIND_CPU)
				rc |= json__push(a, json_object_new_int64(row->kind));
			rc |= json__push(a, json__uint(row->count));
			for (uint32_t f = 0; !rc && f < row->nframes; f++)
				rc = json__push(a, json_object_new_int64(row->frames[f]));
			rc |= json__push(row->kind == PDATA_KIND_CPU ? samples : off, a);
		}
	}
	if (!rc) {
		rc = json__set(top, "samples", samples);
		samples = NULL;
	}
	if (!rc && h->offcpu_ns[0]) {
		rc = json__set(top, "offcpu", off);
		off = NULL;
	}
	json_object_put(samples);
	json_object_put(off);
	return rc;
}

static struct json_object *document_json(const struct html_report *h, const char *const *notes,
					 size_t nnotes)
{
	struct json_object *top = json_object_new_object();
	int rc = top ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__set(top, "version", json_object_new_int(1));
		rc |= json__set(top, "meta", meta_json(h, notes, nnotes));
	}
	if (!rc)
		rc = add_procs_threads(h, top);
	if (!rc)
		rc = add_frames(h, top);
	if (!rc)
		rc = add_samples(h, top);
	if (!rc && h->annotations)
		rc = json__set(top, "annotations", json_object_get(h->annotations));
	return json__finish(top, rc);
}

/* ---- the page ----------------------------------------------------------------- */

/*
 * JSON text inside a <script> element: '<' appears in JSON only inside
 * strings, where \u003c means the same; without any '<' no string can
 * close the element ("</script") or open a comment ("<!--").
 */
static void put_script_json(FILE *out, const char *s)
{
	const char *lt;

	while ((lt = strchr(s, '<'))) {
		fwrite(s, 1, (size_t)(lt - s), out);
		fputs("\\u003c", out);
		s = lt + 1;
	}
	fputs(s, out);
}

/* A fresh nonce for the page's Content-Security-Policy: only its own style and script run. */
static void make_nonce(char out[33])
{
	unsigned char b[16];
	struct timespec ts;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(htab_hash_u64((uint64_t)ts.tv_nsec +
							     i * 0x9e37ull) >>
					       24);
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/*
 * A page: its template, the pieces its markers stand for (output/html_assets.S)
 * and its words (the title, the heading, the flame graph's), which the
 * pieces both pages share (top.html, flame.html) name.
 */
struct html_template {
	const char *page, *page_end;
	const char *style[2][2]; /* [start, end) of each piece; unused pieces NULL */
	const char *script[2][2];
	const char *words[4][2]; /* {marker, text} */
};

static const struct html_template report_page = {
	html_page_start,
	html_page_end,
	{{html_css_start, html_css_end}},
	{{html_common_js_start, html_common_js_end}, {html_js_start, html_js_end}},
	{{"TITLE", "profil report"},
	 {"HEADING", "profile"},
	 {"FLAME_TITLE", "Flame graph"},
	 {"FLAME_LABEL", "flame graph"}},
};

static const struct html_template diff_page = {
	html_diff_page_start,
	html_diff_page_end,
	{{html_css_start, html_css_end}, {html_diff_css_start, html_diff_css_end}},
	{{html_common_js_start, html_common_js_end}, {html_diff_js_start, html_diff_js_end}},
	{{"TITLE", "profil diff"},
	 {"HEADING", "diff"},
	 {"FLAME_TITLE", "Differential flame graph"},
	 {"FLAME_LABEL", "differential flame graph"}},
};

/* The pieces of output/html/ that both pages' templates name, each on a line of its own. */
static const struct html_shared {
	const char *marker, *start, *end;
} html_shared[] = {
	{"TOP", html_top_start, html_top_end},
	{"FLAME", html_flame_start, html_flame_end},
	{"END", html_end_start, html_end_end},
};

static void put_pieces(FILE *out, const char *const (*pieces)[2])
{
	for (int i = 0; i < 2 && pieces[i][0]; i++)
		fwrite(pieces[i][0], 1, (size_t)(pieces[i][1] - pieces[i][0]), out);
}

/* What a page's markers stand for, and which of STYLE, DATA, SCRIPT it has written. */
struct page_out {
	FILE *out;
	const struct html_template *t;
	const char *json;
	char nonce[33];
	unsigned seen;
};

static bool is_marker(const char *name, size_t len, const char *marker)
{
	return len == strlen(marker) && !memcmp(name, marker, len);
}

/* The text of the template's word named [name, name + len), or NULL. */
static const char *word_of(const struct html_template *t, const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(t->words); i++)
		if (is_marker(name, len, t->words[i][0]))
			return t->words[i][1];
	return NULL;
}

/* The shared piece named [name, name + len), or NULL. */
static const struct html_shared *shared_of(const char *name, size_t len)
{
	for (size_t k = 0; k < ARRAY_SIZE(html_shared); k++)
		if (is_marker(name, len, html_shared[k].marker))
			return &html_shared[k];
	return NULL;
}

/*
 * Text [at, end) with each @@NAME@@ marker replaced: STYLE, DATA and SCRIPT
 * (once each), NONCE, the template's words and (in the page itself, depth
 * 0) the shared pieces, whose line end the piece brings.  -EINVAL for any
 * other marker.
 */
static int put_text(struct page_out *po, const char *at, const char *end, int depth)
{
	const struct html_template *t = po->t;
	const struct html_shared *piece;
	const char *m, *word;

	while ((m = memmem(at, (size_t)(end - at), "@@", 2))) {
		const char *name = m + 2;
		const char *close = memmem(name, (size_t)(end - name), "@@", 2);
		size_t len;

		if (!close)
			return -EINVAL;
		len = (size_t)(close - name);
		fwrite(at, 1, (size_t)(m - at), po->out);
		at = close + 2;
		if (is_marker(name, len, "NONCE")) {
			fputs(po->nonce, po->out);
		} else if (is_marker(name, len, "STYLE") && !(po->seen & 1)) {
			put_pieces(po->out, t->style);
			po->seen |= 1;
		} else if (is_marker(name, len, "DATA") && !(po->seen & 2)) {
			put_script_json(po->out, po->json);
			po->seen |= 2;
		} else if (is_marker(name, len, "SCRIPT") && !(po->seen & 4)) {
			put_pieces(po->out, t->script);
			po->seen |= 4;
		} else if ((word = word_of(t, name, len))) {
			fputs(word, po->out);
		} else if (!depth && (piece = shared_of(name, len))) {
			if (put_text(po, piece->start, piece->end, 1))
				return -EINVAL;
			at += at < end && *at == '\n';
		} else {
			return -EINVAL;
		}
	}
	fwrite(at, 1, (size_t)(end - at), po->out);
	return 0;
}

/* The page of template t with json as its data.  -EINVAL if the template is not like that. */
static int put_page(FILE *out, const struct html_template *t, const char *json)
{
	struct page_out po = {out, t, json, "", 0};

	make_nonce(po.nonce);
	if (put_text(&po, t->page, t->page_end, 0))
		return -EINVAL;
	return po.seen == 7 ? 0 : -EINVAL;
}

/* The page of template t with the document doc into out; 0 or -errno with one sentence. */
static int write_doc(FILE *out, const struct html_template *t, struct json_object *doc, char *why,
		     size_t whylen)
{
	const char *json;

	if (!doc)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	json = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!json)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	if ((errno = 0, put_page(out, t, json)))
		return why_fail(why, whylen, -EINVAL,
				"the page template built into profil is broken");
	if (ferror(out)) /* the write's own error: a full disk, a file size limit */
		return why_fail(why, whylen, errno ? -errno : -EIO, "%s",
				strerror(errno ? errno : EIO));
	return 0;
}

int html__write(struct html_report *h, FILE *out, const char *const *notes, size_t nnotes,
		char *why, size_t whylen)
{
	struct json_object *doc = document_json(h, notes, nnotes);
	int rc = write_doc(out, &report_page, doc, why, whylen);

	json_object_put(doc);
	return rc;
}

/* A page to write into a file: its template and its document. */
struct page_job {
	const struct html_template *t;
	struct json_object *doc;
};

static int fill_page(FILE *f, void *arg, char *why, size_t whylen)
{
	const struct page_job *job = arg;

	return write_doc(f, job->t, job->doc, why, whylen);
}

/* "-" is stdout, written in place, like any descriptor name. */
static int write_file(const char *path, const struct html_template *t, struct json_object *doc,
		      char *why, size_t whylen)
{
	struct page_job job = {t, doc};

	if (!doc)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	return outfile__write_stream(path, &pdata__output_rules, fill_page, &job, why, whylen);
}

int html__write_diff(const char *path, struct json_object *doc, char *why, size_t whylen)
{
	return write_file(path, &diff_page, doc, why, whylen);
}

/*
 * The page's annotations: its HTML_ANNOTATED hottest functions with machine code
 * (annotate/annotate.h, with the report's own view), or NULL when there are none.
 */
static struct json_object *annotations_json(const struct report *m)
{
	struct annotate_opts o = {.input = "", .top = HTML_ANNOTATED};
	struct json_object *top, *arr = NULL;
	struct annotation *a;
	char why[256];

	if (annotate__load_view(&a, m->v, m->r, &o, why, sizeof(why)) < 0)
		return NULL;
	top = annotate__json(a);
	annotate__free(a);
	if (top && json_object_object_get_ex(top, "annotations", &arr))
		json_object_get(arr);
	json_object_put(top);
	return arr;
}

int html__write_report(const struct report *m, const char *path, char *why, size_t whylen)
{
	struct html_report *h = html__new(m->v, m->r);
	struct json_object *doc = NULL;
	int rc = h ? html__add_samples(h) : -ENOMEM;

	if (rc < 0) {
		html__free(h);
		return why_fail(why, whylen, rc, "out of memory");
	}
	h->accounted_ns = m->totals.accounted_ns;
	h->unsampled_ns = m->totals.unsampled_ns;
	h->images = m->totals.images;
	h->images_with_time = m->totals.images_with_time;
	h->annotations = annotations_json(m);
	doc = document_json(h, (const char *const *)m->notes, m->nnotes);
	rc = write_file(path, &report_page, doc, why, whylen);
	json_object_put(doc);
	html__free(h);
	return rc;
}
