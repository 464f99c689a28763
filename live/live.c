// SPDX-License-Identifier: MIT
/* `profil top`: the whole machine as it runs.  See live.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/live.h"
#include "live/screen.h"
#include "profile/pview.h"
#include "record/record.h"
#include "report/report.h"
#include "report/resolve.h"
#include "utils/cgroup.h"
#include "utils/htab.h"
#include "utils/why.h"

#define NVIEWS 3
#define DECAY 0.875 /* of a row's total kept at each refresh, as perf top's histogram */
#define GONE 0.01   /* a row whose total fell below this many samples is forgotten */
#define LINE_MAX_BYTES 512

/* A row of a view.  key: the function (interned), the pid, or the cgroup (interned). */
struct lrow {
	uint64_t key;
	const char *a, *b; /* function view: object, function; process: command, cgroup; cgroup:
			      path, container */
	int pid;
	double last, total;   /* samples: of the last period, decayed */
	double clast, ctotal; /* --children: samples whose stack holds it */
	uint64_t stamp;	      /* the last sample that counted it as a caller */
};

static const struct htab_type lrow_type = HTAB_U64_TYPE(struct lrow);

struct live {
	const struct live_opts *o;
	struct resolver *r;
	struct htab *tab[NVIEWS];
	uint64_t stamp;
	int view, sort_total, paused;
	long shown;
	struct screen *scr;
	char dir[PATH_MAX];
	struct htab *tree; /* a command's processes (pids), as they show up */
	pid_t root;
	/* the last period */
	double period_s, busy_s;
	uint64_t samples, shown_samples;
	unsigned int hz;
	char host[64];
	char note[160]; /* a period that could not be read */
};

/* ---- the rows ----------------------------------------------------------------- */

static struct lrow *row(struct live *l, int view, uint64_t key, const char *a, const char *b,
			int pid)
{
	struct lrow *e;
	bool fresh;

	if (!key)
		key = 1; /* an entry is never all zero */
	e = htab__insert(l->tab[view], &lrow_type, &key, &fresh);
	if (e && fresh) {
		memset(e, 0, sizeof(*e));
		e->key = key;
		e->a = a;
		e->b = b;
		e->pid = pid;
	}
	return e;
}

/* A new period: the totals decay, the last period starts from zero, the faded rows go. */
static void decay(struct live *l)
{
	for (int v = 0; v < NVIEWS; v++) {
		size_t n;
		struct lrow *all = htab__take(l->tab[v], &n);

		for (size_t i = 0; i < n; i++) {
			struct lrow *e;
			bool fresh;

			all[i].total *= DECAY;
			all[i].ctotal *= DECAY;
			all[i].last = all[i].clast = 0;
			if (all[i].total < GONE && all[i].ctotal < GONE)
				continue;
			e = htab__insert(l->tab[v], &lrow_type, &all[i].key, &fresh);
			if (e)
				*e = all[i];
		}
		free(all);
	}
}

static void settle(struct live *l)
{
	for (int v = 0; v < NVIEWS; v++) {
		struct lrow *e;

		for (size_t pos = 0; (e = htab__next(l->tab[v], &pos));) {
			e->total += e->last;
			e->ctotal += e->clast;
		}
	}
}

static void zero(struct live *l)
{
	for (int v = 0; v < NVIEWS; v++) {
		size_t n;

		free(htab__take(l->tab[v], &n));
	}
}

/* ---- which processes ------------------------------------------------------------- */

/* A command's processes: the command, and every process whose parent is one (as they come). */
static bool in_tree(struct live *l, const struct pv_proc *p)
{
	uint64_t pid = (uint64_t)p->pid, ppid = (uint64_t)p->ppid;
	struct lrow *e;
	bool fresh;

	if (p->pid == l->root || htab__find(l->tree, &lrow_type, &pid))
		return true;
	if (p->ppid != l->root && !htab__find(l->tree, &lrow_type, &ppid))
		return false;
	e = htab__insert(l->tree, &lrow_type, &pid, &fresh);
	if (e && fresh) {
		memset(e, 0, sizeof(*e));
		e->key = pid;
	}
	return true;
}

