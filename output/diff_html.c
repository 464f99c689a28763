// SPDX-License-Identifier: MIT
/*
 * profil diff --format html: the differential flame graph of two profiles
 * (report/diff.h) in one self-contained page (output/html/diff.html, written
 * by output/html.c).  The page's document (doc/report-json.md, "profil diff
 * --format html") is the comparison's JSON (diff__json: the tables) and the
 * stacks of both profiles merged into one tree:
 *
 *   all -> command (executable base name) -> outermost frame .. leaf
 *
 * whose every node holds its samples in OLD and in NEW (inclusive: the
 * samples whose stack passes through it).  Frames are matched across the
 * two profiles as the comparison matches functions: by name and object base
 * name; the functions inlined at a PC are frames of their own (as in the
 * report's page).  The page colours each frame by its change and draws
 * the widths of NEW (or OLD).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "report/callgraph.h"
#include "utils/array.h"
#include "utils/htab.h"
#include "utils/json.h"
#include "utils/sat.h"
#include "utils/why.h"

#define NO_FRAME UINT32_MAX /* the root's frame */

/* A frame of either profile: (name, object base name); object NULL for a command. */
struct dframe {
	const char *name, *object, *path;
};

struct dframe_ent {
	struct htab_name_key k;
	uint32_t idx;
	uint32_t pad;
};

/* A node of the merged tree; node 0 is the root. */
struct dnode {
	uint32_t parent, frame;
	uint64_t count[2]; /* [0] OLD, [1] NEW */
};

/* (parent node, frame) -> node; parent << 32 | frame is the key, node >= 1 */
struct dnode_ent {
	uint64_t key;
	uint64_t node;
};

struct dtree {
	struct htab *frame_idx, *node_idx;
	struct dframe *frames;
	size_t nframes, frames_cap;
	struct dnode *nodes;
	size_t nnodes, nodes_cap;
};

static const struct htab_type dframe_type = {
	.entry_size = sizeof(struct dframe_ent),
	.hash = htab_name_key_hash,
	.eq = htab_name_key_eq,
};

static const struct htab_type dnode_type = HTAB_U64_TYPE(struct dnode_ent);

static long frame_index(struct dtree *t, const char *name, const char *object, const char *path)
{
	struct dframe_ent k = {{name, object}, 0, 0}, *e;
	bool fresh;

	e = htab__insert(t->frame_idx, &dframe_type, &k, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh)
		return e->idx;
	if (t->nframes >= NO_FRAME ||
	    array__reserve(&t->frames, &t->frames_cap, t->nframes + 1, sizeof(*t->frames))) {
		htab__cancel_fresh(t->frame_idx);
		return -ENOMEM;
	}
	t->frames[t->nframes] = (struct dframe){name, object, path};
	*e = (struct dframe_ent){{name, object}, (uint32_t)t->nframes, 0};
	return (long)t->nframes++;
}

/* The child of node parent for frame, made when new.  Its index, or -ENOMEM. */
static long child(struct dtree *t, uint32_t parent, uint32_t frame)
{
	uint64_t key = (uint64_t)parent << 32 | frame;
	struct dnode_ent *e;
	bool fresh;

	e = htab__insert(t->node_idx, &dnode_type, &key, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh)
		return (long)e->node;
	if (t->nnodes >= UINT32_MAX ||
	    array__reserve(&t->nodes, &t->nodes_cap, t->nnodes + 1, sizeof(*t->nodes))) {
		htab__cancel_fresh(t->node_idx);
		return -ENOMEM;
	}
	t->nodes[t->nnodes] = (struct dnode){parent, frame, {0, 0}};
	*e = (struct dnode_ent){key, t->nnodes};
	return (long)t->nnodes++;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * count samples of side whose frames (leaf first) are frames[0..n) in a
 * process image of executable exe: added to every node from the root to
 * the leaf's.  0 or -ENOMEM.
 */
static int add_stack(struct dtree *t, int side, const char *exe, const struct func **frames, int n,
		     uint64_t count)
{
	long f = frame_index(t, base_name(exe), NULL, exe);
	long node = f < 0 ? f : child(t, 0, (uint32_t)f);

	t->nodes[0].count[side] = sat_add(t->nodes[0].count[side], count);
	for (int i = n; node >= 0; i--) {
		t->nodes[node].count[side] = sat_add(t->nodes[node].count[side], count);
		if (!i)
			break;
		f = frame_index(t, frames[i - 1]->name, frames[i - 1]->object,
				frames[i - 1]->objpath);
		node = f < 0 ? f : child(t, (uint32_t)node, (uint32_t)f);
	}
	return node < 0 ? (int)node : 0;
}

/* Every sample of one profile, with its stack (a flat sample is one frame). */
static int add_profile(struct dtree *t, int side, const struct report *rep)
{
	const struct pview *v = rep->v;
	const struct pv_proc *p = NULL;
	const struct func **frames = calloc(CALLGRAPH_MAX_FRAMES, sizeof(*frames));
	int rc = frames ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];
		int truncated, n;

		if (!s->count)
			continue;
		p = pview__sample_proc(v, s, p);
		if (!p)
			continue; /* cannot happen: pview gives every proc id a process */
		n = callgraph__sample_frames(v, rep->r, p, s, frames, &truncated);
		rc = n < 0 ? n :
			     add_stack(t, side, p->exe[0] ? p->exe : "[unknown]", frames, n,
				       s->count);
	}
	free(frames);
	return rc;
}

