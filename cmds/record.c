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
	int output_given;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: profil record [OPTIONS] -- COMMAND [ARGS...]\n"
		"       profil record [OPTIONS] -p PID\n"
		"       profil record -a [OPTIONS] [-- COMMAND [ARGS...]]\n"
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
		"  -a, --all-cpus      the whole machine: every process on every CPU, user and\n"
		"                      kernel, while COMMAND runs, for --duration, or until\n"
		"                      Ctrl-C (needs root, CAP_PERFMON or perf_event_paranoid\n"
		"                      <= 0; the profile is mode 0600)\n"
		"  -C, --cpu LIST      with -a: these CPUs only (e.g. 0,2-3)\n"
		"      --duration SECS with -a: stop after SECS seconds\n"
		"      --rotate SECS   with -a: one complete profile per SECS seconds into the\n"
		"                      directory -o names (profil-YYYYmmddTHHMMSSZ.data, UTC)\n"
		"      --keep N        with --rotate: keep the newest N profiles of the run\n"
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

/* -a and its options.  Returns 0 or -1 (said why). */
static int parse_system_option(int c, const char *arg, struct record_opts *o)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'a':
		o->all_cpus = 1;
		return 0;
	case 'C':
		o->cpu_list = arg;
		return 0;
	case 'D':
		errno = 0;
		o->duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->duration > 0) || o->duration > 31536000) {
			fprintf(stderr, "profil record: bad duration '%s' (expected seconds > 0)\n",
				arg);
			return -1;
		}
		return 0;
	case 'R':
		if (parse_uint(arg, 86400, &v) < 0) {
			fprintf(stderr,
				"profil record: bad rotation period '%s' (expected 1..86400 "
				"seconds)\n",
				arg);
			return -1;
		}
		o->rotate = (unsigned int)v;
		return 0;
	default:
		if (parse_uint(arg, 1000000, &v) < 0) {
			fprintf(stderr, "profil record: bad --keep '%s' (expected 1..1000000)\n",
				arg);
			return -1;
		}
		o->keep = (unsigned int)v;
		return 0;
	}
}

