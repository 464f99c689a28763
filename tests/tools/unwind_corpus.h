/* SPDX-License-Identifier: MIT */
/*
 * A corpus of real perf samples for the unwinder's tests and benchmark:
 * run a program under per-CPU task-clock sampling (IP, TID, user registers
 * IP/SP/BP and a copy of the user stack), keep every sample and the
 * program's executable mappings; and libdwfl's unwinding of the same
 * samples, the reference the unwinder is compared with.
 */
#ifndef PROFIL_UNWIND_CORPUS_H
#define PROFIL_UNWIND_CORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct corpus_sample {
	pid_t pid, tid;
	uint64_t abi;
	uint64_t regs[3]; /* BP, SP, IP: the order of the mask bits 6, 7, 8 */
	uint32_t stack_size;
	uint8_t *stack; /* the stack_size bytes the kernel copied from SP */
};

struct corpus_map {
	pid_t pid;
	uint64_t start, end, pgoff, dev, ino;
	char *path;
};

struct corpus {
	struct corpus_sample *s;
	size_t n, cap;
	struct corpus_map *maps;
	size_t nmaps, mapcap;
	uint64_t lost;	     /* samples the rings dropped */
	pid_t pid;	     /* the program */
	int status;	     /* its wait status */
	double cpu_s;	     /* its user + system CPU time (rusage) */
	double wall_s;	     /* from its start to its exit (10 ms resolution) */
	size_t record_bytes; /* bytes of sample records read */
	uint64_t regs_mask;
};

/*
 * Run argv[0] with argv and sample it at hz with stack_bytes of stack per
 * sample until it exits.  stack_bytes 0: flat samples (IP, TID only, not
 * kept); hz 0: no sampling at all (a baseline).  Returns 0, or -errno with
 * a sentence in why (-EACCES / -EPERM: perf_event_open refused).
 */
int corpus_collect(struct corpus *c, char *const argv[], int hz, uint32_t stack_bytes, char *why,
		   size_t whylen);
void corpus_free(struct corpus *c);

/* The mapping of pid holding addr, or NULL. */
const struct corpus_map *corpus_find_map(const struct corpus *c, pid_t pid, uint64_t addr);

/* libdwfl's unwinder over the corpus's samples of one process. */
struct dwref;
struct dwref *dwref_new(const struct corpus *c, pid_t pid, char *why, size_t whylen);
/* PCs of one sample, leaf first, raw (as the unwinder gives them); returns how many. */
int dwref_unwind(struct dwref *d, const struct corpus_sample *s, uint64_t *pcs, int max);
void dwref_free(struct dwref *d);

#endif
