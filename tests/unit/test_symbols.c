// SPDX-License-Identifier: MIT
/*
 * symbols/symbols: symbolise this test program's own code through its real
 * mappings (/proc/self/maps): a global and a static function, a zero-sized
 * assembler symbol, libc, source lines from DWARF, the range name of code
 * without a symbol, missing and non-ELF files, the object cache, the
 * recorded build id check.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "symbols/symbols.h"

int sym_test_global(int n);

__attribute__((noinline, used)) int sym_test_global(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i;
	return acc;
}

static const int static_line = __LINE__ + 2;
__attribute__((noinline, used)) static int sym_test_static(int n)
{
	volatile int acc = 1;

	for (int i = 0; i < n; i++)
		acc *= 3;
	return acc;
}

/* A function symbol without a size (typed, no .size): extends to the next symbol. */
__asm__(".text\n"
	".globl sym_test_nosize\n"
	".type sym_test_nosize, @function\n"
	"sym_test_nosize:\n"
	"nop; nop; nop; nop; nop; nop; nop; nop\n"
	"ret\n"
	".globl sym_test_after\n"
	".type sym_test_after, @function\n"
	"sym_test_after:\n"
	"ret\n"
	".size sym_test_after, 1\n");
void sym_test_nosize(void);
void sym_test_after(void);

/* A C function under a C++ mangled name: test::hot(int) */
int mangled_hot(int n) __asm__("_ZN4test3hotEi");
__attribute__((noinline, used)) int mangled_hot(int n)
{
	return n * 3;
}

struct mapping {
	unsigned long long start, end, off;
	char path[4096];
};

/* The executable mapping of /proc/self/maps holding addr. */
static int find_mapping(const void *addr, struct mapping *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4200], perms[8];
	unsigned long long a = (unsigned long long)(uintptr_t)addr;
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		m->path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &m->start, &m->end, perms,
			   &m->off, m->path) >= 4 &&
		    a >= m->start && a < m->end)
			found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : -ENOENT;
}

/* Symbolise a runtime address of this process. */
static int lookup(struct symbols *s, const void *addr, struct sym_result *res,
		  struct sym_object **objp)
{
	struct mapping m;
	struct sym_object *o;
	uint64_t vaddr;

	if (find_mapping(addr, &m) < 0)
		return -ENOENT;
	o = symbols__object(s, m.path);
	if (!o || symobj__to_vaddr(o, m.start, m.off, (uint64_t)(uintptr_t)addr, &vaddr) < 0)
		return -ENOENT;
	if (objp)
		*objp = o;
	return symobj__lookup(o, vaddr, res);
}

static void test_own_functions(struct symbols *s)
{
	struct sym_result res;
	struct sym_object *o = NULL;
	const char *file = NULL;
	int line = 0, rc;

	rc = lookup(s, (const char *)sym_test_global + 3, &res, &o);
	CHECKF("global function",
	       rc == 0 && !strcmp(res.name, "sym_test_global") && res.from_symbol, "rc %d name %s",
	       rc, rc ? "-" : res.name);
	CHECKF("object is this executable", o && strstr(symobj__path(o), "test_symbols"), "%s",
	       o ? symobj__path(o) : "(null)");
	/* link-time start: the runtime address minus the load bias */
	{
		Dl_info di;
		int have = dladdr((void *)sym_test_global, &di) != 0;
		uint64_t bias = (uint64_t)(uintptr_t)di.dli_fbase;

		/* ET_EXEC: dli_fbase is the image base, and addresses are already link-time */
		if (o && (symobj__flags(o) & SYMOBJ_EXEC))
			bias = 0;
		CHECKF("vaddr without load bias",
		       have && res.start == (uint64_t)(uintptr_t)sym_test_global - bias,
		       "start 0x%llx runtime %p base %p", (unsigned long long)res.start,
		       (void *)sym_test_global, have ? di.dli_fbase : NULL);
	}
	rc = lookup(s, (const char *)sym_test_static + 1, &res, NULL);
	CHECKF("static function", rc == 0 && !strcmp(res.name, "sym_test_static"), "%s",
	       rc ? "-" : res.name);
	rc = lookup(s, (const char *)sym_test_nosize + 5, &res, NULL);
	CHECKF("zero-sized symbol extends to the next",
	       rc == 0 && !strcmp(res.name, "sym_test_nosize"), "%s", rc ? "-" : res.name);
	rc = lookup(s, (const char *)sym_test_after, &res, NULL);
	CHECKF("next symbol", rc == 0 && !strcmp(res.name, "sym_test_after"), "%s",
	       rc ? "-" : res.name);

	rc = lookup(s, (const char *)mangled_hot, &res, NULL);
	if (rc == 0 && !strcmp(res.name, "_ZN4test3hotEi"))
		SKIP("C++ name demangled", "libstdc++.so.6 is not installed");
	else
		CHECKF("C++ name demangled", rc == 0 && !strcmp(res.name, "test::hot(int)"), "%s",
		       rc ? "-" : res.name);

	rc = lookup(s, (const char *)sym_test_static, &res, &o);
	rc = rc ? rc : symobj__srcline(o, res.vaddr, &file, &line);
	CHECKF("source line of a static function",
	       rc == 0 && strstr(file, "test_symbols.c") && line >= static_line &&
		       line <= static_line + 3,
	       "rc %d %s:%d (declared at %d)", rc, file ? file : "-", line, static_line);
	CHECK("has DWARF flag", o && (symobj__flags(o) & SYMOBJ_HAS_DWARF));
}