static bool shown(struct live *l, const struct pv_proc *p)
{
	const struct live_opts *o = l->o;
	struct report_filter fl = {.cgroups = o->cgroups, .ncgroups = o->ncgroups};

	if (o->pid && p->pid != o->pid)
		return false;
	if (l->root > 0 && !in_tree(l, p))
		return false;
	return report__cgroup_passes(&fl, p->cgroup);
}

/* ---- a period's samples ---------------------------------------------------------- */

static const char *intern(struct live *l, const char *s)
{
	const char *i = symbols__intern(resolver__symbols(l->r), s ? s : "");

	return i ? i : "";
}

static const char *proc_comm(const struct pv_proc *p)
{
	const struct pv_thread *t = pv_proc__thread(p, p->pid);
	const char *slash;

	if (t && t->comm[0])
		return t->comm;
	if (p->nthreads && p->threads[0].comm[0])
		return p->threads[0].comm;
	slash = strrchr(p->exe, '/');
	return slash ? slash + 1 : p->exe[0] ? p->exe : "[unknown]";
}

/* The callers' totals: every function of the stack once (the leaf included). */
static void add_children(struct live *l, const struct pview *v, const struct pv_proc *p,
			 const struct pv_sample *s)
{
	const struct pv_stack *st = pview__stack(v, s->stack);
	uint64_t pcs[PDATA_MAX_DEPTH];
	unsigned n = st->n ? pview__stack_pcs(v, st, pcs, PDATA_MAX_DEPTH) : 0;

	if (!n) { /* a flat sample: the leaf */
		pcs[0] = s->pc;
		n = 1;
	}

	l->stamp++;
	for (unsigned i = 0; i < n; i++) {
		const struct func *f;
		struct lrow *e;

		if (pcs[i] == PDATA_PC_TRUNCATED)
			continue;
		f = resolver__pc(l->r, p, s->gen, i ? pcs[i] - 1 : pcs[i], 0);
		e = f ? row(l, LIVE_VIEW_FUNCTION, (uintptr_t)f, f->object, f->name, 0) : NULL;
		if (e && e->stamp != l->stamp) {
			e->stamp = l->stamp;
			e->clast += (double)s->count;
		}
	}
}

static void add_sample(struct live *l, const struct pview *v, const struct pv_proc *p,
		       const struct pv_sample *s, const char *comm, const char *cg,
		       const char *label)
{
	const struct func *f = resolver__pc(l->r, p, s->gen, s->pc, 0);
	struct lrow *e;

	if (f && (e = row(l, LIVE_VIEW_FUNCTION, (uintptr_t)f, f->object, f->name, 0)))
		e->last += (double)s->count;
	if ((e = row(l, LIVE_VIEW_PROCESS, (uint64_t)(uint32_t)p->pid, comm, cg, p->pid)))
		e->last += (double)s->count;
	if ((e = row(l, LIVE_VIEW_CGROUP, (uintptr_t)cg, cg, label, 0)))
		e->last += (double)s->count;
	if (l->o->children)
		add_children(l, v, p, s);
	l->shown_samples += s->count;
}

static void add_samples(struct live *l, const struct pview *v)
{
	const struct pv_proc *p = NULL;
	const char *comm = "", *cg = "", *label = "";
	bool pass = false;

	for (size_t i = 0; i < v->nsamples; i++) {
		const struct pv_sample *s = &v->samples[i];

		if (!p || p->id != s->proc) { /* samples come by process */
			char buf[96];

			p = pview__proc(v, s->proc);
			pass = p && shown(l, p);
			if (pass) {
				comm = intern(l, proc_comm(p));
				cg = intern(l, p->cgroup[0] ? p->cgroup : "[unknown]");
				cgroup__label(p->cgroup, buf, sizeof(buf));
				label = intern(l, buf);
			}
		}
		if (pass)
			add_sample(l, v, p, s, comm, cg, label);
	}
}

