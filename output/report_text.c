// SPDX-License-Identifier: MIT
/*
 * The text report: a '#' header that no string of the profile can break
 * (control characters are escaped, the command is printed quoted), the
 * whole run merged by the report's keys (perf report's columns), and with
 * --images (or --threads) each process image's own rows; with --children
 * each table has the total beside self, and the trees of the call stacks
 * (report/cgreport.h) follow their table.  See report.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cgreport.h"
#include "output/output.h"
#include "utils/array.h"
#include "utils/cgroup.h"
#include "utils/sat.h"

/* Widths of the name columns (names longer than this are not cut, they push the next column). */
#define W_COMM 16
#define W_OBJECT 24
#define W_FUNC 60

const char *report__plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ---- strings from the profile --------------------------------------------------------- */

/*
 * s with every control character escaped (\n, \t, \r, \xHH), so that no
 * string of a profile can start a line of its own.  Longer strings are cut
 * with "..." at len.
 */
static const char *esc(const char *s, char *buf, size_t len)
{
	size_t at = 0;

	for (; *s && at + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			at += (size_t)snprintf(buf + at, len - at, "\\n");
		else if (c == '\t')
			at += (size_t)snprintf(buf + at, len - at, "\\t");
		else if (c == '\r')
			at += (size_t)snprintf(buf + at, len - at, "\\r");
		else if (c < 0x20 || c == 0x7f)
			at += (size_t)snprintf(buf + at, len - at, "\\x%02x", c);
		else
			buf[at++] = (char)c;
	}
	if (*s)
		at += (size_t)snprintf(buf + at, len - at, "...");
	buf[at] = 0;
	return buf;
}

#define ESC_LEN 1024

/*
 * Seconds for the reader: milliseconds' precision, and enough digits for
 * the CPU time of a short process (0.0003 s, not 0.000 s).  The result
 * lives until 8 more calls (one line's worth).
 */
static const char *secs(double s)
{
	static char bufs[8][32];
	static unsigned next;
	char *b = bufs[next++ % 8];

	size_t n;

	if (!(s > 0 && s < 0.01)) {
		snprintf(b, sizeof(bufs[0]), "%.3f", s);
		return b;
	}
	/* microseconds, without the zeros beyond milliseconds: 0.001, 0.0006, 0.000312 */
	n = (size_t)snprintf(b, sizeof(bufs[0]), "%.6f", s);
	while (n > 5 && b[n - 1] == '0')
		b[--n] = 0;
	return b;
}

/* ---- header ------------------------------------------------------------------------- */

static void describe_end(char *buf, size_t len, int kind, int code)
{
	const char *sig;

	switch (kind) {
	case PDATA_END_EXITED:
		snprintf(buf, len, "exited with code %d", code);
		break;
	case PDATA_END_SIGNALED:
		sig = code > 0 && code < 65 ? sigabbrev_np(code) : NULL;
		if (sig)
			snprintf(buf, len, "killed by signal %d (SIG%s)", code, sig);
		else
			snprintf(buf, len, "killed by signal %d", code);
		break;
	case PDATA_END_EXEC:
		snprintf(buf, len, "replaced by exec");
		break;
	case PDATA_END_DETACHED:
		snprintf(buf, len, "still running when the profiler detached");
		break;
	default:
		snprintf(buf, len, "end not seen");
	}
}

static void header_rate(const struct report *rep, FILE *out)
{
	const struct pdata_header *h = &rep->v->hdr;

	if (h->period_ns)
		fprintf(out,
			"# rate: %.1f Hz effective (one sample is %.3f ms of CPU time), %u Hz "
			"asked",
			pview__rate_hz(rep->v), (double)h->period_ns / 1e6, h->nominal_hz);
	else if (h->nominal_hz)
		fprintf(out, "# rate: effective rate unknown, %u Hz asked (seconds use it)",
			h->nominal_hz);
	else
		fprintf(out, "# rate: unknown (seconds are unknown)");
	if (h->throttled)
		fprintf(out, "; the kernel throttled sampling: %llu %s not taken",
			(unsigned long long)h->throttled,
			report__plural(h->throttled, "sample", "samples"));
	if (h->lost)
		fprintf(out, "; %llu %s lost", (unsigned long long)h->lost,
			report__plural(h->lost, "sample", "samples"));
	fputc('\n', out);
	fprintf(out, "# samples: %llu, lost %llu, dropped %llu\n", (unsigned long long)h->samples,
		(unsigned long long)h->lost, (unsigned long long)h->dropped);
}

