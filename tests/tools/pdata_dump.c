// SPDX-License-Identifier: MIT
/*
 * pdata_dump FILE: the test suite's view of a profil.data file, independent
 * of `profil report`.  One line per fact, easy to grep and awk:
 *
 *   header KEY=VALUE ...
 *   note TEXT / command TEXT
 *   proc id=N parent=N pid=N ppid=N end_kind=N end_code=N cpu_ns=N user_ns=N sys_ns=N exe=PATH
 *   thread proc=N tid=N comm=NAME cpu_ns=N user_ns=N sys_ns=N
 *   ksym start=0x.. size=N name=NAME
 *   map proc=N start=0x.. end=0x.. pgoff=0x.. prot=N build_id=HEX|- path=PATH
 *   gen id=N proc=N gen=N                 a mapping generation of image proc (format 4)
 *   tid proc=N tid=N samples=N            samples per thread
 *   obj proc=N samples=N path=PATH        samples per mapped object ("?" = no mapping)
 *   func proc=N samples=N name=SYMBOL     samples per function (ELF .symtab or .dynsym;
 *                                         kernel PCs: obj "[kernel]", names from the ksym records)
 *   offcpu header ns=N lost=N source=NAME  format 3: the off-CPU totals
 *   note topic=TOPIC TEXT                 format 3: what a part of the recorder says
 *   offtid proc=N tid=N kind=REASON ns=N  off-CPU nanoseconds per thread and reason
 *   offfunc proc=N kind=REASON ns=N name=SYMBOL  off-CPU ns per leaf user function (the
 *                                         first user PC of the stack; "?" unknown)
 *   (thread lines of format 3 also end with life_ns=N offcpu_ns=N)
 *
 * obj and func lines are per process image (a generation's samples are its
 * image's), each PC named through the mappings of its sample's generation:
 * of those covering it recorded in that generation or an earlier one, the
 * newest generation's, then the latest record.
 *
 * Exit status 1 (and one line on stderr) when the file cannot be opened.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/pdata.h"

struct map {
	uint32_t proc;
	uint64_t start, end, pgoff;
	const char *path;
};

static struct map *maps;
static size_t nmaps;

struct gen {
	uint32_t id, proc, gen;
};
static struct gen *gens;
static size_t ngens;

/* The image of a proc or generation id, and the generation (records come in order). */
static uint32_t image_of(uint32_t id, uint32_t *gen)
{
	*gen = 0;
	for (size_t i = 0; i < ngens; i++)
		if (gens[i].id == id) {
			*gen = gens[i].gen;
			return gens[i].proc;
		}
	return id;
}

struct ksym {
	uint64_t start, size;
	char *name;
};
static struct ksym *ksyms;
static size_t nksyms;

static const char *ksym_name(uint64_t pc)
{
	const struct ksym *best = NULL;

	for (size_t i = 0; i < nksyms; i++)
		if (ksyms[i].start <= pc && (!best || ksyms[i].start > best->start))
			best = &ksyms[i];
	if (!best || (best->size && pc - best->start >= best->size))
		return "?";
	return best->name;
}

