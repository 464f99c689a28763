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
 *   hostile_objects swap PATH LIBA LIBB SECONDS
 *	copies LIBA to PATH, dlopens it and spins in it (swap_entry) for
 *	SECONDS / 2, dlcloses it, writes LIBB at PATH (a new inode, maybe at
 *	the address A had), dlopens it and spins in it for SECONDS / 2.
 *	Prints "half=N SECONDS", each half's CPU time as measured.
 *
 *   hostile_objects reuse LIBA LIBB SECONDS [PAIRS]
 *	dlopens LIBA (its own path) and spins in it for SECONDS / 2,
 *	dlcloses it, dlopens LIBB (another path: the kernel usually maps it
 *	where LIBA was) and spins in it for SECONDS / 2; "half=N SECONDS"
 *	as swap.  With PAIRS, that many times over (each load spinning
 *	SECONDS / 2 / PAIRS), the halves summed.
 *
 *   hostile_objects fifo PATH LIB SECONDS
 *	copies LIB to PATH, dlopens it, unlinks it and puts a FIFO at PATH,
 *	then spins in it for SECONDS.
 *
 *   hostile_objects deleted PATH LIB SECONDS
 *	copies LIB to PATH, dlopens it, unlinks it, spins in it for SECONDS.
 *
 *   hostile_objects churn PATH LIB N SECONDS
 *	N times: copies LIB to PATH.I, dlopens it, spins in it for SECONDS,
 *	dlcloses it and deletes it (libraries deleted soon after use).
 *
 * Prints "cpu=SECONDS" (its own CLOCK_PROCESS_CPUTIME_ID) and exits 0;
 * "lib=ADDRESS" for each library it loaded.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* Copy src to a new file at dst (unlinked first: a new inode). */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return close(out);
}

typedef double (*entry_fn)(double);

/* dlopen path, spin in its swap_entry for seconds; the handle, or NULL. */
static void *load(const char *path, entry_fn *entry)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	*entry = h ? (entry_fn)dlsym(h, "swap_entry") : NULL;
	if (!*entry) {
		fprintf(stderr, "%s: %s\n", path, dlerror());
		return NULL;
	}
	printf("lib=%p\n", (void *)*entry);
	return h;
}

static int run_swap(const char *path, const char *a, const char *b, double seconds)
{
	const char *libs[2] = {a, b};

	for (int i = 0; i < 2; i++) {
		entry_fn entry;
		double t0;
		void *h;

		if (copy_file(libs[i], path) < 0 || !(h = load(path, &entry)))
			return 2;
		t0 = cpu_now();
		entry(seconds / 2);
		printf("half=%d %.6f\n", i, cpu_now() - t0);
		dlclose(h);
	}
	return 0;
}

static int run_reuse(const char *a, const char *b, double seconds, int pairs)
{
	const char *libs[2] = {a, b};
	double half[2] = {0, 0};

	for (int k = 0; k < 2 * pairs; k++) {
		entry_fn entry;
		void *h = load(libs[k % 2], &entry);
		double t0 = cpu_now();

		if (!h)
			return 2;
		entry(seconds / 2 / pairs);
		half[k % 2] += cpu_now() - t0;
		dlclose(h);
	}
	printf("half=0 %.6f\nhalf=1 %.6f\n", half[0], half[1]);
	return 0;
}

/* fifo: a FIFO at the library's path once it is loaded; else just deleted. */
static int run_gone(const char *path, const char *lib, double seconds, int fifo)
{
	entry_fn entry;

	if (copy_file(lib, path) < 0 || !load(path, &entry))
		return 2;
	unlink(path);
	if (fifo && mkfifo(path, 0600) < 0) {
		perror(path);
		return 2;
	}
	entry(seconds);
	return 0;
}

static int run_churn(const char *path, const char *lib, int n, double seconds)
{
	char name[4096];
	entry_fn entry;
	void *h;

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.%d", path, i);
		if (copy_file(lib, name) < 0 || !(h = load(name, &entry)))
			return 2;
		entry(seconds);
		dlclose(h);
		unlink(name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double t0 = cpu_now();
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "cfi")) {
		rc = run_cfi(argv[2], atof(argv[3]));
	} else if (argc == 6 && !strcmp(argv[1], "swap")) {
		rc = run_swap(argv[2], argv[3], argv[4], atof(argv[5]));
	} else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "reuse")) {
		rc = run_reuse(argv[2], argv[3], atof(argv[4]), argc == 6 ? atoi(argv[5]) : 1);
	} else if (argc == 5 && (!strcmp(argv[1], "fifo") || !strcmp(argv[1], "deleted"))) {
		rc = run_gone(argv[2], argv[3], atof(argv[4]), !strcmp(argv[1], "fifo"));
	} else if (argc == 6 && !strcmp(argv[1], "churn")) {
		rc = run_churn(argv[2], argv[3], atoi(argv[4]), atof(argv[5]));
	} else {
		fprintf(stderr, "usage: hostile_objects cfi|swap|reuse|fifo|deleted|churn ...\n");
		return 2;
	}
	printf("cpu=%.3f\n", cpu_now() - t0);
	return rc;
}