static void test_libc(struct symbols *s)
{
	struct sym_result res;
	struct sym_object *o = NULL;
	void *fn = dlsym(RTLD_NEXT, "getpid");
	int rc;

	if (!fn) {
		SKIP("libc function", "dlsym(getpid) failed (static build?)");
		return;
	}
	rc = lookup(s, fn, &res, &o);
	CHECKF("libc object", rc == 0 && !strcmp(symobj__basename(o), "libc.so.6"), "%s",
	       o ? symobj__basename(o) : "-");
	/* getpid may be reached through an alias (__getpid): the name must contain it */
	CHECKF("libc function name", rc == 0 && res.from_symbol && strstr(res.name, "getpid"), "%s",
	       rc ? "-" : res.name);
}

static void test_range_names(struct symbols *s)
{
	struct mapping m;
	struct sym_object *o;
	struct sym_result res;
	uint64_t lo, hi;
	int rc;

	if (find_mapping((void *)sym_test_global, &m) < 0) {
		CHECK("own mapping", 0);
		return;
	}
	o = symbols__object(s, m.path);
	CHECK("cache returns the same object", o && symbols__object(s, m.path) == o);
	rc = symobj__text_range(o, &lo, &hi);
	CHECK("text range", rc == 0 && lo < hi);
	/* below every function symbol: the first bytes of .init / the text segment */
	symobj__lookup(o, 1, &res);
	CHECKF("uncovered address gets a range name",
	       !res.from_symbol && res.name[0] == '[' && strstr(res.name, "+0x"), "%s", res.name);
}

static void test_bad_files(struct symbols *s)
{
	struct sym_object *o = symbols__object(s, "/nonexistent/libgone.so");
	struct sym_result res;
	char path[] = "/tmp/symtest-XXXXXX";
	int fd = mkstemp(path);

	CHECK("missing file: flagged", o && (symobj__flags(o) & SYMOBJ_MISSING));
	CHECK("missing file: a reason", o && strstr(symobj__why(o), "libgone.so"));
	if (o) {
		symobj__lookup(o, 0x1234, &res);
		CHECKF("missing file: lookup still names", res.name && !res.from_symbol, "%s",
		       res.name);
	}
	if (fd >= 0) {
		if (write(fd, "not an elf file\n", 16) != 16)
			CHECK("write temp", 0);
		close(fd);
		o = symbols__object(s, path);
		CHECK("non-ELF file: flagged", o && (symobj__flags(o) & SYMOBJ_NOT_ELF));
		unlink(path);
	}
	o = symbols__object(s, "[vdso]");
	CHECK("pseudo path", o && (symobj__flags(o) & SYMOBJ_PSEUDO));
	if (o) {
		symobj__lookup(o, 0x10, &res);
		CHECK("pseudo name", !strcmp(res.name, "[vdso]"));
	}
}

/* crti.o's, in .init and .fini: every executable has them */
extern void _init(void);
extern void _fini(void);

/* A copy of this program without symbols (objcopy --strip-all): into path, 0 or -1. */
static int stripped_copy(const char *from, char *path)
{
	char cmd[8400];
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s' 2>/dev/null", from, path);
	return system(cmd) == 0 ? 0 : -1;
}

