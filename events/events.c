// SPDX-License-Identifier: MIT
/*
 * Event definitions (the table every consumer uses), their decoded names and
 * the Tracee-style JSON rendering of one event (the writer that puts events
 * in a file: event_writer.c).  See events.h for the contract and doc/events.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events/events.h"
#include "utils/array.h"
#include "utils/json.h"

#define ARG(n, t, k, field)                                                                        \
	{                                                                                          \
		n, t, k, offsetof(struct profil_event, field), 0                                   \
	}
#define ARRAY(n, t, k, field, count)                                                               \
	{                                                                                          \
		n, t, k, offsetof(struct profil_event, field),                                     \
			offsetof(struct profil_event, count)                                       \
	}
#define NARGS(a) (sizeof(a) / sizeof((a)[0]))

static const struct profil_arg_def profil_args[] = {
	ARG("buf", "void*", PARG_PTR, profil.buf),
	ARG("buflen", "unsigned long", PARG_U64, profil.buflen),
	ARG("offset", "unsigned long", PARG_U64, profil.offset),
	ARG("scale", "unsigned int", PARG_U32, profil.scale),
	ARG("pc", "unsigned long", PARG_PTR, profil.pc),
};

static const struct profil_arg_def sprofil_args[] = {
	ARG("profp", "struct prof*", PARG_PTR, sprofil.profp),
	ARG("profcnt", "int", PARG_I32, sprofil.profcnt),
	ARG("tvp", "struct timeval*", PARG_PTR, sprofil.tvp),
	ARG("flags", "unsigned int", PARG_U32, sprofil.flags),
	ARG("pc", "unsigned long", PARG_PTR, sprofil.pc),
	ARRAY("regions", "struct prof[]", PARG_REGIONS, sprofil.regions, sprofil.nregions),
};

static const struct profil_arg_def prof_args[] = {
	ARG("FLAGS", "unsigned long", PARG_U64, prof.flags),
	ARRAY("EVENTS", "unsigned int[]", PARG_U32_ARRAY, prof.events, prof.nevents),
};

static const struct profil_arg_def exec_args[] = {
	ARG("pathname", "const char*", PARG_STR, exec.pathname),
};

static const struct profil_arg_def fork_args[] = {
	ARG("parent_tid", "int", PARG_U32, fork.parent_tid),
	ARG("parent_pid", "int", PARG_U32, fork.parent_pid),
	ARG("child_tid", "int", PARG_U32, fork.child_tid),
	ARG("child_pid", "int", PARG_U32, fork.child_pid),
	ARG("start_time", "unsigned long", PARG_U64, fork.start_time),
};

static const struct profil_arg_def exit_args[] = {
	ARG("exit_code", "int", PARG_I32, exit.exit_code),
	ARG("signal", "int", PARG_I32, exit.signal),
	ARG("process_group_exit", "bool", PARG_BOOL, exit.process_group_exit),
};

static const struct profil_arg_def setitimer_args[] = {
	ARG("which", "int", PARG_I32, setitimer.which),
	ARG("interval_us", "unsigned long", PARG_U64, setitimer.interval_us),
	ARG("value_us", "unsigned long", PARG_U64, setitimer.value_us),
};

static const struct profil_arg_def timer_create_args[] = {
	ARG("clockid", "int", PARG_I32, timer_create.clockid),
	ARG("clock", "const char*", PARG_CLOCKID, timer_create.clockid),
	ARG("sigev_notify", "int", PARG_I32, timer_create.sigev_notify),
	ARG("sigev_signo", "int", PARG_I32, timer_create.sigev_signo),
	ARG("sigev_tid", "int", PARG_I32, timer_create.sigev_tid),
};

static const struct profil_arg_def perf_event_open_args[] = {
	ARG("pid", "int", PARG_I32, perf_event_open.pid),
	ARG("cpu", "int", PARG_I32, perf_event_open.cpu),
	ARG("group_fd", "int", PARG_I32, perf_event_open.group_fd),
	ARG("flags", "unsigned long", PARG_U64, perf_event_open.flags),
	ARG("type", "unsigned int", PARG_U32, perf_event_open.type),
	ARG("config", "unsigned long", PARG_U64, perf_event_open.config),
	ARG("sample_period", "unsigned long", PARG_U64, perf_event_open.sample_period),
	ARG("sample_freq", "unsigned long", PARG_U64, perf_event_open.sample_freq),
};

static const struct profil_arg_def events_lost_args[] = {
	ARG("count", "unsigned long", PARG_U64, events_lost.count),
};

#define DEF(id, name, sc, args)                                                                    \
	{                                                                                          \
		id, name, sc, NARGS(args), args                                                    \
	}
static const struct profil_event_def event_defs[] = {
	DEF(PEV_SETITIMER, "setitimer", "setitimer", setitimer_args),
	DEF(PEV_TIMER_CREATE, "timer_create", "timer_create", timer_create_args),
	DEF(PEV_PERF_EVENT_OPEN, "perf_event_open", "perf_event_open", perf_event_open_args),
	DEF(PEV_PROF, "prof", "", prof_args),
	DEF(PEV_PROFIL, "profil", "", profil_args),
	DEF(PEV_SCHED_PROCESS_FORK, "sched_process_fork", "", fork_args),
	DEF(PEV_SCHED_PROCESS_EXEC, "sched_process_exec", "", exec_args),
	DEF(PEV_SCHED_PROCESS_EXIT, "sched_process_exit", "", exit_args),
	DEF(PEV_SPROFIL, "sprofil", "", sprofil_args),
	DEF(PEV_EVENTS_LOST, "events_lost", "", events_lost_args),
};

const struct profil_event_def *profil_event_defs(unsigned int *count)
{
	*count = NARGS(event_defs);
	return event_defs;
}

/* The definition of an event, or NULL for an unknown id / name. */
static const struct profil_event_def *profil_event_def__by_id(uint32_t id)
{
	for (size_t i = 0; i < NARGS(event_defs); i++)
		if (event_defs[i].id == id)
			return &event_defs[i];
	return NULL;
}

