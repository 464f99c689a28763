// SPDX-License-Identifier: MIT
/*
 * The unwinder (unwind/unwind.h): the cache of ELF objects and their unwind
 * tables, each process's executable mappings, and the glue from a perf
 * sample to the pure walk of unwind/unwind_table.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "unwind/unwind.h"
#include "utils/procmaps.h"
#include "unwind/unwind_cfi.h"
#include "unwind/unwind_table.h"

_Static_assert(UNWIND_COMPLETE == UNW_F_COMPLETE && UNWIND_FP_FALLBACK == UNW_F_FP_FALLBACK &&
		       UNWIND_SIGNAL_FRAME == UNW_F_SIGNAL_FRAME &&
		       UNWIND_TRUNC_STACK == UNW_F_TRUNC_STACK &&
		       UNWIND_TRUNC_NO_MAP == UNW_F_TRUNC_NO_MAP &&
		       UNWIND_TRUNC_NO_CFI == UNW_F_TRUNC_NO_CFI &&
		       UNWIND_TRUNC_UNSUPPORTED == UNW_F_TRUNC_UNSUPPORTED &&
		       UNWIND_TRUNC_LOOP == UNW_F_TRUNC_LOOP &&
		       UNWIND_TRUNC_DEPTH == UNW_F_TRUNC_DEPTH &&
		       UNWIND_TRUNC_NO_REGS == UNW_F_TRUNC_NO_REGS &&
		       UNWIND_TRUNCATED == UNW_F_TRUNCATED,
	       "unwind/unwind.h and unwind/unwind_table.h flags differ");

#define PROC_BUCKETS 1024
#define OBJ_BUCKETS 1024
#define VDSO_PATH "[vdso]"

enum obj_state { OBJ_NEW, OBJ_READY, OBJ_FAILED };

struct load_seg {
	uint64_t offset, vaddr, filesz;
};

/* One ELF file, shared by every mapping of it. */
struct unw_object {
	char *path;
	uint64_t dev, ino; /* 0: unknown */
	enum obj_state state;
	struct unw_table table;
	Elf *elf; /* open while the object is READY: FDEs are compiled on demand */
	struct unw_cfi *cfi;
	char *image; /* the vDSO's copy, under elf */
	struct load_seg *loads;
	size_t nloads;
	uint64_t entry, entry_end; /* the ELF entry code when no CFI covers it, else 0, 0 */
	char why[160];
	struct unw_object *next;
};

struct unw_proc {
	pid_t pid;
	struct unw_maps maps;
	struct unw_proc *next;
};

struct unwinder {
	struct unw_proc *procs[PROC_BUCKETS];
	struct unw_object *objs[OBJ_BUCKETS];
	struct unwinder_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct unwinder *unwinder__new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct unwinder));
}

static void free_proc(struct unw_proc *p)
{
	unw_maps_free(&p->maps);
	free(p);
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (int b = 0; b < PROC_BUCKETS; b++) {
		while (u->procs[b]) {
			struct unw_proc *n = u->procs[b]->next;

			free_proc(u->procs[b]);
			u->procs[b] = n;
		}
	}
	for (int b = 0; b < OBJ_BUCKETS; b++) {
		while (u->objs[b]) {
			struct unw_object *n = u->objs[b]->next;

			unw_cfi_close(u->objs[b]->cfi);
			if (u->objs[b]->elf)
				elf_end(u->objs[b]->elf);
			free(u->objs[b]->image);
			unw_table_free(&u->objs[b]->table);
			free(u->objs[b]->loads);
			free(u->objs[b]->path);
			free(u->objs[b]);
			u->objs[b] = n;
		}
	}
	free(u);
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st)
{
	*st = u->st;
}

/* ---- objects ---------------------------------------------------------- */

static unsigned int hash_obj(const char *path, uint64_t dev, uint64_t ino)
{
	uint64_t h = 1469598103934665603ull ^ dev ^ (ino * 31);

	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return (unsigned int)(h % OBJ_BUCKETS);
}