static int on_rec(void *arg, const struct pdata_rec *rec)
{
	(void)arg;
	switch (rec->type) {
	case PDATA_REC_PROC: {
		const struct pdata_proc *p = (const void *)rec;

		printf("proc id=%u parent=%u pid=%d ppid=%d end_kind=%d end_code=%d cpu_ns=%llu "
		       "user_ns=%llu sys_ns=%llu exe=%s\n",
		       p->id, p->parent, p->pid, p->ppid, p->end_kind, p->end_code,
		       (unsigned long long)p->cpu.cpu_ns, (unsigned long long)p->cpu.user_ns,
		       (unsigned long long)p->cpu.sys_ns, p->exe);
		break;
	}
	case PDATA_REC_THREAD: {
		const struct pdata_thread *t = (const void *)rec;

		printf("thread proc=%u tid=%d comm=%.16s cpu_ns=%llu user_ns=%llu sys_ns=%llu",
		       t->proc, t->tid, t->comm, (unsigned long long)t->cpu.cpu_ns,
		       (unsigned long long)t->cpu.user_ns, (unsigned long long)t->cpu.sys_ns);
		if (rec->size >= sizeof(*t))
			printf(" life_ns=%llu offcpu_ns=%llu", (unsigned long long)t->life_ns,
			       (unsigned long long)t->offcpu_ns);
		printf("\n");
		break;
	}
	case PDATA_REC_NOTE: {
		const struct pdata_note *n = (const void *)rec;

		printf("note topic=%.16s %s\n", n->topic, n->text);
		break;
	}
	case PDATA_REC_KSYM: {
		const struct pdata_ksym *k = (const void *)rec;

		printf("ksym start=%#llx size=%llu name=%s\n", (unsigned long long)k->start,
		       (unsigned long long)k->size, k->name);
		ksyms = realloc(ksyms, (nksyms + 1) * sizeof(*ksyms));
		ksyms[nksyms++] = (struct ksym){k->start, k->size, strdup(k->name)};
		break;
	}
	case PDATA_REC_GEN: {
		const struct pdata_gen *g = (const void *)rec;

		printf("gen id=%u proc=%u gen=%u\n", g->id, g->proc, g->gen);
		gens = realloc(gens, (ngens + 1) * sizeof(*gens));
		gens[ngens++] = (struct gen){g->id, g->proc, g->gen};
		break;
	}
	case PDATA_REC_PROC_CTX: {
		const struct pdata_proc_ctx *c = (const void *)rec;

		printf("ctx proc=%u nspid=%d flags=%#x cgroup=%s\n", c->proc, c->nspid, c->flags,
		       c->cgroup);
		break;
	}
	case PDATA_REC_MAP: {
		const struct pdata_map *m = (const void *)rec;

		char id[2 * sizeof(m->build_id) + 1] = "-";

		for (unsigned k = 0; k < m->build_id_len && k < sizeof(m->build_id); k++)
			sprintf(id + 2 * k, "%02x", m->build_id[k]);
		printf("map proc=%u start=%#llx end=%#llx pgoff=%#llx prot=%u build_id=%s "
		       "path=%s\n",
		       m->proc, (unsigned long long)m->start, (unsigned long long)m->end,
		       (unsigned long long)m->pgoff, m->prot, id, m->path);
		maps = realloc(maps, (nmaps + 1) * sizeof(*maps));
		/* the record is a copy that lives only during the callback */
		maps[nmaps++] = (struct map){m->proc, m->start, m->end, m->pgoff, strdup(m->path)};
		break;
	}
	}
	return 0;
}

/* ELF symbol lookup by file offset, with a small cache of open files. */
struct elf_file {
	const char *path;
	Elf *elf;
	int fd;
};
static struct elf_file *elves;
static size_t nelves;

static Elf *elf_for(const char *path)
{
	for (size_t i = 0; i < nelves; i++)
		if (!strcmp(elves[i].path, path))
			return elves[i].elf;
	elves = realloc(elves, (nelves + 1) * sizeof(*elves));
	elves[nelves].path = path;
	elves[nelves].fd = open(path, O_RDONLY);
	elves[nelves].elf =
		elves[nelves].fd >= 0 ? elf_begin(elves[nelves].fd, ELF_C_READ, NULL) : NULL;
	return elves[nelves++].elf;
}