static void header_kernel(const struct report *rep, FILE *out)
{
	const char *clock = pdata__clock_name(rep->v->hdr.clock);

	switch (rep->kernel) {
	case REPORT_KERNEL_SAMPLED:
		fprintf(out,
			"# kernel: sampled; its code is object [kernel], named by the kernel's "
			"symbols\n");
		break;
	case REPORT_KERNEL_ACCOUNTED:
		if (rep->totals.accounted_ns)
			fprintf(out,
				"# kernel: not sampled (no privilege); each thread's [kernel] row "
				"is its system time as the kernel accounted it (\"accounted\", "
				"not samples)\n");
		else
			fprintf(out,
				"# kernel: not sampled (no privilege), and the profile holds no "
				"accounting of it: no [kernel] rows\n");
		break;
	case REPORT_KERNEL_INVISIBLE:
		fprintf(out,
			"# kernel: the %s clock cannot see the kernel: its ticks land at the user "
			"code the kernel returns to, so kernel time is counted there (no [kernel] "
			"rows)\n",
			clock);
		break;
	default:
		fprintf(out, "# kernel: %s ticks: no kernel time\n", clock);
	}
}

static void header_run(const struct report *rep, FILE *out)
{
	const struct report_totals *t = &rep->totals;
	const struct pdata_header *h = &rep->v->hdr;

	fprintf(out, "# run: %s s of CPU time in %zu process %s (%zu with time): %llu %s (%s s)",
		secs(t->seconds), t->images, report__plural(t->images, "image", "images"),
		t->images_with_time, (unsigned long long)t->samples,
		report__plural(t->samples, "sample", "samples"),
		secs((double)t->samples * rep->period_s));
	if (t->accounted_ns)
		fprintf(out, ", %s s kernel (accounted)", secs((double)t->accounted_ns / 1e9));
	if (t->unsampled_ns)
		fprintf(out, ", %s s unsampled", secs((double)t->unsampled_ns / 1e9));
	fputc('\n', out);
	if (h->cpu_ns) {
		fprintf(out, "# cpu: %s s measured for %s", secs((double)h->cpu_ns / 1e9),
			h->flags & PDATA_F_SYSTEM ? "the recorded CPUs (their busy time)" :
						    "the process tree");
		if (h->user_ns || h->sys_ns)
			fprintf(out, " (user %s s, system %s s)", secs((double)h->user_ns / 1e9),
				secs((double)h->sys_ns / 1e9));
		fputc('\n', out);
	}
}

static double pct(double part, double of)
{
	return of > 0 ? 100.0 * part / of : 0.0;
}

/* The threads' lifetimes, and how much of them each clock could attribute. */
struct lifetimes {
	uint64_t life, cpu, off; /* threads with a known lifetime only */
	size_t threads, known;
};

static void sum_lifetimes(const struct report *rep, struct lifetimes *lt)
{
	memset(lt, 0, sizeof(*lt));
	for (size_t i = 0; i < rep->v->nprocs; i++) {
		const struct pv_proc *p = &rep->v->procs[i];

		for (size_t k = 0; k < p->nthreads; k++) {
			const struct pv_thread *t = &p->threads[k];

			lt->threads++;
			if (!t->life_ns)
				continue;
			lt->known++;
			lt->life = sat_add(lt->life, t->life_ns);
			lt->cpu = sat_add(lt->cpu, t->cpu.cpu_ns);
			lt->off = sat_add(lt->off, t->offcpu_ns);
		}
	}
}

