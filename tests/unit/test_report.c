// SPDX-License-Identifier: MIT
/*
 * report/report and report_rows: a profile with known numbers, written by
 * the test (period 1 ms, this program's own functions at their real
 * addresses, with call stacks), read into the report's model: the whole
 * run's rows summed by every --sort key (comm, dso, sym, pid, tid) and by
 * name, --percent-limit, --top, the filters (--pid, --tid, --comm, --dso),
 * [kernel] accounted rows and [unsampled] rows that make the run's seconds
 * the CPU time of its process tree, with the perf clock (the kernel's time
 * accounted) and the thread clock (the kernel's time invisible), an
 * image's own rows and threads, and --children totals (recursion once).
 *
 * The run (pids are made up; tids as the recorder stores them):
 *   image 5000 "synth": CPU 750 ms (user 600, system 150)
 *     thread 5000 "synth"  CPU 500 (400 + 100): hot_a 300 (hot_a <- rep_run <- rep_main),
 *                                               hot_b 90 (hot_b <- rep_run <- rep_main)
 *     thread 5001 "worker" CPU 250 (200 + 50):  hot_c 200 (hot_c <- rep_worker)
 *   image 5002 "cruncher", forked: CPU 200 (150 + 50): hot_b 100 (hot_b <- rep_main),
 *                                               hot_d 50 (hot_d <- hot_d <- rep_main)
 *   image 5003, forked, no thread record: CPU 0.3 (0.1 + 0.2), ends by exec
 *   image 5003 /usr/bin/true, thread "true": CPU 0.6 (0.2 + 0.4)
 *   the tree: 950.9 ms
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "profile_fixture.h"
#include "report/report.h"
#include "report/report_rows.h"

FIXTURE_WORK(hot_a, 1);
FIXTURE_WORK(hot_b, 2);
FIXTURE_WORK(hot_c, 3);
FIXTURE_WORK(hot_d, 4);
FIXTURE_WORK(rep_main, 5);
FIXTURE_WORK(rep_run, 6);
FIXTURE_WORK(rep_worker, 7);

#define LEAF(f) ((uint64_t)(uintptr_t)(f) + 2)
#define RET(f) ((uint64_t)(uintptr_t)(f) + 9)
#define STACK(...) (const uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8
#define MS FIXTURE_MS

static struct pdata_cpu cpu(uint64_t user_us, uint64_t sys_us)
{
	return (struct pdata_cpu){(user_us + sys_us) * 1000, user_us * 1000, sys_us * 1000};
}

static void thread(struct pdata *pd, uint32_t proc, int tid, const char *comm, struct pdata_cpu c)
{
	pdata__thread_cpu(pdata__add_thread(pd, proc, tid, comm), &c);
}

static void end(struct pdata_proc *p, int kind, struct pdata_cpu c)
{
	pdata__end_proc(p, kind, 0, pdata__now_ns(), &c);
}

static int write_profile(const char *path, uint32_t clock, char *why, size_t whylen)
{
	struct fixture_header h = {
		.clock = clock,
		.period_ns = MS,
		.nominal_hz = 1000,
		.callgraph = PDATA_CG_FP,
		.command = "synth",
		.create = {.table_slots = 256, .frame_slots = 256, .records_cap = 1 << 20}};
	const char *exe = fixture__exe();
	struct pdata_proc *root, *kid, *fork, *exec;
	struct pdata *pd;
	int rc = fixture__start(&pd, path, &h, 5000, &root, why, whylen);

	if (rc < 0)
		return rc;
	thread(pd, root->id, 5000, "synth", cpu(400000, 100000));
	thread(pd, root->id, 5001, "worker", cpu(200000, 50000));
	pdata__count_stack(pd, root->id, 5000, STACK(LEAF(hot_a), RET(rep_run), RET(rep_main)), 0,
			   300);
	pdata__count_stack(pd, root->id, 5000, STACK(LEAF(hot_b), RET(rep_run), RET(rep_main)), 0,
			   90);
	pdata__count_stack(pd, root->id, 5001, STACK(LEAF(hot_c), RET(rep_worker)), 0, 200);

	kid = pdata__add_proc(pd, 5002, 5000, root->id, exe, pdata__now_ns());
	thread(pd, kid->id, 5002, "cruncher", cpu(150000, 50000));
	pdata__count_stack(pd, kid->id, 5002, STACK(LEAF(hot_b), RET(rep_main)), 0, 100);
	pdata__count_stack(pd, kid->id, 5002, STACK(LEAF(hot_d), RET(hot_d), RET(rep_main)), 0, 50);
	end(kid, PDATA_END_EXITED, cpu(150000, 50000));

	fork = pdata__add_proc(pd, 5003, 5000, root->id, exe, pdata__now_ns());
	end(fork, PDATA_END_EXEC, cpu(100, 200));
	exec = pdata__add_proc(pd, 5003, 5000, fork->id, "/usr/bin/true", pdata__now_ns());
	thread(pd, exec->id, 5003, "true", cpu(200, 400));
	end(exec, PDATA_END_EXITED, cpu(200, 400));
	end(root, PDATA_END_EXITED, cpu(600000, 150000));
	pdata__header(pd)->cpu_ns = 950900000;
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

/* ---- rows as text: "KEY/KEY...[:a|:u]=MS" (children: "=SELF/TOTAL"), listed order ---------- */

