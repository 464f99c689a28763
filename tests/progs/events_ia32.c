// SPDX-License-Identifier: MIT
/*
 * Test program for `profil watch`: a 32-bit (i386) program that calls the
 * real profil(2) system call, number 98, which Linux never implemented
 * (ENOSYS) — Tracee's `profil` event.  Freestanding: no 32-bit C library
 * is needed to build it (clang -m32 -nostdlib -static).  Writes
 * "buf=0x...\n" and exits 0 if the call returned -ENOSYS.
 */
#define NR_EXIT 1
#define NR_WRITE 4
#define NR_PROFIL 98
#define ENOSYS 38

static long syscall4(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return ret;
}

static unsigned short bins[64];

static void put_hex(const char *name, unsigned long v)
{
	char line[32];
	int n = 0, shift;

	while (*name)
		line[n++] = *name++;
	line[n++] = '0';
	line[n++] = 'x';
	for (shift = 28; shift >= 0; shift -= 4)
		line[n++] = "0123456789abcdef"[(v >> shift) & 15];
	line[n++] = '\n';
	syscall4(NR_WRITE, 1, (long)line, n, 0);
}

void _start(void)
{
	long ret;

	put_hex("buf=", (unsigned long)bins);
	ret = syscall4(NR_PROFIL, (long)bins, sizeof(bins), 0x1234, 0x8000);
	syscall4(NR_EXIT, ret == -ENOSYS ? 0 : 1, 0, 0, 0);
	for (;;)
		;
}
