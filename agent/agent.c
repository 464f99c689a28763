// SPDX-License-Identifier: MIT
/*
 * libprofil-agent.so: the LD_PRELOAD fallback of `profil record` when
 * perf_event_open is refused (or --clock thread|itimer).  Built on the
 * libprofil sampler (lib/sampler.h): every thread is sampled by its own CPU
 * time, and every sample is counted straight into the profil.data file the
 * recorder created, mapped MAP_SHARED (profile/pdata.h): the counts are in the
 * page cache from the first sample, so _exit, abort, a crash or SIGKILL of
 * the program lose nothing.
 *
 * Configuration: read once, in the constructor, from the environment
 * (names in agent/agent_env.h).  Life cycle of a process image:
 *  - constructor: map the file, add this image's proc record (parent: the
 *    image that exec'd us, from PROFIL_AGENT_PARENT, else the parent
 *    process's latest image), its executable mappings, start the clock;
 *  - fork (pthread_atfork child): a new proc record, same mappings, new
 *    timers; with inherit off the child is left alone;
 *  - exec wrappers: mark the image ended by exec, stop the clock, pass the
 *    configuration on in the new environment (or strip it with inherit
 *    off), undo everything if exec fails; errno is preserved;
 *  - exit wrappers, a wrapper of main (via __libc_start_main: its return
 *    value) and the destructor: record how the image ended (the
 *    recorder records its own child's status from wait4; SIGKILL cannot be
 *    seen from inside).
 * CPU time (the kernel's accounting: getrusage, CPU-time clocks): an image's
 * is the process's at its end less the process's when it began (0 for a
 * fork child; an exec'd image starts where the image that exec'd it ended:
 * PROFIL_AGENT_PARENT carries it); a thread's is written when it ends (a
 * pthread key's destructor, set up by the pthread_create wrapper), and for
 * the thread that ends the image, when the image ends.
 * Mappings: /proc/self/maps at start; when a sample's PC lies outside every
 * known mapping (a dlopen'ed library), the sink only raises a flag and the
 * maps are read again from a safe context: before the next dlopen/dlclose,
 * fork, exec and exit.  A dlclose that unloaded an object is followed by a
 * read that forgets the mappings gone; the next dlopen then begins a mapping
 * generation (profile/pdata.h): samples are counted under its id from then
 * on, so that a library loaded where the closed one was is never named by
 * it (the sink reads the id as it read the proc id: no added cost).  Each file mapping carries the file's build id
 * (agent/build_id.c), as the kernel's MMAP2 records do for the perf clocks.
 * dlopen itself is entered by a tail jump, so glibc
 * still sees the program as its caller (RUNPATH, namespaces).
 *
 * Nothing but the wrappers is exported (agent/agent.map).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_env.h"
#include "agent/build_id.h"
#include "agent/stack_dump.h"
#include "agent/unwind.h"
#include "lib/guard.h"
#include "lib/sampler.h"
#include "profile/pdata.h"
#include "utils/procmaps.h"

_Static_assert(AGENT_UNWIND_MAX_OBJECTS == PDATA_AGENT_MAX_OBJECTS, "the bound the header states");

#define EXPORT __attribute__((visibility("default")))
#define MAX_MAPS 16384 /* executable mappings recorded per image; past it: PDATA_AGENT_MAPS_FULL */
#define TLS_IE __attribute__((tls_model("initial-exec")))

/* A mapping already recorded: what was mapped (the file's device and inode), not only where. */
struct known_map {
	uint64_t start, end, pgoff, dev, ino;
};

static struct {
	struct pdata *pd;
	int fd;
	int inherit;
	int active;    /* this image records */
	pid_t pid;     /* the process the state belongs to (vfork children differ) */
	uint32_t proc; /* atomic: our proc id */
	struct pdata_proc *rec;
	uint32_t count_id; /* atomic: samples and mappings go under it: proc, or its generation's */
	uint32_t gens;	   /* mapping generations begun in this image */
	int code_unmapped; /* a dlclose took executable mappings away since the last generation */
	uint64_t dl_subs;  /* the loader's count of objects unloaded, when last looked at */
	int forked; /* a fork child (not the command's own process) */
	struct sampler_config cfg;
	char agent_path[PATH_MAX];
	char fd_env[96], clock_env[64], hz_env[64], inherit_env[64], stacks_env[64];
	int stacks;		 /* call stacks asked for (PROFIL_AGENT_STACKS=1) */
	uint64_t unwind_objects; /* unwinder activations already followed by a rescan */
	struct known_map maps[MAX_MAPS];
	unsigned int nmaps;	  /* atomic, entries written before the count */
	int need_rescan;	  /* atomic: a sample fell outside every known mapping */
	int rescanning;		  /* atomic try-lock */
	struct pdata_cpu base;	  /* the process's CPU time when this image began */
	struct pdata_cpu tbase;	  /* the main thread's, likewise (it goes on across an exec) */
	pthread_key_t thread_key; /* a thread's destructor writes its CPU time */
	int have_key;
	uint64_t lost_reported; /* atomic: sampler_lost() already added to the header */
} ag;

/* not static: the dlopen trampoline (asm) jumps through it by name */
__attribute__((used, visibility("hidden"))) void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static void (*real_exit)(int) __attribute__((noreturn));
static void (*real__exit)(int) __attribute__((noreturn));
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
static long (*real_syscall)(long, long, long, long, long, long, long);

static void resolve_reals(void)
{
	real_dlopen = dlsym(RTLD_NEXT, "dlopen");
	real_dlclose = dlsym(RTLD_NEXT, "dlclose");
	real_execve = dlsym(RTLD_NEXT, "execve");
	real_execvpe = dlsym(RTLD_NEXT, "execvpe");
	real_fexecve = dlsym(RTLD_NEXT, "fexecve");
	real_exit = dlsym(RTLD_NEXT, "exit");
	real__exit = dlsym(RTLD_NEXT, "_exit");
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	real_prctl = dlsym(RTLD_NEXT, "prctl");
	real_syscall = dlsym(RTLD_NEXT, "syscall");
}

