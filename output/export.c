// SPDX-License-Identifier: MIT
/* The exports' common start: see export.h. */
#include "output/export.h"
#include "profile/pdata.h"
#include "utils/outfile.h"

int export__load_view(struct pview **v, const char *data_path, const char *out_path, char *why,
		      size_t whylen)
{
	int rc = outfile__check(out_path, &pdata__output_rules, why, whylen);

	return rc < 0 ? rc : pview__load(v, data_path, why, whylen);
}

int export__load_report(struct report **rep, const char *data_path, const struct report_opts *o,
			const char *out_path, char *why, size_t whylen)
{
	int rc = outfile__check(out_path, &pdata__output_rules, why, whylen);

	return rc < 0 ? rc : report__load(rep, data_path, o, why, whylen);
}
