// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a profil.data file through every reader: `profil report` in
 * each format (text, json with --threads --lines, csv --sort name --top 3),
 * its call-stack parts (--children, both trees, --callers/--callees), and
 * `profil export --format gmon` and `--format folded`.  Seeds: tests/fuzz/corpus/profile/
 * (made by tests/fuzz/mkseeds.c: small tables, real system binaries).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "fuzz.h"

static int run(int (*cmd)(int, char **), char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cmd(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_input_file(data, size);
	char out[64];

	if (!in)
		return 0;
	fuzz_quiet_stdout();
	/*
	 * A gmon.out may legitimately grow to 512 MiB (a bin beyond 65535 takes extra
	 * records): cap files at 16 MiB, so that such an input tests the write error
	 * (EFBIG, one sentence) instead of the disk's speed.
	 */
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &(struct rlimit){16 << 20, 16 << 20});
	/* tmpfs: export ends with fsync, which on a disk would cost more than the rest */
	snprintf(out, sizeof(out), "%s/profil-fuzz-%d.gmon",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
	run(cmd_report, (char *[]){"report", "-i", (char *)in, NULL});
	run(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "json", "--threads",
				   "--lines", NULL});
	run(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "csv", "--sort", "name",
				   "--top", "3", NULL});
	run(cmd_report, (char *[]){"report", "-i", (char *)in, "--children", "--threads", "-g",
				   "callee,0", "--callers", "main", "--callees", "main", NULL});
	run(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "json", "--children",
				   "-g", "caller,0", "--lines", NULL});
	run(cmd_export, (char *[]){"export", "-i", (char *)in, "-o", out, NULL});
	unlink(out);
	run(cmd_export,
	    (char *[]){"export", "--format", "folded", "-i", (char *)in, "-o", out, NULL});
	unlink(out);
	return 0;
}
