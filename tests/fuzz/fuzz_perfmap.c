// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the perf map (/tmp/perf-PID.map) reader of record/jitsyms.h (tests/fuzz/fuzz_jit_reader.h).
 * Seeds: tests/fuzz/corpus/perfmap/.
 */
#define FUZZ_JIT_KIND JIT_PERF_MAP
#include "fuzz_jit_reader.h"
