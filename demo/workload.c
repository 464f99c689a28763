// SPDX-License-Identifier: MIT
/*
 * The program `make demo` profiles with `profil record`: an ordinary,
 * unmodified program (no -pg, no libprofil) whose time is spread over its
 * own functions, two threads, a shared library (zlib) and libc, plus a
 * forked child process, so that the report shows all of them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "primes.h"

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t mandelbrot(int size)
{
	uint64_t total = 0;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			double cr = 3.0 * x / size - 2.0, ci = 2.0 * y / size - 1.0, zr = 0, zi = 0;
			int i;

			for (i = 0; i < 256 && zr * zr + zi * zi < 4; i++) {
				double t = zr * zr - zi * zi + cr;
				zi = 2 * zr * zi + ci;
				zr = t;
			}
			total += (uint64_t)i;
		}
	return total;
}

/* Time in zlib (libz.so) and in libc (memcpy/qsort), not in this program. */
__attribute__((noinline)) static uint64_t compress_blocks(int rounds)
{
	static unsigned char in[1 << 18], out[(1 << 18) + 1024];
	uint64_t total = 0;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)((i * 2654435761u) >> 13 ^ (i % 251));
	for (int r = 0; r < rounds; r++) {
		uLongf outlen = sizeof(out);

		in[r % sizeof(in)] ^= (unsigned char)r;
		compress2(out, &outlen, in, sizeof(in), 6);
		total += outlen;
	}
	return total;
}

static void *primes_thread(void *arg)
{
	(void)arg;
	sink += (uint64_t)count_primes(2500000);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pid_t child;
	int status;

	pthread_create(&t, NULL, primes_thread, NULL);
	child = fork();
	if (child == 0) {
		sink += mandelbrot(700);
		_exit(0);
	}
	sink += compress_blocks(120);
	sink += mandelbrot(500);
	pthread_join(t, NULL);
	waitpid(child, &status, 0);
	printf("demo workload done (checksum %llu)\n", (unsigned long long)(sink % 100000));
	return 0;
}
