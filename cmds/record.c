// SPDX-License-Identifier: MIT
/*
 * profil record [options] -- COMMAND [ARGS...]
 * profil record [options] -p PID
 * profil record -a [options] [-- COMMAND [ARGS...]]
 *
 * The command: options, one call into the recording engine (record/record.h,
 * which runs COMMAND or attaches to PID and writes the profil.data), the
 * summary line, and --gmon (output/gmon.h).  Exits with COMMAND's status,
 * or 1 when COMMAND succeeded but an output was not written whole (the
 * profile, --events, --gmon; one sentence each).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "output/output.h"
#include "record/record.h"
#include "utils/array.h"
#include "utils/opts.h"
#include "utils/outfile.h"

#define DEFAULT_OUTPUT "profil.data"
#define DEFAULT_GMON "gmon.out"

struct cmd_record_opts {
	struct record_opts rec;
	const char *gmon;
	int quiet;
	int output_given; /* -o was given (--rotate needs a directory named) */
};

#define STR(x) #x
#define XSTR(x) STR(x)

/* --call-graph MODE: dwarf[,SIZE], fp or none, as perf spells them.  0, or -1 with why. */
static int parse_call_graph(void *out, const char *arg, char *why, size_t whylen)
{
	struct record_opts *o = &((struct cmd_record_opts *)out)->rec;
	static const struct {
		const char *name;
		enum record_callgraph cg;
	} modes[] = {{"none", RECORD_CG_NONE}, {"fp", RECORD_CG_FP}, {"dwarf", RECORD_CG_DWARF}};
	char *end;
	unsigned long v;

	o->stack_bytes = 0;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(arg, modes[i].name)) {
			o->callgraph = modes[i].cg;
			return 0;
		}
	if (strncmp(arg, "dwarf,", 6)) {
		snprintf(why, whylen, "unknown call-graph mode '%s' (dwarf[,SIZE], fp or none)",
			 arg);
		return -1;
	}
	errno = 0;
	v = strtoul(arg + 6, &end, 10);
	if (!arg[6] || arg[6] == '-' || errno || *end || v < RECORD_STACK_BYTES_MIN ||
	    v > RECORD_STACK_BYTES_MAX) {
		snprintf(why, whylen, "bad stack size '%s' (expected %d..%d bytes)", arg + 6,
			 RECORD_STACK_BYTES_MIN, RECORD_STACK_BYTES_MAX);
		return -1;
	}
	o->callgraph = RECORD_CG_DWARF;
	o->stack_bytes = (unsigned int)((v + 7) & ~7ul); /* whole words, as perf rounds */
	return 0;
}

/* --gmon [FILE] */
static int set_gmon(void *out, const char *arg, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	((struct cmd_record_opts *)out)->gmon = arg ? arg : DEFAULT_GMON;
	return 0;
}

/* --clock CLOCK: a name of pdata's one table of clock names, not "manual" (libprofil's own). */
static int set_clock(void *out, const char *arg, char *why, size_t whylen)
{
	uint32_t *clock = &((struct cmd_record_opts *)out)->rec.clock;

	if (pdata__clock_from_name(arg, clock) == 0 && *clock != PDATA_CLOCK_MANUAL)
		return 0;
	snprintf(why, whylen, "unknown clock '%s' (auto, bpf, perf, thread or itimer)", arg);
	return -1;
}

static const struct opt_choice sample_by_names[] = {{"auto", RECORD_SAMPLE_AUTO},
						    {"cgroup", RECORD_SAMPLE_CGROUP},
						    {"thread", RECORD_SAMPLE_THREAD},
						    {NULL, 0}};