static char *symbol_at(const char *path, uint64_t off)
{
	Elf *elf = elf_for(path);
	uint64_t vaddr = 0;
	size_t nph = 0;
	int found = 0;
	char *best = NULL;

	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return NULL;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			vaddr = off - ph.p_offset + ph.p_vaddr;
			found = 1;
			break;
		}
	}
	if (!found)
		return NULL;
	for (int pass = 0; pass < 2 && !best; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn)) && !best) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
				continue;
			data = elf_getdata(scn, NULL);
			for (size_t k = 0; data && k < sh.sh_size / sh.sh_entsize; k++) {
				GElf_Sym sym;

				if (!gelf_getsym(data, (int)k, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
					continue;
				if (vaddr >= sym.st_value && vaddr < sym.st_value + sym.st_size) {
					best = strdup(elf_strptr(elf, sh.sh_link, sym.st_name));
					break;
				}
			}
		}
	}
	return best;
}

/* Samples summed by (kind, proc, name). */
struct named {
	const char *kind;
	uint32_t proc;
	char *name;
	uint64_t samples;
};
static struct named *aggs;
static size_t naggs;

static void add(const char *kind, uint32_t proc, const char *name, uint64_t n)
{
	for (size_t i = 0; i < naggs; i++)
		if (aggs[i].kind == kind && aggs[i].proc == proc && !strcmp(aggs[i].name, name)) {
			aggs[i].samples += n;
			return;
		}
	aggs = realloc(aggs, (naggs + 1) * sizeof(*aggs));
	aggs[naggs++] = (struct named){kind, proc, strdup(name), n};
}

static const char TID[] = "tid", OBJ[] = "obj", FUNC[] = "func";
static const char OFFTID[] = "offtid", OFFFUNC[] = "offfunc";

/* The mapping of pc for a sample under id (an image's, or a generation's). */
static const struct map *map_at(uint32_t id, uint64_t pc)
{
	uint32_t gen, proc = image_of(id, &gen), best_gen = 0;
	const struct map *m = NULL;

	for (size_t i = 0; i < nmaps; i++) {
		uint32_t mgen, mproc = image_of(maps[i].proc, &mgen);

		if (mproc == proc && mgen <= gen && (!m || mgen >= best_gen) &&
		    pc >= maps[i].start && pc < maps[i].end) {
			m = &maps[i]; /* the latest mapping of the newest generation wins */
			best_gen = mgen;
		}
	}
	return m;
}

static const char *func_at(uint32_t id, uint64_t pc, char **sym)
{
	const struct map *m = map_at(id, pc);

	*sym = NULL;
	if (m && m->path[0] == '/')
		*sym = symbol_at(m->path, pc - m->start + m->pgoff);
	return *sym ? *sym : "?";
}

/* An off-CPU slot: per thread and reason, and per leaf user function and reason. */
static void on_offcpu(struct pdata *p, const struct pdata_sample *s)
{
	uint64_t pcs[PDATA_MAX_DEPTH], pc = s->pc;
	char name[300], *sym;
	int n = s->stack ? pdata__stack(p, s->stack, pcs, PDATA_MAX_DEPTH) : 0;
	uint32_t gen, proc = image_of(s->proc, &gen);

	for (int i = 0; i < n; i++)
		if (pcs[i] < PDATA_KERNEL_START) {
			pc = pcs[i];
			break;
		}
	snprintf(name, sizeof(name), "%d kind=%s", s->tid, pdata__kind_name(s->kind));
	add(OFFTID, proc, name, s->count);
	snprintf(name, sizeof(name), "%s name=%s", pdata__kind_name(s->kind),
		 pc >= PDATA_KERNEL_START ? "?" : func_at(s->proc, pc, &sym));
	if (pc < PDATA_KERNEL_START)
		free(sym);
	add(OFFFUNC, proc, name, s->count);
}

static int on_sample(void *arg, const struct pdata_sample *s)
{
	uint32_t gen, proc = image_of(s->proc, &gen);
	int tid = s->tid;
	uint64_t pc = s->pc, count = s->count;
	const struct map *m;
	char *sym = NULL;

	char tidname[16];

	if (s->kind != PDATA_KIND_CPU) {
		on_offcpu(arg, s);
		return 0;
	}
	snprintf(tidname, sizeof(tidname), "%d", tid);
	add(TID, proc, tidname, count);
	if (pc >= PDATA_KERNEL_START) {
		add(OBJ, proc, "[kernel]", count);
		add(FUNC, proc, ksym_name(pc), count);
		return 0;
	}
	m = map_at(s->proc, pc);
	add(OBJ, proc, m ? m->path : "?", count);
	if (m && m->path[0] == '/')
		sym = symbol_at(m->path, pc - m->start + m->pgoff);
	add(FUNC, proc, sym ? sym : "?", count);
	free(sym);
	return 0;
}

