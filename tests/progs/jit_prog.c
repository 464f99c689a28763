// SPDX-License-Identifier: MIT
/*
 * A tiny JIT for tests/e2e/names.sh: copies a counting loop into anonymous
 * executable memory, names it "jitted_hot_loop" the way JIT compilers do,
 * and runs it for SECONDS of CPU time (CLOCK_THREAD_CPUTIME_ID).
 *
 *   jit_prog MODE [SECONDS]
 *   normal   /tmp/perf-PID.map, written before the code runs
 *   grow     the map grows while the code runs: an over-long line first, the name later
 *   symlink  /tmp/perf-PID.map is a symbolic link to a file that names the code
 *   fifo     /tmp/perf-PID.map is a FIFO nobody writes
 *   other    /tmp/perf-PID.map belongs to another user (nobody; run as root)
 *   jitdump  ./jit-PID.dump, mapped PROT_EXEC as the jitdump writers do
 * Every file it made is removed before it exits: the names must come from the profile.
 * Prints "jit_seconds S".
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mov %rdi,%rax; 1: sub $1,%rax; jne 1b; ret */
static const unsigned char loop_code[] = {0x48, 0x89, 0xf8, 0x48, 0x83,
					  0xe8, 0x01, 0x75, 0xfa, 0xc3};
static char map_path[64], aux_path[64], dump_path[64];

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void write_dump(void *code)
{
	uint32_t hdr[6] = {0x4A695444, 1, 40, 62, 0, (uint32_t)getpid()};
	uint64_t hdr2[2] = {0, 0}, addr = (uintptr_t)code, size = sizeof(loop_code), idx = 1,
		 ts = 1;
	const char name[] = "jitted_hot_loop";
	uint32_t id = 0, total = 16 + 40 + sizeof(name) + sizeof(loop_code), pid = getpid();
	int fd = open(dump_path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;

	if (!f) {
		perror(dump_path);
		exit(2);
	}
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite(hdr2, sizeof(hdr2), 1, f);
	fwrite(&id, 4, 1, f);
	fwrite(&total, 4, 1, f);
	fwrite(&ts, 8, 1, f);
	fwrite(&pid, 4, 1, f);
	fwrite(&pid, 4, 1, f);
	fwrite(&addr, 8, 1, f);
	fwrite(&addr, 8, 1, f);
	fwrite(&size, 8, 1, f);
	fwrite(&idx, 8, 1, f);
	fwrite(name, sizeof(name), 1, f);
	fwrite(loop_code, sizeof(loop_code), 1, f);
	fflush(f);
	/* the writers' mark: the dump mapped executable, so that profilers see it */
	if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		perror("mmap jitdump");
}

static void name_code(const char *mode, void *code, int phase)
{
	char line[128];

	snprintf(line, sizeof(line), "%lx %zx jitted_hot_loop\n", (unsigned long)(uintptr_t)code,
		 sizeof(loop_code));
	if (!strcmp(mode, "normal") && !phase) {
		write_file(map_path, line);
	} else if (!strcmp(mode, "grow")) {
		FILE *f = fopen(map_path, phase ? "a" : "w");

		if (!f)
			exit(2);
		if (!phase) /* a line far longer than a line may be, unfinished for now */
			for (int i = 0; i < 2000; i++)
				fputs("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				      f);
		else if (phase == 1)
			fprintf(f, " 1000 junk\n%s", line);
		fclose(f);
	} else if (!strcmp(mode, "symlink") && !phase) {
		write_file(aux_path, line);
		if (symlink(aux_path, map_path) < 0)
			exit(2);
	} else if (!strcmp(mode, "fifo") && !phase) {
		if (mkfifo(map_path, 0644) < 0)
			exit(2);
	} else if (!strcmp(mode, "other") && !phase) {
		write_file(map_path, line);
		if (chown(map_path, 65534, 65534) < 0)
			exit(2);
	} else if (!strcmp(mode, "jitdump") && !phase) {
		write_dump(code);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "normal";
	double seconds = argc > 2 ? atof(argv[2]) : 0.5, start, half;
	long (*fn)(long);
	void *code;
	int phase = 0;

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(aux_path, sizeof(aux_path), "/tmp/jit_prog-%d.txt", (int)getpid());
	snprintf(dump_path, sizeof(dump_path), "jit-%d.dump", (int)getpid());
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memcpy(code, loop_code, sizeof(loop_code));
	fn = (long (*)(long))code;
	name_code(mode, code, phase++);
	start = cpu_now();
	half = start + seconds / 2;
	while (cpu_now() - start < seconds) {
		fn(20000000);
		if (phase == 1 && cpu_now() > half)
			name_code(mode, code, phase++);
	}
	printf("jit_seconds %.3f\n", cpu_now() - start);
	unlink(map_path);
	unlink(aux_path);
	unlink(dump_path);
	return 0;
}
