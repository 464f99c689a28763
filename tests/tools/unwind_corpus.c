// SPDX-License-Identifier: MIT
/*
 * A corpus of real perf samples, and libdwfl's unwinding of them (see
 * unwind_corpus.h).  Test and benchmark code: it keeps every sample in
 * memory.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind_corpus.h"

#define MAX_CPUS 256
#define RING_PAGES 512 /* 2 MiB per CPU, less when mlock is limited */

/* PERF_REG_X86_BP, SP, IP */
#define CORPUS_REGS ((1ull << 6) | (1ull << 7) | (1ull << 8))

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t size;
	size_t map_size;
};

/* ---- collection ------------------------------------------------------- */

static int online_cpus(int *cpus)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int k = 0;
	cpu_set_t set;

	/* the CPUs this process may see are enough: the program inherits the affinity */
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < MAX_CPUS && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[k++] = c;
		return k;
	}
	for (int c = 0; c < n && c < MAX_CPUS; c++)
		cpus[k++] = c;
	return k;
}

static int open_ring(struct ring *r, pid_t pid, int cpu, int hz, uint32_t stack_bytes)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ull / (uint64_t)hz;
	a.sample_type =
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = CORPUS_REGS;
	a.sample_stack_user = stack_bytes;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	r->fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	for (uint64_t pages = RING_PAGES; pages >= 8; pages /= 2) {
		size_t len = (size_t)(pages + 1) * (size_t)page;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

		if (m == MAP_FAILED)
			continue;
		r->meta = m;
		r->data = (char *)m + page;
		r->size = pages * (uint64_t)page;
		r->map_size = len;
		return 0;
	}
	return -errno;
}

static int add_sample(struct corpus *c, const uint8_t *rec, size_t size)
{
	struct corpus_sample s = {0};
	const uint8_t *p = rec + sizeof(struct perf_event_header), *end = rec + size;
	uint64_t ip, stack_size, dyn;
	uint32_t ids[2];

	if (end - p < 8 + 8 + 8)
		return 0;
	memcpy(&ip, p, 8);
	memcpy(ids, p + 8, 8);
	memcpy(&s.abi, p + 16, 8);
	p += 24;
	s.pid = (pid_t)ids[0];
	s.tid = (pid_t)ids[1];
	if (s.abi) {
		if (end - p < 24)
			return 0;
		memcpy(s.regs, p, 24);
		p += 24;
	}
	if (end - p < 8)
		return 0;
	memcpy(&stack_size, p, 8);
	p += 8;
	if (stack_size) {
		if ((uint64_t)(end - p) < stack_size + 8)
			return 0;
		memcpy(&dyn, p + stack_size, 8);
		if (dyn > stack_size)
			dyn = stack_size;
		s.stack = malloc(dyn ? dyn : 1);
		if (!s.stack)
			return -ENOMEM;
		memcpy(s.stack, p, dyn);
		s.stack_size = (uint32_t)dyn;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct corpus_sample *v = realloc(c->s, cap * sizeof(*v));

		if (!v) {
			free(s.stack);
			return -ENOMEM;
		}
		c->s = v;
		c->cap = cap;
	}
	c->s[c->n++] = s;
	return 0;
}

static int drain(struct corpus *c, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	uint8_t *rec = NULL;
	size_t reccap = 0;
	int rc = 0;

	while (rc == 0 && tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t at = tail % r->size;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = (uint8_t)r->data[(at + i) % r->size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.size > reccap) {
			uint8_t *n = realloc(rec, h.size);

			if (!n) {
				rc = -ENOMEM;
				break;
			}
			rec = n;
			reccap = h.size;
		}
		if (at + h.size <= r->size) {
			memcpy(rec, r->data + at, h.size);
		} else {
			memcpy(rec, r->data + at, r->size - at);
			memcpy(rec + (r->size - at), r->data, h.size - (r->size - at));
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			c->record_bytes += h.size;
			if (c->regs_mask)
				rc = add_sample(c, rec, h.size);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
			c->lost += ((const uint64_t *)(rec + sizeof(h)))[1];
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	free(rec);
	return rc;
}

static int have_map(const struct corpus *c, pid_t pid, uint64_t start, uint64_t end,
		    const char *path)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].pid == pid && c->maps[i].start == start && c->maps[i].end == end &&
		    !strcmp(c->maps[i].path, path))
			return 1;
	return 0;
}