/* Row r's value of key as text (a number in num), or NULL for a key the labels do not show. */
static const char *key_text(const struct report_row *r, int key, char *num, size_t numlen)
{
	switch (key) {
	case REPORT_KEY_COMM:
		return r->comm;
	case REPORT_KEY_DSO:
		return r->object;
	case REPORT_KEY_SYM:
		return r->f->name;
	case REPORT_KEY_PID:
	case REPORT_KEY_TID:
		snprintf(num, numlen, "%d", key == REPORT_KEY_PID ? r->pid : r->tid);
		return num;
	}
	return NULL;
}

static void row_label(const struct report *rep, const int *keys, size_t nkeys,
		      const struct report_row *r, char *buf, size_t len)
{
	size_t at = 0;
	char num[16];

	buf[0] = 0;
	for (size_t k = 0; k < nkeys && at < len; k++) {
		const char *text = key_text(r, keys[k], num, sizeof(num));

		if (text)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? "/" : "", text);
	}
	if (r->kind != REPORT_SAMPLED && at < len)
		snprintf(buf + at, len - at, ":%c", r->kind == REPORT_ACCOUNTED ? 'a' : 'u');
	(void)rep;
}

static const char *listing(const struct report *rep, const int *keys, size_t nkeys,
			   const struct report_list *l, int children)
{
	static char out[4096];
	char label[256];
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < l->nrows && at < sizeof(out); i++) {
		row_label(rep, keys, nkeys, &l->rows[i], label, sizeof(label));
		if (children)
			at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s=%.1f/%.1f",
					       i ? " " : "", label,
					       report__row_seconds(rep, &l->rows[i]) * 1e3,
					       report__row_total_seconds(rep, &l->rows[i]) * 1e3);
		else
			at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s=%.1f",
					       i ? " " : "", label,
					       report__row_seconds(rep, &l->rows[i]) * 1e3);
	}
	return out;
}

static const char *run_rows(const struct report *rep)
{
	return listing(rep, rep->keys, rep->nkeys, &rep->run, rep->o.children);
}

static char profile[256], exe_base[256];

/* The report of the profile with o; NULL (and a failed check) when it cannot load. */
static struct report *load(const char *name, const struct report_opts *o)
{
	struct report *rep = NULL;
	char why[512] = "";
	int rc = report__load(&rep, profile, o, why, sizeof(why));

	if (rc < 0) {
		CHECKF(name, 0, "report__load: %s", why);
		return NULL;
	}
	return rep;
}

