/* SPDX-License-Identifier: MIT */
/* Synthetic unwind rows (unwind/unwind_table.h) for test_unwind_step and test_unwind_bpf. */
#ifndef PROFIL_TESTS_UNWIND_ROWS_H
#define PROFIL_TESTS_UNWIND_ROWS_H

#include <stdint.h>

#include "unwind/unwind_table.h"

/* A row from start: CFA = RSP + cfa_off, return address at CFA - 8, RBP kept. */
static inline struct unw_row rsp_row(uint64_t start, int32_t cfa_off)
{
	struct unw_row r = {.start = start,
			    .cfa_kind = UNW_CFA_REG,
			    .cfa_reg = UNW_REG_RSP,
			    .cfa_off = cfa_off,
			    .ra_kind = UNW_LOC_CFA,
			    .ra_off = -8,
			    .rbp_kind = UNW_LOC_SAME};

	return r;
}

#endif