/* The object for (path, dev, ino), created unopened; NULL on out-of-memory. */
static struct unw_object *get_object(struct unwinder *u, const char *path, uint64_t dev,
				     uint64_t ino)
{
	unsigned int b = hash_obj(path, dev, ino);
	struct unw_object *o;

	for (o = u->objs[b]; o; o = o->next)
		if (o->dev == dev && o->ino == ino && !strcmp(o->path, path))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->dev = dev;
	o->ino = ino;
	o->next = u->objs[b];
	u->objs[b] = o;
	return o;
}

static int read_loads(Elf *elf, struct unw_object *o)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return -EINVAL;
	o->loads = calloc(n ? n : 1, sizeof(*o->loads));
	if (!o->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads[o->nloads].offset = ph.p_offset;
		o->loads[o->nloads].vaddr = ph.p_vaddr;
		o->loads[o->nloads].filesz = ph.p_filesz;
		o->nloads++;
	}
	return 0;
}

/*
 * The vDSO is not a file: the recorder's own is the same image (one kernel),
 * copied because libelf wants a writable buffer.  Its size: the section
 * headers end the image.
 */
static Elf *open_vdso(char **image, char *why, size_t whylen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64) {
		snprintf(why, whylen, "no 64-bit vDSO in this process");
		return NULL;
	}
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1u << 20)) {
		snprintf(why, whylen, "the vDSO image has an unexpected size");
		return NULL;
	}
	*image = malloc(size);
	if (!*image) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	memcpy(*image, eh, size);
	return elf_memory(*image, size);
}

/* Open the file, check it is the one that was mapped; libelf maps it, so the fd is not kept. */
static Elf *open_file(struct unw_object *o)
{
	struct stat st;
	Elf *elf = NULL;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(o->why, sizeof(o->why), "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || ((o->dev || o->ino) && ((uint64_t)st.st_dev != o->dev ||
							  (uint64_t)st.st_ino != o->ino)))
		snprintf(o->why, sizeof(o->why), "the file is not the one that was mapped");
	else
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_cntl(elf, ELF_C_FDDONE) < 0) {
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	return elf;
}

/*
 * The entry code (e_entry up to the next FDE) when the CFI does not cover
 * it: ld.so's _start on Debian 12 has none, so the samples taken while
 * ld.so relocates a new process would otherwise end there as truncated.
 * Nothing calls an entry point: it is the outermost frame.
 */
static void find_entry_code(struct unw_object *o)
{
	GElf_Ehdr eh;
	uint64_t end;

	if (!gelf_getehdr(o->elf, &eh) || !eh.e_entry || unw_table_find_fde(&o->table, eh.e_entry))
		return;
	end = eh.e_entry + 4096;
	for (size_t i = 0; i < o->table.nfdes; i++) {
		if (o->table.fdes[i].start > eh.e_entry) {
			if (o->table.fdes[i].start < end)
				end = o->table.fdes[i].start;
			break;
		}
	}
	o->entry = eh.e_entry;
	o->entry_end = end;
}

/* Open the object and list its FDEs (once); rows come later, FDE by FDE. */
static void load_object(struct unwinder *u, struct unw_object *o)
{
	uint64_t t0 = now_ns();

	o->state = OBJ_FAILED;
	u->st.objects++;
	if (!strcmp(o->path, VDSO_PATH))
		o->elf = open_vdso(&o->image, o->why, sizeof(o->why));
	else
		o->elf = open_file(o);
	if (!o->elf) {
		if (!o->why[0])
			snprintf(o->why, sizeof(o->why), "not an ELF file: %s", elf_errmsg(-1));
	} else if (elf_kind(o->elf) != ELF_K_ELF || read_loads(o->elf, o) < 0) {
		snprintf(o->why, sizeof(o->why), "not an ELF file");
	} else if (unw_cfi_open(o->elf, &o->table, &o->cfi, o->why, sizeof(o->why)) == 0 &&
		   o->cfi) {
		o->state = OBJ_READY;
		u->st.fdes += o->table.nfdes;
		find_entry_code(o);
	}
	if (o->state != OBJ_READY) {
		u->st.objects_no_cfi++;
		if (o->elf)
			elf_end(o->elf);
		o->elf = NULL;
		free(o->image);
		o->image = NULL;
	}
	u->st.build_ns += now_ns() - t0;
}

