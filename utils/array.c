// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void *array__push(void *arr, size_t *n, size_t *cap, size_t elem)
{
	char *at;

	if (*n == SIZE_MAX || array__reserve(arr, cap, *n + 1, elem))
		return NULL;
	at = (char *)*(void **)arr + *n * elem;
	memset(at, 0, elem);
	++*n;
	return at;
}
