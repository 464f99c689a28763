// SPDX-License-Identifier: MIT
/*
 * output/folded: collapsed stacks of a profile written by the test over
 * this program's own functions: the command name first (the main thread's
 * name, else the executable's base name, else "[unknown]"), then the
 * frames root first and the leaf last, the count; equal lines summed
 * across threads; flat samples as COMMAND;LEAF; a stack cut short under
 * "[truncated]"; kernel frames innermost; ';' and control characters in
 * names escaped so that a line is one stack; lines in byte order; the
 * summary; no file but the output, an output that is the profile refused.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "output/output.h"
#include "profile_fixture.h"

FIXTURE_WORK(f_root, 1);
FIXTURE_WORK(f_mid, 2);
FIXTURE_WORK(f_leaf, 3);

#define KTEXT 0xffffffff81000000ull
#define LEAF(f) ((uint64_t)(uintptr_t)(f) + 2)
#define RET(f) ((uint64_t)(uintptr_t)(f) + 9)
#define STACK(...) (const uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8

static char profile[256], out_path[256];

/*
 * Image 8000 (main thread "fold-main", thread 8001): f_leaf <- f_mid <- f_root
 * 5 + 2 (two threads), f_mid flat 3, f_leaf <- f_mid cut short 4, a kernel
 * function with an odd name under f_leaf <- f_root 2, an unmapped pc 1.
 * Image 8002 (thread "a;b<TAB>c"): f_leaf flat 6.  Image 8003 (no thread,
 * executable "/x/we;ird"): 1.  Proc 99, no record: 2.
 */
static int write_profile(const char *path, char *why, size_t whylen)
{
	static const struct fixture_header h = FIXTURE_FP_HEADER("fold", FIXTURE_MS);
	struct pdata *pd;
	struct pdata_proc *p, *kid, *odd;
	int rc = fixture__start(&pd, path, &h, 8000, &p, why, whylen);

	if (rc < 0)
		return rc;
	pdata__add_ksym(pd, KTEXT, 0x100, "k;odd\x01name");
	pdata__add_thread(pd, p->id, 8001, "worker");
	pdata__add_thread(pd, p->id, 8000, "fold-main");
	pdata__count_stack(pd, p->id, 8000, STACK(LEAF(f_leaf), RET(f_mid), RET(f_root)), 0, 5);
	pdata__count_stack(pd, p->id, 8001, STACK(LEAF(f_leaf), RET(f_mid), RET(f_root)), 0, 2);
	pdata__count(pd, p->id, 8000, LEAF(f_mid), 3);
	pdata__count_stack(pd, p->id, 8000, STACK(LEAF(f_leaf), RET(f_mid)), 1, 4);
	pdata__count_stack(pd, p->id, 8000, STACK(KTEXT + 0x10, RET(f_leaf), RET(f_root)), 0, 2);
	pdata__count(pd, p->id, 8000, 0x10, 1);
	kid = pdata__add_proc(pd, 8002, 8000, p->id, fixture__exe(), pdata__now_ns());
	pdata__add_thread(pd, kid->id, 8002, "a;b\tc");
	pdata__count(pd, kid->id, 8002, LEAF(f_leaf), 6);
	odd = pdata__add_proc(pd, 8003, 1, 0, "/x/we;ird", pdata__now_ns());
	pdata__count(pd, odd->id, 8003, 0x20, 1);
	pdata__add_proc(pd, 8004, 1, 0, "/x/idle", pdata__now_ns()); /* no samples: no line */
	pdata__count(pd, 99, 99, 0x30, 2);
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	if (f && buf)
		buf[fread(buf, 1, (1 << 16) - 1, f)] = 0;
	if (f)
		fclose(f);
	return buf;
}

/* The names in the private directory other than the profile and the output. */
static int strays(void)
{
	DIR *d = opendir(fixture__tmpdir());
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		     strcmp(e->d_name, "fold.data") && strcmp(e->d_name, "fold.txt");
	if (d)
		closedir(d);
	return n;
}

static void test_export(void)
{
	struct folded_summary sum = {0};
	char why[512] = "", *text;
	int rc = folded__export(profile, out_path, &sum, why, sizeof(why));

	CHECKF("export", rc == 0, "%d %s", rc, why);
	text = slurp(out_path);
	CHECKF("the lines",
	       text && !strcmp(text, "[unknown];[unknown] 2\n"
				     "a:b?c;f_leaf 6\n"
				     "fold-main;[truncated];f_mid;f_leaf 4\n"
				     "fold-main;[unknown] 1\n"
				     "fold-main;f_mid 3\n"
				     "fold-main;f_root;f_leaf;k:odd?name 2\n"
				     "fold-main;f_root;f_mid;f_leaf 7\n"
				     "we:ird;[unknown] 1\n"),
	       "\n%s", text ? text : "");
	CHECKF("summary", sum.samples == 26 && sum.lines == 8, "%llu %zu",
	       (unsigned long long)sum.samples, sum.lines);
	CHECK("no other file left beside it", strays() == 0);
	free(text);
}

static void test_profile_is_no_output(void)
{
	struct pview *v = NULL;
	char why[512] = "";
	int rc = folded__export(profile, profile, NULL, why, sizeof(why));

	CHECKF("the profile itself is not an output: refused, the profile intact",
	       rc < 0 && why[0] && !strchr(why, '\n'), "%d '%s'", rc, why);
	CHECK("the profile still reads",
	      pview__load(&v, profile, why, sizeof(why)) == 0 && v->total == 26);
	pview__free(v);
}

static void test_unreadable(void)
{
	char why[512] = "";
	int rc = folded__export("/nonexistent/p.data", out_path, NULL, why, sizeof(why));

	CHECKF("a profile that cannot be read: one sentence", rc == -ENOENT && !strchr(why, '\n'),
	       "%d '%s'", rc, why);
}

int main(void)
{
	static const check_fn tests[] = {test_export, test_profile_is_no_output, test_unreadable,
					 NULL};
	char why[512] = "";
	int rc;

	f_root(1), f_mid(1), f_leaf(1);
	fixture__path(profile, sizeof(profile), "fold.data");
	fixture__path(out_path, sizeof(out_path), "fold.txt");
	rc = write_profile(profile, why, sizeof(why));
	return check_run("write the profile", rc, why, tests);
}