/* The row of an address of o, compiling its FDE on first use; NULL: no CFI there. */
static const struct unw_row *object_row(struct unwinder *u, struct unw_object *o, uint64_t addr)
{
	static const struct unw_row outermost = {.cfa_kind = UNW_CFA_REG,
						 .cfa_reg = UNW_REG_RSP,
						 .cfa_off = 8,
						 .ra_kind = UNW_LOC_UNDEFINED};
	struct unw_fde *fde = unw_table_find_fde(&o->table, addr);

	if (!fde)
		return addr >= o->entry && addr < o->entry_end ? &outermost : NULL;
	if (fde->state == UNW_FDE_NEW) {
		uint64_t t0 = now_ns();
		size_t before = o->table.nrows;

		unw_cfi_compile_fde(o->cfi, &o->table, fde);
		u->st.fdes_compiled++;
		u->st.rows += o->table.nrows - before;
		u->st.build_ns += now_ns() - t0;
	}
	return unw_table_fde_row(&o->table, fde, addr);
}

/* runtime - link-time address for a mapping of o: the PT_LOAD holding its file offset. */
static int compute_bias(const struct unw_object *o, struct unw_map *m)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct load_seg *l = &o->loads[i];
		uint64_t page_start = l->offset & ~(uint64_t)0xfff;

		if (m->pgoff >= page_start && m->pgoff < l->offset + l->filesz) {
			m->bias = (int64_t)(m->start - m->pgoff + l->offset - l->vaddr);
			m->bias_state = 1;
			return 0;
		}
	}
	m->bias_state = -1;
	return -1;
}

/* ---- processes -------------------------------------------------------- */

static unsigned int hash_pid(pid_t pid)
{
	return ((unsigned int)pid * 2654435761u) % PROC_BUCKETS;
}

