// SPDX-License-Identifier: MIT
/*
 * unwind/unwind and unwind/unwind_cfi on real Debian objects, without perf:
 *  - the tables libdw gives for libz (PLT rows), libc (the signal
 *    trampoline, clone's outermost rows) and ld.so;
 *  - unwinder__unwind with synthetic samples in real objects mapped at a
 *    made-up address: the PLT rule on libz's .plt, ld.so's entry code,
 *    the vDSO, a file that is not the one mapped, fork / forget;
 *  - this test's own stack, captured here and unwound to main's caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "symbols/symbols.h"
#include "unwind/unwind.h"
#include "unwind/unwind_cfi.h"

#define LIBZ "/usr/lib/x86_64-linux-gnu/libz.so.1"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#define FAKE_PID 999999
#define BASE 0x100000000000ull /* where the fake process maps an object */

static uint64_t regs3[4]; /* DI, BP, SP, IP: the order of UNWIND_REGS_MASK */
static uint64_t stackmem[64];
#define STACK_AT 0x7ff000000000ull

static void set_regs(uint64_t ip, uint64_t sp, uint64_t bp)
{
	regs3[0] = 0;
	regs3[1] = bp;
	regs3[2] = sp;
	regs3[3] = ip;
}

/* ---- tables of real objects ------------------------------------------- */

struct table_facts {
	int ok;
	size_t fdes, failed, unsupported, plt_rows, signal_rows, outermost_rows;
	unsigned int plt_threshold;
};

static struct table_facts compile_object(const char *path)
{
	struct table_facts f = {0};
	struct unw_table t = {0};
	struct unw_cfi *cfi = NULL;
	struct unw_cfi_stats st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	char why[128];

	if (elf && unw_cfi_open(elf, &t, &cfi, why, sizeof(why)) == 0 && cfi &&
	    unw_cfi_compile_all(cfi, &t) == 0) {
		unw_cfi_get_stats(cfi, &st);
		f.ok = 1;
		f.fdes = st.fdes;
		f.failed = st.fdes_failed;
		f.unsupported = st.unsupported;
		for (size_t i = 0; i < t.nrows; i++) {
			const struct unw_row *r = &t.rows[i];

			if (r->cfa_kind == UNW_CFA_PLT) {
				f.plt_rows++;
				f.plt_threshold = r->plt_threshold;
			}
			f.signal_rows += (r->flags & UNW_ROW_SIGNAL) &&
					 r->cfa_kind == UNW_CFA_DEREF && r->ra_kind == UNW_LOC_REG;
			f.outermost_rows += r->ra_kind == UNW_LOC_UNDEFINED;
		}
	}
	unw_cfi_close(cfi);
	unw_table_free(&t);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return f;
}

static void test_tables(void)
{
	struct table_facts z = compile_object(LIBZ), c = compile_object(LIBC),
			   l = compile_object(LDSO);

	CHECKF("libz_table", z.ok && z.fdes > 50 && !z.failed && !z.unsupported,
	       "ok %d fdes %zu failed %zu unsupported %zu", z.ok, z.fdes, z.failed, z.unsupported);
	CHECKF("libz_plt_rule", z.plt_rows >= 1 && z.plt_threshold == 11, "%zu PLT rows, K %u",
	       z.plt_rows, z.plt_threshold);
	CHECKF("libc_table", c.ok && c.fdes > 1000 && !c.failed && c.unsupported < 16,
	       "ok %d fdes %zu failed %zu unsupported %zu", c.ok, c.fdes, c.failed, c.unsupported);
	CHECKF("libc_signal_trampoline", c.signal_rows == 1, "%zu", c.signal_rows);
	CHECKF("libc_clone_outermost", c.outermost_rows >= 2, "%zu", c.outermost_rows);
	CHECKF("ldso_table", l.ok && l.fdes > 50 && !l.failed, "ok %d fdes %zu failed %zu", l.ok,
	       l.fdes, l.failed);
	{
		struct unw_table t = {0};
		struct unw_cfi *cfi = (struct unw_cfi *)1;
		Elf *elf = elf_memory((char *)"not an ELF file", 15);
		char why[128] = "";
		int rc = unw_cfi_open(elf, &t, &cfi, why, sizeof(why));

		CHECKF("not_elf_refused", rc == -ENOTSUP && !cfi && why[0], "rc %d", rc);
		elf_end(elf);
	}
}

