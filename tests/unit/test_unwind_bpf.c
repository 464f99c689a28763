// SPDX-License-Identifier: MIT
/*
 * unwind/unwind_bpf: the in-kernel walk's tables say, at every address,
 * what the recorder's own tables say (unwind/unwind_table.h, as the
 * recorder's walker reads them): synthetic tables (gaps, a malformed FDE,
 * one over a bound, the outermost entry code, signal frames) and the
 * whole CFI of real Debian objects, looked up the way the BPF walk does
 * (page index, then a search of one KiB's rows); the dictionary of rules;
 * the bounds (-E2BIG, -ENOSPC).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "object_fixture.h"
#include "unwind/unwind_bpf.h"
#include "unwind/unwind_cfi.h"
#include "unwind/unwind_table.h"
#include "unwind_rows.h"

static struct kunw_rule rules[KUNW_RULES];

/* The rule the recorder's walker uses at addr (record/unwind.c: object_row). */
static void expected_rule(const struct unw_table *t, uint64_t entry, uint64_t entry_end,
			  uint64_t addr, struct kunw_rule *out)
{
	const struct unw_fde *f = unw_table_find_fde(t, addr);
	struct unw_row outermost = {.cfa_kind = UNW_CFA_REG,
				    .cfa_reg = UNW_REG_RSP,
				    .cfa_off = 8,
				    .ra_kind = UNW_LOC_UNDEFINED};
	const struct unw_row *row;

	memset(out, 0, sizeof(*out));
	if (!f) {
		if (addr >= entry && addr < entry_end)
			unwind_bpf__rule(&outermost, out);
		return;
	}
	if (f->state == UNW_FDE_FAILED)
		return;
	if (f->state != UNW_FDE_READY) {
		out->cfa_kind = KUNW_CFA_BOUND;
		return;
	}
	row = unw_table_fde_row(t, f, addr);
	if (row)
		unwind_bpf__rule(row, out);
}

/* Every address of [lo, hi) (step) gives the recorder's rule; returns the mismatches. */
static size_t compare_range(const struct unw_table *t, uint64_t entry, uint64_t entry_end,
			    const struct unwind_bpf_rows *rows, const uint32_t *pages, uint64_t lo,
			    uint64_t hi, uint64_t step)
{
	uint32_t np = unwind_bpf__npages(rows);
	size_t bad = 0;

	for (uint64_t a = lo; a < hi; a += step) {
		struct kunw_rule want;
		uint32_t got = unwind_bpf__lookup(rows, pages, np, a);

		expected_rule(t, entry, entry_end, a, &want);
		if (memcmp(&rules[got], &want, sizeof(want)) && bad++ < 3)
			printf("# %#llx: rule %u, kind %u off %d; want kind %u off %d\n",
			       (unsigned long long)a, got, rules[got].cfa_kind, rules[got].cfa_off,
			       want.cfa_kind, want.cfa_off);
	}
	return bad;
}

static void add_fde(struct unw_table *t, uint64_t s, uint64_t e, int state, const int32_t *offs,
		    const uint64_t *at, int n)
{
	struct unw_fde *f;

	unw_table_add_fde(t, s, e);
	unw_table_sort_fdes(t);
	f = unw_table_find_fde(t, s);
	f->state = (uint32_t)state;
	for (int i = 0; i < n; i++) {
		struct unw_row r = rsp_row(at[i], offs[i]);

		r.flags = i == 2 ? UNW_ROW_SIGNAL : 0; /* the third row is a signal frame's */
		unw_table_add_row(t, f, &r);
	}
}