static pid_t my_tid(void)
{
	return gettid();
}

/*
 * Every access to the shared file runs under the fault guard (lib/guard.h):
 * each process of the tree holds it writable and may truncate it, and the
 * SIGBUS that follows must not kill this one.  A fault stops recording in
 * this image.  Async-signal-safe.
 */
static int on_file(void (*fn)(void *), void *arg)
{
	if (guard_call(fn, arg) == 0)
		return 0;
	__atomic_store_n(&ag.active, 0, __ATOMIC_RELEASE);
	sampler_fault_stop();
	return -EFAULT;
}

/* ---- sandboxes ------------------------------------------------------------ */

static void set_agent_flag(void *arg)
{
	__atomic_or_fetch(&pdata__header(ag.pd)->agent_flags, *(const uint32_t *)arg,
			  __ATOMIC_RELAXED);
}

/* Into the header's agent_flags (what the report says about the agents). */
static void note_agent_flag(uint32_t flag)
{
	if (ag.pd && ag.active)
		on_file(set_agent_flag, &flag);
}

/*
 * The program is about to enter a sandbox (seccomp strict mode or a filter):
 * from now on no system call of ours (lib/sampler.h: sampler_go_quiet), in
 * the handler or in the wrappers.  Returns whether this call made us quiet.
 */
static int sandbox_enter(void)
{
	if (sampler_quiet())
		return 0;
	sampler_go_quiet();
	return 1;
}

/* The sandbox call returned rc: entered (its flag into the header), or failed (loud again). */
static void sandbox_result(int became_quiet, long rc, uint32_t flag)
{
	if (rc == 0)
		note_agent_flag(flag);
	else if (became_quiet)
		sampler_go_loud();
}

/* The kind of sandbox a prctl(PR_SET_SECCOMP, mode) or seccomp(op) enters, 0 if none. */
static uint32_t seccomp_kind(int is_prctl, unsigned long op)
{
	if (is_prctl)
		return op == SECCOMP_MODE_STRICT ? PDATA_AGENT_SECCOMP_STRICT :
		       op == SECCOMP_MODE_FILTER ? PDATA_AGENT_SECCOMP_FILTER :
						   0;
	return op == SECCOMP_SET_MODE_STRICT ? PDATA_AGENT_SECCOMP_STRICT :
	       op == SECCOMP_SET_MODE_FILTER ? PDATA_AGENT_SECCOMP_FILTER :
					       0;
}

/* A filter from before the program started (a container, a service manager): noted only. */
static void note_inherited_sandbox(void)
{
	char buf[4096];
	const char *at;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	at = strstr(buf, "\nSeccomp:");
	if (at && strtol(at + 9, NULL, 10) == SECCOMP_MODE_FILTER)
		note_agent_flag(PDATA_AGENT_SECCOMP_INHERITED);
}

/* ---- mappings ------------------------------------------------------------ */

/* Known mappings a read of /proc/self/maps saw (scan_maps, under its try-lock). */
static uint8_t map_seen[MAX_MAPS];

/* Recorded already: the same range of the same file (another library dlopen'ed where a
 * dlclose'd one was, or a file replaced at its path, is a new mapping); marked seen. */
static int map_known(const struct known_map *m)
{
	unsigned int n = __atomic_load_n(&ag.nmaps, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (!memcmp(&ag.maps[i], m, sizeof(*m))) {
			map_seen[i] = 1;
			return 1;
		}
	return 0;
}

/* The known mapping that last held a sampled PC: most ticks land in it again. */
static unsigned int last_hit; /* atomic, a hint (checked against nmaps) */

static int pc_known(uint64_t pc)
{
	unsigned int n = __atomic_load_n(&ag.nmaps, __ATOMIC_ACQUIRE);
	unsigned int h = __atomic_load_n(&last_hit, __ATOMIC_RELAXED);

	if (h < n && pc >= ag.maps[h].start && pc < ag.maps[h].end)
		return 1;
	for (unsigned int i = 0; i < n; i++)
		if (pc >= ag.maps[i].start && pc < ag.maps[i].end) {
			__atomic_store_n(&last_hit, i, __ATOMIC_RELAXED);
			return 1;
		}
	return 0;
}

/*
 * In the sink: a PC outside every known mapping asks for a read of the maps
 * (rescan_if_needed).  Once asked, no tick looks again until that read: a PC
 * nothing maps (code the table has no room for) costs one walk of up to
 * MAX_MAPS entries per read, not per tick.
 */
static void ask_rescan_unless_known(uint64_t pc)
{
	if (!__atomic_load_n(&ag.need_rescan, __ATOMIC_RELAXED) && !pc_known(pc))
		__atomic_store_n(&ag.need_rescan, 1, __ATOMIC_RELAXED);
}

struct map_args {
	uint64_t start, end, off;
	uint32_t prot;
	const char *path;
	const uint8_t *build_id;
	unsigned int build_id_len;
};

static void add_map(void *arg)
{
	const struct map_args *m = arg;

	pdata__add_map(ag.pd, __atomic_load_n(&ag.count_id, __ATOMIC_RELAXED), m->start, m->end,
		       m->off, m->prot, m->path, m->build_id, m->build_id_len);
}

/* One /proc/self/maps line (utils/procmaps.h: no stdio, no allocation). */
static void map_line(char *line)
{
	uint8_t id[BUILD_ID_MAX];
	struct procmap pm;
	struct known_map km;
	const char *path;
	unsigned int n, idlen;

	if (procmaps__parse_line(line, &pm) < 0 || !(pm.prot & PROT_EXEC))
		return;
	path = *pm.path ? pm.path : "[anon]";
	km = (struct known_map){pm.start, pm.end, pm.offset,
				(uint64_t)pm.dev_major << 32 | pm.dev_minor, pm.inode};
	if (!strcmp(path, "[vsyscall]") || map_known(&km))
		return;
	n = __atomic_load_n(&ag.nmaps, __ATOMIC_RELAXED);
	if (n >= MAX_MAPS) {
		note_agent_flag(PDATA_AGENT_MAPS_FULL);
		return;
	}
	ag.maps[n] = km;
	map_seen[n] = 1;
	__atomic_store_n(&ag.nmaps, n + 1, __ATOMIC_RELEASE);
	idlen = pm.inode ?
			build_id_of_mapped(path, pm.dev_major, pm.dev_minor, (ino_t)pm.inode, id) :
			0;
	on_file(add_map, &(struct map_args){pm.start, pm.end, pm.offset, (uint32_t)pm.prot, path,
					    id, idlen});
}

/*
 * Forget the known mappings the last read did not see (unmapped): a sample
 * there is then outside every known mapping, and what is mapped there next
 * gets read.  The sink reads the table meanwhile: at worst a stale answer
 * of pc_known, which only decides whether to read the maps again.
 */
static void forget_unseen(void)
{
	unsigned int n = __atomic_load_n(&ag.nmaps, __ATOMIC_RELAXED), k = 0;

	for (unsigned int i = 0; i < n; i++)
		if (map_seen[i])
			ag.maps[k++] = ag.maps[i];
	if (k < n)
		ag.code_unmapped = 1;
	__atomic_store_n(&ag.nmaps, k, __ATOMIC_RELEASE);
}

/*
 * Read /proc/self/maps and record new executable mappings (plain system
 * calls, no malloc); prune: forget those gone (after a dlclose).
 */
static void scan_maps(int prune)
{
	static char buf[8192];
	char line[PATH_MAX + 128];
	size_t ll = 0;
	ssize_t n;
	int fd;

	if (__atomic_exchange_n(&ag.rescanning, 1, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&ag.need_rescan, 0, __ATOMIC_RELAXED);
	memset(map_seen, 0, sizeof(map_seen));
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] != '\n') {
					if (ll < sizeof(line) - 1)
						line[ll++] = buf[i];
					continue;
				}
				line[ll] = 0;
				map_line(line);
				ll = 0;
			}
		}
		if (prune && n == 0)
			forget_unseen(); /* only after a whole read */
		close(fd);
	}
	__atomic_store_n(&ag.rescanning, 0, __ATOMIC_RELEASE);
}

