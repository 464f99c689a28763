/* SPDX-License-Identifier: MIT */
/*
 * array: the one way to grow a malloc'ed array.  Capacities double from 64
 * elements; the size in bytes is checked for overflow, so a count that a
 * file or a program handed us can make it fail, never wrap.
 */
#ifndef PROFIL_ARRAY_H
#define PROFIL_ARRAY_H

#include <stddef.h>

/*
 * Make room in *arr (elements of elem bytes, *cap of them) for need
 * elements.  0, or -ENOMEM (the array unchanged).  arr: the address of the
 * array's pointer, of any type (void ** by convention of the callers' casts).
 */
int array__reserve(void *arr, size_t *cap, size_t need, size_t elem);

#endif /* PROFIL_ARRAY_H */
