// SPDX-License-Identifier: MIT
/*
 * profil annotate [-i FILE] [--format text|json] [--top N] [FUNC...]:
 * functions down to their source lines and instructions (annotate/annotate.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"
#include "cmds/cmds.h"
#include "utils/opts.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil annotate [-i FILE] [--format text|json] [--top N] [FUNC...]\n"
		"  -i, --input FILE   profile to read (default profil.data)\n"
		"  --format FMT       text (default: as perf annotate --stdio) or json\n"
		"  --top N            without FUNC: the N hottest functions (default %d)\n"
		"  FUNC               a function: NAME, OBJECT:NAME (OBJECT a base name or path)\n"
		"                     or an address 0x... (link-time; OBJECT:0x... for one "
		"object)\n"
		"Each function's source lines (DWARF, the source read from disk or, with\n"
		"DEBUGINFOD_URLS, from debuginfod) interleaved with its instructions, each with\n"
		"its share of the function's samples, seconds and samples; >> marks the\n"
		"hottest line and instruction, loops (backward jumps) and call and jump\n"
		"targets are named.  Stripped code: instructions only.  Kernel functions:\n"
		"from /proc/kcore when it can be read.\n",
		ANNOTATE_DEFAULT_TOP);
}

struct opts {
	struct annotate_opts ao;
	int json;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"format", required_argument, NULL, 'f'},
		{"top", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end;
	long top;
	int c;

	o->ao.input = "profil.data";
	while ((c = opts__next("annotate", argc, argv, "i:h", longopts)) != -1) {
		switch (c) {
		case 'i':
			o->ao.input = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr,
					"profil annotate: --format is text or json, not '%s'\n",
					optarg);
				return OPTS_EXIT_USAGE;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 'n':
			top = strtol(optarg, &end, 10);
			if (end == optarg || *end || top < 1 || top > 1000) {
				fprintf(stderr,
					"profil annotate: --top needs a number from 1 to 1000, "
					"not '%s'\n",
					optarg);
				return OPTS_EXIT_USAGE;
			}
			o->ao.top = (size_t)top;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return OPTS_EXIT_USAGE;
		}
	}
	o->ao.funcs = (const char *const *)argv + optind;
	o->ao.nfuncs = (size_t)(argc - optind);
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct opts o = {0};
	struct annotation *a;
	char why[600];
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (annotate__load(&a, &o.ao, why, sizeof(why)) < 0) {
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