static void rescan_if_needed(void)
{
	if (ag.active && !sampler_quiet() && getpid() == ag.pid &&
	    __atomic_load_n(&ag.need_rescan, __ATOMIC_RELAXED))
		scan_maps(0);
}

/* ---- samples and threads ------------------------------------------------- */

/* The calling thread's name (one prctl: no file opened in the handler). */
static void read_comm(char comm[16])
{
	comm[0] = 0;
	if (!sampler_quiet())
		prctl(PR_GET_NAME, comm);
	comm[15] = 0;
}

/*
 * The calling thread's record in this image, in the thread itself: as many
 * threads as the program starts (a table of tids filled up at 4,096 threads
 * and the rest lost their records), no tid reuse mistaken for the same thread.
 * A fork child's image has another proc id: its threads get new records.
 */
static __thread struct {
	uint32_t proc;		  /* the image the record belongs to, 0 = none */
	int busy;		  /* being written (a tick inside it leaves it to the writer) */
	struct pdata_thread *rec; /* NULL if the file had no room */
} my_thread TLS_IE;

/* First sample of the calling thread in this image: write its record. */
static void note_thread(pid_t tid)
{
	uint32_t proc = __atomic_load_n(&ag.proc, __ATOMIC_RELAXED);
	char comm[16];

	if (my_thread.proc == proc || my_thread.busy)
		return;
	my_thread.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	read_comm(comm);
	my_thread.rec = pdata__add_thread(ag.pd, proc, tid, comm);
	my_thread.proc = proc;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	my_thread.busy = 0;
}

/* The sampled thread when the clock did not say: in a sandbox, the main thread (no gettid). */
static pid_t sampled_tid(void)
{
	return sampler_quiet() ? ag.pid : my_tid();
}

/* Ticks no sink received (the image ends), into the header's lost count. */
static void account_lost(void)
{
	uint64_t lost = sampler_lost();
	uint64_t done = __atomic_exchange_n(&ag.lost_reported, lost, __ATOMIC_RELAXED);

	if (lost > done)
		__atomic_add_fetch(&pdata__header(ag.pd)->lost, lost - done, __ATOMIC_RELAXED);
}

struct sample_args {
	uintptr_t pc;
	pid_t tid;
	unsigned int ticks;
};

/*
 * One tick, and the ticks the kernel merged into it (the sampler's ticks, all
 * this thread's: counted with the sample, as a death by a signal runs no exit
 * path), counted at its PC:
 * every count stands for one period of CPU time, and the profile's seconds
 * add up to the CPU time (at rates above CONFIG_HZ a tick carries several).
 */
static void count_sample(void *arg)
{
	const struct sample_args *a = arg;

	if (pdata__finished(ag.pd))
		return; /* the recorder is done: we outlived it (a daemon of the command) */
	note_thread(a->tid);
	pdata__count(ag.pd, __atomic_load_n(&ag.count_id, __ATOMIC_RELAXED), a->tid, a->pc,
		     a->ticks);
}

/* The sink: in the clock's signal handler.  Atomics on the shared mapping only. */
static void agent_sink(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks)
{
	(void)arg;
	if (!__atomic_load_n(&ag.active, __ATOMIC_ACQUIRE))
		return;
	if (on_file(count_sample, &(struct sample_args){pc, tid ? tid : sampled_tid(), ticks}) < 0)
		return;
	ask_rescan_unless_known(pc);
}

struct stack_args {
	const uint64_t *pcs;
	int n;
	pid_t tid;
	unsigned int flags; /* UNWIND_* */
	unsigned int ticks;
};