/* The executable mappings of pid now (added to those seen before). */
static int read_maps(struct corpus *c, pid_t pid)
{
	char name[64], line[PATH_MAX + 256];
	FILE *f;
	int rc = 0;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return 0; /* it has just exited */
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], path[PATH_MAX] = "";
		struct corpus_map *m;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, path) < 7 ||
		    perms[2] != 'x' || have_map(c, pid, start, end, path))
			continue;
		if (c->nmaps == c->mapcap) {
			size_t cap = c->mapcap ? c->mapcap * 2 : 32;

			m = realloc(c->maps, cap * sizeof(*m));
			if (!m) {
				rc = -ENOMEM;
				break;
			}
			c->maps = m;
			c->mapcap = cap;
		}
		m = &c->maps[c->nmaps];
		m->path = strdup(path);
		if (!m->path) {
			rc = -ENOMEM;
			break;
		}
		m->pid = pid;
		m->start = start;
		m->end = end;
		m->pgoff = off;
		m->dev = makedev(maj, min);
		m->ino = ino;
		c->nmaps++;
	}
	fclose(f);
	return rc;
}

/* The maps of every process sampled since the last call (children included). */
static int read_sampled_maps(struct corpus *c, size_t *done)
{
	pid_t seen[64];
	int nseen = 0, rc = 0;

	for (size_t i = *done; i < c->n && rc == 0; i++) {
		int known = 0;

		for (int k = 0; k < nseen && !known; k++)
			known = seen[k] == c->s[i].pid;
		if (known || nseen == 64)
			continue;
		seen[nseen++] = c->s[i].pid;
		rc = read_maps(c, c->s[i].pid);
	}
	if (rc == 0 && !nseen)
		rc = read_maps(c, c->pid);
	*done = c->n;
	return rc;
}

int corpus_collect(struct corpus *c, char *const argv[], int hz, uint32_t stack_bytes, char *why,
		   size_t whylen)
{
	size_t maps_read = 0;
	int cpus[MAX_CPUS], ncpus = online_cpus(cpus), go[2], rc = 0, done = 0;
	struct ring rings[MAX_CPUS];
	pid_t pid;

	struct timespec t0, t1;
	struct rusage ru;

	memset(c, 0, sizeof(*c));
	memset(rings, 0, sizeof(rings));
	for (int i = 0; i < MAX_CPUS; i++)
		rings[i].fd = -1;
	c->regs_mask = stack_bytes ? CORPUS_REGS : 0;
	if (!hz)
		ncpus = 0;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(go[0]);
		close(go[1]);
		snprintf(why, whylen, "fork: %s", strerror(-rc));
		return rc;
	}
	if (pid == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) == 1)
			execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	c->pid = pid;
	for (int i = 0; i < ncpus && rc == 0; i++) {
		rc = open_ring(&rings[i], pid, cpus[i], hz, stack_bytes);
		if (rc < 0)
			snprintf(why, whylen, "perf_event_open(task-clock, cpu %d): %s", cpus[i],
				 strerror(-rc));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rc == 0 && write(go[1], "g", 1) != 1)
		rc = -errno;
	close(go[1]);
	if (rc < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto cleanup;
	}
	while (!done) {
		struct pollfd pfd[MAX_CPUS];

		for (int i = 0; i < ncpus; i++) {
			pfd[i].fd = rings[i].fd;
			pfd[i].events = POLLIN;
		}
		poll(pfd, (nfds_t)ncpus, 10);
		done = wait4(pid, &c->status, WNOHANG, &ru) == pid;
		if (done) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			c->wall_s = (double)(t1.tv_sec - t0.tv_sec) +
				    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
			c->cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
		}
		for (int i = 0; i < ncpus && rc == 0; i++)
			rc = drain(c, &rings[i]);
		/* samples come only after the exec (enable_on_exec): the maps are the program's */
		if (rc == 0 && !done && c->n)
			rc = read_sampled_maps(c, &maps_read);
		if (rc < 0) {
			snprintf(why, whylen, "out of memory");
			kill(pid, SIGKILL);
			waitpid(pid, &c->status, 0);
			break;
		}
	}
cleanup:
	for (int i = 0; i < ncpus; i++) {
		if (rings[i].meta)
			munmap(rings[i].meta, rings[i].map_size);
		if (rings[i].fd >= 0)
			close(rings[i].fd);
	}
	return rc;
}

void corpus_free(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->s[i].stack);
	for (size_t i = 0; i < c->nmaps; i++)
		free(c->maps[i].path);
	free(c->s);
	free(c->maps);
	memset(c, 0, sizeof(*c));
}