/* ---- synthetic samples in real objects -------------------------------- */

static int file_size(const char *path, uint64_t *size, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	*size = ((uint64_t)st.st_size + 0xfff) & ~0xfffull;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* Link-time address and size of a section. */
static int section_of(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    !strcmp(n, name)) {
				*addr = sh.sh_addr;
				*size = sh.sh_size;
				rc = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

static uint64_t entry_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	GElf_Ehdr eh;
	uint64_t e = 0;

	if (elf && gelf_getehdr(elf, &eh))
		e = eh.e_entry;
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return e;
}

static int unwind_fake(struct unwinder *u, uint64_t *pcs, unsigned int *flags)
{
	return unwinder__unwind(u, FAKE_PID, regs3, UNWIND_REGS_MASK, stackmem, sizeof(stackmem),
				pcs, 16, flags);
}

static void test_plt(struct unwinder *u)
{
	uint64_t size, dev, ino, plt, pltsize, pcs[16];
	unsigned int flags;
	int n;

	if (file_size(LIBZ, &size, &dev, &ino) < 0 ||
	    section_of(LIBZ, ".plt", &plt, &pltsize) < 0 || pltsize < 48) {
		SKIP("plt", "no libz or no .plt in it");
		return;
	}
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, dev, ino, LIBZ);
	memset(stackmem, 0, sizeof(stackmem));
	stackmem[0] = 0x1111; /* the relocation index the entry pushed, or the RA */
	stackmem[1] = 0x2222;
	/* the second PLT entry (the first is PLT0): before its push, RA at RSP */
	set_regs(BASE + plt + 32 + 6, STACK_AT, 0);
	n = unwind_fake(u, pcs, &flags);
	CHECKF("plt_before_push", n == 2 && pcs[1] == 0x1111 && (flags & UNWIND_TRUNC_NO_MAP),
	       "n %d pcs[1] %#llx flags %#x", n, n > 1 ? (unsigned long long)pcs[1] : 0ull, flags);
	/* after the push (offset 11: the jump to PLT0), RA at RSP + 8 */
	set_regs(BASE + plt + 32 + 11, STACK_AT, 0);
	n = unwind_fake(u, pcs, &flags);
	CHECKF("plt_after_push", n == 2 && pcs[1] == 0x2222, "n %d pcs[1] %#llx", n,
	       n > 1 ? (unsigned long long)pcs[1] : 0ull);
	unwinder__forget(u, FAKE_PID);
	n = unwind_fake(u, pcs, &flags);
	CHECK("forget", n == 1 && flags == UNWIND_TRUNC_NO_MAP);
}

static void test_entry_code(struct unwinder *u)
{
	uint64_t size, dev, ino, entry = entry_of(LDSO), pcs[16];
	unsigned int flags;
	int n;

	if (!entry || file_size(LDSO, &size, &dev, &ino) < 0) {
		SKIP("ldso_entry", "no ld.so");
		return;
	}
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, dev, ino, LDSO);
	/* a return address just after ld.so's first call, in its entry code */
	set_regs(BASE + entry + 3, STACK_AT, 0);
	n = unwind_fake(u, pcs, &flags);
	CHECKF("ldso_entry_is_outermost", n == 1 && flags == UNWIND_COMPLETE, "n %d flags %#x", n,
	       flags);
	/* fork: the child has the parent's mappings; forget the parent */
	CHECK("fork", unwinder__fork(u, FAKE_PID, FAKE_PID + 1) == 0);
	unwinder__forget(u, FAKE_PID);
	n = unwinder__unwind(u, FAKE_PID + 1, regs3, UNWIND_REGS_MASK, stackmem, sizeof(stackmem),
			     pcs, 16, &flags);
	CHECKF("fork_child_maps", n == 1 && flags == UNWIND_COMPLETE, "n %d flags %#x", n, flags);
	unwinder__forget(u, FAKE_PID + 1);
}

