// SPDX-License-Identifier: MIT
/*
 * profil export --format gmon|pprof|folded [-i FILE] [-o OUT]: gmon.out for GNU
 * gprof (output/gmon.h), a pprof profile (output/pprof.h), or collapsed
 * stacks for flame graphs (output/folded.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "utils/opts.h"

enum format { FORMAT_GMON, FORMAT_PPROF, FORMAT_FOLDED };

struct export_opts {
	const char *input, *output;
	enum format format;
	struct gmon_opts gmon;
	int value; /* folded: 1 + enum folded_value, 0 not given */
};

static const struct opt_choice formats[] = {
	{"gmon", FORMAT_GMON},
	{"pprof", FORMAT_PPROF},
	{"folded", FORMAT_FOLDED},
	{NULL, 0},
};

static const struct opt_choice values[] = {
	{"cpu", 1 + FOLDED_CPU},
	{"off-cpu", 1 + FOLDED_OFFCPU},
	{"wall", 1 + FOLDED_WALL},
	{NULL, 0},
};

#define AT(m) OPT_AT(struct export_opts, m)
static const struct opt options[] = {
	{"format", 'f', OPT_CHOICE, "FMT", AT(format),
	 "gmon: GNU gmon.out, read by 'gprof OBJECT OUT' (the default)\n"
	 "pprof: gzipped pprof profile.proto, read by 'go tool pprof OUT', speedscope, "
	 "Pyroscope, Parca, Grafana\n"
	 "folded: collapsed stacks, 'command;caller;...;leaf COUNT' per line, read by "
	 "flamegraph.pl, speedscope, Pyroscope, inferno",
	 .what = "format", .choices = formats},
	{"input", 'i', OPT_STRING, "FILE", AT(input), "profile to read (default profil.data)"},
	{"output", 'o', OPT_STRING, "OUT", AT(output),
	 "file to write (default gmon.out, profil.pb.gz for pprof, profil.folded for folded; - "
	 "for stdout); written to a temporary file beside it and renamed, never through a "
	 "symbolic link, over another user's file, a profile or a program"},
	{"object", 0, OPT_STRING, "PATH", AT(gmon.object),
	 "gmon: the executable or library to export (a path, or the base name of an object of "
	 "the profile)"},
	{"value", 0, OPT_CHOICE, "VALUE", AT(value),
	 "folded: cpu (samples, the default), off-cpu or wall (ns; profiles recorded with "
	 "--off-cpu)",
	 .what = "value", .choices = values},
	OPT_END,
};

static const struct opts_cmd export_cmd = {
	.name = "export",
	.usage = "profil export [--format gmon|pprof|folded] [-i FILE] [-o OUT] [--object PATH]",
	.opts = options,
	.flags = OPTS_NO_OPERANDS,
	.text = "gprof reads one object: the histogram is for --object, else for the object\n"
		"(executable or library) with the most samples, all its processes summed; time\n"
		"elsewhere is left out (profil report shows it).  A stripped object is exported\n"
		"with a warning: gprof finds no symbols in it.  With call stacks, gmon.out also\n"
		"holds the call graph ('gprof -q'): an arc's count is the number of samples\n"
		"whose stack held that call, not a number of calls.  gmon.out holds CPU time\n"
		"only: a profile's off-CPU time is left out (and said).\n"
		"pprof holds the whole run: every process and thread (labels pid, tid,\n"
		"process_comm, thread_comm), every object, with source lines where known,\n"
		"and the call stacks.\n",
};

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
	if (sum.offcpu_ns)
		fprintf(stderr, ", %.3f s off the CPU (sample type off_cpu)",
			(double)sum.offcpu_ns / 1e9);
	fprintf(stderr, ", %zu %s in %zu %s and %zu %s; read it with: go tool pprof -top %s\n",
		sum.nlocations, report__plural(sum.nlocations, "location", "locations"),
		sum.nfunctions, report__plural(sum.nfunctions, "function", "functions"),
		sum.nmappings, report__plural(sum.nmappings, "object", "objects"), output);
	return 0;
}

static int export_folded(const char *input, const char *output, int value)
{
	struct folded_summary sum = {0};
	char why[512];

	if (folded__export_value(input, output, value, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	if (strcmp(output, "-"))
		fprintf(stderr,
			"profil export: %s: %llu %s in %zu distinct stacks; "
			"read it with: flamegraph.pl %s > flame.svg\n",
			output, (unsigned long long)sum.samples,
			value == FOLDED_CPU  ? "samples" :
			value == FOLDED_WALL ? "ns of wall time" :
					       "ns off the CPU",
			sum.lines, output);
	return 0;
}

static int export_gmon(const struct export_opts *o)
{
	const char *output = o->output ? o->output : "gmon.out";
	struct gmon_summary sum;
	char why[512];

	if (gmon_export_opts(o->input, output, &o->gmon, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	gmon_print_summary(stderr, "profil export", output, &sum);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {.input = "profil.data"};
	int first, rc = opts__parse(&export_cmd, argc, argv, &o, &first);

	if (rc != OPTS_GO_ON)
		return rc;
	if (o.format != FORMAT_GMON && o.gmon.object)
		return opts__error("export",
				   "--object is for --format gmon (%s holds every object)",
				   o.format == FORMAT_PPROF ? "pprof" : "folded");
	if (o.format != FORMAT_FOLDED && o.value)
		return opts__error(
			"export",
			"--value is for --format folded (pprof holds every value; gmon.out "
			"is CPU time only)");
	if (o.format == FORMAT_PPROF)
		return export_pprof(o.input, o.output ? o.output : "profil.pb.gz");
	if (o.format == FORMAT_FOLDED)
		return export_folded(o.input, o.output ? o.output : "profil.folded",
				     o.value ? o.value - 1 : FOLDED_CPU);
	return export_gmon(&o);
}
