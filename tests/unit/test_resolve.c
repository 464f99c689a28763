// SPDX-License-Identifier: MIT
/*
 * report/resolve: PCs of this very test program, through a profile that
 * records its own executable mappings (/proc/self/maps), to function rows:
 * its global and static functions (one interned row per function, source
 * lines with --lines), libc, the [vdso], a fork child named through its
 * parent's maps, an exec'd image that has none, unknown PCs, code of a file
 * that is gone (file-offset ranges), the "[truncated]" row, kernel PCs
 * named by the profile's KSYM records, where each PC landed (link-time
 * address), and the per-object notes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"
#include "profile_fixture.h"
#include "report/resolve.h"

#define KTEXT 0xffffffff81000000ull
#define GONE_START 0x20000ull

static const int hot_line = __LINE__ + 1;
FIXTURE_WORK(res_hot, 1);

__attribute__((noinline, used)) static int res_static(int n)
{
	volatile int acc = 2;

	for (int i = 0; i < n; i++)
		acc += i;
	return acc;
}

static uint64_t pc_of(const void *fn, int off)
{
	return (uint64_t)(uintptr_t)fn + (uint64_t)off;
}

/* proc 1: this process, its maps, a map of a file that is gone; 2: a fork; 3: an exec. */
static int write_profile(const char *path, char *why, size_t whylen)
{
	static const struct fixture_header h = {
		.clock = PDATA_CLOCK_PERF,
		.period_ns = FIXTURE_MS,
		.flags = PDATA_F_KERNEL,
		.command = "test_resolve",
		.create = {.table_slots = 64, .records_cap = 1 << 20}};
	struct pdata *pd;
	struct pdata_proc *me, *pre;
	int rc = fixture__start(&pd, path, &h, getpid(), &me, why, whylen);

	if (rc < 0)
		return rc;
	pdata__add_map(pd, me->id, GONE_START, GONE_START + 0x4000, 0x3000, PROT_READ | PROT_EXEC,
		       "/nonexistent/libgone.so", NULL, 0);
	pdata__add_ksym(pd, KTEXT, 0x100, "k_syscall");
	pdata__add_ksym(pd, KTEXT + 0x1000, 0x80, "k_fault [somemod]");
	pdata__add_proc(pd, 4000001, getpid(), me->id, fixture__exe(), pdata__now_ns());
	pre = pdata__add_proc(pd, 4000002, getpid(), me->id, fixture__exe(), pdata__now_ns());
	pdata__end_proc(pre, PDATA_END_EXEC, 0, pdata__now_ns(), NULL);
	pdata__add_proc(pd, 4000002, getpid(), pre->id, "/bin/true", pdata__now_ns());
	return fixture__finish(pd, PDATA_END_EXITED, 0);
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static int is_row(const struct func *f, const char *name, const char *object, const char *objpath)
{
	return f && !strcmp(f->name, name) && !strcmp(f->object, object) &&
	       !strcmp(f->objpath, objpath);
}

static void test_own_code(struct resolver *r, const struct pview *v)
{
	const struct pv_proc *me = pview__proc(v, 1), *kid = pview__proc(v, 2);
	const struct pv_proc *exec = pview__proc(v, 4);
	const char *exe = fixture__exe(), *base = strrchr(exe, '/') + 1;
	const struct func *hot = resolver__pc(r, me, 0, pc_of(res_hot, 2), 5);
	const struct func *st = resolver__pc(r, me, 0, pc_of(res_static, 1), 1);

	CHECKF("a global function", is_row(hot, "res_hot", base, exe) && !hot->file && !hot->line,
	       "%s %s %s", hot ? hot->name : "-", hot ? hot->object : "-",
	       hot ? hot->objpath : "-");
	CHECKF("a static function", is_row(st, "res_static", base, exe), "%s", st ? st->name : "-");
	CHECK("one row per function: interned",
	      resolver__pc(r, me, 0, pc_of(res_hot, 9), 5) == hot &&
		      resolver__pc(r, me, 0, pc_of(res_hot, 2), 0) == hot);
	CHECK("a fork child: its parent's maps",
	      resolver__pc(r, kid, 0, pc_of(res_hot, 2), 0) == hot);
	CHECK("an exec'd image: not the previous image's maps",
	      is_row(resolver__pc(r, exec, 0, pc_of(res_hot, 2), 0), "[unknown]", "[unknown]",
		     "[unknown]"));
	CHECK("an unmapped pc",
	      is_row(resolver__pc(r, me, 0, 0x10, 1), "[unknown]", "[unknown]", "[unknown]"));
}

static void test_locate(struct resolver *r, const struct pview *v)
{
	const struct pv_proc *me = pview__proc(v, 1);
	struct resolve_loc loc;
	Dl_info di;
	uint64_t bias = 0;
	int rc;

	if (dladdr((void *)res_hot, &di))
		bias = (uint64_t)(uintptr_t)di.dli_fbase;
	rc = resolver__locate(r, me, 0, pc_of(res_hot, 2), 0, &loc);
	if (rc == 0 && loc.obj && (symobj__flags(loc.obj) & SYMOBJ_EXEC))
		bias = 0; /* not a PIE: runtime addresses are link-time ones */
	CHECKF("located at its link-time address",
	       rc == 0 && loc.obj && loc.linktime && loc.addr == pc_of(res_hot, 2) - bias &&
		       !strcmp(loc.f->name, "res_hot"),
	       "rc %d addr 0x%llx want 0x%llx", rc, (unsigned long long)loc.addr,
	       (unsigned long long)(pc_of(res_hot, 2) - bias));
	rc = resolver__locate(r, me, 0, 0x10, 0, &loc);
	CHECK("unmapped: no object, the pc itself",
	      rc == 0 && !loc.obj && loc.addr == 0x10 && !loc.linktime);
	rc = resolver__locate(r, me, 0, GONE_START + 0x1234, 0, &loc);
	CHECK("a file that is gone: its file offset",
	      rc == 0 && loc.obj && !loc.linktime && loc.addr == 0x3000 + 0x1234);
}

static void test_other_objects(struct resolver *r, const struct pview *v)
{
	const struct pv_proc *me = pview__proc(v, 1);
	void *getpid_fn = dlsym(RTLD_NEXT, "getpid");
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	const struct func *f;
	Dl_info di;

	f = resolver__pc(r, me, 0, GONE_START + 0x1234, 3);
	CHECKF("code of a file that is gone: a range of file offsets",
	       is_row(f, "[libgone.so+0x4000]", "libgone.so", "/nonexistent/libgone.so"), "%s",
	       f ? f->name : "-");
	CHECK("the same page of it: the same row",
	      resolver__pc(r, me, 0, GONE_START + 0x1fff, 1) == f &&
		      resolver__pc(r, me, 0, GONE_START + 0x2000, 1) != f);
	if (getpid_fn && dladdr(getpid_fn, &di) && di.dli_fname) {
		const char *lib =
			strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;

		f = resolver__pc(r, me, 0, pc_of(getpid_fn, 0), 1);
		CHECKF("libc", f && !strcmp(f->object, lib) && strstr(f->name, "getpid"),
		       "%s in %s", f ? f->name : "-", f ? f->object : "-");
	} else {
		SKIP("libc", "dlsym(getpid) failed");
	}
	if (vdso) {
		f = resolver__pc(r, me, 0, vdso + 0x10, 1);
		CHECKF("the [vdso]: its pseudo name", is_row(f, "[vdso]", "[vdso]", "[vdso]"), "%s",
		       f ? f->name : "-");
	} else {
		SKIP("the [vdso]", "no AT_SYSINFO_EHDR");
	}
}

static void test_kernel(struct resolver *r, const struct pview *v)
{
	const struct pv_proc *me = pview__proc(v, 1);
	struct resolve_loc loc;

	CHECK("a kernel pc named by its KSYM record",
	      is_row(resolver__pc(r, me, 0, KTEXT + 0x10, 1), "k_syscall", "[kernel]", "[kernel]"));
	CHECK("a module's symbol", is_row(resolver__pc(r, me, 0, KTEXT + 0x107f, 1),
					  "k_fault [somemod]", "[kernel]", "[kernel]"));
	CHECK("kernel code no KSYM names: one [kernel] row",
	      is_row(resolver__pc(r, me, 0, KTEXT + 0x100, 1), "[kernel]", "[kernel]",
		     "[kernel]") &&
		      resolver__pc(r, me, 0, KTEXT + 0x100, 1) ==
			      resolver__pc(r, me, 0, KTEXT + 0x5000, 1));
	CHECK("the cut-short mark: the [truncated] row",
	      is_row(resolver__pc(r, me, 0, PDATA_PC_TRUNCATED, 1), "[truncated]", "[truncated]",
		     "[truncated]"));
	CHECK("kernel: no object, the pc itself",
	      resolver__locate(r, me, 0, KTEXT + 0x10, 0, &loc) == 0 && !loc.obj &&
		      loc.addr == KTEXT + 0x10);
}

static void test_notes(struct resolver *r)
{
	const struct resolve_note *notes;
	size_t n = resolver__notes(r, &notes);
	const struct resolve_note *exe = NULL, *gone = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(symobj__path(notes[i].obj), fixture__exe()))
			exe = &notes[i];
		if (!strcmp(symobj__path(notes[i].obj), "/nonexistent/libgone.so"))
			gone = &notes[i];
	}
	/* test_own_code: res_hot 5 + 5 (+ 0 twice), res_static 1 */
	CHECKF("samples counted per object", exe && exe->samples == 11 && exe->unnamed == 0, "%llu",
	       exe ? (unsigned long long)exe->samples : 0ull);
	CHECKF("a file that is gone: its samples unnamed",
	       gone && gone->samples == 5 && gone->unnamed == 5 &&
		       (symobj__flags(gone->obj) & SYMOBJ_MISSING),
	       "%llu/%llu", gone ? (unsigned long long)gone->samples : 0ull,
	       gone ? (unsigned long long)gone->unnamed : 0ull);
}

