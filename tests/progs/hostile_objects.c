// SPDX-License-Identifier: MIT
/*
 * A profiled program that maps hostile objects (issue 16), for
 * tests/e2e/record_untrusted.sh:
 *
 *   hostile_objects cfi PATH SECONDS
 *	writes at PATH an object whose .eh_frame is the 8 MB (four
 *	FDEs of 2 M DW_CFA_nop and 8,192 rows, tests/progs/hostile_elf.h),
 *	maps it executable and spins in its code for SECONDS of CPU time.
 *
 * Prints "cpu=SECONDS" (its own CLOCK_PROCESS_CPUTIME_ID) and exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hostile_elf.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
static const uint8_t spin_code[] = {0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};

typedef void (*spin_fn)(unsigned long);

static void spin_in(spin_fn f, double seconds)
{
	double t0 = cpu_now();

	while (cpu_now() - t0 < seconds)
		f(100000);
}

/* Write the object (text: the spin function at the start of each FDE's range). */
static int write_cfi_object(const char *path)
{
	enum { FDES = 4, FDE_LEN = 8192 };
	static uint8_t text[FDES * FDE_LEN];
	struct helf_buf eh, img;
	int fd, rc = -1;

	memset(text, 0xcc, sizeof(text));
	for (int i = 0; i < FDES; i++)
		memcpy(text + i * FDE_LEN, spin_code, sizeof(spin_code));
	if (helf_hostile_eh(&eh, HELF_EH(sizeof(text)), FDES, FDE_LEN, 2u << 20, 8192) < 0 ||
	    helf_image(&img, text, sizeof(text), eh.p, eh.len) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd >= 0 && write(fd, img.p, img.len) == (ssize_t)img.len)
		rc = 0;
	if (fd >= 0)
		close(fd);
	free(eh.p);
	free(img.p);
	return rc;
}

/* Map an object written by helf_image executable; returns its base or NULL. */
static uint8_t *map_object(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	void *p = size > 0 ? mmap(NULL, (size_t)size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) :
			     MAP_FAILED;

	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int run_cfi(const char *path, double seconds)
{
	uint8_t *base;

	if (write_cfi_object(path) < 0 || !(base = map_object(path))) {
		perror(path);
		return 2;
	}
	spin_in((spin_fn)(void *)(base + HELF_TEXT), seconds);
	return 0;
}

int main(int argc, char **argv)
{
	double t0 = cpu_now();
	int rc;

	if (argc == 4 && !strcmp(argv[1], "cfi")) {
		rc = run_cfi(argv[2], atof(argv[3]));
	} else {
		fprintf(stderr, "usage: hostile_objects cfi PATH SECONDS\n");
		return 2;
	}
	printf("cpu=%.3f\n", cpu_now() - t0);
	return rc;
}