static void test_identity(struct unwinder *u)
{
	uint64_t size, dev, ino, plt, pltsize, pcs[16];
	unsigned int flags;
	int n;

	if (file_size(LIBZ, &size, &dev, &ino) < 0 ||
	    section_of(LIBZ, ".plt", &plt, &pltsize) < 0) {
		SKIP("identity", "no libz");
		return;
	}
	/* the file at the path is not the mapped one (other inode): no CFI, frame pointers */
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, dev, ino + 1, LIBZ);
	memset(stackmem, 0, sizeof(stackmem));
	stackmem[2] = 0; /* saved RBP */
	stackmem[3] = 0x3333;
	set_regs(BASE + plt + 32, STACK_AT, STACK_AT + 16);
	n = unwind_fake(u, pcs, &flags);
	CHECKF("other_inode_uses_frame_pointers",
	       n == 2 && pcs[1] == 0x3333 && (flags & UNWIND_FP_FALLBACK), "n %d flags %#x", n,
	       flags);
	unwinder__forget(u, FAKE_PID);
	/* a file that does not exist: the same */
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, 0, 0, "/nonexistent/libnothing.so");
	n = unwind_fake(u, pcs, &flags);
	CHECKF("missing_file_uses_frame_pointers", n == 2 && (flags & UNWIND_FP_FALLBACK),
	       "n %d flags %#x", n, flags);
	unwinder__forget(u, FAKE_PID);
	CHECK("empty_mapping_refused",
	      unwinder__add_map(u, FAKE_PID, BASE, BASE, 0, 0, 0, LIBZ) == -EINVAL);
}

/* Copy src to a new file dst (a new inode).  Returns 0 or -1. */
static int copy_to(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;
	int rc = 0;

	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		rc = -1;
	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/*
 * Issue 16 items 4 and 5: what is at a mapping's path when the recorder
 * looks is untrusted.  A FIFO (a plain open would block until a writer
 * comes), a link to a FIFO or to a device: nothing is opened, no CFI.  The
 * same path rewritten (a new inode) is another object, not the old one's
 * cached table.  (The test's alarm is the fail-safe: a blocking open kills it.)
 */
static void test_hostile_paths(struct unwinder *u)
{
	char dir[] = "/tmp/unwind_paths.XXXXXX", fifo[64], link_fifo[64], link_dev[64], lib[64];
	struct unwinder_stats before, after;
	uint64_t size, dev, ino, pcs[16];
	unsigned int flags;
	struct stat st;
	int n;

	if (!mkdtemp(dir) || file_size(LIBZ, &size, &dev, &ino) < 0) {
		SKIP("hostile_paths", "no temporary directory or no libz");
		return;
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo.so", dir);
	snprintf(link_fifo, sizeof(link_fifo), "%s/link_fifo.so", dir);
	snprintf(link_dev, sizeof(link_dev), "%s/link_dev.so", dir);
	snprintf(lib, sizeof(lib), "%s/lib.so", dir);
	if (mkfifo(fifo, 0600) < 0 || symlink(fifo, link_fifo) < 0 ||
	    symlink("/dev/null", link_dev) < 0 || stat("/dev/null", &st) < 0) {
		SKIP("hostile_paths", "cannot make a FIFO or links");
		return;
	}
	memset(stackmem, 0, sizeof(stackmem));
	set_regs(BASE + 0x100, STACK_AT, 0);
	unwinder__stats(u, &before);
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, 0, 0, fifo);
	n = unwind_fake(u, pcs, &flags);
	unwinder__forget(u, FAKE_PID);
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, 0, 0, link_fifo);
	n += unwind_fake(u, pcs, &flags);
	unwinder__forget(u, FAKE_PID);
	/* the device's own identity: only the file type can refuse it */
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, st.st_dev, st.st_ino, link_dev);
	n += unwind_fake(u, pcs, &flags);
	unwinder__forget(u, FAKE_PID);
	unwinder__stats(u, &after);
	CHECKF("fifo_and_device_paths_refused",
	       n == 3 && after.objects_no_cfi - before.objects_no_cfi == 3,
	       "n %d, %llu objects without CFI", n,
	       (unsigned long long)(after.objects_no_cfi - before.objects_no_cfi));

	/* the same path, rewritten: another inode, another object */
	if (copy_to(LIBZ, lib) < 0 || stat(lib, &st) < 0) {
		SKIP("rewritten_path", "cannot copy libz");
		return;
	}
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, st.st_dev, st.st_ino, lib);
	unwind_fake(u, pcs, &flags);
	unwinder__forget(u, FAKE_PID);
	if (copy_to(LDSO, lib) < 0 || stat(lib, &st) < 0) {
		SKIP("rewritten_path", "cannot copy ld.so");
		return;
	}
	unwinder__stats(u, &before);
	unwinder__add_map(u, FAKE_PID, BASE, BASE + size, 0, st.st_dev, st.st_ino, lib);
	unwind_fake(u, pcs, &flags);
	unwinder__forget(u, FAKE_PID);
	unwinder__stats(u, &after);
	CHECKF("rewritten_path_new_object",
	       after.objects == before.objects + 1 && after.objects_no_cfi == before.objects_no_cfi,
	       "objects %llu -> %llu, without CFI %llu -> %llu", (unsigned long long)before.objects,
	       (unsigned long long)after.objects, (unsigned long long)before.objects_no_cfi,
	       (unsigned long long)after.objects_no_cfi);
	unlink(lib);
	unlink(link_dev);
	unlink(link_fifo);
	unlink(fifo);
	rmdir(dir);
}

