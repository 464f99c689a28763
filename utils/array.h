/* SPDX-License-Identifier: MIT */
/*
 * array: the one way to grow a malloc'ed array.  Capacities double from 64
 * elements; the size in bytes is checked for overflow, so a count that a
 * file or a program handed us can make it fail, never wrap.  And what is
 * written about arrays once: appending, freeing one that owns what its
 * elements point to, its size, the name of a value in a table of names.
 */
#ifndef PROFIL_ARRAY_H
#define PROFIL_ARRAY_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Make room in *arr (elements of elem bytes, *cap of them) for need
 * elements.  0, or -ENOMEM (the array unchanged).  arr: the address of the
 * array's pointer, of any type (void ** by convention of the callers' casts).
 */
int array__reserve(void *arr, size_t *cap, size_t need, size_t elem);

/*
 * Append one element to *arr (*n of them, room for *cap): it is zeroed and
 * counted in *n.  Its address, or NULL when out of memory (nothing changed).
 */
void *array__push(void *arr, size_t *n, size_t *cap, size_t elem);

/*
 * Free an array of n elements that each own what their pointer field
 * points to (ARRAY_FREE_PTRS: an array of n pointers it owns): each with
 * free(), then the array.
 */
#define ARRAY_FREE_FIELD(arr, n, field)                                                            \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			free((arr)[i_].field);                                                     \
		free(arr);                                                                         \
	} while (0)

#define ARRAY_FREE_PTRS(arr, n)                                                                    \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			free((arr)[i_]);                                                           \
		free(arr);                                                                         \
	} while (0)

/* The number of elements of an array (an array, not a pointer); libiberty's is the same. */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The name of value i in names, a table of strings indexed by value (with
 * designated initialisers); other for a value outside the table or a hole
 * in it.  The one way to turn an enum into its name.
 */
#define ARRAY_NAME(names, i, other)                                                                \
	((size_t)(i) < ARRAY_SIZE(names) && (names)[(size_t)(i)] ? (names)[(size_t)(i)] : (other))

#endif /* PROFIL_ARRAY_H */
