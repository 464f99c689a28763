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

#include <elfutils/libdwelf.h>

#include "unwind/unwind.h"
#include "utils/procmaps.h"
#include "unwind/unwind_cfi.h"
#include "unwind/unwind_table.h"
#include "utils/regfile.h"

_Static_assert(UNWIND_COMPLETE == UNW_F_COMPLETE && UNWIND_FP_FALLBACK == UNW_F_FP_FALLBACK &&
		       UNWIND_SIGNAL_FRAME == UNW_F_SIGNAL_FRAME &&
		       UNWIND_TRUNC_STACK == UNW_F_TRUNC_STACK &&
		       UNWIND_TRUNC_NO_MAP == UNW_F_TRUNC_NO_MAP &&
		       UNWIND_TRUNC_NO_CFI == UNW_F_TRUNC_NO_CFI &&
		       UNWIND_TRUNC_UNSUPPORTED == UNW_F_TRUNC_UNSUPPORTED &&
		       UNWIND_TRUNC_LOOP == UNW_F_TRUNC_LOOP &&
		       UNWIND_TRUNC_DEPTH == UNW_F_TRUNC_DEPTH &&
		       UNWIND_TRUNC_NO_REGS == UNW_F_TRUNC_NO_REGS &&
		       UNWIND_TRUNC_BOUND == UNW_F_TRUNC_BOUND &&
		       UNWIND_TRUNCATED == UNW_F_TRUNCATED,
	       "unwind/unwind.h and unwind/unwind_table.h flags differ");

#define PROC_BUCKETS 1024
#define OBJ_BUCKETS 1024
#define VDSO_PATH "[vdso]"
/*
 * Objects whose file is held open (mapped by libelf) from their first
 * mapping on, before a sample needs them: a library deleted or replaced
 * soon after it was mapped still has its CFI.  Past this many, files are
 * opened on first use (by path, checked).
 */
#define MAX_PINNED 4096

enum obj_state { OBJ_NEW, OBJ_READY, OBJ_FAILED };

struct load_seg {
	uint64_t offset, vaddr, filesz;
};

/*
 * One ELF file, shared by every mapping of it.  Identified by what was
 * mapped: its build id when the kernel gave it (MMAP2 with build ids),
 * else its device and inode; by path only when neither is known (the vDSO).
 */