static void test_vdso(struct unwinder *u)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size = eh ? eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize : 0;
	struct unw_table t = {0};
	struct unw_cfi *cfi = NULL;
	char *image = malloc(size ? size : 1), why[128];
	Elf *elf;
	uint64_t pcs[16];
	unsigned int flags;
	int n;

	if (!eh || !image) {
		SKIP("vdso", "no vDSO");
		free(image);
		return;
	}
	/* where the vDSO's first FDE starts: a function's first instruction */
	memcpy(image, eh, size);
	elf = elf_memory(image, size);
	if (!elf || unw_cfi_open(elf, &t, &cfi, why, sizeof(why)) < 0 || !cfi || !t.nfdes) {
		SKIP("vdso", "the vDSO has no CFI");
	} else {
		unwinder__add_map(u, FAKE_PID, BASE, BASE + ((size + 0xfff) & ~0xfffull), 0, 0, 0,
				  "[vdso]");
		memset(stackmem, 0, sizeof(stackmem));
		stackmem[0] = 0x4444;
		set_regs(BASE + t.fdes[0].start, STACK_AT, 0);
		n = unwind_fake(u, pcs, &flags);
		CHECKF("vdso_cfi", n == 2 && pcs[1] == 0x4444 && !(flags & UNWIND_FP_FALLBACK),
		       "n %d flags %#x", n, flags);
		unwinder__forget(u, FAKE_PID);
	}
	unw_cfi_close(cfi);
	unw_table_free(&t);
	if (elf)
		elf_end(elf);
	free(image);
}

/* ---- this test's own stack -------------------------------------------- */

struct capture {
	uint64_t regs[4]; /* DI, BP, SP, IP: the order of UNWIND_REGS_MASK */
	uint8_t stack[UNWIND_STACK_BYTES];
	size_t size;
};