/* Off-CPU time: where it comes from, the run's by reason, and the threads' lifetimes. */
static void header_offcpu(const struct report *rep, FILE *out)
{
	const struct report_totals *t = &rep->totals;
	const char *note = rep->v->offcpu_note;
	struct lifetimes lt;
	char buf[ESC_LEN];
	double life, both;

	if (!rep->offcpu)
		return;
	fprintf(out, "# off-cpu: %s%s%s%s\n", pdata__offcpu_name(rep->v->hdr.offcpu),
		note ? " (" : "", note ? esc(note, buf, sizeof(buf)) : "", note ? ")" : "");
	fprintf(out, "# off-cpu time: %s s", secs((double)t->offcpu_ns[0] / 1e9));
	for (int k = PDATA_KIND_SLEEP; k < PDATA_KIND_NR; k++)
		if (t->offcpu_ns[k])
			fprintf(out, ", %s %s s", pdata__kind_name(k),
				secs((double)t->offcpu_ns[k] / 1e9));
	if (rep->v->hdr.offcpu_lost)
		fprintf(out, "; %s s more not in the table (without a place)",
			secs((double)rep->v->hdr.offcpu_lost / 1e9));
	fputc('\n', out);
	sum_lifetimes(rep, &lt);
	if (!lt.known)
		return;
	life = (double)lt.life;
	both = (double)sat_add(lt.cpu, lt.off);
	fprintf(out,
		"# wall: %zu of %zu threads' lifetimes, %s s: CPU %s s (%.1f %%), off-CPU %s s "
		"(%.1f %%), neither %s s (%.1f %%: interrupts, the hypervisor, the recorder's "
		"start and end)\n",
		lt.known, lt.threads, secs(life / 1e9), secs((double)lt.cpu / 1e9),
		pct((double)lt.cpu, life), secs((double)lt.off / 1e9), pct((double)lt.off, life),
		secs(life > both ? (life - both) / 1e9 : 0),
		life > both ? pct(life - both, life) : 0);
}

static void print_list_arg(FILE *out, const char *opt, const int *ints, const char *const *strs,
			   size_t n)
{
	char buf[ESC_LEN];

	if (!n)
		return;
	fprintf(out, " %s ", opt);
	for (size_t i = 0; i < n; i++) {
		if (ints)
			fprintf(out, "%s%d", i ? "," : "", ints[i]);
		else
			fprintf(out, "%s%s", i ? "," : "", esc(strs[i], buf, sizeof(buf)));
	}
}

static int filtered(const struct report *rep)
{
	const struct report_filter *f = &rep->o.filter;

	return f->npids || f->ntids || f->ncomms || f->ndsos;
}

static void header_filter(const struct report *rep, FILE *out)
{
	const struct report_filter *f = &rep->o.filter;

	if (!filtered(rep))
		return;
	fprintf(out, "# filter:");
	print_list_arg(out, "--pid", f->pids, NULL, f->npids);
	print_list_arg(out, "--tid", f->tids, NULL, f->ntids);
	print_list_arg(out, "--comm", NULL, f->comms, f->ncomms);
	print_list_arg(out, "--dso", NULL, f->dsos, f->ndsos);
	print_list_arg(out, "--cgroup", NULL, f->cgroups, f->ncgroups);
	fprintf(out, ": %s s of the run's %s s pass (%.2f %%), in %zu process %s\n",
		secs(rep->totals.shown_seconds), secs(rep->totals.seconds),
		rep->totals.seconds > 0 ? 100.0 * rep->totals.shown_seconds / rep->totals.seconds :
					  0,
		rep->totals.images_shown,
		report__plural(rep->totals.images_shown, "image", "images"));
}