/* What -a takes and what it does not.  Returns -1 to go on, else the exit status. */
static int check_system_options(const struct cmd_record_opts *co)
{
	const struct record_opts *o = &co->rec;
	const char *only_a = o->cpu_list     ? "-C" :
			     o->duration > 0 ? "--duration" :
			     o->rotate	     ? "--rotate" :
			     o->keep	     ? "--keep" :
					       NULL;

	if (!o->all_cpus) {
		if (only_a) {
			fprintf(stderr, "profil record: %s is for the whole machine: add -a\n",
				only_a);
			return 2;
		}
		return -1;
	}
	if (o->attach_pid) {
		fprintf(stderr, "profil record: -a records every process already; give -a or -p "
				"PID, not both\n");
		return 2;
	}
	if (o->clock == RECORD_CLOCK_THREAD || o->clock == RECORD_CLOCK_ITIMER) {
		fprintf(stderr,
			"profil record: -a needs perf events (--clock auto, perf or bpf)\n");
		return 2;
	}
	if (o->events || co->gmon) {
		fprintf(stderr,
			"profil record: %s is for a COMMAND's processes, not -a (profil watch "
			"shows the whole machine's events)\n",
			o->events ? "--events" : "--gmon");
		return 2;
	}
	if (o->keep && !o->rotate) {
		fprintf(stderr, "profil record: --keep counts the profiles of --rotate\n");
		return 2;
	}
	if (o->rotate && !co->output_given) {
		fprintf(stderr, "profil record: --rotate writes a directory of profiles: name it "
				"with -o DIR\n");
		return 2;
	}
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
		{"call-graph", required_argument, NULL, 'K'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"cpu", required_argument, NULL, 'C'},
		{"duration", required_argument, NULL, 'D'},
		{"rotate", required_argument, NULL, 'R'},
		{"keep", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct record_opts *o = &co->rec;
	unsigned long v;
	int c, rc;

	o->output = DEFAULT_OUTPUT;
	o->hz = RECORD_DEFAULT_HZ;
	o->inherit = 1;
	while ((c = opts__next("record", argc, argv, "+o:F:p:qhgaC:", longopts)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			co->output_given = 1;
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
			if (!strcmp(optarg, "auto"))
				o->clock = RECORD_CLOCK_AUTO;
			else if (!strcmp(optarg, "perf"))
				o->clock = RECORD_CLOCK_PERF;
			else if (!strcmp(optarg, "bpf"))
				o->clock = RECORD_CLOCK_BPF;
			else if (!strcmp(optarg, "thread"))
				o->clock = RECORD_CLOCK_THREAD;
			else if (!strcmp(optarg, "itimer"))
				o->clock = RECORD_CLOCK_ITIMER;
			else {
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
		case 'K':
			if (parse_call_graph(optarg, o) < 0)
				return 2;
			break;
		case 'a':
		case 'C':
		case 'D':
		case 'R':
		case 'k':
			if (parse_system_option(c, optarg, o) < 0)
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
	rc = check_system_options(co);
	if (rc >= 0)
		return rc;
	if (o->attach_pid && *o->argv) {
		fprintf(stderr, "profil record: give either a COMMAND or -p PID, not both\n");
		return 2;
	}
	if (!o->attach_pid && !*o->argv && !o->all_cpus) {
		fprintf(stderr, "profil record: no COMMAND given (usage: profil record [OPTIONS] "
				"-- COMMAND [ARGS...])\n");
		return 2;
	}
	if (o->callgraph == RECORD_CG_FP &&
	    (o->clock == RECORD_CLOCK_THREAD || o->clock == RECORD_CLOCK_ITIMER)) {
		fprintf(stderr, "profil record: --call-graph fp needs perf events (--clock perf or "
				"bpf); the thread and itimer clocks take dwarf stacks (-g)\n");
		return 2;
	}
	if (o->attach_pid && o->events) {
		fprintf(stderr, "profil record: --events is for a COMMAND, not -p PID\n");
		return 2;
	}
	if (o->attach_pid && o->clock != RECORD_CLOCK_AUTO && o->clock != RECORD_CLOCK_PERF) {
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
	struct stat st;
	char thr[96] = "", cap[64] = "", stk[96] = "";
	const char *why_incomplete = res->flush_err < 0 ? strerror(-res->flush_err) : NULL;

	if (res->throttled)
		snprintf(thr, sizeof(thr), ", the kernel did not take %llu %s",
			 (unsigned long long)res->throttled,
			 plural(res->throttled, "sample", "samples"));
	if (stat(co->rec.output, &st) < 0)
		st.st_size = 0;
	if (res->hz < co->rec.hz)
		snprintf(cap, sizeof(cap), ", capped at %u by the kernel", res->hz);
	if (res->callgraph_name && !strcmp(res->callgraph_name, "fp"))
		snprintf(stk, sizeof(stk), ", fp call stacks");
	else if (res->callgraph_name && strcmp(res->callgraph_name, "none"))
		snprintf(stk, sizeof(stk), ", %s call stacks (%.2f%% complete%s)",
			 res->callgraph_name,
			 res->samples ? 100.0 * (double)(res->samples - res->stacks_truncated) /
						(double)res->samples :
					100.0,
			 res->stacks_dropped ? ", some stored without: frame table full" : "");
	fprintf(stderr,
		"profil record: %llu %s, %llu lost, %u %s, clock %s at %.1f Hz (%u Hz "
		"asked%s%s)%s%s, %s (%.1f MiB)%s%s\n",
		(unsigned long long)res->samples, plural(res->samples, "sample", "samples"),
		(unsigned long long)res->lost, res->processes,
		plural(res->processes, "process", "processes"), res->clock_name, res->effective_hz,
		co->rec.hz, cap, thr, res->kernel ? ", kernel sampled" : "", stk, co->rec.output,
		mib((uint64_t)st.st_size), why_incomplete ? ": " : "",
		why_incomplete ? why_incomplete : "");
}

/* -a: the machine's CPU time beside the samples, and where the profiles are. */
static void summary_system(const struct cmd_record_opts *co, const struct record_result *res)
{
	const struct record_opts *o = &co->rec;
	char where[PATH_MAX + 96];
	struct stat st;

	if (o->rotate)
		snprintf(where, sizeof(where), "%u %s in %s/%s", res->periods,
			 plural(res->periods, "profile", "profiles"), o->output,
			 o->keep && res->periods > o->keep ? " (the newest kept)" : "");
	else
		snprintf(where, sizeof(where), "%s (%.1f MiB)", o->output,
			 stat(o->output, &st) == 0 ? mib((uint64_t)st.st_size) : 0.0);
	fprintf(stderr,
		"profil record: the whole machine, %d %s, %.3f s busy: %llu %s (%.3f s), %llu "
		"lost, clock %s at %u Hz%s%s, %s\n",
		res->ncpus, plural((uint64_t)res->ncpus, "CPU", "CPUs"),
		(double)res->machine_ns / 1e9, (unsigned long long)res->samples,
		plural(res->samples, "sample", "samples"),
		res->hz ? (double)res->samples / (double)res->hz : 0.0,
		(unsigned long long)res->lost, res->clock_name, res->hz,
		res->kernel ? ", kernel sampled" : "",
		res->callgraph_name && strcmp(res->callgraph_name, "none") ? ", call stacks" : "",
		where);
}

/*
 * The same export as `profil export --format gmon`: the object it chose and
 * why, stripped or not.  Returns 0, or -1 after one sentence.
 */
static int export_gmon(const struct cmd_record_opts *co)
{
	struct gmon_summary sum;
	char why[512] = "";

	if (gmon_export_summary(co->rec.output, co->gmon, &sum, why, sizeof(why)) < 0) {
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
	if (!co.quiet && co.rec.all_cpus)
		summary_system(&co, &res);
	else if (!co.quiet)
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