/* The run's rows of o are want (with %s: this program's base name, up to 6 times). */
static void expect_rows(const char *name, const struct report_opts *o, const char *fmt)
{
	struct report *rep = load(name, o);
	char want[4096];
	const char *e = exe_base;

	if (!rep)
		return;
	snprintf(want, sizeof(want), fmt, e, e, e, e, e, e);
	CHECKF(name, !strcmp(run_rows(rep), want), "\n  got  %s\n  want %s", run_rows(rep), want);
	report__free(rep);
}

#define KEYS(...) .keys = {__VA_ARGS__}, .nkeys = sizeof((int[]){__VA_ARGS__}) / sizeof(int)

static void test_totals(void)
{
	struct report_opts o = {0};
	struct report *rep = load("load", &o);
	double sum = 0;

	if (!rep)
		return;
	CHECK("kernel time accounted (perf clock, kernel not sampled)",
	      rep->kernel == REPORT_KERNEL_ACCOUNTED);
	CHECK("period", rep->period_s == 0.001);
	CHECKF("samples, accounted, unsampled",
	       rep->totals.samples == 740 && rep->totals.accounted_ns == 200600000 &&
		       rep->totals.unsampled_ns == 10300000,
	       "%llu %llu %llu", (unsigned long long)rep->totals.samples,
	       (unsigned long long)rep->totals.accounted_ns,
	       (unsigned long long)rep->totals.unsampled_ns);
	CHECKF("the run's seconds are the tree's CPU time",
	       rep->totals.seconds > 0.95089999 && rep->totals.seconds < 0.95090001 &&
		       rep->totals.shown_seconds == rep->totals.seconds,
	       "%.9f", rep->totals.seconds);
	CHECK("images", rep->totals.images == 4 && rep->totals.images_with_time == 4 &&
				rep->totals.images_shown == 4);
	for (size_t i = 0; i < rep->totals.images; i++)
		sum += rep->images[i].seconds;
	CHECK("the images' seconds add up", sum > 0.95089999 && sum < 0.95090001);
	CHECK("the rows' seconds add up, one hidden remainder",
	      rep->run.seconds > 0.95089999 && rep->run.seconds < 0.95090001 &&
		      rep->run.hidden == 1 && rep->run.hidden_seconds > 0.00019999 &&
		      rep->run.hidden_seconds < 0.00020001);
	CHECK("a forked image without threads: its parent's name",
	      !strcmp(rep->images[2].comm, "synth") && !strcmp(rep->images[3].comm, "true"));
	report__free(rep);
}

static void test_keys(void)
{
	expect_rows("default keys comm,dso,sym", &(struct report_opts){0},
		    "synth/%s/hot_a=300.0 worker/%s/hot_c=200.0 synth/[kernel]/[kernel]:a=100.2 "
		    "cruncher/%s/hot_b=100.0 synth/%s/hot_b=90.0 cruncher/%s/hot_d=50.0 "
		    "cruncher/[kernel]/[kernel]:a=50.0 worker/[kernel]/[kernel]:a=50.0 "
		    "synth/[unsampled]/[unsampled]:u=10.1 true/[kernel]/[kernel]:a=0.4");
	expect_rows("--sort comm", &(struct report_opts){KEYS(REPORT_KEY_COMM)},
		    "synth=390.0 worker=200.0 cruncher=150.0 synth:a=100.2 cruncher:a=50.0 "
		    "worker:a=50.0 synth:u=10.1 true:a=0.4");
	expect_rows("--sort dso", &(struct report_opts){KEYS(REPORT_KEY_DSO)},
		    "%s=740.0 [kernel]:a=200.6 [unsampled]:u=10.3");
	expect_rows("--sort sym", &(struct report_opts){KEYS(REPORT_KEY_SYM)},
		    "hot_a=300.0 [kernel]:a=200.6 hot_c=200.0 hot_b=190.0 hot_d=50.0 "
		    "[unsampled]:u=10.3");
	expect_rows("--sort pid (an exec keeps its pid)",
		    &(struct report_opts){KEYS(REPORT_KEY_PID)},
		    "5000=590.0 5002=150.0 5000:a=150.0 5002:a=50.0 5000:u=10.0 5003:a=0.6");
	expect_rows("--sort tid", &(struct report_opts){KEYS(REPORT_KEY_TID)},
		    "5000=390.0 5001=200.0 5002=150.0 5000:a=100.0 5001:a=50.0 5002:a=50.0 "
		    "5000:u=10.0 5003:a=0.6");
	expect_rows("--sort pid,sym",
		    &(struct report_opts){KEYS(REPORT_KEY_PID, REPORT_KEY_SYM), .top = 4},
		    "5000/hot_a=300.0 5000/hot_c=200.0 5000/[kernel]:a=150.0 5002/hot_b=100.0");
	expect_rows("a key given twice counts once",
		    &(struct report_opts){KEYS(REPORT_KEY_DSO, REPORT_KEY_DSO)},
		    "%s=740.0 [kernel]:a=200.6 [unsampled]:u=10.3");
	expect_rows("--sort name (by function, object, command)",
		    &(struct report_opts){.sort_name = 1},
		    "cruncher/[kernel]/[kernel]:a=50.0 synth/[kernel]/[kernel]:a=100.2 "
		    "true/[kernel]/[kernel]:a=0.4 worker/[kernel]/[kernel]:a=50.0 "
		    "synth/[unsampled]/[unsampled]:u=10.1 synth/%s/hot_a=300.0 "
		    "cruncher/%s/hot_b=100.0 synth/%s/hot_b=90.0 worker/%s/hot_c=200.0 "
		    "cruncher/%s/hot_d=50.0");
}