/* What the agents saw: sandboxes, too many mappings (header.agent_flags; doc/agent-syscalls.md). */
static void header_agent(const struct pdata_header *h, FILE *out)
{
	uint32_t f = h->agent_flags;

	if (f & (PDATA_AGENT_SECCOMP_STRICT | PDATA_AGENT_SECCOMP_FILTER))
		fprintf(out,
			"# sandbox: a profiled process entered seccomp %s: its agent made no "
			"system call from then on (threads it started later were not sampled, "
			"libraries it loaded later are unnamed, stacks were not walked, its CPU "
			"time is the recorder's)\n",
			(f & PDATA_AGENT_SECCOMP_STRICT) && (f & PDATA_AGENT_SECCOMP_FILTER) ?
				"strict mode and a filter" :
			(f & PDATA_AGENT_SECCOMP_STRICT) ? "strict mode" :
							   "filtering");
	if (f & PDATA_AGENT_MAPS_FULL)
		fprintf(out, "# mappings: a process had over 16384 executable mappings: the agent "
			     "recorded the first 16384 (samples in the others are unnamed)\n");
	if (f & PDATA_AGENT_GENS_FULL)
		fprintf(out,
			"# mappings: a process replaced code at an address over %d times: "
			"the agent told the first %d generations apart (later code there is "
			"named by the newest mapping)\n",
			PDATA_GENS_MAX, PDATA_GENS_MAX);
	if (f & PDATA_AGENT_SECCOMP_INHERITED)
		fprintf(out, "# sandbox: a profiled process started under a seccomp filter (the "
			     "agent ran as usual)\n");
}

/* Few notes go into the header; many (a build's stripped objects) go to the end. */
#define NOTES_IN_HEADER 3

static void print_notes(const struct report *rep, FILE *out)
{
	char buf[ESC_LEN];

	for (size_t i = 0; i < rep->nnotes; i++)
		fprintf(out, "# note: %s\n", esc(rep->notes[i], buf, sizeof(buf)));
}

static void text_header(const struct report *rep, const struct cgreport *cr, FILE *out,
			const char *input)
{
	const struct pdata_header *h = &rep->v->hdr;
	char buf[ESC_LEN], end[96];

	fprintf(out, "# profile: %s\n", esc(input, buf, sizeof(buf)));
	/* as the recorder stored it: quoted as a shell needs it (record/shquote.c), so the
	 * line can be pasted into a shell; control characters still escaped */
	fprintf(out, "# command: %s\n",
		h->command[0] ? esc(h->command, buf, sizeof(buf)) : "(unknown)");
	fprintf(out, "# clock: %s", pdata__clock_name(h->clock));
	if (h->clock_note[0])
		fprintf(out, " (%s)", esc(h->clock_note, buf, sizeof(buf)));
	fputc('\n', out);
	header_rate(rep, out);
	header_kernel(rep, out);
	describe_end(end, sizeof(end), h->end_kind, h->end_code);
	if (h->state != PDATA_COMPLETE)
		fprintf(out,
			"# ended: profile incomplete: the recorder did not finish (program: %s)\n",
			end);
	else
		fprintf(out, "# ended: %s\n", end);
	header_run(rep, out);
	header_offcpu(rep, out);
	header_agent(h, out);
	header_filter(rep, out);
	cgreport__text_header(cr, out);
	if (rep->nnotes <= NOTES_IN_HEADER)
		print_notes(rep, out);
	else
		fprintf(out, "# notes: %zu about the objects, at the end\n", rep->nnotes);
}

/* ---- tables ------------------------------------------------------------------------- */

/* The columns of a table: the keys, in order (sym brings its object unless dso is a key). */
struct columns {
	int keys[REPORT_MAX_KEYS + 1]; /* REPORT_KEY_*, or -1: the object of sym */
	size_t n;
	int width[REPORT_MAX_KEYS + 1];
	int lines;
};

#define COL_SYM_OBJECT (-1)

