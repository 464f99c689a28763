/* SPDX-License-Identifier: MIT */
/*
 * The flat profile of a profil.data as an in-memory model, for the printers
 * of `profil report` (text, JSON, CSV) and the exporters: every process
 * image's samples summed by function row (struct func, profile/resolve.h),
 * per image and, when asked, per thread, sorted; and the notes the reader
 * should see about the objects (missing, stripped, changed since...).
 */
#ifndef PROFIL_PROFILE_REPORT_H
#define PROFIL_PROFILE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/pview.h"
#include "profile/resolve.h"

struct report_opts {
	int threads;   /* rows per thread too */
	int lines;     /* split by source line (file:line from DWARF) */
	int sort_name; /* rows by function name, else most samples first */
};

struct report_row {
	const struct func *f; /* interned: equal rows are equal pointers */
	uint64_t count;
};

struct report_thread {
	int tid;
	const char *comm; /* "" when unknown */
	uint64_t samples;
	struct report_row *rows; /* only with report_opts.threads */
	size_t nrows;
};

struct report_proc {
	const struct pv_proc *p;
	struct report_row *rows;
	size_t nrows;
	struct report_thread *threads; /* in tid order, each thread with samples */
	size_t nthreads;
};

struct report {
	struct report_opts o;
	struct pview *v;	   /* the profile as read */
	struct report_proc *procs; /* one per v->procs, same order */
	double period_s;	   /* seconds of CPU time per sample, 0 when unknown */
	char **notes;		   /* sentences about the objects and the file */
	size_t nnotes;
	struct resolver *r;
};

/*
 * Read the profile at path and build its model.  Returns 0, or -errno with
 * one sentence in why (a file that cannot be read as a profile, out of memory).
 */
int report__load(struct report **out, const char *path, const struct report_opts *o, char *why,
		 size_t whylen);
void report__free(struct report *rep);

#endif /* PROFIL_PROFILE_REPORT_H */