static void count_stack(void *arg)
{
	const struct stack_args *a = arg;
	struct pdata_header *h = pdata__header(ag.pd);

	/* why the stack was cut, where a reader can say it (the header's agent counters) */
	if (a->flags & AGENT_UNWIND_REFUSED)
		__atomic_add_fetch(&h->agent_refused, a->ticks, __ATOMIC_RELAXED);
	else if (a->flags & AGENT_UNWIND_NO_ROOM)
		__atomic_add_fetch(&h->agent_no_room, a->ticks, __ATOMIC_RELAXED);
	else if (a->flags & (AGENT_UNWIND_LEAF_ONLY | AGENT_UNWIND_FORKING))
		__atomic_add_fetch(&h->agent_unwalked, a->ticks, __ATOMIC_RELAXED);
	note_thread(a->tid);
	/* with the ticks the kernel merged into this one, as count_sample */
	pdata__count_stack(ag.pd, __atomic_load_n(&ag.count_id, __ATOMIC_RELAXED), a->tid, a->pcs,
			   (unsigned int)a->n, !!(a->flags & AGENT_UNWIND_TRUNCATED), a->ticks);
}

/*
 * The sink with call stacks (PROFIL_AGENT_STACKS=1), in the clock's signal
 * handler: unwind from the interrupted context (agent/unwind.c), then count
 * the stack into the profile's frame table (under the fault guard, as
 * every access to the shared file).
 */
static void agent_sink_stack(void *arg, uintptr_t pc, pid_t tid, unsigned int ticks, void *uc)
{
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH], seen;
	unsigned int flags = AGENT_UNWIND_TRUNCATED | AGENT_UNWIND_LEAF_ONLY;
	int n = 1;

	(void)arg;
	if (!__atomic_load_n(&ag.active, __ATOMIC_ACQUIRE))
		return;
	if (!tid)
		tid = sampled_tid();
	pcs[0] = pc;
	/* no context: the tick found no stack of ours free to walk on (lib/tick_stack.h) */
	if (uc)
		n = unwind_from_signal(uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	/* TEST-ONLY: a no-op without PROFIL_TEST_STACK_DUMP */
	stack_dump_append(__atomic_load_n(&ag.proc, __ATOMIC_RELAXED), tid, pcs, n, flags);
	if (on_file(count_stack, &(struct stack_args){pcs, n, tid, flags, ticks}) < 0)
		return;
	/* a caller in an object the unwinder had not seen yet may lack its mapping record */
	seen = unwind_objects_seen();
	if (seen != __atomic_load_n(&ag.unwind_objects, __ATOMIC_RELAXED)) {
		__atomic_store_n(&ag.unwind_objects, seen, __ATOMIC_RELAXED);
		__atomic_store_n(&ag.need_rescan, 1, __ATOMIC_RELAXED);
	}
	ask_rescan_unless_known(pc);
}

/* Outside signal context, before the clock starts; on failure the agent stays flat. */
static void enable_stacks(void)
{
	const char *dump = getenv(PROFIL_ENV_TEST_STACK_DUMP);
	char why[160];

	if (unwind_init(why, sizeof(why)) < 0) {
		ag.stacks = 0;
		return;
	}
	if (dump && *dump)
		stack_dump_open(dump);
	ag.cfg.sink_ctx = agent_sink_stack;
}

/* ---- this image's record ------------------------------------------------- */

struct find_arg {
	pid_t pid;
	uint32_t id;
};

static int find_latest(void *arg, const struct pdata_rec *rec)
{
	struct find_arg *a = arg;

	if (rec->type == PDATA_REC_PROC && ((const struct pdata_proc *)rec)->pid == a->pid)
		a->id = ((const struct pdata_proc *)rec)->id;
	return 0;
}

static void find_parent(void *arg)
{
	pdata__foreach_rec(ag.pd, find_latest, arg);
}

/*
 * Parent link: the image that exec'd us ("id:pid" with our pid; then our
 * CPU time starts where its ended), else the parent process.
 */