static void make_columns(struct columns *c, const int *keys, size_t nkeys, int lines)
{
	int have_dso = 0;

	memset(c, 0, sizeof(*c));
	c->lines = lines;
	for (size_t i = 0; i < nkeys; i++)
		have_dso |= keys[i] == REPORT_KEY_DSO;
	for (size_t i = 0; i < nkeys; i++) {
		c->keys[c->n++] = keys[i];
		if (keys[i] == REPORT_KEY_SYM && !have_dso)
			c->keys[c->n++] = COL_SYM_OBJECT;
	}
}

/* Each key's column: its title and the widest its cells are shown. */
struct col_kind {
	const char *title;
	int cap;
};

static const struct col_kind col_kinds[] = {
	[REPORT_KEY_COMM] = {"command", W_COMM}, [REPORT_KEY_SYM] = {"function", W_FUNC},
	[REPORT_KEY_PID] = {"pid", 7},		 [REPORT_KEY_TID] = {"tid", 7},
	[REPORT_KEY_CGROUP] = {"cgroup", 64},
};

/* The object's column: REPORT_KEY_DSO, COL_SYM_OBJECT. */
static const struct col_kind col_object = {"object", W_OBJECT};

static const struct col_kind *col_kind(int key)
{
	if ((size_t)key < ARRAY_SIZE(col_kinds) && col_kinds[key].title)
		return &col_kinds[key];
	return &col_object;
}

static const char *col_title(int key)
{
	return col_kind(key)->title;
}

/* A cgroup's path and the container or service it shows: "/system.slice/x.service (systemd:...)". */
static const char *cgroup_cell(const char *path, char *buf, size_t len)
{
	char label[96], raw[CGROUP_PATH_MAX + 112];

	path = path && *path ? path : "[unknown]";
	if (cgroup__label(path, label, sizeof(label)))
		snprintf(raw, sizeof(raw), "%s (%s)", path, label);
	else
		snprintf(raw, sizeof(raw), "%s", path);
	return esc(raw, buf, len);
}

static const char *col_value(const struct report_row *r, int key, char *buf, size_t len)
{
	switch (key) {
	case REPORT_KEY_COMM:
		return esc(r->comm ? r->comm : "", buf, len);
	case REPORT_KEY_SYM:
		return esc(r->f ? r->f->name : "", buf, len);
	case REPORT_KEY_PID:
		snprintf(buf, len, "%d", r->pid);
		return buf;
	case REPORT_KEY_TID:
		snprintf(buf, len, "%d", r->tid);
		return buf;
	case REPORT_KEY_CGROUP:
		return cgroup_cell(r->cgroup, buf, len);
	default:
		return esc(r->object ? r->object : "", buf, len);
	}
}

static void size_columns(struct columns *c, const struct report_list *l)
{
	char buf[ESC_LEN];

	for (size_t k = 0; k < c->n; k++) {
		const struct col_kind *kind = col_kind(c->keys[k]);
		int w = (int)strlen(kind->title);

		for (size_t i = 0; i < l->nrows; i++) {
			int n = (int)strlen(col_value(&l->rows[i], c->keys[k], buf, sizeof(buf)));

			if (n > w)
				w = n;
		}
		c->width[k] = w > kind->cap ? kind->cap : w;
	}
}

static void print_cell(FILE *out, const struct columns *c, size_t k, const char *s)
{
	int numeric = c->keys[k] == REPORT_KEY_PID || c->keys[k] == REPORT_KEY_TID;

	if (k + 1 == c->n && !c->lines)
		fprintf(out, "  %s", s); /* the last column: no padding */
	else
		fprintf(out, numeric ? "  %*s" : "  %-*s", c->width[k], s);
}

/* A row's samples, or its kind when it is time of another kind. */
static void print_count(FILE *out, const struct report_row *r, int width, uint64_t n)
{
	if (r->kind == REPORT_SAMPLED)
		fprintf(out, "%*llu", width, (unsigned long long)n);
	else
		fprintf(out, "%*s", width, report__kind_name(r->kind));
}