const struct corpus_map *corpus_find_map(const struct corpus *c, pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].pid == pid && addr >= c->maps[i].start && addr < c->maps[i].end)
			return &c->maps[i];
	return NULL;
}

/* ---- the libdwfl reference -------------------------------------------- */

struct dwref {
	Dwfl *dwfl;
	const struct corpus_sample *cur;
	pid_t pid;
	uint64_t *pcs;
	int n, max;
};

static pid_t ref_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct dwref *d = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = d;
	return d->cur->tid;
}

static bool ref_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dwref *d = arg;
	uint64_t sp = d->cur->regs[1];

	(void)dwfl;
	/* the same memory the unwinder sees: the stack copy only */
	if (addr < sp || addr - sp > d->cur->stack_size || d->cur->stack_size - (addr - sp) < 8)
		return false;
	memcpy(result, d->cur->stack + (addr - sp), 8);
	return true;
}

static bool ref_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dwref *d = arg;
	Dwarf_Word bp_sp[2] = {d->cur->regs[0], d->cur->regs[1]};
	Dwarf_Word ip = d->cur->regs[2];

	return dwfl_thread_state_registers(thread, 6, 2, bp_sp) &&
	       dwfl_thread_state_registers(thread, 16, 1, &ip);
}

static const Dwfl_Thread_Callbacks ref_callbacks = {
	.next_thread = ref_next_thread,
	.memory_read = ref_memory_read,
	.set_initial_registers = ref_set_initial_registers,
};

static char *ref_debuginfo_path;
static const Dwfl_Callbacks ref_offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &ref_debuginfo_path,
};

/* The load bias of a mapping: the PT_LOAD holding its file offset. */
static int map_bias(int fd, const struct corpus_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0;
	int rc = -1;

	if (!elf || elf_getphdrnum(elf, &n) < 0)
		n = 0;
	for (size_t i = 0; i < n && rc; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    m->pgoff >= (ph.p_offset & ~0xfffull) && m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - m->pgoff + ph.p_offset - ph.p_vaddr;
			rc = 0;
		}
	}
	if (elf)
		elf_end(elf);
	return rc;
}

/* The vDSO as a file for libdwfl: this process's image, in a memfd. */
static int vdso_fd(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (!eh)
		return -1;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fd = (int)syscall(SYS_memfd_create, "vdso", 0);
	if (fd >= 0 && write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void report_map(Dwfl *dwfl, const struct corpus_map *m)
{
	int is_vdso = !strcmp(m->path, "[vdso]");
	int fd = is_vdso ? vdso_fd() : open(m->path, O_RDONLY | O_CLOEXEC);
	uint64_t bias;

	if (fd < 0)
		return;
	if (map_bias(fd, m, &bias) < 0 ||
	    !dwfl_report_elf(dwfl, is_vdso ? "[vdso]" : m->path, is_vdso ? "[vdso]" : m->path, fd,
			     bias, false))
		close(fd);
}

struct dwref *dwref_new(const struct corpus *c, pid_t pid, char *why, size_t whylen)
{
	struct dwref *d = calloc(1, sizeof(*d));

	if (!d) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	d->pid = pid;
	d->dwfl = dwfl_begin(&ref_offline);
	if (!d->dwfl) {
		snprintf(why, whylen, "dwfl_begin: %s", dwfl_errmsg(-1));
		free(d);
		return NULL;
	}
	dwfl_report_begin(d->dwfl);
	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].pid == pid &&
		    (c->maps[i].path[0] == '/' || !strcmp(c->maps[i].path, "[vdso]")))
			report_map(d->dwfl, &c->maps[i]);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!dwfl_attach_state(d->dwfl, NULL, pid, &ref_callbacks, d)) {
		snprintf(why, whylen, "dwfl_attach_state: %s", dwfl_errmsg(-1));
		dwref_free(d);
		return NULL;
	}
	return d;
}

static int ref_frame(Dwfl_Frame *state, void *arg)
{
	struct dwref *d = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || d->n >= d->max)
		return DWARF_CB_ABORT;
	d->pcs[d->n++] = pc;
	return DWARF_CB_OK;
}

int dwref_unwind(struct dwref *d, const struct corpus_sample *s, uint64_t *pcs, int max)
{
	d->cur = s;
	d->pcs = pcs;
	d->n = 0;
	d->max = max;
	if (!s->abi)
		return 0;
	dwfl_getthread_frames(d->dwfl, s->tid, ref_frame, d);
	return d->n;
}

void dwref_free(struct dwref *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d);
}