static void test_lines(const struct pview *v)
{
	struct resolver *r = resolver__new(v, 1);
	const struct pv_proc *me = pview__proc(v, 1);
	const struct func *a = r ? resolver__pc(r, me, 0, pc_of(res_hot, 2), 1) : NULL;
	const struct func *plain;

	CHECKF("--lines: the source line of a function",
	       a && !strcmp(a->name, "res_hot") && ends_with(a->file, "test_resolve.c") &&
		       a->line >= hot_line && a->line <= hot_line + 6,
	       "%s:%d (declared at %d)", a && a->file ? a->file : "-", a ? a->line : 0, hot_line);
	plain = r ? resolver__pc(r, me, 0, KTEXT + 0x10, 1) : NULL;
	CHECK("--lines: kernel rows have no line", plain && !plain->file && !plain->line);
	resolver__free(r);
}

int main(void)
{
	char path[256], why[512] = "";
	struct pview *v = NULL;
	struct resolver *r;
	int rc;

	res_hot(1), res_static(1);
	fixture__path(path, sizeof(path), "resolve.data");
	rc = write_profile(path, why, sizeof(why));
	CHECKF("write the profile", rc == 0, "%s", why);
	rc = rc ? rc : pview__load(&v, path, why, sizeof(why));
	CHECKF("load", rc == 0, "%s", why);
	if (rc)
		return CHECK_DONE();
	r = resolver__new(v, 0);
	CHECK("new", r != NULL);
	if (r) {
		test_own_code(r, v);
		test_locate(r, v);
		test_other_objects(r, v);
		test_kernel(r, v);
		test_notes(r);
	}
	resolver__free(r);
	/* the maps' aux slots belong to one resolver at a time */
	for (size_t i = 0; i < v->nprocs; i++)
		for (size_t k = 0; k < v->procs[i].nmaps; k++)
			v->procs[i].maps[k].aux = NULL;
	test_lines(v);
	pview__free(v);
	return CHECK_DONE();
}