const struct profil_event_def *profil_event_def__by_name(const char *name)
{
	for (size_t i = 0; i < NARGS(event_defs); i++)
		if (!strcmp(event_defs[i].name, name))
			return &event_defs[i];
	return NULL;
}

/* ---- decoded names --------------------------------------------------------------------- */

static const char *const static_clocks[] = {
	"CLOCK_REALTIME",	   "CLOCK_MONOTONIC",	  "CLOCK_PROCESS_CPUTIME_ID",
	"CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME_COARSE",
	"CLOCK_MONOTONIC_COARSE",  "CLOCK_BOOTTIME",	  "CLOCK_REALTIME_ALARM",
	"CLOCK_BOOTTIME_ALARM",	   "CLOCK_SGI_CYCLE",	  "CLOCK_TAI",
};

/*
 * A negative clockid is a CPU clock of another task (clock_getcpuclockid,
 * pthread_getcpuclockid): ~pid << 3 | per-thread bit (4) | which (0..2).
 */
const char *profil_clockid_str(int32_t clockid, char *buf, size_t len)
{
	static const char *const which[] = {"PROF", "VIRT", "SCHED", "?"};

	if (clockid >= 0 && (size_t)clockid < NARGS(static_clocks)) {
		snprintf(buf, len, "%s", static_clocks[clockid]);
	} else if (clockid < 0) {
		long id = ~(long)(clockid >> 3); /* arithmetic shift keeps the sign */
		const char *kind = (clockid & 4) ? "THREAD" : "PROCESS";

		if (id == 0) /* glibc's CLOCK_{PROCESS,THREAD}_CPUTIME_ID of the caller */
			snprintf(buf, len, "CPUCLOCK_%s(self,%s)", kind, which[clockid & 3]);
		else
			snprintf(buf, len, "CPUCLOCK_%s(%s=%ld,%s)", kind,
				 (clockid & 4) ? "tid" : "pid", id, which[clockid & 3]);
	} else {
		snprintf(buf, len, "CLOCK_%d", (int)clockid);
	}
	return buf;
}

static const char *const prof_flag_names[] = {
	[0] = "ENABLE",	       [1] = "DISABLE",	    [2] = "ON_EXEC",	  [3] = "ON_EXIT",
	[4] = "INHERIT_FORK",  [5] = "ON_CALL",	    [8] = "CLOCK_ITIMER", [9] = "CLOCK_PROCESS",
	[10] = "CLOCK_THREAD", [11] = "CLOCK_PERF", [12] = "CLOCK_BPF",	  [13] = "FAULT_DISABLED",
	[14] = "SPROFIL",
};

