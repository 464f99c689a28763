/* SPDX-License-Identifier: MIT */
/*
 * The process tree of a recording (perf and bpf clocks): the current image
 * of every pid (a fork makes a new one, and so does an exec), every thread,
 * and the executable mappings of each image, kept in step with their
 * records in profil.data.  What the kernel did not report (attach races, a
 * process that existed before) is read from /proc.  Also: how processes
 * ended (wait statuses, zombies' statuses).
 *
 * An image's mappings are those in effect now: a new mapping takes the
 * place of those it overlaps.  When one it replaces was of another object
 * (a library dlclose'd and another dlopen'ed at its address, a file
 * rewritten at its path and mapped again), the image begins a new mapping
 * generation (profile/pdata.h: struct pdata_gen): its samples and its new
 * mappings are recorded under pstate__id() from then on.  At most
 * PDATA_GENS_MAX generations per image: past it, replaced mappings are
 * named by the newest one, and counted (proctree__gens_refused).
 */
#ifndef PROFIL_RECORD_PROCTREE_H
#define PROFIL_RECORD_PROCTREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/pdata.h"

struct pmap {
	uint64_t start, end, pgoff;
	uint32_t prot;
	char *path;
	uint8_t build_id[20];  /* as the kernel reported it (MMAP2 with build id) */
	uint32_t build_id_len; /* 0: unknown */
	uint64_t dev, ino;     /* the mapped file's, when known (0: unknown) */
};

/* What a mapping maps: the file, as far as it is known (NULL / 0: unknown). */
struct pobject {
	const char *path;
	const uint8_t *build_id;
	unsigned build_id_len;
	uint64_t dev, ino;
};

/* The current image of one pid. */
struct pstate {
	pid_t pid, ppid;
	struct pdata_proc *rec; /* NULL while an exec'd image waits for its first mapping */
	uint32_t parent;	/* proc id of the previous image (exec) */
	uint32_t gen_id;	/* its newest mapping generation's id, 0: none (pstate__id) */
	uint32_t gens;		/* mapping generations begun */
	char *exe;
	struct pmap *maps;
	size_t nmaps, cap;
	char comm[16];
	int await_first_exec; /* the command: its own exec is not a new image */
	int ended;
	/* the whole machine (proctree__set_system): */
	int sampled;	    /* it has samples in the current profile: its records are written */
	char *cgroup;	    /* where it ran, as inherited (fork, exec), else NULL */
	int nspid;	    /* its pid in its own pid namespace, 0 unknown */
	uint32_t ctx_flags; /* PDATA_CTX_* */
	/* kernel samples of an exec'd image before its first mapping names it (and its record) */
	struct {
		pid_t tid;
		uint64_t pc;
	} early[16];
	unsigned int nearly;
};

/* A thread's CPU accounting (record/cpuacct.c). */
struct tcpu {
	struct pdata_proc *image; /* the proc record of the thread's record's image */
	uint64_t samples;	  /* samples through the ring in this image */
	uint64_t kernel_samples;  /* of which at kernel PCs */
	uint64_t read_ns;	  /* its task-clock so far (PERF_RECORD_READ, summed over CPUs) */
	uint64_t claimed;	  /* samples it took in its earlier images (left by exec) */
	struct pdata_cpu shown;	  /* what its record (and its share of the image) says now */
	/* images it left by exec whose accounting has not come yet, oldest first */
	struct {
		struct pdata_thread *rec;
		struct pdata_proc *image;
		uint64_t samples; /* the samples it took there */
	} left[4];
	unsigned int nleft;
};

struct tstate {
	pid_t tid, pid;
	uint32_t proc;
	struct pdata_thread *rec;
	char comm[16];
	struct tcpu cpu;
	int ended; /* its EXIT came (the whole machine: forgotten at the next prune) */
};

struct proctree;

/* Mapping replacements past PDATA_GENS_MAX generations of their image, so far. */
uint64_t proctree__gens_refused(const struct proctree *t);

/* An empty tree writing into pd.  Returns 0 or -ENOMEM. */
int proctree__new(struct proctree **out, struct pdata *pd);
void proctree__free(struct proctree *t);

/* A new image (not in the tree yet: proctree__set makes it current), NULL on out-of-memory. */
struct pstate *pstate__new(pid_t pid, pid_t ppid, const char *exe);
/* Remember a mapping of an image (without writing its record). */
int pstate__remember_map(struct pstate *p, uint64_t start, uint64_t end, uint64_t pgoff,
			 uint32_t prot, const char *path);
