// SPDX-License-Identifier: MIT
/*
 * profil annotate [-i FILE] [--format text|json] [--top N] [FUNC...]:
 * functions down to their source lines and instructions (annotate/annotate.h).
 */
#include <stdio.h>
#include <string.h>

#include "annotate/annotate.h"
#include "cmds/cmds.h"
#include "utils/opts.h"

struct annotate_cmd_opts {
	const char *input;
	int json;
	long top;
};

static const struct opt_choice formats[] = {{"text", 0}, {"json", 1}, {NULL, 0}};

#define AT(m) OPT_AT(struct annotate_cmd_opts, m)
static const struct opt options[] = {
	{"input", 'i', OPT_STRING, "FILE", AT(input), "profile to read (default profil.data)"},
	{"format", 0, OPT_CHOICE, "FMT", AT(json),
	 "text (default: as perf annotate --stdio) or json (doc/report-json.md, \"Annotation\")",
	 .what = "format", .choices = formats},
	{"top", 0, OPT_INT, "N", AT(top),
	 "without FUNC: the N hottest functions that have machine code (default 3)",
	 .what = "a number from 1 to 1000", .min = 1, .max = 1000},
	OPT_END,
};

static const struct opts_cmd annotate_cmd = {
	.name = "annotate",
	.usage = "profil annotate [-i FILE] [--format text|json] [--top N] [FUNC...]",
	.opts = options,
	.text = "FUNC: a function's NAME, OBJECT:NAME (OBJECT a base name or path), or an\n"
		"address 0x... (link-time; OBJECT:0x... for one object).  Each function's\n"
		"source lines (DWARF; the source from disk or, with DEBUGINFOD_URLS, from\n"
		"debuginfod) interleaved with its instructions, each with its share of the\n"
		"function's samples, seconds and samples; >> marks the hottest line and\n"
		"instruction, loops (backward jumps) and call and jump targets are named.\n"
		"Stripped code: instructions only.  Kernel functions: from /proc/kcore when\n"
		"it can be read.\n",
};

int cmd_annotate(int argc, char **argv)
{
	struct annotate_cmd_opts o = {.input = "profil.data"};
	struct annotate_opts ao = {0};
	struct annotation *a;
	char why[600];
	int first, rc = opts__parse(&annotate_cmd, argc, argv, &o, &first);

	if (rc != OPTS_GO_ON)
		return rc;
	ao.input = o.input;
	ao.top = (size_t)o.top;
	ao.funcs = (const char *const *)argv + first;
	ao.nfuncs = (size_t)(argc - first);
	if (annotate__load(&a, &ao, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil annotate: %s\n", why);
		return 1;
	}
	rc = o.json ? annotate__write_json(a, stdout) : annotate__write_text(a, stdout);
	annotate__free(a);
	if (rc < 0) {
		fprintf(stderr, "profil annotate: cannot write the annotation: %s\n",
			strerror(-rc));
		return 1;
	}
	return 0;
}