static void test_limits(void)
{
	struct report_opts o = {.percent_limit = 10};
	struct report *rep = load("--percent-limit", &o);

	if (rep) {
		/* 10 % of 950.9 ms: 95.09 ms */
		CHECKF("--percent-limit 10",
		       rep->run.nrows == 4 && rep->run.hidden == 7 &&
			       rep->run.hidden_seconds > 0.2506999 &&
			       rep->run.hidden_seconds < 0.2507001 &&
			       !strcmp(rep->run.rows[3].comm, "cruncher"),
		       "%zu listed, %zu hidden, %.6f s", rep->run.nrows, rep->run.hidden,
		       rep->run.hidden_seconds);
		report__free(rep);
	}
	o = (struct report_opts){.top = 3};
	rep = load("--top", &o);
	if (rep) {
		CHECKF("--top 3",
		       rep->run.nrows == 3 && rep->run.hidden == 8 &&
			       !strcmp(rep->run.rows[2].comm, "synth") &&
			       rep->run.rows[2].kind == REPORT_ACCOUNTED,
		       "%zu listed, %zu hidden", rep->run.nrows, rep->run.hidden);
		report__free(rep);
	}
}

static void test_filters(void)
{
	static const int pid_kid[] = {5002}, pids_two[] = {5002, 5003}, tid_worker[] = {5001};
	static const char *const synth[] = {"synth"}, *const kernel[] = {"[kernel]"};
	struct report_opts o = {.filter = {.pids = pid_kid, .npids = 1}};
	struct report *rep = load("--pid", &o);
	const char *dsos[1] = {exe_base};

	if (rep) {
		CHECKF("--pid: shown seconds, images shown",
		       rep->totals.shown_seconds > 0.1999999 &&
			       rep->totals.shown_seconds < 0.2000001 &&
			       rep->totals.seconds > 0.95 && rep->totals.images_shown == 1,
		       "%.6f %zu", rep->totals.shown_seconds, rep->totals.images_shown);
		report__free(rep);
	}
	expect_rows(
		"--pid 5002", &(struct report_opts){.filter = {.pids = pid_kid, .npids = 1}},
		"cruncher/%s/hot_b=100.0 cruncher/%s/hot_d=50.0 cruncher/[kernel]/[kernel]:a=50.0");
	expect_rows("--pid 5002,5003 (both images of 5003)",
		    &(struct report_opts){KEYS(REPORT_KEY_PID),
					  .filter = {.pids = pids_two, .npids = 2}},
		    "5002=150.0 5002:a=50.0 5003:a=0.6");
	expect_rows("--tid 5001", &(struct report_opts){.filter = {.tids = tid_worker, .ntids = 1}},
		    "worker/%s/hot_c=200.0 worker/[kernel]/[kernel]:a=50.0");
	expect_rows("--comm synth (a forked image's time under its name)",
		    &(struct report_opts){.filter = {.comms = synth, .ncomms = 1}},
		    "synth/%s/hot_a=300.0 synth/[kernel]/[kernel]:a=100.2 synth/%s/hot_b=90.0 "
		    "synth/[unsampled]/[unsampled]:u=10.1");
	expect_rows("--dso [kernel]", &(struct report_opts){.filter = {.dsos = kernel, .ndsos = 1}},
		    "synth/[kernel]/[kernel]:a=100.2 cruncher/[kernel]/[kernel]:a=50.0 "
		    "worker/[kernel]/[kernel]:a=50.0 true/[kernel]/[kernel]:a=0.4");
	expect_rows(
		"--dso by base name",
		&(struct report_opts){KEYS(REPORT_KEY_SYM), .filter = {.dsos = dsos, .ndsos = 1}},
		"hot_a=300.0 hot_c=200.0 hot_b=190.0 hot_d=50.0");
	dsos[0] = fixture__exe();
	expect_rows(
		"--dso by path",
		&(struct report_opts){KEYS(REPORT_KEY_DSO), .filter = {.dsos = dsos, .ndsos = 1}},
		"%s=740.0");
}

