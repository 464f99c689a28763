/* SPDX-License-Identifier: MIT */
/*
 * annotate: a function's time down to its source lines and instructions,
 * as perf annotate --stdio and pprof's weblist show it: the samples of a
 * profil.data counted at their exact PCs (the sample table keeps them; a
 * bpf-clock profile keeps 8-byte bins, counted to the instruction that
 * holds the bin's start), the function's machine code disassembled
 * (capstone), each instruction with its source line (DWARF line table; the
 * lines of inlined code under the inlined function's own file:line), and
 * the source text from disk, or from debuginfod by the object's build id
 * when DEBUGINFOD_URLS is set.
 *
 * The model (struct annotation) is what the writers print: text (as perf
 * annotate --stdio: shares of the function's time per source line and per
 * instruction, hottest marked, loops marked, calls and jumps with their
 * target's name) and JSON (doc/report-json.md, "Annotation").  The HTML
 * page embeds the JSON of its hottest functions (annotate__load_view).
 *
 * What is annotated, and what is said instead:
 *  - a function of an object whose file is the one recorded (or a copy
 *    found by its build id: said); a file rebuilt since, with no copy: refused;
 *  - a stripped object: its instructions (no lines), named by FDE ranges;
 *  - kernel functions: their instructions from /proc/kcore when it can be
 *    read (else the reason), without source;
 *  - JIT code, pseudo objects: no code kept: said;
 *  - source missing or newer than the object: a warning, instructions only.
 * A function asked for that the profile does not have: one sentence naming
 * the closest names it has.
 */
#ifndef PROFIL_ANNOTATE_H
#define PROFIL_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

#define ANNOTATE_DEFAULT_TOP 3
#define ANNOTATE_MAX_FUNC_BYTES (1u << 20) /* a "function" larger than this is cut */

struct annotate_opts {
	const char *input;	  /* profil.data */
	const char *const *funcs; /* NAME, OBJECT:NAME or ADDRESS (0x...): empty = the hottest */
	size_t nfuncs;
	size_t top; /* how many of the hottest (0: ANNOTATE_DEFAULT_TOP) */
};

/* One instruction. */
struct ann_insn {
	uint64_t addr; /* link-time address (kernel: runtime) */
	uint8_t size;
	char text[192];	  /* mnemonic and operands (AT&T, as objdump and perf show them) */
	uint64_t samples; /* samples at this exact PC */
	const char *file; /* its source line (NULL: unknown) */
	int line;
	const char *inlined;	 /* the innermost function inlined here, or NULL */
	uint64_t target;	 /* direct jump or call target (0: none) */
	const char *target_name; /* "func", "func+0x10", "labs@plt"; NULL when unknown */
	int is_call, is_jump, is_ret;
	int loop_back; /* a jump backwards inside the function, with no return between: a loop's end */
	int loop_start; /* the target of such a jump */
};

/* One source line the function's instructions come from. */
struct ann_line {
	const char *file;
	int line;
	uint64_t samples;    /* samples of all its instructions */
	const char *text;    /* the source text, NULL when not available */
	const char *inlined; /* its instructions are inlined code of this function, or NULL */
};

struct ann_func {
	const char *name;
	const char *object;  /* base name, or [kernel] */
	const char *path;    /* the object as recorded */
	const char *file;    /* the file read (the path, a copy found by build id, /proc/kcore) */
	uint64_t start, end; /* [start, end): link-time (kernel: runtime) */
	uint64_t samples;    /* in the function */
	double seconds;
	double run_percent; /* of the run's samples */
	struct ann_insn *insns;
	size_t ninsns;
	struct ann_line *lines; /* in order of first appearance */
	size_t nlines;
	char **notes; /* warnings: source missing or newer, rebuilt object, no code */
	size_t nnotes;
	uint64_t hottest_insn; /* address of the instruction with the most samples */
};

struct annotation {
	const char *input;
	uint64_t run_samples;
	double period_s;
	int binned; /* the profile's PCs are 8-byte bins (bpf clock) */
	struct ann_func *funcs;
	size_t nfuncs;
	void *priv;
};

/*
 * Read the profile and annotate the functions o asks for.  Returns 0, or
 * -errno with one sentence in why (the profile cannot be read; a function
 * that is not in it: with the closest names; out of memory).
 */
int annotate__load(struct annotation **out, const struct annotate_opts *o, char *why,
		   size_t whylen);
void annotate__free(struct annotation *a);

struct pview;
struct resolver;

/*
 * The same over a profile already read (v, named by r: both the caller's,
 * used, not freed): the HTML page annotates its hottest functions with its
 * report's own view.  o->input only names the profile; no function with
 * code is not an error (no annotation).
 */
int annotate__load_view(struct annotation **out, struct pview *v, struct resolver *r,
			const struct annotate_opts *o, char *why, size_t whylen);

/* perf annotate --stdio's view.  Returns 0 or -errno (a write error). */
int annotate__write_text(const struct annotation *a, FILE *out);

/* The JSON of the annotation (doc/report-json.md, "Annotation"), or NULL (out of memory). */
struct json_object *annotate__json(const struct annotation *a);

/* JSON (doc/report-json.md, "Annotation"): {"annotations": [ ... ]}.  Returns 0 or -errno. */
int annotate__write_json(const struct annotation *a, FILE *out);

#endif /* PROFIL_ANNOTATE_H */