/* The off-CPU columns: off-CPU, then each reason the run has. */
static void print_offcpu_numbers(const struct report *rep, FILE *out, const struct report_row *r,
				 int total)
{
	fprintf(out, " %9.3f", report__row_offcpu_seconds(r, 0, total));
	for (int k = PDATA_KIND_SLEEP; k < PDATA_KIND_NR; k++)
		if (rep->totals.offcpu_ns[k])
			fprintf(out, " %9.3f", report__row_offcpu_seconds(r, k, total));
}

/*
 * A profile with off-CPU time: %value, value, cpu, off-cpu and each reason's
 * seconds, samples; with --children the totals (and the self %value and
 * value beside them).
 */
static void print_numbers_offcpu(const struct report *rep, FILE *out, const struct report_row *r,
				 double of_seconds)
{
	int ch = rep->o.children;
	double v = report__row_value(rep, r, rep->value, 0);
	double t = report__row_value(rep, r, rep->value, ch);

	if (ch)
		fprintf(out, "  %6.2f  %6.2f  %9.3f  %9.3f", pct(t, of_seconds), pct(v, of_seconds),
			t, v);
	else
		fprintf(out, "  %6.2f %9.3f", pct(v, of_seconds), v);
	fprintf(out, " %9.3f",
		ch ? report__row_total_seconds(rep, r) : report__row_seconds(rep, r));
	print_offcpu_numbers(rep, out, r, ch);
	fputc(' ', out);
	print_count(out, r, 10, ch ? r->total : r->count);
}

static void print_title_offcpu(const struct report *rep, FILE *out)
{
	const char *v = report__value_name(rep->value);

	if (rep->o.children)
		fprintf(out, "  %%total   %%self  %9s  %9s", "total s", "self s");
	else
		fprintf(out, "  %%%-6s %9s", v, v);
	fprintf(out, " %9s %9s", "cpu", "off-cpu");
	for (int k = PDATA_KIND_SLEEP; k < PDATA_KIND_NR; k++)
		if (rep->totals.offcpu_ns[k])
			fprintf(out, " %9s", pdata__kind_name(k));
	fprintf(out, " %10s", "samples");
}

/* The numbers of a row: %time, seconds, samples; with --children the total beside each. */
static void print_numbers(const struct report *rep, FILE *out, const struct report_row *r,
			  double of_seconds)
{
	double s = report__row_seconds(rep, r), t;

	if (rep->offcpu) {
		print_numbers_offcpu(rep, out, r, of_seconds);
		return;
	}
	if (!rep->o.children) {
		fprintf(out, "  %6.2f %9.3f ", pct(s, of_seconds), s);
		print_count(out, r, 10, r->count);
		return;
	}
	t = report__row_total_seconds(rep, r);
	fprintf(out, "  %6.2f  %6.2f  %9.3f  %9.3f  ", pct(t, of_seconds), pct(s, of_seconds), t,
		s);
	print_count(out, r, 9, r->total);
	fputs("  ", out);
	print_count(out, r, 9, r->count);
}

static void print_table(const struct report *rep, FILE *out, const struct report_list *l,
			const struct columns *c, double of_seconds)
{
	char buf[ESC_LEN];

	if (rep->offcpu)
		print_title_offcpu(rep, out);
	else if (rep->o.children)
		fprintf(out, "  %%total   %%self    total s     self s      total       self");
	else
		fprintf(out, "   %%time   seconds    samples");
	for (size_t k = 0; k < c->n; k++)
		print_cell(out, c, k, col_title(c->keys[k]));
	if (c->lines)
		fprintf(out, "  source");
	fputc('\n', out);
	for (size_t i = 0; i < l->nrows; i++) {
		const struct report_row *r = &l->rows[i];

		print_numbers(rep, out, r, of_seconds);
		for (size_t k = 0; k < c->n; k++)
			print_cell(out, c, k, col_value(r, c->keys[k], buf, sizeof(buf)));
		if (c->lines) {
			if (r->f && r->f->file)
				fprintf(out, "  %s:%d", esc(r->f->file, buf, sizeof(buf)),
					r->f->line);
			else
				fprintf(out, "  ??");
		}
		fputc('\n', out);
	}
	if (l->hidden && rep->offcpu)
		fprintf(out, "  (%zu more %s not listed: %s s of %s time, %.2f %%)\n", l->hidden,
			report__plural(l->hidden, "row", "rows"), secs(l->hidden_value),
			report__value_name(rep->value), pct(l->hidden_value, of_seconds));
	else if (l->hidden)
		fprintf(out, "  (%zu more %s not listed: %s s, %.2f %%)\n", l->hidden,
			report__plural(l->hidden, "row", "rows"), secs(l->hidden_seconds),
			pct(l->hidden_seconds, of_seconds));
}

