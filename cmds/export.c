// SPDX-License-Identifier: MIT
/*
 * profil export --format gmon|pprof|folded [-i FILE] [-o OUT]: gmon.out for GNU
 * gprof (output/gmon.h), a pprof profile (output/pprof.h), or collapsed
 * stacks for flame graphs (output/folded.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil export [--format gmon|pprof|folded] [-i FILE] [-o OUT] [--object "
		"PATH]\n"
		"  --format gmon     GNU gmon.out, read by 'gprof OBJECT OUT' (the default)\n"
		"  --format pprof    gzipped pprof profile.proto, read by 'go tool pprof OUT',\n"
		"                    speedscope, Pyroscope, Parca, Grafana\n"
		"  --format folded   collapsed stacks, 'command;caller;...;leaf COUNT' per line,\n"
		"                    read by flamegraph.pl, speedscope, Pyroscope, inferno\n"
		"  -i, --input FILE  profile to read (default profil.data)\n"
		"  -o, --output OUT  file to write (default gmon.out, profil.pb.gz for pprof,\n"
		"                    profil.folded for folded; - for stdout); written to a\n"
		"                    temporary file beside it and renamed, never through a\n"
		"                    symbolic link, over another user's file, a profile or a\n"
		"                    program\n"
		"  --object PATH     gmon: the executable or library to export (a path, or the\n"
		"                    base name of an object of the profile)\n"
		"\ngprof reads one object: the histogram is for --object, else for the object\n"
		"(executable or library) with the most samples, all its processes summed; time\n"
		"elsewhere is left out (profil report shows it).  A stripped object is exported\n"
		"with a warning: gprof finds no symbols in it.  With call stacks, gmon.out also\n"
		"holds the call graph ('gprof -q'): an arc's count is the number of samples\n"
		"whose stack held that call, not a number of calls.\n"
		"pprof holds the whole run: every process and thread (labels pid, tid,\n"
		"process_comm, thread_comm), every object, with source lines where known,\n"
		"and the call stacks.\n");
}

static int export_pprof(const char *input, const char *output)
{
	struct pprof_summary sum = {0};
	char why[512];

	if (pprof__export(input, output, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	fprintf(stderr, "profil export: %s: %llu %s", output, (unsigned long long)sum.samples,
		report__plural(sum.samples, "sample", "samples"));
	if (sum.timed_ns)
		fprintf(stderr,
			" and %.3f s of CPU time without samples ([kernel] accounted, "
			"[unsampled])",
			(double)sum.timed_ns / 1e9);
	fprintf(stderr, ", %zu %s in %zu %s and %zu %s; read it with: go tool pprof -top %s\n",
		sum.nlocations, report__plural(sum.nlocations, "location", "locations"),
		sum.nfunctions, report__plural(sum.nfunctions, "function", "functions"),
		sum.nmappings, report__plural(sum.nmappings, "object", "objects"), output);
	return 0;
}

static int export_folded(const char *input, const char *output)
{
	struct folded_summary sum = {0};
	char why[512];

	if (folded__export(input, output, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	if (strcmp(output, "-"))
		fprintf(stderr,
			"profil export: %s: %llu samples in %zu distinct stacks; "
			"read it with: flamegraph.pl %s > flame.svg\n",
			output, (unsigned long long)sum.samples, sum.lines, output);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"input", required_argument, NULL, 'i'},
		{"output", required_argument, NULL, 'o'},
		{"object", required_argument, NULL, 'O'}, /* gmon: the object to export */
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *input = "profil.data", *output = NULL;
	struct gmon_opts go = {0};
	int pprof = 0, folded = 0;
	struct gmon_summary sum;
	char why[512];
	int c;

	while ((c = opts__next("export", argc, argv, "f:i:o:h", longopts)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "gmon") && strcmp(optarg, "pprof") &&
			    strcmp(optarg, "folded")) {
				fprintf(stderr,
					"profil export: unknown format '%s' (gmon, pprof or "
					"folded)\n",
					optarg);
				return 2;
			}
			pprof = !strcmp(optarg, "pprof");
			folded = !strcmp(optarg, "folded");
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'O':
			go.object = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil export: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((pprof || folded) && go.object) {
		fprintf(stderr,
			"profil export: --object is for --format gmon (%s holds every "
			"object)\n",
			pprof ? "pprof" : "folded");
		return 2;
	}
	if (pprof)
		return export_pprof(input, output ? output : "profil.pb.gz");
	if (folded)
		return export_folded(input, output ? output : "profil.folded");
	if (!output)
		output = "gmon.out";
	if (gmon_export_opts(input, output, &go, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	gmon_print_summary(stderr, "profil export", output, &sum);
	return 0;
}
