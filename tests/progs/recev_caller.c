// SPDX-License-Identifier: MIT
/*
 * recev_caller: calls libprofil's profil() and sprofil() with known
 * arguments (linked with libprofil.a), for tests/e2e/record_events.sh.
 * Prints the caller PC of the first call's return address region and the
 * buffer address so the test can compare them with the events.
 */
#include <stdio.h>
#include <string.h>

#include "profil.h"

static unsigned short buf[2048];
static unsigned int r1[64];
static unsigned int ovf;

__attribute__((noinline)) static int call_profil(void)
{
	return profil(buf, sizeof(buf), 0x1234, 0x8000);
}

int main(void)
{
	struct prof regions[2] = {
		{ r1, sizeof(r1), 0x400000, 0x10000 },
		{ &ovf, sizeof(ovf), 0, 2 },
	};
	struct timeval tv;

	profil_set_clock(PROFIL_CLOCK_THREAD, 100);
	if (call_profil() != 0)
		return 1;
	printf("buf=%p caller=%p\n", (void *)buf, (void *)call_profil);
	profil(buf, sizeof(buf), 0, 0); /* off */
	if (profil(buf, sizeof(buf), 0, 65537) != -1) /* EINVAL */
		return 2;
	if (sprofil(regions, 2, &tv, PROF_UINT) != 0)
		return 3;
	sprofil(NULL, 0, NULL, 0); /* any call while active turns it off */
	return 0;
}
