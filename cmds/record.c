// SPDX-License-Identifier: MIT
/*
 * profil record [options] -- COMMAND [ARGS...]
 * profil record [options] -p PID
 *
 * The command: options, one call into the recording engine (record/record.h,
 * which runs COMMAND or attaches to PID and writes the profil.data), the
 * summary line, and --gmon (output/gmon.h).  Exits with COMMAND's status,
 * or 1 when COMMAND succeeded but an output was not written whole (the
 * profile, --events, --gmon; one sentence each).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "record/record.h"
#include "utils/opts.h"
#include "utils/outfile.h"

#define DEFAULT_OUTPUT "profil.data"
#define DEFAULT_GMON "gmon.out"

struct cmd_record_opts {
	struct record_opts rec;
	const char *gmon;
	int quiet;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil record [OPTIONS] -- COMMAND [ARGS...]\n"
		"       profil record [OPTIONS] -p PID\n"
		"\n"
		"  -o, --output FILE   profile to write (default " DEFAULT_OUTPUT ")\n"
		"  -F, --freq HZ       samples per CPU second (default %d)\n"
		"      --clock CLOCK   auto, bpf, perf, thread or itimer (default auto: perf "
		"where\n"
		"                      permitted, else thread)\n"
		"  -g                  record call stacks, the best way this machine permits\n"
		"                      (dwarf: on perf events, or in the sampled thread with\n"
		"                      the thread and itimer clocks)\n"
		"      --call-graph MODE  call stacks: dwarf[,SIZE] (the CFI, from SIZE bytes of\n"
		"                      user stack per sample, default %d; complete without frame\n"
		"                      pointers), fp (the kernel's frame-pointer walk: cheap, cut\n"
		"                      short by code built without them) or none\n"
		"  -p, --pid PID       attach to a running process and all its threads\n"
		"      --no-inherit    do not follow child processes\n"
		"      --gmon [FILE]   also write a gmon.out for gprof (default " DEFAULT_GMON ")\n"
		"      --events FILE   write the prof/profil event stream as Tracee JSON lines\n"
		"                      (\"-\" = stdout; see doc/events.md)\n"
		"  -q, --quiet         no summary line\n"
		"\n"
		"Outputs are never written through a symbolic link, over another user's file,\n"
		"over the program or a file its arguments name; -o replaces only a profile\n"
		"(the previous one is kept as FILE.old), --gmon and --events never a profile\n"
		"or a program; /dev/stdout, /dev/null and your FIFOs are written in place.\n"
		"Exits with COMMAND's exit status (128+N when a signal N ended it), or 1 when\n"
		"COMMAND succeeded but an output could not be written whole (said in one line).\n"
		"If profil record is killed, COMMAND gets SIGTERM (not its own children).\n",
		RECORD_DEFAULT_HZ, RECORD_STACK_BYTES_DEFAULT);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* --call-graph MODE: dwarf[,SIZE], fp or none, as perf spells them.  Returns 0 or -1 (said why). */
static int parse_call_graph(const char *arg, struct record_opts *o)
{
	unsigned long v;

	o->stack_bytes = 0;
	if (!strcmp(arg, "none")) {
		o->callgraph = RECORD_CG_NONE;
		return 0;
	}
	if (!strcmp(arg, "fp")) {
		o->callgraph = RECORD_CG_FP;
		return 0;
	}
	if (!strcmp(arg, "dwarf")) {
		o->callgraph = RECORD_CG_DWARF;
		return 0;
	}
	if (!strncmp(arg, "dwarf,", 6)) {
		if (parse_uint(arg + 6, RECORD_STACK_BYTES_MAX, &v) < 0 ||
		    v < RECORD_STACK_BYTES_MIN) {
			fprintf(stderr,
				"profil record: bad stack size '%s' (expected %d..%d bytes)\n",
				arg + 6, RECORD_STACK_BYTES_MIN, RECORD_STACK_BYTES_MAX);
			return -1;
		}
		o->callgraph = RECORD_CG_DWARF;
		o->stack_bytes = (unsigned int)((v + 7) & ~7ul); /* whole words, as perf rounds */
		return 0;
	}
	fprintf(stderr, "profil record: unknown call-graph mode '%s' (dwarf[,SIZE], fp or none)\n",
		arg);
	return -1;
}

