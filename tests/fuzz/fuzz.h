/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the input handed
 * to the code under test as a file, a memfd named /proc/self/fd/N (no disk
 * I/O, no temporary file to clean up).  The same targets build as plain
 * programs with tests/fuzz/replay.c, which replays corpus files in `make
 * check` (regression tests of every input that once crashed).
 */
#ifndef PROFIL_FUZZ_H
#define PROFIL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as the content of a file: returns its path ("/proc/self/fd/N",
 * the same memfd every time, rewritten), or NULL when it cannot be made.
 */
const char *fuzz_input_file(const uint8_t *data, size_t size);

/* The command cmd (a cmd_NAME entry point) run with argv (NULL-terminated): its exit status. */
static inline int fuzz_run_cmd(int (*cmd)(int, char **), char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cmd(argc, argv);
}

/* stdout to /dev/null once (the targets print reports; libFuzzer prints on stderr). */
void fuzz_quiet_stdout(void);

#endif