int main(int argc, char **argv)
{
	struct pdata *p;
	struct pdata_header *h;
	char why[256];
	/* --records: the header and the records only (no symbol lookups: quick on a whole machine) */
	int records_only = argc == 3 && !strcmp(argv[1], "--records");

	if (argc != 2 && !records_only) {
		fprintf(stderr, "usage: pdata_dump [--records] FILE\n");
		return 2;
	}
	if (pdata__open(&p, argv[argc - 1], 0, why, sizeof(why)) < 0) {
		fprintf(stderr, "pdata_dump: %s\n", why);
		return 1;
	}
	elf_version(EV_CURRENT);
	h = pdata__header(p);
	printf("header state=%u clock=%u nominal_hz=%u period_ns=%llu samples=%llu lost=%llu "
	       "dropped=%llu processes=%u root_pid=%d end_kind=%d end_code=%d cpu_ns=%llu "
	       "flags=%u user_ns=%llu sys_ns=%llu throttled=%llu truncated=%llu agent_refused=%llu "
	       "agent_unwalked=%llu agent_no_room=%llu agent_flags=%u start_ns=%llu end_ns=%llu "
	       "version=%u\n",
	       h->state, h->clock, h->nominal_hz, (unsigned long long)h->period_ns,
	       (unsigned long long)h->samples, (unsigned long long)h->lost,
	       (unsigned long long)h->dropped, h->processes, h->root_pid, h->end_kind, h->end_code,
	       (unsigned long long)h->cpu_ns, h->flags, (unsigned long long)h->user_ns,
	       (unsigned long long)h->sys_ns, (unsigned long long)h->throttled,
	       (unsigned long long)h->truncated, (unsigned long long)h->agent_refused,
	       (unsigned long long)h->agent_unwalked, (unsigned long long)h->agent_no_room,
	       h->agent_flags, (unsigned long long)h->start_ns, (unsigned long long)h->end_ns,
	       h->version);
	printf("note %.512s\n", h->clock_note);
	printf("command %.2048s\n", h->command);
	pdata__foreach_rec(p, on_rec, NULL);
	if (h->version >= 3)
		printf("offcpu header ns=%llu lost=%llu source=%s\n",
		       (unsigned long long)h->offcpu_ns, (unsigned long long)h->offcpu_lost,
		       pdata__offcpu_name(h->offcpu));
	if (records_only) {
		pdata__close(p);
		return 0;
	}
	pdata__foreach_sample(p, on_sample, p);
	for (size_t i = 0; i < naggs; i++) {
		if (aggs[i].kind == OFFTID)
			printf("offtid proc=%u tid=%s ns=%llu\n", aggs[i].proc, aggs[i].name,
			       (unsigned long long)aggs[i].samples);
		else if (aggs[i].kind == OFFFUNC)
			printf("offfunc proc=%u ns=%llu kind=%s\n", aggs[i].proc,
			       (unsigned long long)aggs[i].samples, aggs[i].name);
		else if (aggs[i].kind == TID)
			printf("tid proc=%u tid=%s samples=%llu\n", aggs[i].proc, aggs[i].name,
			       (unsigned long long)aggs[i].samples);
		else
			printf("%s proc=%u samples=%llu %s=%s\n", aggs[i].kind, aggs[i].proc,
			       (unsigned long long)aggs[i].samples,
			       aggs[i].kind == OBJ ? "path" : "name", aggs[i].name);
	}
	pdata__close(p);
	return 0;
}