/* ---- drawing ---------------------------------------------------------------------- */

static const char *const view_names[NVIEWS] = {"functions", "processes", "cgroups"};

static double key_of(const struct live *l, const struct lrow *r)
{
	if (l->o->children && l->view == LIVE_VIEW_FUNCTION)
		return l->sort_total ? r->ctotal : r->clast;
	return l->sort_total ? r->total : r->last;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct lrow *x = a, *y = b;
	double kx = key_of(arg, x), ky = key_of(arg, y);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->b ? x->b : "", y->b ? y->b : "");
}

/* The rows of the view, sorted; n in *n, the sums of last and total in sums[2]. */
static struct lrow *sorted(struct live *l, size_t *n, double sums[2])
{
	struct htab *t = l->tab[l->view];
	struct lrow *rows = malloc((htab__count(t) + 1) * sizeof(*rows)), *e;

	*n = 0;
	sums[0] = sums[1] = 0;
	for (size_t pos = 0; rows && (e = htab__next(t, &pos));) {
		rows[(*n)++] = *e;
		sums[0] += e->last;
		sums[1] += e->total;
	}
	if (rows)
		qsort_r(rows, *n, sizeof(*rows), cmp_rows, l);
	return rows;
}

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0.0;
}

static void format_row(const struct live *l, const struct lrow *r, const double sums[2], char *buf,
		       size_t len)
{
	int children = l->o->children && l->view == LIVE_VIEW_FUNCTION;
	int at = snprintf(buf, len, "%7.2f %7.2f ", pct(r->last, sums[0]), pct(r->total, sums[1]));

	if (at < 0 || (size_t)at >= len)
		return;
	if (children)
		at += snprintf(buf + at, len - (size_t)at, "%8.2f %8.2f ", pct(r->clast, sums[0]),
			       pct(r->ctotal, sums[1]));
	if (at < 0 || (size_t)at >= len)
		return;
	if (l->view == LIVE_VIEW_FUNCTION)
		snprintf(buf + at, len - (size_t)at, "%8.0f  %-22.22s  %s", r->last, r->a, r->b);
	else if (l->view == LIVE_VIEW_PROCESS)
		snprintf(buf + at, len - (size_t)at, "%8.0f  %7d  %-16s  %s", r->last, r->pid, r->a,
			 r->b);
	else
		snprintf(buf + at, len - (size_t)at, "%8.0f  %s%s%s%s", r->last, r->a,
			 r->b[0] ? " (" : "", r->b, r->b[0] ? ")" : "");
}

static void format_head(const struct live *l, char (*lines)[LINE_MAX_BYTES])
{
	int children = l->o->children && l->view == LIVE_VIEW_FUNCTION;
	const char *cols[NVIEWS] = {"object                  function", "    pid  command",
				    "cgroup"};

	snprintf(lines[0], LINE_MAX_BYTES,
		 "profil top  %s  %u Hz  every %.2g s: %llu samples (%.2f s busy of the CPUs)%s%s",
		 l->host, l->hz, l->period_s, (unsigned long long)l->samples, l->busy_s,
		 l->paused ? "  [paused]" : "", l->note[0] ? "  " : "");
	snprintf(lines[1], LINE_MAX_BYTES,
		 "view: %s (f functions, p processes, c cgroups)  sort: %s (s)  space: pause  z: "
		 "zero  q: quit%s%s",
		 view_names[l->view], l->sort_total ? "decayed total" : "last period",
		 l->note[0] ? "  " : "", l->note);
	snprintf(lines[2], LINE_MAX_BYTES, "%s  %%last  %%total%s   samples  %s", "",
		 children ? "  %clast %ctotal" : "", cols[l->view]);
}

