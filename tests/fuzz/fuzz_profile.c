// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a profil.data file through every reader: `profil report` in
 * each format (text, json with --threads --lines, csv --sort name --top 3,
 * text by perf's keys per image and thread, filtered), its call-stack parts
 * (--children, both trees, --callers/--callees; the whole run's and per
 * image, merged by other keys and filtered), and `profil export --format
 * gmon` and `--format folded`.  Seeds: tests/fuzz/corpus/profile/
 * (made by tests/fuzz/mkseeds.c: small tables, real system binaries).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "fuzz.h"

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
	fuzz_run_cmd(cmd_report, (char *[]){"report", "-i", (char *)in, NULL});
	fuzz_run_cmd(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "json",
					    "--threads", "--lines", NULL});
	fuzz_run_cmd(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "csv", "--sort",
					    "name", "--top", "3", NULL});
	fuzz_run_cmd(cmd_report,
		     (char *[]){"report", "-i", (char *)in, "--children", "--threads", "-g",
				"callee,0", "--callers", "main", "--callees", "main", NULL});
	fuzz_run_cmd(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "json",
					    "--children", "-g", "caller,0", "--lines", NULL});
	fuzz_run_cmd(cmd_report,
		     (char *[]){"report", "-i", (char *)in, "--sort", "pid,tid,comm,dso",
				"--images", "--threads", "--percent-limit", "1", "--dso",
				"[kernel],[unsampled],libc.so.6", NULL});
	fuzz_run_cmd(cmd_report,
		     (char *[]){"report", "-i", (char *)in, "--format", "json", "--children",
				"--sort", "dso,sym", "--threads", "-g", "callee", "--percent-limit",
				"1", "--dso", "[kernel],[unknown],libc.so.6", "--top", "5", NULL});
	fuzz_run_cmd(cmd_report, (char *[]){"report", "-i", (char *)in, "--format", "csv",
					    "--children", "--sort", "pid,comm,sym", NULL});
	fuzz_run_cmd(cmd_export, (char *[]){"export", "-i", (char *)in, "-o", out, NULL});
	unlink(out);
	fuzz_run_cmd(cmd_export,
		     (char *[]){"export", "--format", "folded", "-i", (char *)in, "-o", out, NULL});
	unlink(out);
	return 0;
}