static void text_run(const struct report *rep, const struct cgreport *cr, FILE *out)
{
	struct columns c;
	char keys[64] = "";

	for (size_t i = 0; i < rep->nkeys; i++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s", i ? "," : "",
			 report__key_name(rep->keys[i]));
	if (rep->offcpu)
		fprintf(out,
			"\nwhole run: %s s of CPU time + %s s off the CPU = %s s; %%%s is the "
			"share of the whole run's %s time (rows by %s, %s)\n",
			secs(rep->totals.seconds), secs((double)rep->totals.offcpu_ns[0] / 1e9),
			secs(rep->totals.seconds + (double)rep->totals.offcpu_ns[0] / 1e9),
			report__value_name(rep->value), report__value_name(rep->value), keys,
			rep->o.sort_name ? "by name" :
			rep->o.children	 ? "most total first" :
					   "most time first");
	else
		fprintf(out,
			"\nwhole run: %s s; %%time is the share of the whole run (rows by %s, "
			"%s)\n",
			secs(rep->totals.seconds), keys,
			rep->o.sort_name ? "by name" :
			rep->o.children	 ? "most total first" :
					   "most time first");
	if (!rep->run.nrows && !rep->run.hidden) {
		fprintf(out, "  %s\n",
			filtered(rep) ? "nothing passes the filter" : "no time recorded");
		return;
	}
	if (!cgreport__replaces_table(cr)) {
		make_columns(&c, rep->keys, rep->nkeys,
			     rep->o.lines && report__has_key(rep, REPORT_KEY_SYM));
		size_columns(&c, &rep->run);
		print_table(rep, out, &rep->run, &c, report__run_value(rep));
	}
	cgreport__text_trees(cr, NULL, CGREPORT_PROCESS, out);
}

/* ---- images ------------------------------------------------------------------------- */

static void image_title(const struct report *rep, FILE *out, const struct report_image *img)
{
	const struct pv_proc *p = img->p, *parent = report__parent(rep, p);
	char end[96], buf[ESC_LEN];

	describe_end(end, sizeof(end), p->end_kind, p->end_code);
	fprintf(out, "\nprocess %d", p->pid);
	if (parent && parent->pid == p->pid)
		fprintf(out, " (after exec from %s)",
			parent->exe[0] ? esc(parent->exe, buf, sizeof(buf)) : "?");
	else if (parent)
		fprintf(out, " (parent %d)", parent->pid);
	fprintf(out, ": %s: %s: %llu %s, %s s",
		p->exe[0] ? esc(p->exe, buf, sizeof(buf)) : "(unknown executable)", end,
		(unsigned long long)p->samples, report__plural(p->samples, "sample", "samples"),
		secs((double)p->samples * rep->period_s));
	if (img->cpu.cpu_ns) {
		fprintf(out, "; CPU %s s", secs((double)img->cpu.cpu_ns / 1e9));
		if (img->cpu.user_ns || img->cpu.sys_ns)
			fprintf(out, " (user %s s, system %s s)",
				secs((double)img->cpu.user_ns / 1e9),
				secs((double)img->cpu.sys_ns / 1e9));
	}
	if (img->seconds != (double)p->samples * rep->period_s)
		fprintf(out, "; %s s in all", secs(img->seconds));
	if (img->offcpu_ns[0])
		fprintf(out, "; off the CPU %s s", secs((double)img->offcpu_ns[0] / 1e9));
	fputc('\n', out);
}

