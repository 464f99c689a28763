/* SPDX-License-Identifier: MIT */
#ifndef BENCHLIB_H
#define BENCHLIB_H
#include <stdint.h>
void lib_hash(uint64_t n);
void lib_mix(uint64_t n);
#endif