static void test_children(void)
{
	static const char *const cruncher[] = {"cruncher"};

	expect_rows("--children: totals, recursion once, callers listed",
		    &(struct report_opts){KEYS(REPORT_KEY_SYM), .children = 1},
		    "rep_main=0.0/540.0 rep_run=0.0/390.0 hot_a=300.0/300.0 "
		    "[kernel]:a=200.6/200.6 hot_c=200.0/200.0 rep_worker=0.0/200.0 "
		    "hot_b=190.0/190.0 hot_d=50.0/50.0 [unsampled]:u=10.3/10.3");
	expect_rows("--children --comm cruncher",
		    &(struct report_opts){KEYS(REPORT_KEY_SYM), .children = 1,
					  .filter = {.comms = cruncher, .ncomms = 1}},
		    "rep_main=0.0/150.0 hot_b=100.0/100.0 hot_d=50.0/50.0 [kernel]:a=50.0/50.0");
	expect_rows("--children --percent-limit goes by the total",
		    &(struct report_opts){KEYS(REPORT_KEY_SYM), .children = 1, .percent_limit = 30},
		    "rep_main=0.0/540.0 rep_run=0.0/390.0 hot_a=300.0/300.0");
}

static void test_image(void)
{
	struct report_opts o = {.threads = 1};
	static const int sym[] = {REPORT_KEY_SYM};
	struct report *rep = load("image", &o);
	struct report_proc pr;
	int rc;

	if (!rep)
		return;
	rc = report__proc(rep, 0, &pr);
	CHECK("report__proc", rc == 0);
	if (rc)
		goto out;
	CHECKF("an image's rows by function",
	       !strcmp(listing(rep, sym, 1, &pr.list, 0),
		       "hot_a=300.0 hot_c=200.0 [kernel]:a=150.0 hot_b=90.0 [unsampled]:u=10.0"),
	       "%s", listing(rep, sym, 1, &pr.list, 0));
	CHECK("the image's time",
	      pr.img->accounted_ns == 150 * MS && pr.img->unsampled_ns == 10 * MS &&
		      pr.img->seconds > 0.7499999 && pr.img->seconds < 0.7500001 &&
		      pr.img->cpu.cpu_ns == 750 * MS);
	CHECKF("its threads: samples and seconds",
	       pr.nthreads == 2 && pr.threads[0].tid == 5000 && pr.threads[0].samples == 390 &&
		       pr.threads[0].seconds > 0.4999999 && pr.threads[0].seconds < 0.5000001 &&
		       pr.threads[1].tid == 5001 && pr.threads[1].samples == 200 &&
		       pr.threads[1].seconds > 0.2499999 && pr.threads[1].seconds < 0.2500001 &&
		       !strcmp(pr.threads[1].comm, "worker"),
	       "%zu threads", pr.nthreads);
	CHECKF("--threads: a thread's rows",
	       pr.nthreads == 2 && !strcmp(listing(rep, sym, 1, &pr.threads[1].list, 0),
					   "hot_c=200.0 [kernel]:a=50.0"),
	       "%s", pr.nthreads == 2 ? listing(rep, sym, 1, &pr.threads[1].list, 0) : "");
	report_proc__release(&pr);
out:
	report__free(rep);
}

