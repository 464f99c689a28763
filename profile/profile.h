/* SPDX-License-Identifier: MIT */
/*
 * profile/: the profile file and everything that reads it.  This header is
 * the component's interface for the commands: the report's model and the
 * exporters (one header each; a new exporter adds its own here).
 *
 *   profile/pdata.h    the file format and its writer: the contract with the
 *                      recorder (record/) and the agent (agent/), which
 *                      include it directly
 *   profile/pview.h    a validated, in-memory view of a profile (the reader)
 *   profile/symbols.h  symbolisation with elfutils (inside the component)
 *   profile/resolve.h  runtime PC -> function row (struct func)
 *   profile/report.h   the flat profile as a model: rows per process and thread, notes
 *   profile/callgraph.h call stacks as stacks of function rows: totals, trees
 *   profile/cgreport.h the report's call-stack parts (--children, --call-graph, ...)
 *   profile/folded.h   export: collapsed stacks (flamegraph.pl, speedscope)
 *   profile/gmon.h     export: gmon.out for GNU gprof
 *   profile/html.h     report --format html: one self-contained page
 *   profile/pprof.h    export: pprof's profile.proto, gzipped
 *   profile/diff.h     two profiles compared per function, object and command
 */
#ifndef PROFIL_PROFILE_PROFILE_H
#define PROFIL_PROFILE_PROFILE_H

#include "profile/callgraph.h"
#include "profile/cgreport.h"
#include "profile/diff.h"
#include "profile/folded.h"
#include "profile/gmon.h"
#include "profile/html.h"
#include "profile/pdata.h"
#include "profile/pprof.h"
#include "profile/pview.h"
#include "profile/report.h"
#include "profile/resolve.h"

#endif /* PROFIL_PROFILE_PROFILE_H */