/* Remember a copy of m (a forked child's copy of its parent's mapping, build id included). */
int pstate__copy_map(struct pstate *p, const struct pmap *m);
/*
 * The id the image's samples and new mappings are recorded under: its
 * newest mapping generation's, else its proc record's (0 without one).
 */
uint32_t pstate__id(const struct pstate *p);

/* The current image of pid, or NULL. */
struct pstate *proctree__find(struct proctree *t, pid_t pid);
/*
 * Make p the current image of its pid (the older one is freed).  Returns p,
 * or NULL when out of memory (p is freed then).
 */
struct pstate *proctree__set(struct proctree *t, struct pstate *p);
/* The current image of pid, learnt from /proc when the kernel never told us about it. */
struct pstate *proctree__lazy(struct proctree *t, pid_t pid);

/* Publish the image's proc record (and the mappings seen before it existed). */
void proctree__ensure_rec(struct proctree *t, struct pstate *p);
/*
 * Remember a mapping and write its record (once the image has one), with
 * what is known of the file (o->build_id: at most 20 bytes
 * kept).  Returns 1 when it began a mapping generation (it replaced a
 * mapping of another object), else 0.
 */
int proctree__add_map_obj(struct proctree *t, struct pstate *p, uint64_t start, uint64_t end,
			  uint64_t pgoff, uint32_t prot, const struct pobject *o);
/* The executable mappings of a running process, from /proc/PID/maps. */
void proctree__read_proc_maps(struct proctree *t, struct pstate *p);
/* Call fn(arg, pid) whenever the mappings of pid are read from /proc (the unwinder's hook). */
void proctree__on_proc_maps(struct proctree *t, void (*fn)(void *arg, pid_t pid), void *arg);

/* The thread tid, or NULL. */
struct tstate *proctree__find_thread(struct proctree *t, pid_t tid);
/* The thread tid of process pid, created when new (a reused tid starts afresh). */
struct tstate *proctree__get_thread(struct proctree *t, pid_t tid, pid_t pid);
/* Make sure (image, tid) has its thread record; comm: its name when known, else NULL. */
void proctree__note_thread(struct proctree *t, struct pstate *p, pid_t tid, const char *comm);

/*
 * Register a process image the recorder knows about before the kernel
 * reports it (the command, or the attached process); maps_from_proc reads
 * /proc/PID/maps for mappings that already exist.
 */
struct pdata_proc *proctree__add_root(struct proctree *t, pid_t pid, pid_t ppid, const char *exe,
				      int maps_from_proc);

/*
 * The whole machine (`record -a`): an image's records are written only once
 * it has a sample (pstate.sampled, set by the caller before
 * proctree__ensure_rec), so that the profile describes the processes that
 * ran, not every process of the machine; each proc record is followed by
 * where the process ran (PDATA_REC_PROC_CTX: its cgroup, pid namespace's
 * pid, mount namespace), read from /proc while it lives, else inherited
 * from its parent (fork) or previous image (exec).
 */
void proctree__set_system(struct proctree *t);

/*
 * A forked child or an exec'd image takes where from ran (whole machine);
 * an exec'd image is no kernel thread (a kernel thread's child that execs
 * a helper program).
 */
void pstate__inherit_ctx(struct pstate *p, const struct pstate *from, int exec);

/*
 * Write from now on into pd (a rotation): every image and thread is
 * described again in pd when it next has a sample.
 */
void proctree__switch(struct proctree *t, struct pdata *pd);

/*
 * Forget the processes and threads that ended (the whole machine: memory
 * follows what is alive, not what ran).  Cheap when little has ended.
 */
void proctree__prune(struct proctree *t);

/*
 * path as the recorder can open it: a mapping's path of an image in another
 * mount namespace lies under /proc/PID/root.  Returns buf or path.
 */
const char *proctree__host_path(const struct pstate *p, const char *path, char *buf, size_t len);

/* The parent pid of a running process (0 when unknown), from /proc. */
pid_t proc_read_ppid(pid_t pid);

/*
 * How process pid ended (a wait status, from the recorder's own wait or
 * the kernel's accounting): written into its current image's record, or
 * kept until the image is known and its end is seen.
 */
void proctree__set_status(struct proctree *t, pid_t pid, int status);
/* A status kept for pid by proctree__set_status, taken out: 1, else 0. */
int proctree__take_status(struct proctree *t, pid_t pid, int *status);

/* The wait status of a process that has ended but is not reaped yet (a zombie): 1, else 0. */
int record_zombie_status(pid_t pid, int *status);

/* A wait status as enum pdata_end + exit code or signal. */
void record_decode_status(int status, int *kind, int *code);

#endif /* PROFIL_RECORD_PROCTREE_H */
