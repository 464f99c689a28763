// SPDX-License-Identifier: MIT
/*
 * Test program for `profil watch --lib PATH`: defines its own profil()
 * (standing in for a profil library other than glibc, such as libprofil)
 * and calls it once with known arguments.  Prints pid=, buf=.
 */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

static unsigned short bins[512];
volatile unsigned int calls;
/* every argument is used: a compiler may pass garbage for an unused one */
unsigned short *volatile last_buf;

/* Exported under the libc name, so uprobes find it by symbol like in libprofil.so. */
__attribute__((noinline, visibility("default"))) int profil(unsigned short *buf, size_t bufsiz,
							    size_t offset, unsigned int scale)
{
	last_buf = buf;
	calls += 1 + (bufsiz > 0) + (offset > 0) + (scale > 0);
	return calls == 4 ? 0 : -1;
}

int main(void)
{
	printf("pid=%d\nbuf=0x%lx\n", (int)getpid(), (unsigned long)bins);
	fflush(stdout);
	return profil(bins, sizeof(bins), 0x400000, 0x10000) == 0 ? 0 : 1;
}
