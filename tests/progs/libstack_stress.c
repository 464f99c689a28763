// SPDX-License-Identifier: MIT
/* libstack_stress.so: dlopen'ed and dlclose'd in a loop by stack_stress.c.  Its
 * __thread variable makes every load and unload go through dynamic TLS. */
#include <stdint.h>

static __thread uint64_t tls_acc;

__attribute__((noinline)) static uint64_t lib_leaf(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		tls_acc = tls_acc * 6364136223846793005ull + i;
	return tls_acc;
}

uint64_t stress_lib_work(uint64_t n)
{
	return lib_leaf(n) + 1;
}