static void dtree_free(struct dtree *t)
{
	htab__free(t->frame_idx);
	htab__free(t->node_idx);
	free(t->frames);
	free(t->nodes);
}

static int dtree_build(struct dtree *t, const struct diff *d)
{
	t->frame_idx = htab__new(&dframe_type, 1024);
	t->node_idx = htab__new(&dnode_type, 4096);
	if (!t->frame_idx || !t->node_idx ||
	    array__reserve(&t->nodes, &t->nodes_cap, 1, sizeof(*t->nodes)))
		return -ENOMEM;
	t->nodes[0] = (struct dnode){0, NO_FRAME, {0, 0}};
	t->nnodes = 1;
	if (add_profile(t, 0, d->old) < 0 || add_profile(t, 1, d->new) < 0)
		return -ENOMEM;
	return 0;
}

/* ---- the document ------------------------------------------------------------- */

static struct json_object *frames_json(const struct dtree *t)
{
	struct json_object *arr = json_object_new_array_ext((int)t->nframes);
	int rc = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < t->nframes; i++) {
		const struct dframe *f = &t->frames[i];
		struct json_object *o = json_object_new_object();

		rc = o ? 0 : -ENOMEM;
		if (rc)
			break;
		rc |= json__set(o, "name", json_object_new_string(f->name));
		if (f->object)
			rc |= json__set(o, "object", json_object_new_string(f->object));
		else
			rc |= json__set(o, "command", json_object_new_boolean(1));
		rc |= json__set(o, "path", json_object_new_string(f->path));
		rc |= json__push(arr, o);
	}
	return json__finish(arr, rc);
}

/* [parent, frame, old, new] per node; the root: [0, -1, old total, new total]. */
static struct json_object *nodes_json(const struct dtree *t)
{
	struct json_object *arr = json_object_new_array_ext((int)t->nnodes);
	int rc = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < t->nnodes; i++) {
		const struct dnode *n = &t->nodes[i];
		struct json_object *a = json_object_new_array_ext(4);

		rc = a ? 0 : -ENOMEM;
		if (rc)
			break;
		rc |= json__push(a, json_object_new_int64(n->parent));
		rc |= json__push(
			a, json_object_new_int64(n->frame == NO_FRAME ? -1 : (int64_t)n->frame));
		rc |= json__push(a, json__uint(n->count[0]));
		rc |= json__push(a, json__uint(n->count[1]));
		rc |= json__push(arr, a);
	}
	return json__finish(arr, rc);
}

static struct json_object *document_json(const struct diff *d, const struct diff_print *o,
					 const struct dtree *t)
{
	struct json_object *top = json_object_new_object();
	struct json_object *per = json_object_new_array_ext(2);
	int rc = top && per ? 0 : -ENOMEM;

	if (!rc) {
		rc |= json__push(per, json__double(d->old->period_s));
		rc |= json__push(per, json__double(d->new->period_s));
		rc |= json__set(top, "version", json_object_new_int(1));
		rc |= json__set(top, "diff", diff__json(d, o));
		rc |= json__set(top, "seconds_per_sample", per);
		per = NULL;
		rc |= json__set(top, "normalize", json_object_new_boolean(o->normalize));
		rc |= json__set(top, "frames", frames_json(t));
		rc |= json__set(top, "nodes", nodes_json(t));
		rc |= json__set(top, "profil_version", json_object_new_string(PROFIL_VERSION));
	}
	json_object_put(per);
	return json__finish(top, rc);
}

int diff__write_html(const struct diff *d, const struct diff_print *o, const char *path, char *why,
		     size_t whylen)
{
	struct dtree t = {0};
	struct json_object *doc = NULL;
	int rc = dtree_build(&t, d);

	if (!rc)
		doc = document_json(d, o, &t);
	dtree_free(&t);
	if (rc < 0 || !doc) {
		json_object_put(doc);
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	}
	rc = html__write_diff(path, doc, why, whylen);
	json_object_put(doc);
	return rc;
}
