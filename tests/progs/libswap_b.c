// SPDX-License-Identifier: MIT
/* The second of the swapped libraries (tests/progs/libswap_a.c says why): swap_hot_b, 8 KiB further. */
#define VARIANT 2
#include "libswap_a.c"
