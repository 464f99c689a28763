// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the jitdump (jit-PID.dump) reader of record/jitsyms.h (tests/fuzz/fuzz_jit_reader.h).
 * Seeds: tests/fuzz/corpus/jitdump/.
 */
#define FUZZ_JIT_KIND JIT_DUMP
#include "fuzz_jit_reader.h"