static int text_image(struct report *rep, const struct cgreport *cr, FILE *out, size_t i)
{
	struct report_proc pr;
	struct cgreport_image *ci = NULL;
	struct columns c;
	int keys[] = {REPORT_KEY_SYM}, table = !cgreport__replaces_table(cr);
	char buf[ESC_LEN];
	int rc = report__proc(rep, i, &pr);
	double img_value;

	if (rc)
		return rc;
	img_value = report__value_of(rep->value, pr.img->seconds, pr.img->offcpu_ns);
	rc = cgreport__image(cr, &pr, 0, &ci);
	if (rc) {
		report_proc__release(&pr);
		return rc;
	}
	image_title(rep, out, pr.img);
	make_columns(&c, keys, 1, rep->o.lines);
	if (!rep->o.threads && table) {
		size_columns(&c, &pr.list);
		print_table(rep, out, &pr.list, &c, img_value);
	}
	if (!rep->o.threads)
		cgreport__text_trees(cr, ci, CGREPORT_PROCESS, out);
	for (size_t t = 0; rep->o.threads && t < pr.nthreads; t++) {
		const struct report_thread *th = &pr.threads[t];

		fprintf(out, "\n thread %d (%s): %llu %s, %s s", th->tid,
			esc(th->comm[0] ? th->comm : pr.img->comm, buf, sizeof(buf)),
			(unsigned long long)th->samples,
			report__plural(th->samples, "sample", "samples"), secs(th->seconds));
		if (th->cpu.cpu_ns)
			fprintf(out, "; CPU %s s", secs((double)th->cpu.cpu_ns / 1e9));
		if (th->offcpu_ns[0])
			fprintf(out, "; off the CPU %s s", secs((double)th->offcpu_ns[0] / 1e9));
		if (th->life_ns)
			fprintf(out, "; lifetime %s s", secs((double)th->life_ns / 1e9));
		fputc('\n', out);
		if (table) {
			size_columns(&c, &th->list);
			print_table(rep, out, &th->list, &c, img_value);
		}
		cgreport__text_trees(cr, ci, t, out);
	}
	cgreport_image__free(ci);
	report_proc__release(&pr);
	return 0;
}

static int text_images(struct report *rep, const struct cgreport *cr, FILE *out)
{
	size_t quiet = 0, unshown = 0;
	int rc = 0;

	fprintf(out, "\nper process image: %%time is the share of the image's time\n");
	for (size_t i = 0; !rc && i < rep->v->nprocs; i++) {
		const struct report_image *img = &rep->images[i];

		if (!(img->seconds > 0) && !img->offcpu_ns[0])
			quiet++;
		else if (!img->shown)
			unshown++;
		else
			rc = text_image(rep, cr, out, i);
	}
	if (quiet)
		fprintf(out, "\n%zu process %s without time (see --format json)\n", quiet,
			report__plural(quiet, "image", "images"));
	if (unshown)
		fprintf(out, "%zu process %s filtered out\n", unshown,
			report__plural(unshown, "image", "images"));
	return rc;
}

int report__write_text(struct report *rep, const struct cgreport *cr, FILE *out, const char *input,
		       int images)
{
	int rc = 0;

	text_header(rep, cr, out, input);
	text_run(rep, cr, out);
	if (images || rep->o.threads)
		rc = text_images(rep, cr, out);
	if (rep->nnotes > NOTES_IN_HEADER) {
		fputc('\n', out);
		print_notes(rep, out);
	}
	if (!rc && (fflush(out) == EOF || ferror(out)))
		rc = errno ? -errno : -EIO;
	return rc;
}
