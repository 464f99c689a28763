// SPDX-License-Identifier: MIT
/*
 * Fuzz target: an event stream through `profil events`, as JSON lines with
 * filters and as a table.  Seeds: tests/fuzz/corpus/events/.
 */
#include "cmds/cmds.h"
#include "fuzz.h"

static int run(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cmd_events(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_input_file(data, size);
	/* the filters parse their arguments in place: writable copies */
	char pid[] = "100", comm[] = "demo", event[] = "prof,profil,sprofil";

	if (!in)
		return 0;
	fuzz_quiet_stdout();
	run((char *[]){"events", "-i", (char *)in, NULL});
	run((char *[]){"events", "-i", (char *)in, "--format", "table", NULL});
	run((char *[]){"events", "-i", (char *)in, "--pid", pid, "--comm", comm, "--event", event,
		       "--format", "table", NULL});
	return 0;
}