#define AT(m) OPT_AT(struct cmd_record_opts, m)
static const struct opt options[] = {
	{"output", 'o', OPT_STRING, "FILE", AT(rec.output),
	 "profile to write (default " DEFAULT_OUTPUT ")"},
	{"freq", 'F', OPT_INT, "HZ", AT(rec.hz),
	 "samples per CPU second (default " XSTR(RECORD_DEFAULT_HZ) ")",
	 .what = "a rate from 1 to 1000000 Hz", .min = 1, .max = 1000000},
	{"clock", 0, OPT_CALL, "CLOCK", AT(rec.clock),
	 "auto, bpf, perf, thread or itimer (default auto: perf where permitted, else thread)",
	 .call = set_clock},
	{NULL, 'g', OPT_FLAG, NULL, AT(rec.callgraph),
	 "record call stacks, the best way this machine permits (dwarf: on perf events, or in "
	 "the sampled thread with the thread and itimer clocks)",
	 .set = RECORD_CG_AUTO},
	{"call-graph", 0, OPT_CALL, "MODE", AT(rec.callgraph),
	 "call stacks: dwarf[,SIZE] (the CFI, from SIZE bytes of user stack per sample, "
	 "default " XSTR(
		 RECORD_STACK_BYTES_DEFAULT) "; complete without frame pointers), fp (the kernel's "
					     "frame-pointer walk: cheap, cut short by code built "
					     "without them) or none",
	 .call = parse_call_graph},
	{"pid", 'p', OPT_INT, "PID", AT(rec.attach_pid),
	 "attach to a running process and all its threads", .what = "a process id (1 or more)",
	 .min = 1, .max = INT_MAX},
	{"no-inherit", 0, OPT_FLAG, NULL, AT(rec.inherit), "do not follow child processes",
	 .set = 0},
	{"gmon", 0, OPT_CALL, "FILE", AT(gmon),
	 "also write a gmon.out for gprof (default " DEFAULT_GMON ")", .call = set_gmon,
	 .flags = OPT_OPTIONAL},
	{"events", 0, OPT_STRING, "FILE", AT(rec.events),
	 "write the prof/profil event stream as Tracee JSON lines (\"-\" = stdout; see "
	 "doc/events.md)"},
	{"off-cpu", 0, OPT_FLAG, NULL, AT(rec.offcpu),
	 "also the time each thread spends off the CPU (sleeping, blocked, preempted), under the "
	 "stack it left the CPU with (with -g), counted in the kernel where BPF is permitted; "
	 "else each thread's total where perf can say",
	 .set = 1},
	{"sample-by", 0, OPT_CHOICE, "HOW", AT(rec.sample_by),
	 "the CPU samples of the command's tree: cgroup (per-CPU events of a cgroup the "
	 "recorder puts the command in: root; no cost at the tree's context switches), thread "
	 "(per-thread events) or auto (default: cgroup with --off-cpu where it can be made, "
	 "else thread)",
	 .what = "way", .choices = sample_by_names},
	{"quiet", 'q', OPT_FLAG, NULL, AT(quiet), "no summary line", .set = 1},
	OPT_GROUP("the whole machine:"),
	{"all-cpus", 'a', OPT_FLAG, NULL, AT(rec.all_cpus),
	 "every process on every CPU, user and kernel, while COMMAND runs, for --duration, or "
	 "until Ctrl-C (needs root, CAP_PERFMON or perf_event_paranoid <= 0; the profile is "
	 "mode 0600)",
	 .set = 1},
	{"cpu", 'C', OPT_STRING, "LIST", AT(rec.cpu_list), "with -a: these CPUs only (e.g. 0,2-3)"},
	{"duration", 0, OPT_DOUBLE, "SECS", AT(rec.duration), "with -a: stop after SECS seconds",
	 .what = "seconds above 0 (at most a year)", .min = 0, .max = 31536000,
	 .flags = OPT_ABOVE_MIN},
	{"rotate", 0, OPT_INT, "SECS", AT(rec.rotate),
	 "with -a: one complete profile per SECS seconds into the directory -o names "
	 "(profil-YYYYmmddTHHMMSSZ.data, UTC)",
	 .what = "a number of seconds from 1 to 86400", .min = 1, .max = 86400},
	{"keep", 0, OPT_INT, "N", AT(rec.keep),
	 "with --rotate: keep the newest N profiles of the run",
	 .what = "a count from 1 to 1000000", .min = 1, .max = 1000000},
	OPT_END,
};

