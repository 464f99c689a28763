/* SPDX-License-Identifier: MIT */
/*
 * export: the start every export of a profile into a file shares (gmon,
 * folded, pprof): the output is refused before any work (outfile__check with
 * the outputs' rules; outfile__write checks again when it writes), then the
 * profile is read.  0, or -errno with why.
 */
#ifndef PROFIL_OUTPUT_EXPORT_H
#define PROFIL_OUTPUT_EXPORT_H

#include <stddef.h>

#include "profile/pview.h"
#include "report/report.h"

/* The view of the profile at data_path in *v (pview__load). */
int export__load_view(struct pview **v, const char *data_path, const char *out_path, char *why,
		      size_t whylen);

/* The report's model of the profile at data_path in *rep (report__load with o). */
int export__load_report(struct report **rep, const char *data_path, const struct report_opts *o,
			const char *out_path, char *why, size_t whylen);

#endif /* PROFIL_OUTPUT_EXPORT_H */