/* Stripped code is named by what the file still says: its .init, .fini and CFI. */
static void test_stripped(struct symbols *s)
{
	struct mapping m;
	struct sym_object *o;
	struct sym_result res;
	char path[] = "/tmp/symtest-strip-XXXXXX";
	uint64_t v_init, v_fini, v_nosize;

	if (find_mapping((void *)sym_test_global, &m) < 0) {
		CHECK("own mapping", 0);
		return;
	}
	if (stripped_copy(m.path, path) < 0) {
		SKIP("stripped copy", "objcopy --strip-all failed (binutils?)");
		unlink(path);
		return;
	}
	o = symbols__object(s, path);
	if (!o || !(symobj__flags(o) & SYMOBJ_DYNSYM) ||
	    symobj__to_vaddr(o, m.start, m.off, (uint64_t)(uintptr_t)_init, &v_init) < 0 ||
	    symobj__to_vaddr(o, m.start, m.off, (uint64_t)(uintptr_t)_fini, &v_fini) < 0 ||
	    symobj__to_vaddr(o, m.start, m.off, (uint64_t)(uintptr_t)sym_test_nosize, &v_nosize) <
		    0) {
		CHECKF("stripped copy read", 0, "flags %#x", o ? symobj__flags(o) : 0);
		unlink(path);
		return;
	}
	symobj__lookup(o, v_init + 1, &res);
	CHECKF("stripped: .init is _init", !strcmp(res.name, "_init") && res.start == v_init, "%s",
	       res.name);
	symobj__lookup(o, v_fini + 4, &res);
	CHECKF("stripped: .fini is _fini", !strcmp(res.name, "_fini") && res.start == v_fini, "%s",
	       res.name);
	/*
	 * Assembler code without CFI (crtbegin's functions before it have none
	 * either): its range ends where the next FDE starts, the C function after
	 * it (was: at the end of the text, taking in every function after it).
	 */
	symobj__lookup(o, v_nosize + 5, &res);
	CHECKF("stripped: code without CFI ranges up to the next FDE",
	       !res.from_symbol && res.start <= v_nosize && res.start > v_init &&
		       res.end > v_nosize + 9 && res.end - v_nosize <= 64,
	       "%s [0x%llx, 0x%llx) for code at 0x%llx", res.name, (unsigned long long)res.start,
	       (unsigned long long)res.end, (unsigned long long)v_nosize);
	unlink(path);
}

/* The profile's build id decides whether the file at the path is the one recorded. */
static void test_build_id(struct symbols *s)
{
	struct mapping m;
	struct sym_object *plain, *same, *other;
	const unsigned char *id = NULL;
	unsigned char wrong[20];
	size_t len;

	if (find_mapping((void *)sym_test_global, &m) < 0) {
		CHECK("own mapping", 0);
		return;
	}
	plain = symbols__object(s, m.path);
	len = plain ? symobj__build_id(plain, &id) : 0;
	if (!len || len > sizeof(wrong)) {
		SKIP("build id", "this test program has no build id");
		return;
	}
	same = symbols__object_id(s, m.path, id, len);
	CHECK("recorded build id matches",
	      same && (symobj__flags(same) & SYMOBJ_BUILD_ID_MATCH) &&
		      !(symobj__flags(same) & (SYMOBJ_BUILD_ID_DIFFERS | SYMOBJ_BY_BUILD_ID)));
	CHECK("no build id recorded: no verdict",
	      !(symobj__flags(plain) & (SYMOBJ_BUILD_ID_MATCH | SYMOBJ_BUILD_ID_DIFFERS)));
	CHECK("one object per recorded build id",
	      same != plain && symbols__object_id(s, m.path, id, len) == same);
	memcpy(wrong, id, len);
	wrong[0] ^= 0xff;
	other = symbols__object_id(s, m.path, wrong, len);
	CHECKF("another build id: the file is flagged as rebuilt",
	       other && (symobj__flags(other) & SYMOBJ_BUILD_ID_DIFFERS) &&
		       !(symobj__flags(other) & SYMOBJ_BUILD_ID_MATCH),
	       "flags %#x", other ? symobj__flags(other) : 0);
	CHECK("rebuilt file still read",
	      other && symobj__nsyms(other) > 0 && !strcmp(symobj__file(other), m.path));
}

int main(void)
{
	struct symbols *s = symbols__new();

	CHECK("symbols__new", s != NULL);
	if (!s)
		return 1;
	test_own_functions(s);
	test_libc(s);
	test_range_names(s);
	test_bad_files(s);
	test_build_id(s);
	test_stripped(s);
	symbols__free(s);
	sym_test_global(1);
	sym_test_static(1);
	mangled_hot(1);
	return CHECK_DONE();
}
