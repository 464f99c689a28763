// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "utils/array.h"

int array__reserve(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **a = arr;
	size_t ncap = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*a, ncap * elem);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = ncap;
	return 0;
}