/* The frame's lines (at most max). */
static size_t build(struct live *l, char (*lines)[LINE_MAX_BYTES], size_t max)
{
	double sums[2];
	size_t n, k = 3;
	struct lrow *rows = sorted(l, &n, sums);

	if (max < 3)
		return 0;
	format_head(l, lines);
	for (size_t i = 0; rows && i < n && k < max; i++)
		format_row(l, &rows[i], sums, lines[k++], LINE_MAX_BYTES);
	free(rows);
	return k;
}

static void draw_screen(struct live *l)
{
	int rows, cols;
	char(*lines)[LINE_MAX_BYTES];
	const char **ptrs;
	size_t n;

	screen__size(l->scr, &rows, &cols);
	lines = calloc((size_t)rows + 3, sizeof(*lines));
	ptrs = calloc((size_t)rows + 3, sizeof(*ptrs));
	if (lines && ptrs) {
		n = build(l, lines, (size_t)rows < 3 ? 3 : (size_t)rows);
		for (size_t i = 0; i < n; i++)
			ptrs[i] = lines[i];
		screen__draw(l->scr, ptrs, n);
	}
	free(lines);
	free(ptrs);
}

static void print_batch(struct live *l)
{
	size_t max = 3 + (l->o->rows ? l->o->rows : 20);
	char(*lines)[LINE_MAX_BYTES] = calloc(max, sizeof(*lines));
	size_t n = lines ? build(l, lines, max) : 0;

	printf("# refresh %ld\n", l->shown);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	putchar('\n');
	fflush(stdout);
	free(lines);
}

static void draw(struct live *l)
{
	if (l->scr)
		draw_screen(l);
	else
		print_batch(l);
}

/* ---- the recorder's hook ------------------------------------------------------------ */

static void take_header(struct live *l, const struct pview *v)
{
	l->period_s = (double)(v->hdr.end_ns - v->hdr.start_ns) / 1e9;
	l->busy_s = (double)v->hdr.cpu_ns / 1e9;
	l->samples = v->total;
	l->hz = v->hdr.nominal_hz;
	snprintf(l->host, sizeof(l->host), "%s", v->hdr.hostname);
	if (l->root <= 0 && l->o->argv && *l->o->argv)
		l->root = v->hdr.root_pid;
}

static int on_period(void *arg, const char *path)
{
	struct live *l = arg;
	struct pview *v;
	int rc = pview__load(&v, path, l->note, sizeof(l->note));

	unlink(path);
	if (rc < 0)
		return 0; /* said in the header */
	l->note[0] = 0;
	if (!l->r && !(l->r = resolver__new(v, 0))) {
		pview__free(v);
		return 1;
	}
	resolver__set_view(l->r, v);
	take_header(l, v);
	if (!l->paused) {
		decay(l);
		l->shown_samples = 0;
		add_samples(l, v);
		settle(l);
	}
	pview__free(v);
	l->shown++;
	if (!l->paused)
		draw(l);
	if (l->o->pid && kill(l->o->pid, 0) < 0 && errno == ESRCH)
		return 1; /* the process is gone */
	return l->o->iterations && l->shown >= l->o->iterations;
}

/* A key: 1 to quit. */
static int on_key(struct live *l, char c)
{
	switch (c) {
	case 'q':
	case 'Q':
		return 1;
	case 'f':
		l->view = LIVE_VIEW_FUNCTION;
		break;
	case 'p':
		l->view = LIVE_VIEW_PROCESS;
		break;
	case 'c':
		l->view = LIVE_VIEW_CGROUP;
		break;
	case '\t':
		l->view = (l->view + 1) % NVIEWS;
		break;
	case 's':
		l->sort_total = !l->sort_total;
		break;
	case ' ':
		l->paused = !l->paused;
		break;
	case 'z':
		zero(l);
		break;
	default:
		break;
	}
	return 0;
}