static const struct opts_cmd record_cmd = {
	.name = "record",
	.usage = "profil record [OPTIONS] -- COMMAND [ARGS...]\n"
		 "profil record [OPTIONS] -p PID\n"
		 "profil record -a [OPTIONS] [-- COMMAND [ARGS...]]",
	.opts = options,
	.flags = OPTS_IN_ORDER,
	.text = "Outputs are never written through a symbolic link, over another user's file,\n"
		"over the program or a file its arguments name; -o replaces only a profile\n"
		"(the previous one is kept as FILE.old), --gmon and --events never a profile\n"
		"or a program; /dev/stdout, /dev/null and your FIFOs are written in place.\n"
		"Exits with COMMAND's exit status (128+N when a signal N ended it), or 1 when\n"
		"COMMAND succeeded but an output could not be written whole (said in one line).\n"
		"If profil record is killed, COMMAND gets SIGTERM (not its own children).\n",
};

/* What -a takes and what it does not.  -1 to go on, else the exit status. */
static int check_system(const struct cmd_record_opts *co)
{
	const struct record_opts *o = &co->rec;
	const char *only_a = o->cpu_list     ? "-C" :
			     o->duration > 0 ? "--duration" :
			     o->rotate	     ? "--rotate" :
			     o->keep	     ? "--keep" :
					       NULL;

	if (!o->all_cpus)
		return only_a ? opts__error("record", "%s is for the whole machine: add -a",
					    only_a) :
				-1;
	if (o->attach_pid)
		return opts__error("record",
				   "-a records every process already; give -a or -p PID, not both");
	if (o->clock == PDATA_CLOCK_THREAD || o->clock == PDATA_CLOCK_ITIMER)
		return opts__error("record", "-a needs perf events (--clock auto, perf or bpf)");
	if (o->events || co->gmon)
		return opts__error(
			"record",
			"%s is for a COMMAND's processes, not -a (profil watch shows the "
			"whole machine's events)",
			o->events ? "--events" : "--gmon");
	if (o->offcpu)
		return opts__error("record",
				   "--off-cpu follows a COMMAND's or a process's threads; "
				   "-a records CPU time only (for now)");
	if (o->sample_by == RECORD_SAMPLE_CGROUP)
		return opts__error("record", "--sample-by cgroup is for a COMMAND's tree; -a "
					     "samples every CPU already");
	if (o->keep && !o->rotate)
		return opts__error("record", "--keep counts the profiles of --rotate");
	if (o->rotate && !co->output_given)
		return opts__error("record",
				   "--rotate writes a directory of profiles: name it with -o DIR");
	return -1;
}

/* What the options cannot say alone.  -1 to go on, else the exit status. */
static int check_args(const struct cmd_record_opts *co)
{
	const struct record_opts *o = &co->rec;
	int rc = check_system(co);

	if (rc >= 0 || o->all_cpus)
		return rc;
	if (o->attach_pid && *o->argv)
		return opts__error("record", "give either a COMMAND or -p PID, not both");
	if (!o->attach_pid && !*o->argv)
		return opts__error("record", "no COMMAND given (usage: profil record [OPTIONS] -- "
					     "COMMAND [ARGS...])");
	if (o->callgraph == RECORD_CG_FP &&
	    (o->clock == PDATA_CLOCK_THREAD || o->clock == PDATA_CLOCK_ITIMER))
		return opts__error("record",
				   "--call-graph fp needs perf events (--clock perf or bpf); the "
				   "thread and itimer clocks take dwarf stacks (-g)");
	if (o->sample_by == RECORD_SAMPLE_CGROUP &&
	    (o->attach_pid || !o->inherit || o->clock == PDATA_CLOCK_THREAD ||
	     o->clock == PDATA_CLOCK_ITIMER))
		return opts__error(
			"record",
			"--sample-by cgroup puts a COMMAND and its children in a cgroup: "
			"not with %s",
			o->attach_pid ? "-p PID" :
			!o->inherit   ? "--no-inherit" :
					"the agent's clocks (thread, itimer)");
	if (o->attach_pid && o->events)
		return opts__error("record", "--events is for a COMMAND, not -p PID");
	if (o->attach_pid && o->clock != PDATA_CLOCK_AUTO && o->clock != PDATA_CLOCK_PERF)
		return opts__error("record", "attaching to a running process needs --clock perf");
	return -1;
}