static void test_synthetic(void)
{
	struct unw_table t = {0};
	struct unwind_bpf_rules *dict;
	struct unwind_bpf_rows rows = {0};
	static uint32_t pages[64];
	const int32_t offs[] = {8, 16, 24, 16};
	const uint64_t at_a[] = {0x1000, 0x1001, 0x1004, 0x10f0};
	const uint64_t at_c[] = {0x1300, 0x1340};
	int rc;

	add_fde(&t, 0x1000, 0x1100, UNW_FDE_READY, offs, at_a, 4);
	add_fde(&t, 0x1200, 0x1300, UNW_FDE_FAILED, NULL, NULL, 0);
	add_fde(&t, 0x1300, 0x1400, UNW_FDE_READY, offs, at_c, 2);
	add_fde(&t, 0x2000, 0x2100, UNW_FDE_NEW, NULL, NULL, 0); /* never compiled: a bound */
	add_fde(&t, 0x2400, 0x2c00, UNW_FDE_READY, offs, at_a, 0);
	CHECK("synthetic_rules_new", unwind_bpf_rules__new(&dict, rules, KUNW_RULES) == 0);
	rc = unwind_bpf__encode(&t, 0x1100, 0x1180, dict, &rows, 1000);
	CHECKF("synthetic_encodes", rc == 0 && rows.n > 0 && rows.base == 0x1000, "rc=%d n=%zu", rc,
	       rows.n);
	unwind_bpf__pages(&rows, pages);
	CHECKF("synthetic_every_address",
	       !compare_range(&t, 0x1100, 0x1180, &rows, pages, 0xf00, 0x2e00, 1),
	       "see the lines above");
	CHECK("synthetic_below_base_is_no_cfi", unwind_bpf__lookup(&rows, pages, 64, 0x10) == 0);
	CHECK("synthetic_signal_flag",
	      rules[unwind_bpf__lookup(&rows, pages, 64, 0x1004)].flags & KUNW_RULE_SIGNAL);
	CHECK("synthetic_rules_shared", unwind_bpf_rules__count(dict) <= 6);
	unwind_bpf_rows__free(&rows);
	/* bounds: too many rows, a dictionary too small */
	rc = unwind_bpf__encode(&t, 0, 0, dict, &rows, 3);
	CHECKF("synthetic_too_many_rows", rc == -E2BIG && !rows.n && !rows.v, "rc=%d", rc);
	unwind_bpf_rules__free(dict);
	CHECK("small_dict_new", unwind_bpf_rules__new(&dict, rules, 2) == 0);
	rc = unwind_bpf__encode(&t, 0, 0, dict, &rows, 1000);
	CHECKF("synthetic_dict_full", rc == -ENOSPC && !rows.n, "rc=%d", rc);
	unwind_bpf_rules__free(dict);
	unw_table_free(&t);
}

/* A real object's whole CFI, encoded, against the recorder's table at every row edge. */
static void test_object(const char *name, const char *path)
{
	struct object_cfi o;
	struct unw_table *t = &o.t;
	struct unwind_bpf_rules *dict = NULL;
	struct unwind_bpf_rows rows = {0}, again = {0};
	uint32_t *pages = NULL;
	char tn[96];
	size_t bad = 0, checked = 0;
	int rc;

	if (object_cfi__open(&o, path) < 0) {
		snprintf(tn, sizeof(tn), "%s_table", name);
		SKIP(tn, "cannot open the object's CFI");
		goto out;
	}
	unw_cfi_compile_all(o.cfi, t);
	unwind_bpf_rules__new(&dict, rules, KUNW_RULES);
	rc = unwind_bpf__encode(t, 0, 0, dict, &rows, 1u << 22);
	snprintf(tn, sizeof(tn), "%s_encodes", name);
	CHECKF(tn, rc == 0 && rows.n, "rc=%d", rc);
	pages = calloc(unwind_bpf__npages(&rows) + 1, sizeof(*pages));
	if (rc || !pages)
		goto out;
	unwind_bpf__pages(&rows, pages);
	for (size_t i = 0; i < t->nfdes; i++) {
		const struct unw_fde *f = &t->fdes[i];

		bad += compare_range(t, 0, 0, &rows, pages, f->start - 1, f->start + 2, 1);
		bad += compare_range(t, 0, 0, &rows, pages, f->end - 1, f->end + 1, 1);
		checked += 5;
		for (uint32_t r = 0; f->state == UNW_FDE_READY && r < f->n; r++) {
			uint64_t a = t->rows[f->first + r].start;

			bad += compare_range(t, 0, 0, &rows, pages, a - 1, a + 2, 1);
			checked += 3;
		}
	}
	snprintf(tn, sizeof(tn), "%s_every_row_edge", name);
	CHECKF(tn, !bad && checked > 1000, "%zu of %zu addresses differ", bad, checked);
	/* the same object again: every rule is in the dictionary already */
	rc = (int)unwind_bpf_rules__count(dict);
	unwind_bpf__encode(t, 0, 0, dict, &again, 1u << 22);
	snprintf(tn, sizeof(tn), "%s_rules_deduplicated", name);
	CHECKF(tn, (int)unwind_bpf_rules__count(dict) == rc && again.n == rows.n && rc < 4096,
	       "%d rules, then %u", rc, unwind_bpf_rules__count(dict));
	printf("# %s: %zu FDEs, %zu rows compiled, %zu encoded, %u rules, %u pages\n", name,
	       t->nfdes, t->nrows, rows.n, unwind_bpf_rules__count(dict),
	       unwind_bpf__npages(&rows));
out:
	free(pages);
	unwind_bpf_rows__free(&rows);
	unwind_bpf_rows__free(&again);
	unwind_bpf_rules__free(dict);
	object_cfi__close(&o);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_synthetic();
	test_object("libc", "/lib/x86_64-linux-gnu/libc.so.6");
	test_object("libz", "/usr/lib/x86_64-linux-gnu/libz.so.1");
	test_object("ldso", "/lib64/ld-linux-x86-64.so.2");
	test_object("self", "/proc/self/exe");
	return check_failures ? 1 : 0;
}
