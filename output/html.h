/* SPDX-License-Identifier: MIT */
/*
 * html: `profil report --format html`, one self-contained page that opens
 * offline: the flat profile as a sortable, filterable table and a flame
 * graph.  The page's HTML, CSS and JavaScript (output/html/) are embedded in
 * the binary at build time; the profile goes into the page as ONE JSON object
 * (doc/report-json.md, "HTML report data") that the page's own script renders.
 *
 * Every string of a profile is untrusted: it reaches the page only inside
 * that JSON, with every '<' written as \u003c so that no string can end the
 * script element, and the page inserts it as text, never as markup.
 */
#ifndef PROFIL_HTML_H
#define PROFIL_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "profile/pview.h"
#include "report/report.h"
#include "report/resolve.h"

struct html_report;

/* An empty report of the profile v, naming PCs with r (both outlive it).  NULL: out of memory. */
struct html_report *html__new(const struct pview *v, struct resolver *r);
void html__free(struct html_report *h);

/*
 * Add count samples of thread tid of process image p, taken in its mapping
 * generation gen (pv_sample.gen: 0 the image's first), whose stack is pcs[0]
 * (the leaf, where the sample was taken) .. pcs[npcs - 1] (the outermost
 * caller).  Each PC is named with resolver__frames as given (the functions
 * inlined at it are frames of their own, inside its function): a caller's PC
 * should point into its call instruction (return address - 1).  Equal
 * stacks of a thread are summed.  Returns 0, -EINVAL (npcs == 0) or -ENOMEM.
 */
int html__add_stack(struct html_report *h, const struct pv_proc *p, uint32_t gen, int tid,
		    const uint64_t *pcs, size_t npcs, uint64_t count);

/*
 * Add ns nanoseconds that thread tid of p spent off the CPU for reason (an
 * off-CPU enum pdata_kind) with the stack pcs (as html__add_stack).  The
 * page switches its flame graph and table between CPU, off-CPU and wall
 * time when it has any.  Returns 0, -EINVAL (npcs == 0, not a reason) or
 * -ENOMEM.
 */
int html__add_offcpu(struct html_report *h, const struct pv_proc *p, uint32_t gen, int tid,
		     const uint64_t *pcs, size_t npcs, uint32_t reason, uint64_t ns);

/*
 * Write the page to out.  notes: remarks on the data for the reader (as in
 * the text report).  Returns 0 or -errno with one sentence in why; on error
 * out may hold part of a page (write to a temporary file).
 */
int html__write(struct html_report *h, FILE *out, const char *const *notes, size_t nnotes,
		char *why, size_t whylen);

/*
 * The whole page of a report's model (its profile, resolver and notes) to
 * path, "-" for stdout, through utils/outfile.h with pdata__output_rules: a
 * file is written to a temporary beside it and renamed; never through a
 * symbolic link, never over another user's file, a profile or a program.
 * Returns 0 or -errno with one sentence in why.
 */
int html__write_report(const struct report *m, const char *path, char *why, size_t whylen);

struct json_object;

/*
 * The differential flame graph's page (output/html/diff.html: `profil diff
 * --format html`) with its document doc (doc/report-json.md, "profil diff
 * --format html"; output/diff_html.c makes it) to path, as
 * html__write_report writes its page.  doc NULL: out of memory.  Returns 0
 * or -errno with one sentence in why.
 */
int html__write_diff(const char *path, struct json_object *doc, char *why, size_t whylen);

#endif /* PROFIL_HTML_H */