/* Returns -1 to continue, else the exit status. */
static int parse_args(int argc, char **argv, struct cmd_record_opts *co)
{
	struct record_opts *o = &co->rec;
	int first, rc;

	o->output = NULL; /* the default after parsing: whether -o was given matters to --rotate */
	o->hz = RECORD_DEFAULT_HZ;
	o->inherit = 1;
	rc = opts__parse(&record_cmd, argc, argv, co, &first);
	if (rc != OPTS_GO_ON)
		return rc;
	co->output_given = o->output != NULL;
	if (!o->output)
		o->output = DEFAULT_OUTPUT;
	o->argv = argv + first;
	return check_args(co);
}

/* A file's size as a person reads it: bytes, KiB under 1 MiB, then MiB, GiB. */
static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1024)
		snprintf(buf, len, "%llu %s", (unsigned long long)bytes,
			 bytes == 1 ? "byte" : "bytes");
	else if (bytes < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
	else if (bytes < 1024ull * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
	else
		snprintf(buf, len, "%.1f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
	return buf;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* One line: the rate is the one every reader of the profile states (1e9 / its period). */
static void summary(const struct cmd_record_opts *co, const struct record_result *res)
{
	char thr[96] = "", cap[64] = "", stk[96] = "", size[32], off[64] = "";
	const char *why_incomplete = res->flush_err < 0 ? strerror(-res->flush_err) : NULL;

	if (res->throttled)
		snprintf(thr, sizeof(thr), ", the kernel did not take %llu %s",
			 (unsigned long long)res->throttled,
			 plural(res->throttled, "sample", "samples"));
	if (res->hz < co->rec.hz)
		snprintf(cap, sizeof(cap), ", capped at %u by the kernel", res->hz);
	if (co->rec.offcpu)
		snprintf(off, sizeof(off), ", off-CPU %.3f s (%s)", (double)res->offcpu_ns / 1e9,
			 res->offcpu_name ? res->offcpu_name : "none");
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
		"asked%s%s)%s%s%s, %s (%s)%s%s\n",
		(unsigned long long)res->samples, plural(res->samples, "sample", "samples"),
		(unsigned long long)res->lost, res->processes,
		plural(res->processes, "process", "processes"), res->clock_name, res->effective_hz,
		co->rec.hz, cap, thr, res->kernel ? ", kernel sampled" : "", stk, off,
		res->output[0] ? res->output :
				 "its file gone (removed or renamed by another writer)",
		size_text(res->file_size, size, sizeof(size)), why_incomplete ? ": " : "",
		why_incomplete ? why_incomplete : "");
}

/* -a: the machine's CPU time beside the samples, and where the profiles are. */
static void summary_system(const struct cmd_record_opts *co, const struct record_result *res)
{
	const struct record_opts *o = &co->rec;
	char where[PATH_MAX + 96], size[32];

	if (o->rotate)
		snprintf(where, sizeof(where), "%u %s in %s/%s", res->periods,
			 plural(res->periods, "profile", "profiles"), o->output,
			 o->keep && res->periods > o->keep ? " (the newest kept)" : "");
	else
		snprintf(where, sizeof(where), "%s (%s)", res->output[0] ? res->output : o->output,
			 size_text(res->file_size, size, sizeof(size)));
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
