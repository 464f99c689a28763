// SPDX-License-Identifier: MIT
/*
 * annotate's writers: the text view (perf annotate --stdio's: source lines
 * interleaved with their instructions, each with its share of the
 * function's samples) and the JSON (doc/report-json.md, "Annotation").
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "annotate/annotate.h"
#include "utils/json.h"

#define JFLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static double share(uint64_t part, uint64_t of)
{
	return of ? 100.0 * (double)part / (double)of : 0.0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static const struct ann_line *find_line(const struct ann_func *f, const char *file, int line)
{
	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].line == line && !strcmp(f->lines[i].file, file))
			return &f->lines[i];
	return NULL;
}

static const struct ann_line *hottest_line(const struct ann_func *f)
{
	const struct ann_line *best = NULL;

	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].samples && (!best || f->lines[i].samples > best->samples))
			best = &f->lines[i];
	return best;
}

/* ---- text ------------------------------------------------------------------------ */

static void text_line(const struct annotation *a, const struct ann_func *f,
		      const struct ann_line *l, int hot, FILE *out)
{
	fprintf(out, "%s%6.2f %9.3f %8llu  %s:%d", hot ? ">>" : "  ", share(l->samples, f->samples),
		(double)l->samples * a->period_s, (unsigned long long)l->samples,
		base_name(l->file), l->line);
	if (l->inlined)
		fprintf(out, " (inlined %s)", l->inlined);
	if (l->text)
		fprintf(out, "  | %s", l->text);
	fputc('\n', out);
}

static void text_insn(const struct annotation *a, const struct ann_func *f,
		      const struct ann_insn *in, FILE *out)
{
	int hot = in->samples && in->addr == f->hottest_insn;

	fprintf(out, "%s%6.2f %9.3f %8llu      %8llx:  %s", hot ? ">>" : "  ",
		share(in->samples, f->samples), (double)in->samples * a->period_s,
		(unsigned long long)in->samples, (unsigned long long)in->addr, in->text);
	if (in->target_name)
		fprintf(out, " <%s>", in->target_name);
	if (in->loop_back)
		fputs("   ^ loop", out);
	if (in->loop_start)
		fputs("   <- loop start", out);
	fputc('\n', out);
}

static void text_func(const struct annotation *a, const struct ann_func *f, FILE *out)
{
	const struct ann_line *hot = hottest_line(f);
	const char *file = NULL;
	int line = -1;

	fprintf(out, "\n%s  (%s: %s)  %llu samples, %.3f s, %.2f %% of the run's samples\n",
		f->name, f->object, f->file, (unsigned long long)f->samples, f->seconds,
		f->run_percent);
	if (f->ninsns)
		fprintf(out, "  [0x%llx, 0x%llx)\n", (unsigned long long)f->start,
			(unsigned long long)f->end);
	for (size_t i = 0; i < f->nnotes; i++)
		fprintf(out, "  note: %s\n", f->notes[i]);
	if (!f->ninsns)
		return;
	fprintf(out, "  %%func   seconds  samples  source line | instruction (>> the hottest)\n");
	for (size_t i = 0; i < f->ninsns; i++) {
		const struct ann_insn *in = &f->insns[i];

		if (in->file && (in->line != line || !file || strcmp(in->file, file))) {
			const struct ann_line *l = find_line(f, in->file, in->line);

			if (l)
				text_line(a, f, l, l == hot, out);
			file = in->file;
			line = in->line;
		}
		text_insn(a, f, in, out);
	}
}