const char *profil_prof_flags_str(uint64_t flags, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 64 && used < len; bit++) {
		if (!(flags & (1ULL << bit)))
			continue;
		const char *name = bit < NARGS(prof_flag_names) ? prof_flag_names[bit] : NULL;
		int n = name ? snprintf(buf + used, len - used, "%s%s", used ? "|" : "", name) :
			       snprintf(buf + used, len - used, "%sBIT%u", used ? "|" : "", bit);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!flags)
		snprintf(buf, len, "0");
	return buf;
}

const char *profil_prof_event_str(uint32_t ev, char *buf, size_t len)
{
	static const char *const itimers[] = {"ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"};
	unsigned int v = PROF_EVENT_VALUE(ev);
	char clk[64];

	switch (PROF_EVENT_KIND(ev)) {
	case PROF_EVENT_KIND_ITIMER:
		snprintf(buf, len, "%s", v < 3 ? itimers[v] : "ITIMER_?");
		break;
	case PROF_EVENT_KIND_CLOCK:
		if (v & 0x800000)
			snprintf(buf, len, "CPUCLOCK_%s_%s", (v & 4) ? "THREAD" : "PROCESS",
				 (const char *[]){"PROF", "VIRT", "SCHED", "?"}[v & 3]);
		else
			snprintf(buf, len, "%s", profil_clockid_str((int32_t)v, clk, sizeof(clk)));
		break;
	case PROF_EVENT_KIND_PERF:
	case PROF_EVENT_KIND_BPF:
		snprintf(buf, len, "%s:%u:%u",
			 PROF_EVENT_KIND(ev) == PROF_EVENT_KIND_PERF ? "PERF" : "BPF",
			 (v >> 16) & 0xff, v & 0xffff);
		break;
	default:
		snprintf(buf, len, "0x%08x", ev);
	}
	return buf;
}

/* ---- JSON rendering -------------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void sb_reserve(struct sbuf *sb, size_t more)
{
	if (!sb->err && array__reserve(&sb->p, &sb->cap, sb->len + more + 1, 1))
		sb->err = -ENOMEM;
}

static void sb_put(struct sbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	if (sb->err)
		return;
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
}

static void sb_str(struct sbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

/* Append printf's output, whatever its length. */
__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->err = -EINVAL;
		return;
	}
	sb_reserve(sb, (size_t)n);
	if (sb->err)
		return;
	va_start(ap, fmt);
	vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* json__write_string's put: append to the buffer. */
static void sb_put_cb(void *sb, const char *p, size_t n)
{
	sb_put(sb, p, n);
}

static void sb_json_str(struct sbuf *sb, const char *s)
{
	json__write_string(s, sb_put_cb, sb);
}

#define FIELD(ev, type, off) (*(const type *)((const char *)(ev) + (off)))