static struct unw_proc *find_proc(struct unwinder *u, pid_t pid)
{
	for (struct unw_proc *p = u->procs[hash_pid(pid)]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct unw_proc *get_proc(struct unwinder *u, pid_t pid)
{
	struct unw_proc *p = find_proc(u, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = u->procs[hash_pid(pid)];
	u->procs[hash_pid(pid)] = p;
	return p;
}

void unwinder__forget(struct unwinder *u, pid_t pid)
{
	for (struct unw_proc **pp = &u->procs[hash_pid(pid)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->pid == pid) {
			struct unw_proc *p = *pp;

			*pp = p->next;
			free_proc(p);
			return;
		}
	}
}

int unwinder__fork(struct unwinder *u, pid_t ppid, pid_t pid)
{
	struct unw_proc *parent = find_proc(u, ppid), *child;
	struct unw_maps copy;

	unwinder__forget(u, pid);
	if (!parent)
		return 0;
	if (unw_maps_copy(&copy, &parent->maps) < 0)
		return -ENOMEM;
	child = get_proc(u, pid);
	if (!child) {
		unw_maps_free(&copy);
		return -ENOMEM;
	}
	child->maps = copy;
	return 0;
}

/* Mappings whose name is not a file: anonymous (JIT) code, or pseudo-files. */
static int is_file_path(const char *path)
{
	return path[0] == '/' && strncmp(path, "//anon", 6);
}

int unwinder__add_map(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		      uint64_t dev, uint64_t ino, const char *path)
{
	struct unw_object *obj = NULL;
	struct unw_proc *p;

	if (start >= end)
		return -EINVAL;
	if (!path)
		path = "";
	if (!strcmp(path, VDSO_PATH))
		obj = get_object(u, VDSO_PATH, 0, 0);
	else if (is_file_path(path))
		obj = get_object(u, path, dev, ino);
	if ((is_file_path(path) || !strcmp(path, VDSO_PATH)) && !obj)
		return -ENOMEM;
	p = get_proc(u, pid);
	if (!p)
		return -ENOMEM;
	return unw_maps_insert(&p->maps, start, end, pgoff, obj);
}

struct maps_ctx {
	struct unwinder *u;
	pid_t pid;
};

static int add_proc_map(void *arg, const struct procmap *m)
{
	struct maps_ctx *c = arg;

	if (!(m->prot & PROT_EXEC))
		return 0;
	return unwinder__add_map(c->u, c->pid, m->start, m->end, m->offset,
				 makedev(m->dev_major, m->dev_minor), m->inode, m->path);
}

int unwinder__read_proc_maps(struct unwinder *u, pid_t pid)
{
	struct maps_ctx c = {u, pid};

	return procmaps__for_each(pid, add_proc_map, &c);
}

/* ---- unwinding -------------------------------------------------------- */

struct walk_ctx {
	struct unwinder *u;
	struct unw_proc *proc;
};

static void find_row(void *arg, uint64_t lookup_pc, struct unw_found *out)
{
	struct walk_ctx *c = arg;
	struct unw_map *m = c->proc ? unw_maps_find(&c->proc->maps, lookup_pc) : NULL;
	struct unw_object *o;

	if (!m)
		return;
	out->mapped = 1;
	o = m->obj;
	if (!o)
		return; /* anonymous code: frame pointers */
	if (o->state == OBJ_NEW)
		load_object(c->u, o);
	if (o->state != OBJ_READY || (m->bias_state == 0 && compute_bias(o, m) < 0) ||
	    m->bias_state < 0)
		return;
	out->row = object_row(c->u, o, lookup_pc - (uint64_t)m->bias);
}

/* perf's x86 register numbers (PERF_REG_X86_*) to DWARF's, -1 for the others. */
static const signed char perf_to_dwarf[24] = {
	UNW_REG_RAX, UNW_REG_RBX, UNW_REG_RCX, UNW_REG_RDX, UNW_REG_RSI, UNW_REG_RDI,
	UNW_REG_RBP, UNW_REG_RSP, UNW_REG_RIP, -1,	    -1,		 -1,
	-1,	     -1,	  -1,	       -1,	    8,		 9,
	10,	     11,	  12,	       13,	    14,		 15,
};

static void leaf_regs(const uint64_t *regs, uint64_t mask, struct unw_regs *out)
{
	int i = 0;

	memset(out, 0, sizeof(*out));
	for (int bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		if (bit < 24 && perf_to_dwarf[bit] >= 0) {
			out->r[perf_to_dwarf[bit]] = regs[i];
			out->valid |= 1u << perf_to_dwarf[bit];
		}
		i++;
	}
}

int unwinder__unwind(struct unwinder *u, pid_t pid, const uint64_t *regs, uint64_t regs_mask,
		     const void *stack, size_t stack_size, uint64_t *pcs, int max,
		     unsigned int *flags)
{
	struct walk_ctx c = {u, find_proc(u, pid)};
	struct unw_regs leaf;
	struct unw_stack st;
	int n;

	leaf_regs(regs, regs_mask, &leaf);
	st.base = leaf.r[UNW_REG_RSP];
	st.data = stack;
	st.size = stack ? stack_size : 0;
	n = unw_walk(&leaf, &st, find_row, &c, pcs, max, flags);
	u->st.samples++;
	u->st.complete += (*flags & UNWIND_COMPLETE) != 0;
	u->st.frames += (uint64_t)n;
	return n;
}