static int has_double_dash_after(int argc, char **argv, int from)
{
	for (int i = from; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return 1;
	return 0;
}

/* Returns -1 to continue, else the exit status. */
static int parse_args(int argc, char **argv, struct cmd_record_opts *co)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"freq", required_argument, NULL, 'F'},
		{"clock", required_argument, NULL, 'c'},
		{"pid", required_argument, NULL, 'p'},
		{"no-inherit", no_argument, NULL, 'I'},
		{"gmon", optional_argument, NULL, 'G'},
		{"events", required_argument, NULL, 'E'},
		{"quiet", no_argument, NULL, 'q'},
		{"call-graph", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct record_opts *o = &co->rec;
	unsigned long v;
	int c;

	o->output = DEFAULT_OUTPUT;
	o->hz = RECORD_DEFAULT_HZ;
	o->inherit = 1;
	while ((c = opts__next("record", argc, argv, "+o:F:p:qhg", longopts)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			if (parse_uint(optarg, 1000000, &v) < 0) {
				fprintf(stderr,
					"profil record: bad rate '%s' (expected 1..1000000 Hz)\n",
					optarg);
				return 2;
			}
			o->hz = (unsigned int)v;
			break;
		case 'c':
			if (pdata__clock_from_name(optarg, &o->clock) < 0 ||
			    o->clock == PDATA_CLOCK_MANUAL) {
				fprintf(stderr,
					"profil record: unknown clock '%s' (auto, bpf, perf, "
					"thread or itimer)\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (parse_uint(optarg, INT_MAX, &v) < 0) {
				fprintf(stderr, "profil record: bad process id '%s'\n", optarg);
				return 2;
			}
			o->attach_pid = (pid_t)v;
			break;
		case 'I':
			o->inherit = 0;
			break;
		case 'g':
			o->callgraph = RECORD_CG_AUTO;
			break;
		case 'C':
			if (parse_call_graph(optarg, o) < 0)
				return 2;
			break;
		case 'G':
			co->gmon = optarg ? optarg : DEFAULT_GMON;
			/* "--gmon FILE -- CMD": a plain word before the "--" is the file name */
			if (!optarg && optind < argc && argv[optind][0] != '-' &&
			    has_double_dash_after(argc, argv, optind + 1))
				co->gmon = argv[optind++];
			break;
		case 'E':
			o->events = optarg;
			break;
		case 'q':
			co->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* opts__next said what is wrong */
			return OPTS_EXIT_USAGE;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	o->argv = argv + optind;
	if (o->attach_pid && *o->argv) {
		fprintf(stderr, "profil record: give either a COMMAND or -p PID, not both\n");
		return 2;
	}
	if (!o->attach_pid && !*o->argv) {
		fprintf(stderr, "profil record: no COMMAND given (usage: profil record [OPTIONS] "
				"-- COMMAND [ARGS...])\n");
		return 2;
	}
	if (o->callgraph == RECORD_CG_FP &&
	    (o->clock == PDATA_CLOCK_THREAD || o->clock == PDATA_CLOCK_ITIMER)) {
		fprintf(stderr, "profil record: --call-graph fp needs perf events (--clock perf or "
				"bpf); the thread and itimer clocks take dwarf stacks (-g)\n");
		return 2;
	}
	if (o->attach_pid && o->events) {
		fprintf(stderr, "profil record: --events is for a COMMAND, not -p PID\n");
		return 2;
	}
	if (o->attach_pid && o->clock != PDATA_CLOCK_AUTO && o->clock != PDATA_CLOCK_PERF) {
		fprintf(stderr,
			"profil record: attaching to a running process needs --clock perf\n");
		return 2;
	}
	return -1;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* One line: the rate is the one every reader of the profile states (1e9 / its period). */
static void summary(const struct cmd_record_opts *co, const struct record_result *res)
{
	char thr[96] = "", cap[64] = "", stk[96] = "";
	const char *why_incomplete = res->flush_err < 0 ? strerror(-res->flush_err) : NULL;

	if (res->throttled)
		snprintf(thr, sizeof(thr), ", the kernel did not take %llu %s",
			 (unsigned long long)res->throttled,
			 plural(res->throttled, "sample", "samples"));
	if (res->hz < co->rec.hz)
		snprintf(cap, sizeof(cap), ", capped at %u by the kernel", res->hz);
	if (res->callgraph_name && !strcmp(res->callgraph_name, "fp"))
		snprintf(stk, sizeof(stk), ", fp call stacks");
	else if (res->callgraph_name && strcmp(res->callgraph_name, "none") && !res->samples)
		snprintf(stk, sizeof(stk), ", %s call stacks (none taken)", res->callgraph_name);
	else if (res->callgraph_name && strcmp(res->callgraph_name, "none"))
		snprintf(stk, sizeof(stk), ", %s call stacks (%.2f%% complete%s)",
			 res->callgraph_name,
			 100.0 * (double)(res->samples - res->stacks_truncated) /
				 (double)res->samples,
			 res->stacks_dropped ? ", some stored without: frame table full" : "");
	fprintf(stderr,
		"profil record: %llu %s, %llu lost, %u %s, clock %s at %.1f Hz (%u Hz "
		"asked%s%s)%s%s, %s (%.1f MiB)%s%s\n",
		(unsigned long long)res->samples, plural(res->samples, "sample", "samples"),
		(unsigned long long)res->lost, res->processes,
		plural(res->processes, "process", "processes"), res->clock_name, res->effective_hz,
		co->rec.hz, cap, thr, res->kernel ? ", kernel sampled" : "", stk,
		res->output[0] ? res->output :
				 "its file gone (removed or renamed by another writer)",
		mib(res->file_size), why_incomplete ? ": " : "",
		why_incomplete ? why_incomplete : "");
}

/*
 * The same export as `profil export --format gmon`: the object it chose and
 * why, stripped or not.  Returns 0, or -1 after one sentence.
 */
static int export_gmon(const struct cmd_record_opts *co)
{
	struct gmon_summary sum;
	char why[512] = "";

	if (gmon_export_opts(co->rec.output, co->gmon, NULL, &sum, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil record: %s\n", why[0] ? why : "gmon export failed");
		return -1;
	}
	if (!co->quiet)
		gmon_print_summary(stderr, "profil record", co->gmon, &sum);
	else if (sum.warning[0])
		fprintf(stderr, "profil record: warning: %s\n", sum.warning);
	return 0;
}

/*
 * Before anything runs: no two outputs may be one file, and --gmon must be
 * writable where it is going (-o and --events are checked as they are
 * opened, before the command starts).  Returns -1 to go on, else the status.
 */
static int check_outputs(const struct cmd_record_opts *co)
{
	const char *names[] = {co->rec.output, co->rec.events, co->gmon};
	const char *opts[] = {"-o", "--events", "--gmon"};
	char why[512];

	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (names[i] && names[j] && outfile__same(names[i], names[j])) {
				fprintf(stderr,
					"profil record: %s %s and %s %s name the same file\n",
					opts[i], names[i], opts[j], names[j]);
				return 2;
			}
	if (co->gmon && outfile__check(co->gmon, &pdata__output_rules, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil record: --gmon: %s\n", why);
		return 1;
	}
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct cmd_record_opts co = {0};
	struct record_result res;
	int rc = parse_args(argc, argv, &co), failed = 0;

	if (rc >= 0)
		return rc;
	rc = check_outputs(&co);
	if (rc >= 0)
		return rc;
	if (record__run(&co.rec, &res) < 0) {
		/* a command that cannot run is reported as a shell would: "profil: cannot run" */
		fprintf(stderr, "%s: %s\n", res.exit_status >= 126 ? "profil" : "profil record",
			res.why);
		return res.exit_status;
	}
	if (res.warning[0] && !co.quiet)
		fprintf(stderr, "profil record: %s\n", res.warning);
	if (!co.quiet)
		summary(&co, &res);
	if (res.events_error[0]) {
		fprintf(stderr, "profil record: %s\n", res.events_error);
		failed = 1;
	}
	if (res.flush_err < 0) {
		fprintf(stderr, "profil record: cannot flush %s: %s\n", co.rec.output,
			strerror(-res.flush_err));
		failed = 1;
	} else if (co.gmon && export_gmon(&co) < 0) {
		failed = 1;
	}
	/* the command's status is its own; a failed output turns only a success into 1 */
	return failed && res.exit_status == 0 ? 1 : res.exit_status;
}