/* The thread clock: the kernel's time is invisible (ticks land at the user pc), none accounted. */
static void test_thread_clock(void)
{
	char why[512] = "";
	int rc;

	fixture__path(profile, sizeof(profile), "thread.data");
	rc = write_profile(profile, PDATA_CLOCK_THREAD, why, sizeof(why));
	CHECKF("write the thread-clock profile", rc == 0, "%s", why);
	if (rc)
		return;
	expect_rows("thread clock: [unsampled] per thread, no [kernel] row",
		    &(struct report_opts){KEYS(REPORT_KEY_COMM)},
		    "synth=390.0 worker=200.0 cruncher=150.0 synth:u=110.3 cruncher:u=50.0 "
		    "worker:u=50.0");
	struct report *rep = load("thread clock", &(struct report_opts){0});
	if (rep) {
		CHECKF("thread clock: the run's seconds still the tree's CPU time",
		       rep->kernel == REPORT_KERNEL_INVISIBLE && rep->totals.accounted_ns == 0 &&
			       rep->totals.seconds > 0.95089999 && rep->totals.seconds < 0.95090001,
		       "%.9f", rep->totals.seconds);
		report__free(rep);
	}
}

static void test_names(void)
{
	CHECK("key names", !strcmp(report__key_name(REPORT_KEY_COMM), "comm") &&
				   !strcmp(report__key_name(REPORT_KEY_TID), "tid") &&
				   !strcmp(report__key_name(REPORT_KEY_CGROUP), "cgroup") &&
				   !report__key_name(0) &&
				   !report__key_name(REPORT_KEY_CGROUP + 1));
	CHECK("key parse", report__key_parse("symbol") == REPORT_KEY_SYM &&
				   report__key_parse("dso") == REPORT_KEY_DSO &&
				   report__key_parse("pid") == REPORT_KEY_PID &&
				   report__key_parse("cgroup") == REPORT_KEY_CGROUP &&
				   report__key_parse("nope") == 0);
	CHECK("kind names", !strcmp(report__kind_name(REPORT_ACCOUNTED), "accounted") &&
				    !strcmp(report__kind_name(REPORT_UNSAMPLED), "unsampled") &&
				    !strcmp(report__kind_name(REPORT_SAMPLED), "sampled"));
}

static void test_bad_file(void)
{
	struct report *rep = NULL;
	char why[512] = "";
	int rc = report__load(&rep, "/nonexistent/x.data", &(struct report_opts){0}, why,
			      sizeof(why));

	CHECKF("a missing profile: one sentence",
	       rc == -ENOENT && !rep && why[0] && !strchr(why, '\n'), "%d '%s'", rc, why);
}

int main(void)
{
	static const check_fn tests[] = {test_totals,	    test_keys,	test_limits, test_filters,
					 test_children,	    test_image, test_names,  test_bad_file,
					 test_thread_clock, NULL};
	char why[512] = "";
	int rc;

	hot_a(1), hot_b(1), hot_c(1), hot_d(1), rep_main(1), rep_run(1), rep_worker(1);
	snprintf(exe_base, sizeof(exe_base), "%s", strrchr(fixture__exe(), '/') + 1);
	fixture__path(profile, sizeof(profile), "report.data");
	rc = write_profile(profile, PDATA_CLOCK_PERF, why, sizeof(why));
	return check_run("write the profile", rc, why, tests);
}