int annotate__write_text(const struct annotation *a, FILE *out)
{
	fprintf(out, "# profile: %s\n", a->input);
	fprintf(out, "# %%func: share of the function's samples; seconds: samples x %.3f ms\n",
		a->period_s * 1e3);
	if (a->binned)
		fprintf(out, "# this profile's PCs are 8-byte bins (bpf clock): a bin's samples go "
			     "to the instruction holding its start\n");
	for (size_t i = 0; i < a->nfuncs; i++)
		text_func(a, &a->funcs[i], out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------------------ */

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *json_line(const struct annotation *a, const struct ann_func *f,
				     const struct ann_line *l, int hot)
{
	struct json_object *o = json_object_new_object();
	int rc;

	if (!o)
		return NULL;
	rc = json__set(o, "file", jstr(l->file)) |
	     json__set(o, "line", json__uint((uint64_t)l->line)) |
	     json__set(o, "samples", json__uint(l->samples)) |
	     json__set(o, "seconds", json__double((double)l->samples * a->period_s)) |
	     json__set(o, "percent", json__double(share(l->samples, f->samples))) |
	     json__set(o, "hottest", json_object_new_boolean(hot));
	if (l->text)
		rc |= json__set(o, "text", jstr(l->text));
	if (l->inlined)
		rc |= json__set(o, "inlined", jstr(l->inlined));
	return json__finish(o, rc);
}

static struct json_object *json_insn(const struct annotation *a, const struct ann_func *f,
				     const struct ann_insn *in)
{
	struct json_object *o = json_object_new_object();
	int rc;

	if (!o)
		return NULL;
	rc = json__set(o, "address", json__uint(in->addr)) |
	     json__set(o, "size", json__uint(in->size)) | json__set(o, "text", jstr(in->text)) |
	     json__set(o, "samples", json__uint(in->samples)) |
	     json__set(o, "seconds", json__double((double)in->samples * a->period_s)) |
	     json__set(o, "percent", json__double(share(in->samples, f->samples))) |
	     json__set(o, "hottest",
		       json_object_new_boolean(in->samples && in->addr == f->hottest_insn));
	if (in->file)
		rc |= json__set(o, "file", jstr(in->file)) |
		      json__set(o, "line", json__uint((uint64_t)in->line));
	if (in->inlined)
		rc |= json__set(o, "inlined", jstr(in->inlined));
	if (in->target)
		rc |= json__set(o, "target", json__uint(in->target));
	if (in->target_name)
		rc |= json__set(o, "target_name", jstr(in->target_name));
	if (in->is_call)
		rc |= json__set(o, "call", json_object_new_boolean(1));
	if (in->is_jump)
		rc |= json__set(o, "jump", json_object_new_boolean(1));
	if (in->loop_back)
		rc |= json__set(o, "loop_back", json_object_new_boolean(1));
	if (in->loop_start)
		rc |= json__set(o, "loop_start", json_object_new_boolean(1));
	return json__finish(o, rc);
}

static struct json_object *json_func(const struct annotation *a, const struct ann_func *f)
{
	struct json_object *o = json_object_new_object(), *lines = json_object_new_array(),
			   *insns = json_object_new_array(), *notes = json_object_new_array();
	const struct ann_line *hot = hottest_line(f);
	int rc = !o || !lines || !insns || !notes;

	for (size_t i = 0; !rc && i < f->nlines; i++)
		rc = json__push(lines, json_line(a, f, &f->lines[i], &f->lines[i] == hot));
	for (size_t i = 0; !rc && i < f->ninsns; i++)
		rc = json__push(insns, json_insn(a, f, &f->insns[i]));
	for (size_t i = 0; !rc && i < f->nnotes; i++)
		rc = json__push(notes, jstr(f->notes[i]));
	if (!rc)
		rc = json__set(o, "name", jstr(f->name)) | json__set(o, "object", jstr(f->object)) |
		     json__set(o, "path", jstr(f->path)) | json__set(o, "file", jstr(f->file)) |
		     json__set(o, "start", json__uint(f->start)) |
		     json__set(o, "end", json__uint(f->end)) |
		     json__set(o, "samples", json__uint(f->samples)) |
		     json__set(o, "seconds", json__double(f->seconds)) |
		     json__set(o, "run_percent", json__double(f->run_percent));
	if (!rc) {
		rc = json__set(o, "notes", notes) | json__set(o, "lines", lines) |
		     json__set(o, "instructions", insns);
		notes = lines = insns = NULL;
	}
	json_object_put(notes);
	json_object_put(lines);
	json_object_put(insns);
	return json__finish(o, rc);
}

struct json_object *annotate__json(const struct annotation *a)
{
	struct json_object *top = json_object_new_object(), *arr = json_object_new_array();
	int rc = !top || !arr;

	for (size_t i = 0; !rc && i < a->nfuncs; i++)
		rc = json__push(arr, json_func(a, &a->funcs[i]));
	if (!rc)
		rc = json__set(top, "input", jstr(a->input)) |
		     json__set(top, "run_samples", json__uint(a->run_samples)) |
		     json__set(top, "period_seconds", json__double(a->period_s)) |
		     json__set(top, "binned", json_object_new_boolean(a->binned));
	if (!rc) {
		rc = json__set(top, "annotations", arr);
		arr = NULL;
	}
	json_object_put(arr);
	return json__finish(top, rc);
}

int annotate__write_json(const struct annotation *a, FILE *out)
{
	struct json_object *j = annotate__json(a);
	const char *s = j ? json_object_to_json_string_ext(j, JFLAGS) : NULL;

	if (!s) {
		json_object_put(j);
		return -ENOMEM;
	}
	fputs(s, out);
	fputc('\n', out);
	json_object_put(j);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
