// SPDX-License-Identifier: MIT
/*
 * system_synth OUT SECONDS [HZ] [CPUS]: a profile of the size a whole
 * machine's recording of SECONDS seconds would have (`record -a`, every CPU
 * busy at HZ, default 997 and 2), for the report's speed and memory on it
 * (tests/bench/system_report.sh).  Its code is real: the executable
 * segments of up to 40 programs of /usr/bin and of libc, so that the report
 * reads and names them as it would.  A churning machine: 20 processes run
 * the whole time and take half the samples over 400 PCs each; a new
 * process starts every second and takes its share over 130 PCs; a tenth of
 * the samples is kernel code (500 functions, KSYM records); 12 cgroups, some
 * containers'.  Deterministic (a fixed seed).
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/pdata.h"
#include "xorshift.h"

#define MAX_OBJS 41
#define LONG_PROCS 20
#define KSYMS 500
#define KBASE 0xffffffff81000000ull

struct obj {
	char path[512];
	uint64_t off, vaddr, size; /* the executable PT_LOAD */
};

static struct obj objs[MAX_OBJS];
static int nobjs;
static uint64_t seed = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return xorshift64(&seed);
}

/* The executable segment of an ELF file (at least 64 KiB): 1, else 0. */
static int text_of(const char *path, struct obj *o)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	Elf *e;
	size_t n;

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && ph.p_filesz >= 65536) {
				snprintf(o->path, sizeof(o->path), "%s", path);
				o->off = ph.p_offset & ~0xfffull;
				o->vaddr = ph.p_vaddr & ~0xfffull;
				o->size = ph.p_filesz;
				ok = 1;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

static void find_objects(void)
{
	DIR *d = opendir("/usr/bin");
	struct dirent *de;
	char path[600];

	if (text_of("/usr/lib/x86_64-linux-gnu/libc.so.6", &objs[0]))
		nobjs = 1;
	while (d && (de = readdir(d)) && nobjs < MAX_OBJS) {
		snprintf(path, sizeof(path), "/usr/bin/%s", de->d_name);
		if (de->d_name[0] != '.' && text_of(path, &objs[nobjs]))
			nobjs++;
	}
	if (d)
		closedir(d);
}

static const char *const cgroups[12] = {
	"/",
	"/system.slice/nginx.service",
	"/system.slice/postgresql.service",
	"/system.slice/cron.service",
	"/user.slice/user-1000.slice/session-3.scope",
	"/system.slice/"
	"docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	"/system.slice/"
	"docker-fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope",
	"/machine.slice/"
	"libpod-1111111111111111111111111111111111111111111111111111111111111111.scope",
	"/kubepods.slice/kubepods-pod1b2c3d4e_aaaa_bbbb_cccc_0123456789ab.slice/"
	"cri-containerd-2222222222222222222222222222222222222222222222222222222222222222.scope",
	"/system.slice/ssh.service",
	"/system.slice/rsyslog.service",
	"/init.scope",
};

#define EXE_BASE 0x555555554000ull
#define LIBC_BASE 0x7f0000000000ull

/* An image of program o, its maps (program, libc), a thread, where it runs.  Its proc id. */
static uint32_t add_image(struct pdata *pd, int pid, const struct obj *o, int cg)
{
	struct pdata_proc *p = pdata__add_proc(pd, pid, 1, 0, o->path, pdata__now_ns());
	const char *slash = strrchr(o->path, '/');

	if (!p)
		return 0;
	pdata__add_proc_ctx(pd, p->id, pid, 0, cgroups[cg]);
	pdata__add_map(pd, p->id, EXE_BASE + o->vaddr, EXE_BASE + o->vaddr + o->size, o->off,
		       PROT_READ | PROT_EXEC, o->path, NULL, 0);
	pdata__add_map(pd, p->id, LIBC_BASE + objs[0].vaddr,
		       LIBC_BASE + objs[0].vaddr + objs[0].size, objs[0].off, PROT_READ | PROT_EXEC,
		       objs[0].path, NULL, 0);
	pdata__add_thread(pd, p->id, pid, slash ? slash + 1 : o->path);
	return p->id;
}

/* n samples of image id over npc PCs (a tenth in the kernel, a third in libc). */
static void add_samples(struct pdata *pd, uint32_t id, int pid, const struct obj *o, uint64_t n,
			int npc)
{
	uint64_t per = n / (uint64_t)npc, left = n;

	for (int k = 0; k < npc && left; k++) {
		uint64_t c = k == npc - 1 ? left : per ? per : 1, pc, r = rnd();

		if (r % 10 == 0)
			pc = KBASE + (r >> 8) % KSYMS * 0x1000 + 16;
		else if (r % 3 == 0)
			pc = LIBC_BASE + objs[0].vaddr + (r >> 8) % objs[0].size;
		else
			pc = EXE_BASE + o->vaddr + (r >> 8) % o->size;
		pdata__count(pd, id, pid, pc & ~1ull, c);
		left -= c < left ? c : left;
	}
}

int main(int argc, char **argv)
{
	struct pdata_create_opts co = {.table_slots = 1u << 20, .records_cap = 16u << 20};
	unsigned long secs = argc > 2 ? strtoul(argv[2], NULL, 10) : 3600;
	unsigned long hz = argc > 3 ? strtoul(argv[3], NULL, 10) : 997;
	unsigned long cpus = argc > 4 ? strtoul(argv[4], NULL, 10) : 2;
	uint64_t total = (uint64_t)secs * hz * cpus, half = total / 2;
	struct pdata_header *h;
	struct pdata *pd;
	char why[256], name[64];

	if (argc < 3 || !secs || !hz || !cpus) {
		fprintf(stderr, "usage: system_synth OUT SECONDS [HZ] [CPUS]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	find_objects();
	if (nobjs < 2 || pdata__create(&pd, argv[1], &co, why, sizeof(why)) < 0) {
		fprintf(stderr, "system_synth: %s\n", nobjs < 2 ? "no programs found" : why);
		return 1;
	}
	for (int i = 0; i < LONG_PROCS; i++) {
		const struct obj *o = &objs[1 + i % (nobjs - 1)];
		uint32_t id = add_image(pd, 1000 + i, o, i % 12);

		add_samples(pd, id, 1000 + i, o, half / LONG_PROCS, 400);
	}
	for (unsigned long s = 0; s < secs; s++) {
		const struct obj *o = &objs[1 + rnd() % (uint64_t)(nobjs - 1)];
		uint32_t id = add_image(pd, 100000 + (int)s, o, (int)(rnd() % 12));

		add_samples(pd, id, 100000 + (int)s, o, half / secs, 130);
	}
	for (int k = 0; k < KSYMS; k++) {
		snprintf(name, sizeof(name), "kernel_function_%d", k);
		pdata__add_ksym(pd, KBASE + (uint64_t)k * 0x1000, 0x1000, name);
	}
	h = pdata__header(pd);
	h->clock = PDATA_CLOCK_PERF;
	h->nominal_hz = (uint32_t)hz;
	h->period_ns = 1000000000ull / hz;
	h->flags = PDATA_F_SYSTEM | PDATA_F_KERNEL | PDATA_F_INHERIT;
	h->samples = total;
	h->cpu_ns = total * h->period_ns;
	snprintf(h->command, sizeof(h->command), "system_synth %lu s", secs);
	h->start_ns -= (uint64_t)secs * 1000000000ull;
	if (pdata__finish(pd) < 0 || pdata__compact(pd, argv[1], why, sizeof(why)) < 0) {
		fprintf(stderr, "system_synth: cannot finish %s\n", argv[1]);
		return 1;
	}
	pdata__close(pd);
	printf("objects %d images %lu samples %llu\n", nobjs, LONG_PROCS + secs,
	       (unsigned long long)total);
	return 0;
}