static uint32_t parent_proc(void)
{
	const char *e = getenv(PROFIL_ENV_AGENT_PARENT);
	struct find_arg a = {getppid(), 0};
	unsigned long long c[6];
	unsigned long id;
	long pid;

	if (e && sscanf(e, "%lu:%ld", &id, &pid) == 2 && pid == getpid()) {
		if (sscanf(e, "%*u:%*d:%llu:%llu:%llu:%llu:%llu:%llu", &c[0], &c[1], &c[2], &c[3],
			   &c[4], &c[5]) == 6) {
			ag.base = (struct pdata_cpu){c[0], c[1], c[2]};
			ag.tbase = (struct pdata_cpu){c[3], c[4], c[5]};
		}
		return (uint32_t)id;
	}
	on_file(find_parent, &a);
	return a.id;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* The CPU time of this process (thread: of the calling thread): the total, and the kernel's split. */
static struct pdata_cpu cpu_now(int thread)
{
	struct pdata_cpu cpu = {0};
	struct timespec ts;
	struct rusage ru;

	if (clock_gettime(thread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		cpu.cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (getrusage(thread ? RUSAGE_THREAD : RUSAGE_SELF, &ru) == 0) {
		cpu.user_ns = tv_ns(ru.ru_utime);
		cpu.sys_ns = tv_ns(ru.ru_stime);
	}
	return cpu;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* now less the time before the image began (the kernel's two clocks differ a little: never < 0). */
static struct pdata_cpu since(struct pdata_cpu now, const struct pdata_cpu *base)
{
	now.cpu_ns = less(now.cpu_ns, base->cpu_ns);
	now.user_ns = less(now.user_ns, base->user_ns);
	now.sys_ns = less(now.sys_ns, base->sys_ns);
	return now;
}

/* The calling thread's record in this image, NULL when it has none. */
static struct pdata_thread *thread_rec(void)
{
	return my_thread.proc == __atomic_load_n(&ag.proc, __ATOMIC_RELAXED) ? my_thread.rec : NULL;
}

struct thread_cpu_args {
	pid_t tid;
	struct pdata_cpu cpu;
};

static void write_thread_cpu(void *arg)
{
	const struct thread_cpu_args *a = arg;
	struct pdata_thread *t;

	note_thread(a->tid); /* a thread the clock never sampled gets its record now */
	t = thread_rec();
	if (t)
		pdata__thread_cpu(t, &a->cpu);
}

/* The calling thread's CPU time in this image, into its record. */
static void account_thread(int main_thread)
{
	struct thread_cpu_args a;

	if (sampler_quiet())
		return; /* a sandbox: the recorder's accounting of the process stands */
	a = (struct thread_cpu_args){my_tid(), cpu_now(1)};
	if (main_thread)
		a.cpu = since(a.cpu, &ag.tbase);
	on_file(write_thread_cpu, &a);
}

struct begin_args {
	uint32_t parent;
	const char *exe;
};

static void add_image(void *arg)
{
	const struct begin_args *b = arg;

	ag.rec = pdata__add_proc(ag.pd, ag.pid, getppid(), b->parent, b->exe, pdata__now_ns());
	if (!ag.rec)
		return;
	__atomic_store_n(&ag.proc, ag.rec->id, __ATOMIC_RELEASE);
	__atomic_store_n(&ag.count_id, ag.rec->id, __ATOMIC_RELEASE);
	ag.gens = 0;
	ag.code_unmapped = 0;
	__atomic_store_n(&ag.nmaps, 0, __ATOMIC_RELEASE);
	/* a new sampler session counts from zero (no sink runs before it starts) */
	__atomic_store_n(&ag.lost_reported, 0, __ATOMIC_RELAXED);
	note_thread(my_tid());
}

/* A new image or a new process: its record and main thread (mappings: scan_maps). */
static int begin_image(uint32_t parent)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	ag.pid = getpid();
	ag.rec = NULL;
	if (on_file(add_image, &(struct begin_args){parent, exe}) < 0)
		return -EFAULT;
	return ag.rec ? 0 : -ENOSPC;
}

struct end_args {
	int kind, code; /* kind < 0: keep what the record says (exit() may have filled it) */
	struct pdata_cpu cpu;
	uint64_t end_ns; /* 0: unknown (a sandbox) */
};

static void write_end(void *arg)
{
	const struct end_args *e = arg;
	int kind = e->kind, code = e->code;

	if (pdata__finished(ag.pd))
		return; /* a finished profile does not change */
	account_lost();
	if (kind < 0) {
		kind = __atomic_load_n(&ag.rec->end_kind, __ATOMIC_ACQUIRE);
		code = ag.rec->end_code;
	}
	pdata__end_proc(ag.rec, kind, code, e->end_ns, &e->cpu);
}

/*
 * The end of this image into its record, with its last overruns into lost,
 * its CPU time since it began, and the calling thread's (the one that ends
 * it: the others are written when they end).
 */
static void end_image(int kind, int code)
{
	struct end_args e = {kind, code, {0}, 0};

	if (!ag.rec)
		return;
	if (!sampler_quiet()) { /* in a sandbox: how it ended only (no clock read) */
		e.cpu = since(cpu_now(0), &ag.base);
		e.end_ns = pdata__now_ns();
	}
	account_thread(!sampler_quiet() && my_tid() == ag.pid);
	on_file(write_end, &e);
}

static void unend_image(void *arg)
{
	(void)arg;
	__atomic_store_n(&ag.rec->end_kind, PDATA_END_UNKNOWN, __ATOMIC_RELEASE);
}

/* ---- fork ------------------------------------------------------------------ */

static void atfork_prepare(void)
{
	int saved = errno;

	rescan_if_needed();
	errno = saved;
}

static void atfork_child(void)
{
	int saved = errno;
	uint32_t parent = ag.proc;

	if (!ag.active) {
		errno = saved;
		return;
	}
	ag.forked = 1;
	if (!ag.inherit || sampler_quiet()) {
		/* in a sandbox: no system call to start a new record and clock with */
		/* not following children: this process records nothing */
		__atomic_store_n(&ag.active, 0, __ATOMIC_RELEASE);
		errno = saved;
		return;
	}
	/* a new process: its own record; the same mappings, read again for the new id */
	ag.base = ag.tbase = (struct pdata_cpu){0}; /* its CPU time starts at 0 */
	if (begin_image(parent) == 0) {
		scan_maps(0);
		sampler_child_restart();
	} else {
		__atomic_store_n(&ag.active, 0, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* ---- exec --------------------------------------------------------------------- */

static int is_our_var(const char *e)
{
	return !strncmp(e, "PROFIL_AGENT_", 13) || !strncmp(e, "LD_PRELOAD=", 11);
}

/* LD_PRELOAD's value without the agent (":"/" " separated), into dst. */
static void preload_without_agent(const char *val, char *dst, size_t len)
{
	size_t at = 0, alen = strlen(ag.agent_path);

	dst[0] = 0;
	while (val && *val) {
		size_t n = strcspn(val, ": ");

		if (n && !(n == alen && !strncmp(val, ag.agent_path, n)) && at + n + 2 < len) {
			if (at)
				dst[at++] = ':';
			memcpy(dst + at, val, n);
			at += n;
			dst[at] = 0;
		}
		val += n;
		while (*val == ':' || *val == ' ')
			val++;
	}
}

/*
 * Build the environment for an exec: ours removed, then put back when the
 * new image is to be profiled.  Everything on the caller's stack (a vfork
 * child may be calling).
 */
static int exec_env(char *const envp[], char **out, size_t cap, char *preload, size_t plen,
		    char *parent_buf, size_t parent_len, int follow, const struct pdata_cpu *pcpu,
		    const struct pdata_cpu *tcpu)
{
	const char *old_preload = NULL;
	size_t n = 0;
	char rest[PATH_MAX];

	for (size_t i = 0; envp && envp[i]; i++) {
		if (!strncmp(envp[i], "LD_PRELOAD=", 11))
			old_preload = envp[i] + 11;
		if (is_our_var(envp[i]))
			continue;
		if (n + 9 >= cap)
			return -E2BIG;
		out[n++] = envp[i];
	}
	preload_without_agent(old_preload, rest, sizeof(rest));
	if (follow) {
		snprintf(preload, plen, "LD_PRELOAD=%s%s%s", ag.agent_path, rest[0] ? ":" : "",
			 rest);
		snprintf(parent_buf, parent_len, "%s=%u:%d:%llu:%llu:%llu:%llu:%llu:%llu",
			 PROFIL_ENV_AGENT_PARENT, ag.proc, (int)getpid(),
			 (unsigned long long)pcpu->cpu_ns, (unsigned long long)pcpu->user_ns,
			 (unsigned long long)pcpu->sys_ns, (unsigned long long)tcpu->cpu_ns,
			 (unsigned long long)tcpu->user_ns, (unsigned long long)tcpu->sys_ns);
		out[n++] = preload;
		out[n++] = ag.fd_env;
		out[n++] = ag.clock_env;
		out[n++] = ag.hz_env;
		out[n++] = ag.inherit_env;
		out[n++] = parent_buf;
		if (ag.stacks)
			out[n++] = ag.stacks_env;
	} else if (rest[0]) {
		snprintf(preload, plen, "LD_PRELOAD=%s", rest);
		out[n++] = preload;
	}
	out[n] = NULL;
	return 0;
}

static size_t env_count(char *const envp[])
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

/*
 * Run one exec call with the agent's bookkeeping around it.  kind: 0 execve,
 * 1 execvpe, 2 fexecve.
 */
static int do_exec(int kind, const char *path, int fd, char *const argv[], char *const envp[])
{
	size_t cap = env_count(envp) + 16;
	char *newenv[cap];
	char preload[PATH_MAX * 2 + 32], parent[256];
	struct pdata_cpu pcpu, tcpu;
	int in_vfork = ag.pd && getpid() != ag.pid;
	/* the command's own process follows its exec even with inherit off (as with perf) */
	int follow = ag.pd && ag.active && (ag.inherit || !ag.forked) && !in_vfork;
	int stopped = 0, rc, saved;

	if (in_vfork) /* a vfork child of a profiled process: the exec'd image is a new process */
		follow = ag.pd && ag.inherit && ag.active;
	if (ag.pd && sampler_quiet()) {
		/* a sandbox: no system call of ours; the new image goes without the agent (it
		 * would start its clock with system calls the sandbox may forbid) */
		pcpu = tcpu = (struct pdata_cpu){0};
		if (exec_env(envp, newenv, cap, preload, sizeof(preload), parent, sizeof(parent), 0,
			     &pcpu, &tcpu) < 0) {
			errno = E2BIG;
			return -1;
		}
		envp = newenv;
	}
	if (!ag.pd || sampler_quiet()) {
		if (kind == 0)
			return real_execve(path, argv, envp);
		if (kind == 1)
			return real_execvpe(path, argv, envp);
		return real_fexecve(fd, argv, envp);
	}
	/* where the next image's CPU time starts */
	pcpu = cpu_now(0);
	tcpu = cpu_now(1);
	if (exec_env(envp, newenv, cap, preload, sizeof(preload), parent, sizeof(parent), follow,
		     &pcpu, &tcpu) < 0) {
		errno = E2BIG;
		return -1;
	}
	fcntl(ag.fd, F_SETFD, follow ? 0 : FD_CLOEXEC);
	if (!in_vfork && ag.active) {
		rescan_if_needed();
		end_image(PDATA_END_EXEC, 0);
		sampler_stop(); /* disarm: no tick may land mid-exec */
		stopped = 1;
	}
	if (kind == 0)
		rc = real_execve(path, argv, newenv);
	else if (kind == 1)
		rc = real_execvpe(path, argv, newenv);
	else
		rc = real_fexecve(fd, argv, newenv);
	saved = errno;
	/* exec failed: this image goes on */
	fcntl(ag.fd, F_SETFD, ag.inherit ? 0 : FD_CLOEXEC);
	if (stopped) {
		if (ag.rec)
			on_file(unend_image, NULL);
		/* the restarted sampler counts its overruns from zero */
		__atomic_store_n(&ag.lost_reported, 0, __ATOMIC_RELAXED);
		sampler_start(&ag.cfg, &(struct sampler_info){0});
	}
	errno = saved;
	return rc;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_exec(0, path, -1, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return do_exec(0, path, -1, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_exec(1, file, -1, argv, envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return do_exec(1, file, -1, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return do_exec(2, NULL, fd, argv, envp);
}

/*
 * execl*: the variadic arguments after arg, up to the NULL (and, with
 * want_env, the environment after it), collected on the stack.
 */
static int exec_list(int search, const char *path, const char *arg, va_list ap, int want_env)
{
	va_list cnt;
	size_t n = 1;

	va_copy(cnt, ap);
	while (va_arg(cnt, char *))
		n++;
	va_end(cnt);
	{
		char *argv[n + 1];
		char *const *envp = environ;

		argv[0] = (char *)arg;
		for (size_t i = 1; i <= n; i++)
			argv[i] = va_arg(ap, char *);
		if (want_env)
			envp = va_arg(ap, char *const *);
		return do_exec(search, path, -1, argv, envp);
	}
}

/*
 * The three execl* entry points differ only in search and want_env: a variadic
 * function cannot hand its arguments on, so each is this body with its own.
 */
#define EXEC_LIST_ENTRY(name, search, want_env)                                                    \
	EXPORT int name(const char *path, const char *arg, ...)                                    \
	{                                                                                          \
		va_list ap;                                                                        \
		int rc;                                                                            \
                                                                                                   \
		va_start(ap, arg);                                                                 \
		rc = exec_list(search, path, arg, ap, want_env);                                   \
		va_end(ap);                                                                        \
		return rc;                                                                         \
	}

EXEC_LIST_ENTRY(execl, 0, 0)
EXEC_LIST_ENTRY(execlp, 1, 0)
EXEC_LIST_ENTRY(execle, 0, 1)

/* ---- dlopen / dlclose ------------------------------------------------------- */

static void add_gen(void *arg)
{
	struct pdata_gen *g = pdata__add_gen(ag.pd, ag.rec->id, ag.gens + 1, pdata__now_ns());

	(void)arg;
	if (!g)
		return; /* the records area is full: named by the newest mapping, as before */
	ag.gens++;
	__atomic_store_n(&ag.count_id, g->id, __ATOMIC_RELEASE);
}

/*
 * Before a dlopen, when a dlclose unloaded code since the last generation:
 * a new generation, so that what this dlopen maps where that code was is
 * told apart (a dlopen that maps elsewhere costs a generation for nothing).
 */
static void begin_generation(void)
{
	if (!ag.code_unmapped || !ag.active || sampler_quiet() || getpid() != ag.pid || !ag.rec)
		return;
	ag.code_unmapped = 0;
	if (ag.gens >= PDATA_GENS_MAX) {
		note_agent_flag(PDATA_AGENT_GENS_FULL);
		return;
	}
	on_file(add_gen, NULL);
}

/* Before the real dlopen or dlclose: record mappings a sample found missing. */
static void before_dl(int opening)
{
	int saved = errno;

	if (!real_dlopen)
		resolve_reals();
	rescan_if_needed();
	if (opening) { /* a dlclose brings no object: no generation, no room to make */
		begin_generation();
		if (ag.stacks && !sampler_quiet())
			unwind_objects_reserve(); /* the unwinder's room for what it brings */
	}
	errno = saved;
}

/* Called by the dlopen trampoline, before the real dlopen. */
__attribute__((used)) void profil_agent_before_dl(void)
{
	before_dl(1);
}

static int read_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(uint64_t *)arg = info->dlpi_subs;
	return 1; /* the count is the same in every entry: the first one says it */
}

/* After a dlclose: when the loader unloaded an object, forget its mappings. */
static void after_dlclose(void)
{
	uint64_t subs = ag.dl_subs;

	if (!ag.active || sampler_quiet() || getpid() != ag.pid)
		return;
	dl_iterate_phdr(read_subs, &subs);
	if (subs != ag.dl_subs) {
		ag.dl_subs = subs;
		scan_maps(1);
	}
}

/*
 * dlopen: run the hook, then JUMP to the real dlopen so that its return
 * address, which glibc uses to find the caller's namespace and RUNPATH, is
 * still the program's.
 */
__asm__(".text\n"
	".globl dlopen\n"
	".type dlopen, @function\n"
	"dlopen:\n"
	"	.cfi_startproc\n" /* unwind info: call stacks cross this frame */
	"	push %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	push %rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	sub $8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call profil_agent_before_dl\n"
	"	add $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	pop %rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	pop %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp *real_dlopen(%rip)\n"
	"	.cfi_endproc\n"
	".size dlopen, .-dlopen\n");

EXPORT int dlclose(void *handle)
{
	int rc, saved;

	before_dl(0); /* record the library's mapping before it goes */
	rc = real_dlclose(handle);
	saved = errno;
	after_dlclose();
	if (ag.stacks)
		unwind_objects_changed(); /* its unwind table and cached frames go too */
	errno = saved;
	return rc;
}

/* ---- threads ------------------------------------------------------------------- */

struct thread_start {
	void *(*fn)(void *);
	void *arg;
};

/* The key's destructor: the thread ends (returned or pthread_exit). */
static void thread_ends(void *value)
{
	int saved = errno;

	(void)value;
	if (__atomic_load_n(&ag.active, __ATOMIC_ACQUIRE) && !sampler_quiet() && getpid() == ag.pid)
		account_thread(0);
	errno = saved;
}

static void *thread_main(void *arg)
{
	struct thread_start st = *(struct thread_start *)arg;

	free(arg);
	pthread_setspecific(ag.thread_key, &ag); /* any non-NULL value: the destructor runs */
	sampler_thread_started(); /* sampled from its first instruction, not from discovery */
	return st.fn(st.arg);
}

/* Every thread's CPU time when it ends: its start routine runs under a key with a destructor. */
EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	struct thread_start *st;
	int rc;

	if (!real_pthread_create)
		resolve_reals();
	if (!ag.have_key || !__atomic_load_n(&ag.active, __ATOMIC_ACQUIRE) ||
	    !(st = malloc(sizeof(*st))))
		return real_pthread_create(thread, attr, fn, arg);
	*st = (struct thread_start){fn, arg};
	rc = real_pthread_create(thread, attr, thread_main, st);
	if (rc)
		free(st);
	return rc;
}

/* ---- sandboxes ------------------------------------------------------------------ */

/*
 * seccomp(2) through prctl() or syscall() (libseccomp's way): the agent goes
 * quiet before the sandbox takes effect (sandbox_enter).  A program that
 * enters one with an inline system call is not seen (doc/agent-syscalls.md).
 */
EXPORT int prctl(int option, ...)
{
	unsigned long a[4];
	uint32_t kind;
	va_list ap;
	int quieted = 0, rc;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (!real_prctl)
		resolve_reals();
	kind = option == PR_SET_SECCOMP ? seccomp_kind(1, a[0]) : 0;
	if (kind)
		quieted = sandbox_enter();
	rc = real_prctl(option, a[0], a[1], a[2], a[3]);
	if (kind) {
		int saved = errno;

		sandbox_result(quieted, rc, kind);
		errno = saved;
	}
	return rc;
}

EXPORT long syscall(long nr, ...)
{
	long a[6], rc;
	uint32_t kind = 0;
	va_list ap;
	int quieted = 0;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real_syscall)
		resolve_reals();
	if (nr == SYS_seccomp)
		kind = seccomp_kind(0, (unsigned long)a[0]);
	else if (nr == SYS_prctl && a[0] == PR_SET_SECCOMP)
		kind = seccomp_kind(1, (unsigned long)a[1]);
	if (kind)
		quieted = sandbox_enter();
	rc = real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (kind) {
		int saved = errno;

		sandbox_result(quieted, rc, kind);
		errno = saved;
	}
	return rc;
}

/* ---- exit ---------------------------------------------------------------------- */

static void note_exit(int code)
{
	int saved = errno;

	if (ag.active && getpid() == ag.pid && ag.rec) {
		rescan_if_needed();
		end_image(PDATA_END_EXITED, code & 0xff);
	}
	errno = saved;
}

EXPORT void exit(int code)
{
	note_exit(code);
	if (!real_exit)
		resolve_reals();
	real_exit(code);
}

EXPORT void _exit(int code)
{
	note_exit(code);
	if (!real__exit)
		resolve_reals();
	real__exit(code);
}

EXPORT void _Exit(int code)
{
	_exit(code);
}

/*
 * main's return value is the exit status, but libc calls exit() for it
 * internally, past our wrapper: wrap main itself (the one way to see it).
 */
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			     void *);
static main_fn real_main;

static int main_hook(int argc, char **argv, char **envp)
{
	int rc = real_main(argc, argv, envp);

	note_exit(rc);
	return rc;
}

EXPORT int __libc_start_main(main_fn main_, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_main_fn real = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");

	real_main = main_;
	return real(main_hook, argc, argv, init, fini, rtld_fini, stack_end);
}

/* ---- constructor / destructor ------------------------------------------------------- */

static int parse_config(void)
{
	const char *fd_s = getenv(PROFIL_ENV_AGENT_FD);
	const char *clock_s = getenv(PROFIL_ENV_AGENT_CLOCK);
	const char *hz_s = getenv(PROFIL_ENV_AGENT_HZ);
	const char *inh_s = getenv(PROFIL_ENV_AGENT_INHERIT);
	const char *stacks_s = getenv(PROFIL_ENV_AGENT_STACKS);
	unsigned long long dev, ino;
	struct stat st;
	int fd;

	if (!fd_s || sscanf(fd_s, "%d:%llu:%llu", &fd, &dev, &ino) != 3)
		return -EINVAL;
	/* the descriptor must still be the recorder's file (not a reused number) */
	if (fstat(fd, &st) < 0 || st.st_dev != (dev_t)dev || st.st_ino != (ino_t)ino)
		return -EBADF;
	ag.fd = fd;
	ag.inherit = !inh_s || strcmp(inh_s, "0");
	ag.cfg.clock =
		clock_s && !strcmp(clock_s, "itimer") ? PROFIL_CLOCK_ITIMER : PROFIL_CLOCK_THREAD;
	ag.cfg.hz = hz_s ? (unsigned int)strtoul(hz_s, NULL, 10) : 0;
	ag.cfg.sink = agent_sink;
	ag.cfg.flags = SAMPLER_FORK_MANUAL;
	ag.stacks = stacks_s && !strcmp(stacks_s, "1");
	snprintf(ag.stacks_env, sizeof(ag.stacks_env), "%s=1", PROFIL_ENV_AGENT_STACKS);
	snprintf(ag.fd_env, sizeof(ag.fd_env), "%s=%s", PROFIL_ENV_AGENT_FD, fd_s);
	snprintf(ag.clock_env, sizeof(ag.clock_env), "%s=%s", PROFIL_ENV_AGENT_CLOCK,
		 clock_s ? clock_s : "thread");
	snprintf(ag.hz_env, sizeof(ag.hz_env), "%s=%u", PROFIL_ENV_AGENT_HZ, ag.cfg.hz);
	snprintf(ag.inherit_env, sizeof(ag.inherit_env), "%s=%d", PROFIL_ENV_AGENT_INHERIT,
		 ag.inherit);
	return 0;
}

static void find_self(void)
{
	Dl_info info;

	if (dladdr((void *)find_self, &info) && info.dli_fname)
		snprintf(ag.agent_path, sizeof(ag.agent_path), "%s", info.dli_fname);
}

/*
 * --no-inherit: children started without our exec wrappers (posix_spawn,
 * system, popen) must not load the agent: take our variables out of the
 * environment.  The command's own exec puts them back (do_exec).
 */
static void hide_from_children(void)
{
	const char *old = getenv("LD_PRELOAD");
	char rest[PATH_MAX];

	preload_without_agent(old, rest, sizeof(rest));
	if (rest[0])
		setenv("LD_PRELOAD", rest, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(PROFIL_ENV_AGENT_FD);
	unsetenv(PROFIL_ENV_AGENT_CLOCK);
	unsetenv(PROFIL_ENV_AGENT_HZ);
	unsetenv(PROFIL_ENV_AGENT_INHERIT);
	unsetenv(PROFIL_ENV_AGENT_PARENT);
	unsetenv(PROFIL_ENV_AGENT_STACKS);
}

__attribute__((constructor)) static void agent_init(void)
{
	int saved = errno;
	struct sampler_info info;
	char why[128];
	uint32_t parent;

	resolve_reals();
	find_self();
	if (parse_config() < 0)
		goto out;
	if (pdata__open_fd(&ag.pd, ag.fd, 1, why, sizeof(why)) < 0) {
		ag.pd = NULL;
		goto out;
	}
	/* SIGSEGV/SIGBUS in our accesses to the file only; the program's own go where they went */
	if (guard_install() < 0)
		goto out;
	fcntl(ag.fd, F_SETFD, ag.inherit ? 0 : FD_CLOEXEC);
	parent = parent_proc();
	if (begin_image(parent) < 0)
		goto out;
	__atomic_store_n(&ag.active, 1, __ATOMIC_RELEASE);
	scan_maps(0);
	note_inherited_sandbox();
	if (ag.stacks)
		enable_stacks();
	if (sampler_start(&ag.cfg, &info) < 0) {
		__atomic_store_n(&ag.active, 0, __ATOMIC_RELEASE);
		goto out;
	}
	/* after sampler_start: the sampler's own fork handler must run before ours */
	pthread_atfork(atfork_prepare, NULL, atfork_child);
	ag.have_key = pthread_key_create(&ag.thread_key, thread_ends) == 0;
	if (!ag.inherit)
		hide_from_children();
out:
	errno = saved;
}

__attribute__((destructor)) static void agent_fini(void)
{
	int saved = errno;

	if (ag.active && getpid() == ag.pid && ag.rec) {
		rescan_if_needed();
		/* end time and CPU; the kind stays as exit() recorded it, or unknown */
		end_image(-1, 0);
	}
	errno = saved;
}