/* Copy the stack without ASan's checks: the callers' frames hold redzones. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *dst, uint64_t sp,
								      size_t size)
{
	const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)sp;

	for (size_t i = 0; i < size; i++)
		dst[i] = src[i];
}

__attribute__((noinline)) static void self_capture(struct capture *c, uint64_t stack_top)
{
	uint64_t ip, sp, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	c->regs[0] = 0;
	c->regs[1] = bp;
	c->regs[2] = sp;
	c->regs[3] = ip;
	c->size = stack_top - sp < sizeof(c->stack) ? stack_top - sp : sizeof(c->stack);
	copy_stack(c->stack, sp, c->size);
}

__attribute__((noinline)) int self_unwind_inner(struct capture *c, uint64_t top);
__attribute__((noinline)) int self_unwind_outer(struct capture *c, uint64_t top);

int self_unwind_inner(struct capture *c, uint64_t top)
{
	self_capture(c, top);
	return (int)c->size + 1; /* no tail call */
}

int self_unwind_outer(struct capture *c, uint64_t top)
{
	return self_unwind_inner(c, top) + 1;
}

/* The function name at a runtime address of this process (not inlined: its buffers are big). */
__attribute__((noinline)) static const char *self_name(struct symbols *s, uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4400], path[4096], perms[8];
	unsigned long long start, end, off;
	const char *name = "";

	while (f && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   path) >= 4 &&
		    addr >= start && addr < end && path[0] == '/') {
			struct sym_object *o = symbols__object(s, path);
			struct sym_result r;
			uint64_t vaddr;

			if (o && !symobj__to_vaddr(o, start, off, addr, &vaddr) &&
			    !symobj__lookup(o, vaddr, &r) && r.name)
				name = r.name;
			break;
		}
	}
	if (f)
		fclose(f);
	return name;
}

static void test_self(struct unwinder *u)
{
	static struct capture c;
	struct symbols *syms = symbols__new();
	pthread_attr_t attr;
	void *addr;
	size_t size;
	uint64_t pcs[UNWIND_MAX_FRAMES];
	unsigned int flags = 0;
	int n, inner = -1, outer = -1, mainf = -1;

	if (pthread_getattr_np(pthread_self(), &attr) ||
	    pthread_attr_getstack(&attr, &addr, &size)) {
		SKIP("self", "no stack bounds");
		return;
	}
	pthread_attr_destroy(&attr);
	self_unwind_outer(&c, (uint64_t)(uintptr_t)addr + size);
	CHECK("self_read_maps", unwinder__read_proc_maps(u, getpid()) == 0);
	n = unwinder__unwind(u, getpid(), c.regs, UNWIND_REGS_MASK, c.stack, c.size, pcs,
			     UNWIND_MAX_FRAMES, &flags);
	for (int i = 0; i < n; i++) {
		const char *name = self_name(syms, unwind_lookup_pc(pcs, i));

		if (!strcmp(name, "self_unwind_inner"))
			inner = i;
		else if (!strcmp(name, "self_unwind_outer"))
			outer = i;
		else if (!strcmp(name, "main"))
			mainf = i;
	}
	CHECKF("self_complete", flags == UNWIND_COMPLETE, "flags %#x after %d frames", flags, n);
	CHECKF("self_callers_in_order", inner > 0 && outer > inner && mainf > outer,
	       "inner %d outer %d main %d of %d", inner, outer, mainf, n);
	symbols__free(syms);
}

int main(void)
{
	struct unwinder *u = unwinder__new();
	struct unwinder_stats st;

	elf_version(EV_CURRENT);
	CHECK("new", u != NULL);
	if (!u)
		return CHECK_DONE();
	test_tables();
	test_plt(u);
	test_entry_code(u);
	test_identity(u);
	alarm(60); /* a blocking open must not hang the suite */
	test_hostile_paths(u);
	alarm(0);
	test_vdso(u);
	test_self(u);
	unwinder__stats(u, &st);
	CHECKF("stats", st.samples >= 8 && st.objects >= 3 && st.fdes_compiled >= 3,
	       "samples %llu objects %llu compiled %llu", (unsigned long long)st.samples,
	       (unsigned long long)st.objects, (unsigned long long)st.fdes_compiled);
	unwinder__free(u);
	return CHECK_DONE();
}