static int on_ready(void *arg)
{
	struct live *l = arg;
	struct screen_events ev;
	int redraw;

	screen__events(l->scr, &ev);
	redraw = ev.resized || ev.resumed || ev.nkeys;
	for (size_t i = 0; i < ev.nkeys; i++)
		if (on_key(l, ev.keys[i]))
			return 1;
	if (redraw && l->r)
		draw_screen(l);
	return 0;
}

/* ---- running it --------------------------------------------------------------------- */

/* The periods' directory, and what a failing recorder left in it. */
static void remove_dir(const char *dir)
{
	struct dirent *d;
	DIR *dh;

	if (rmdir(dir) == 0 || !(dh = opendir(dir)))
		return;
	while ((d = readdir(dh))) {
		if (d->d_name[0] != '.' || (d->d_name[1] && strcmp(d->d_name, "..")))
			unlinkat(dirfd(dh), d->d_name, 0);
	}
	closedir(dh);
	rmdir(dir);
}

static int setup(struct live *l, char *why, size_t whylen)
{
	const char *tmp = getenv("TMPDIR");
	int rc;

	/*
	 * The periods live a moment: in memory where there is a tmpfs (their
	 * flush to disk at each period is then free), else in $TMPDIR
	 */
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	for (int v = 0; v < NVIEWS; v++)
		if (!(l->tab[v] = htab__new(&lrow_type, 256)))
			return why_fail(why, whylen, -ENOMEM, "out of memory");
	if (!(l->tree = htab__new(&lrow_type, 16)))
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	snprintf(l->dir, sizeof(l->dir), "%s/profil-top.XXXXXX", tmp);
	if (!mkdtemp(l->dir))
		return why_fail(why, whylen, -errno, "cannot make a directory for the periods: %s",
				strerror(errno));
	if (!l->o->batch) {
		rc = screen__open(&l->scr);
		if (rc < 0 && rc != -ENOTTY)
			return why_fail(why, whylen, rc, "cannot use the terminal: %s",
					strerror(-rc));
	}
	return 0;
}

static void teardown(struct live *l)
{
	screen__close(l->scr);
	l->scr = NULL;
	if (l->dir[0])
		remove_dir(l->dir);
	for (int v = 0; v < NVIEWS; v++)
		htab__free(l->tab[v]);
	htab__free(l->tree);
	resolver__free(l->r);
}

int live__run(const struct live_opts *o, int *status, char *why, size_t whylen)
{
	struct live l = {.o = o, .view = o->view, .sort_total = o->sort_total};
	struct record_hook hook = {.arg = &l,
				   .period_ms = o->delay_ms,
				   .fd = -1,
				   .ready = on_ready,
				   .period = on_period};
	struct record_opts ro = {.hz = o->hz,
				 .all_cpus = 1,
				 .inherit = 1,
				 .cpu_list = o->cpu_list,
				 .argv = o->argv,
				 .hook = &hook};
	struct record_result res;
	int rc;

	*status = 2;
	if (record__system_permitted(why, whylen) < 0)
		return -1;
	if (o->pid && kill(o->pid, 0) < 0 && errno == ESRCH)
		return why_fail(why, whylen, -1, "no process %d", (int)o->pid);
	*status = 1;
	rc = setup(&l, why, whylen);
	if (rc < 0) {
		teardown(&l);
		return -1;
	}
	hook.fd = l.scr ? screen__fd(l.scr) : -1;
	ro.output = l.dir;
	ro.callgraph = o->callgraph ? RECORD_CG_DWARF : RECORD_CG_NONE;
	rc = record__run(&ro, &res);
	teardown(&l);
	if (rc < 0) {
		*status = res.exit_status ? res.exit_status : 1;
		snprintf(why, whylen, "%s", res.why);
		return -1;
	}
	*status = res.exit_status;
	return 0;
}