struct unw_object {
	char *path;	   /* where it was mapped from (the first mapping's) */
	uint64_t dev, ino; /* 0: unknown */
	uint8_t build_id[UNWIND_BUILD_ID_MAX];
	uint8_t build_id_len; /* 0: unknown */
	enum obj_state state;
	struct unw_table table;
	Elf *elf; /* open while the object is READY: FDEs are compiled on demand */
	struct unw_cfi *cfi;
	char *image; /* the vDSO's copy, under elf */
	struct load_seg *loads;
	size_t nloads;
	uint64_t entry, entry_end; /* the ELF entry code when no CFI covers it, else 0, 0 */
	uint64_t build_ns;	   /* time spent opening it and compiling its rows */
	int over_bound;		   /* counted once in objects_over_bound */
	size_t next_fde;	   /* unwinder__object_compile: FDEs before it are compiled */
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
	size_t pinned; /* objects whose file was opened at their first mapping */
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

/* What a mapping says of its file. */
struct obj_id {
	const char *path;
	uint64_t dev, ino;
	const uint8_t *build_id;
	size_t build_id_len;
};

static unsigned int hash_obj(const struct obj_id *id)
{
	uint64_t h = 1469598103934665603ull;

	if (id->build_id_len) {
		for (size_t i = 0; i < id->build_id_len; i++)
			h = (h ^ id->build_id[i]) * 1099511628211ull;
	} else if (id->dev || id->ino) {
		h ^= id->dev ^ (id->ino * 31);
	} else {
		for (const char *p = id->path; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
	}
	return (unsigned int)(h % OBJ_BUCKETS);
}

static int same_object(const struct unw_object *o, const struct obj_id *id)
{
	if (id->build_id_len)
		return o->build_id_len == id->build_id_len &&
		       !memcmp(o->build_id, id->build_id, id->build_id_len);
	if (o->build_id_len)
		return 0;
	if (id->dev || id->ino)
		return o->dev == id->dev && o->ino == id->ino;
	return !o->dev && !o->ino && !strcmp(o->path, id->path);
}

/* The object of a mapping, created unopened; *created tells; NULL on out-of-memory. */
static struct unw_object *get_object(struct unwinder *u, const struct obj_id *id, int *created)
{
	unsigned int b = hash_obj(id);
	struct unw_object *o;

	*created = 0;
	for (o = u->objs[b]; o; o = o->next)
		if (same_object(o, id))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = strdup(id->path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->dev = id->dev;
	o->ino = id->ino;
	if (id->build_id_len && id->build_id_len <= sizeof(o->build_id)) {
		memcpy(o->build_id, id->build_id, id->build_id_len);
		o->build_id_len = (uint8_t)id->build_id_len;
	}
	o->next = u->objs[b];
	u->objs[b] = o;
	*created = 1;
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

/* 1 when the file is the object that was mapped (dev/ino, or build id), else 0. */
static int is_mapped_file(const struct unw_object *o, Elf *elf, const struct stat *st)
{
	const void *id;
	ssize_t n;

	if ((o->dev || o->ino) &&
	    ((uint64_t)st->st_dev != o->dev || (uint64_t)st->st_ino != o->ino))
		return 0;
	if (!o->build_id_len)
		return 1;
	n = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	return n == (ssize_t)o->build_id_len && !memcmp(id, o->build_id, o->build_id_len);
}

/*
 * Open the object's file: path is /proc/PID/map_files/START-END (the mapped
 * inode itself, while the mapping lives) or the mapping's path.  Never
 * blocks and opens nothing but a regular file (no FIFO, no device, whatever
 * was planted there: regfile__open), and only the file that was
 * mapped.  libelf maps it, so the descriptor is not kept (the mapping
 * holds the inode).  NULL with o->why set when not.
 */
static Elf *open_file(struct unw_object *o, const char *path)
{
	struct stat st;
	Elf *elf;
	int fd = regfile__open(path, &st);

	if (fd < 0) {
		snprintf(o->why, sizeof(o->why), "cannot open: %s",
			 fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_cntl(elf, ELF_C_FDDONE) < 0 || !is_mapped_file(o, elf, &st))) {
		snprintf(o->why, sizeof(o->why), "the file is not the one that was mapped");
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	return elf;
}

/*
 * A new object's file while its first mapping lives: through
 * /proc/PID/map_files (root; the very inode, even deleted or replaced
 * since), so that a library unlinked or rewritten soon after it was
 * mapped still unwinds.  Kept for load_object; no error if it fails.
 */
static void pin_object(struct unwinder *u, struct unw_object *o, pid_t pid, uint64_t start,
		       uint64_t end)
{
	char path[96];

	if (u->pinned >= MAX_PINNED || !pid)
		return;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	o->elf = open_file(o, path);
	o->why[0] = 0;
	u->pinned += o->elf != NULL;
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

/* Time spent on o, and whether its CFI reached a bound, into the stats. */
static void account_object(struct unwinder *u, struct unw_object *o, uint64_t t0)
{
	uint64_t ns = now_ns() - t0;
	struct unw_cfi_stats cs;

	u->st.build_ns += ns;
	o->build_ns += ns;
	if (o->build_ns > u->st.max_object_ns)
		u->st.max_object_ns = o->build_ns;
	if (!o->cfi || o->over_bound)
		return;
	unw_cfi_get_stats(o->cfi, &cs);
	if (cs.over_bound) {
		o->over_bound = 1;
		u->st.objects_over_bound++;
	}
}

/* Open the object and list its FDEs (once); rows come later, FDE by FDE. */
static void load_object(struct unwinder *u, struct unw_object *o)
{
	uint64_t t0 = now_ns();

	o->state = OBJ_FAILED;
	u->st.objects++;
	if (!strcmp(o->path, VDSO_PATH))
		o->elf = open_vdso(&o->image, o->why, sizeof(o->why));
	else if (!o->elf) /* not pinned at its first mapping: by path, checked */
		o->elf = open_file(o, o->path);
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
	account_object(u, o, t0);
}

/* The row of an address of o, compiling its FDE on first use; row NULL: no CFI there. */
static void object_row(struct unwinder *u, struct unw_object *o, uint64_t addr,
		       struct unw_found *out)
{
	static const struct unw_row outermost = {.cfa_kind = UNW_CFA_REG,
						 .cfa_reg = UNW_REG_RSP,
						 .cfa_off = 8,
						 .ra_kind = UNW_LOC_UNDEFINED};
	struct unw_fde *fde = unw_table_find_fde(&o->table, addr);

	if (!fde) {
		out->row = addr >= o->entry && addr < o->entry_end ? &outermost : NULL;
		return;
	}
	if (fde->state == UNW_FDE_NEW) {
		uint64_t t0 = now_ns();
		size_t before = o->table.nrows;

		unw_cfi_compile_fde(o->cfi, &o->table, fde);
		u->st.fdes_compiled++;
		u->st.fdes_bound += fde->state == UNW_FDE_BOUND;
		u->st.rows += o->table.nrows - before;
		account_object(u, o, t0);
	}
	out->bound = fde->state == UNW_FDE_BOUND;
	out->row = unw_table_fde_row(&o->table, fde, addr);
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

/* ---- whole objects, for the in-kernel walk's tables ------------------------ */

static int is_file_path(const char *path);

static int is_file_path_or_vdso(const char *path)
{
	return is_file_path(path) || !strcmp(path, VDSO_PATH);
}

struct unw_object *unwinder__object(struct unwinder *u, const char *path, uint64_t dev,
				    uint64_t ino)
{
	struct obj_id id = {.path = path, .dev = dev, .ino = ino};
	int created;

	if (!path || (!is_file_path_or_vdso(path)))
		return NULL;
	if (!strcmp(path, VDSO_PATH))
		id.dev = id.ino = 0;
	return get_object(u, &id, &created);
}

int unwinder__object_compile(struct unwinder *u, struct unw_object *o, uint64_t budget_ns)
{
	uint64_t t0 = now_ns();

	if (o->state == OBJ_NEW)
		load_object(u, o);
	if (o->state != OBJ_READY)
		return 0;
	while (o->next_fde < o->table.nfdes) {
		struct unw_fde *fde = &o->table.fdes[o->next_fde];
		size_t before = o->table.nrows;

		if (fde->state == UNW_FDE_NEW) {
			if (unw_cfi_compile_fde(o->cfi, &o->table, fde) < 0)
				return -ENOMEM;
			u->st.fdes_compiled++;
			u->st.fdes_bound += fde->state == UNW_FDE_BOUND;
			u->st.rows += o->table.nrows - before;
		}
		o->next_fde++;
		if ((o->next_fde & 63) == 0 && now_ns() - t0 > budget_ns) {
			u->st.build_ns += now_ns() - t0;
			return o->next_fde < o->table.nfdes ? -EAGAIN : 0;
		}
	}
	u->st.build_ns += now_ns() - t0;
	return 0;
}

const struct unw_table *unwinder__object_table(const struct unw_object *o, uint64_t *entry,
					       uint64_t *entry_end, const char **why)
{
	*entry = o->entry;
	*entry_end = o->entry_end;
	*why = o->why[0] ? o->why : "no CFI";
	return o->state == OBJ_READY ? &o->table : NULL;
}

int unwinder__object_bias(const struct unw_object *o, uint64_t start, uint64_t pgoff, int64_t *bias)
{
	struct unw_map m = {.start = start, .pgoff = pgoff};

	if (o->state != OBJ_READY || compute_bias(o, &m) < 0)
		return -1;
	*bias = m.bias;
	return 0;
}

void unwinder__object_release(struct unwinder *u, struct unw_object *o)
{
	(void)u;
	unw_cfi_close(o->cfi);
	o->cfi = NULL;
	if (o->elf)
		elf_end(o->elf);
	o->elf = NULL;
	free(o->image);
	o->image = NULL;
	unw_table_free(&o->table);
	free(o->loads);
	o->loads = NULL;
	o->nloads = 0;
	o->entry = o->entry_end = 0;
	o->next_fde = 0;
	o->why[0] = 0;
	o->state = OBJ_NEW;
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

static int add_map(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		   const struct obj_id *id)
{
	struct unw_object *obj = NULL;
	struct unw_proc *p;
	int created = 0;

	if (start >= end)
		return -EINVAL;
	if (!strcmp(id->path, VDSO_PATH)) {
		struct obj_id vdso = {.path = VDSO_PATH};

		obj = get_object(u, &vdso, &created);
	} else if (is_file_path(id->path)) {
		obj = get_object(u, id, &created);
	}
	if ((is_file_path(id->path) || !strcmp(id->path, VDSO_PATH)) && !obj)
		return -ENOMEM;
	if (created && is_file_path(id->path))
		pin_object(u, obj, pid, start, end);
	p = get_proc(u, pid);
	if (!p)
		return -ENOMEM;
	return unw_maps_insert(&p->maps, start, end, pgoff, obj);
}

int unwinder__add_map(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		      uint64_t dev, uint64_t ino, const char *path)
{
	struct obj_id id = {.path = path ? path : "", .dev = dev, .ino = ino};

	return add_map(u, pid, start, end, pgoff, &id);
}

int unwinder__add_map_build_id(struct unwinder *u, pid_t pid, uint64_t start, uint64_t end,
			       uint64_t pgoff, const uint8_t *build_id, size_t len,
			       const char *path)
{
	struct obj_id id = {.path = path ? path : "", .build_id = build_id, .build_id_len = len};

	if (len > UNWIND_BUILD_ID_MAX)
		id.build_id_len = 0;
	return add_map(u, pid, start, end, pgoff, &id);
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
	object_row(c->u, o, lookup_pc - (uint64_t)m->bias, out);
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