static void sb_arg_value(struct sbuf *sb, const struct profil_event *ev,
			 const struct profil_arg_def *a)
{
	char tmp[64];

	switch (a->kind) {
	case PARG_U32:
		sb_printf(sb, "%u", FIELD(ev, uint32_t, a->offset));
		break;
	case PARG_I32:
		sb_printf(sb, "%d", FIELD(ev, int32_t, a->offset));
		break;
	case PARG_U64:
	case PARG_PTR:
		sb_printf(sb, "%llu", (unsigned long long)FIELD(ev, uint64_t, a->offset));
		break;
	case PARG_I64:
		sb_printf(sb, "%lld", (long long)FIELD(ev, int64_t, a->offset));
		break;
	case PARG_BOOL:
		sb_str(sb, FIELD(ev, bool, a->offset) ? "true" : "false");
		break;
	case PARG_STR:
		sb_json_str(sb, (const char *)ev + a->offset);
		break;
	case PARG_CLOCKID:
		sb_json_str(sb,
			    profil_clockid_str(FIELD(ev, int32_t, a->offset), tmp, sizeof(tmp)));
		break;
	case PARG_U32_ARRAY: {
		uint32_t n = FIELD(ev, uint32_t, a->count_offset);
		const uint32_t *v = &FIELD(ev, uint32_t, a->offset);

		n = n > PROF_MAX_EVENTS ? PROF_MAX_EVENTS : n;
		sb_put(sb, "[", 1);
		for (uint32_t i = 0; i < n; i++)
			sb_printf(sb, "%s%u", i ? "," : "", v[i]);
		sb_put(sb, "]", 1);
		break;
	}
	case PARG_REGIONS: {
		uint32_t n = FIELD(ev, uint32_t, a->count_offset);
		const struct profil_region *r = &FIELD(ev, struct profil_region, a->offset);

		n = n > PROFIL_MAX_REGIONS ? PROFIL_MAX_REGIONS : n;
		sb_put(sb, "[", 1);
		for (uint32_t i = 0; i < n; i++) {
			sb_printf(sb, "%s{\"pr_base\":%llu,\"pr_size\":%llu,", i ? "," : "",
				  (unsigned long long)r[i].base, (unsigned long long)r[i].size);
			sb_printf(sb, "\"pr_off\":%llu,\"pr_scale\":%llu}",
				  (unsigned long long)r[i].off, (unsigned long long)r[i].scale);
		}
		sb_put(sb, "]", 1);
		break;
	}
	}
}

int profil_event__to_json(const struct profil_event *ev, char **out, size_t *len)
{
	const struct profil_event_def *def = profil_event_def__by_id(ev->id);
	struct sbuf sb = {0};

	if (!def)
		return -EINVAL;
	/* Tracee's field order (legacy --output json). */
	sb_printf(&sb, "{\"timestamp\":%llu,\"threadStartTime\":%llu,\"processorId\":%u,",
		  (unsigned long long)ev->timestamp, (unsigned long long)ev->thread_start_time,
		  ev->processor_id);
	sb_printf(&sb, "\"processId\":%u,\"cgroupId\":%llu,\"threadId\":%u,", ev->pid,
		  (unsigned long long)ev->cgroup_id, ev->tid);
	sb_printf(&sb, "\"parentProcessId\":%u,\"hostProcessId\":%u,\"hostThreadId\":%u,", ev->ppid,
		  ev->host_pid, ev->host_tid);
	sb_printf(&sb, "\"hostParentProcessId\":%u,\"userId\":%u,\"mountNamespace\":%u,",
		  ev->host_ppid, ev->uid, ev->mnt_ns);
	sb_printf(&sb, "\"pidNamespace\":%u,\"processName\":", ev->pid_ns);
	sb_json_str(&sb, ev->comm);
	sb_str(&sb, ",\"executable\":{\"path\":");
	sb_json_str(&sb, ev->executable);
	sb_str(&sb, "},\"hostName\":");
	sb_json_str(&sb, ev->hostname);
	sb_str(&sb, ",\"containerId\":");
	sb_json_str(&sb, ev->container_id);
	sb_printf(&sb, ",\"eventId\":\"%u\",\"eventName\":", def->id);
	sb_json_str(&sb, def->name);
	sb_printf(&sb, ",\"matchedPolicies\":[],\"argsNum\":%u,\"returnValue\":%lld,\"syscall\":",
		  def->nargs, (long long)ev->return_value);
	sb_json_str(&sb, def->syscall[0] || !ev->from_syscall ? def->syscall : def->name);
	sb_printf(&sb,
		  ",\"stackAddresses\":[],\"contextFlags\":{\"containerStarted\":false,"
		  "\"isCompat\":%s},\"args\":[",
		  ev->is_compat ? "true" : "false");
	for (unsigned int i = 0; i < def->nargs; i++) {
		const struct profil_arg_def *a = &def->args[i];

		sb_str(&sb, i ? ",{\"name\":" : "{\"name\":");
		sb_json_str(&sb, a->name);
		sb_str(&sb, ",\"type\":");
		sb_json_str(&sb, a->type);
		sb_str(&sb, ",\"value\":");
		sb_arg_value(&sb, ev, a);
		sb_put(&sb, "}", 1);
	}
	sb_str(&sb, "]}");
	if (sb.err) {
		free(sb.p);
		return sb.err;
	}
	*out = sb.p;
	*len = sb.len;
	return 0;
}

uint64_t profil_event__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
