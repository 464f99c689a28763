// SPDX-License-Identifier: MIT
#include "primes.h"

__attribute__((noinline)) long count_primes(long limit)
{
	long n, d, count = 0;

	for (n = 2; n < limit; n++) {
		for (d = 2; d * d <= n; d++)
			if (n % d == 0)
				break;
		if (d * d > n)
			count++;
	}
	return count;
}
