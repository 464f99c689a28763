// SPDX-License-Identifier: MIT
/* The recording engine's entry point.  See record.h. */
#include <string.h>

#include "record/record.h"
#include "record/run.h"

int record__run(const struct record_opts *opts, struct record_result *res)
{
	memset(res, 0, sizeof(*res));
	res->exit_status = 1;
	if (opts->all_cpus)
		return record__system(opts, res);
	if (opts->attach_pid)
		return record__attach(opts, res);
	return record__command(opts, res);
}
