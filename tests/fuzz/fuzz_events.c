// SPDX-License-Identifier: MIT
/*
 * Fuzz target: an event stream through `profil events`, as JSON lines with
 * filters and as a table.  Seeds: tests/fuzz/corpus/events/.
 */
#include "cmds/cmds.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_input_file(data, size);
	/* the filters parse their arguments in place: writable copies */
	char pid[] = "100", comm[] = "demo", event[] = "prof,profil,sprofil";

	if (!in)
		return 0;
	fuzz_quiet_stdout();
	fuzz_run_cmd(cmd_events, (char *[]){"events", "-i", (char *)in, NULL});
	fuzz_run_cmd(cmd_events, (char *[]){"events", "-i", (char *)in, "--format", "table", NULL});
	fuzz_run_cmd(cmd_events, (char *[]){"events", "-i", (char *)in, "--pid", pid, "--comm",
					    comm, "--event", event, "--format", "table", NULL});
	return 0;
}
