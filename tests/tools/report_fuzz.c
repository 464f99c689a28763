// SPDX-License-Identifier: MIT
/*
 * report_fuzz IN OUT SEED FLIPS: copy a profile with FLIPS random bytes
 * changed, aimed at the parts a reader interprets (header, sample slots in
 * use, records in use), so that `profil report` can be fed damaged files.
 * Deterministic (seeded), fast: tests/e2e/report_errors.sh runs it in `make
 * check`.  The coverage-guided fuzzer is tests/fuzz/fuzz_profile.c (`make
 * fuzz`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pdata.h"
#include "xorshift.h"

static uint64_t rng;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

int main(int argc, char **argv)
{
	struct pdata_header h;
	unsigned char *buf;
	FILE *f;
	long size;
	int flips;

	if (argc != 5)
		return 2;
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < (long)sizeof(h))
		return 1;
	rewind(f);
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		return 1;
	fclose(f);
	memcpy(&h, buf, sizeof(h));
	rng = strtoull(argv[3], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
	flips = atoi(argv[4]);
	for (int i = 0; i < flips; i++) {
		uint64_t where = next() % 3, at;

		if (where == 0 || h.records_off + h.records_used > (uint64_t)size)
			at = next() % 512; /* the header's interesting fields are in front */
		else if (where == 1 && h.records_used)
			at = h.records_off + next() % h.records_used;
		else
			at = h.table_off +
			     next() % ((uint64_t)h.table_slots * sizeof(struct pdata_slot));
		if (at < (uint64_t)size)
			buf[at] ^=
				(unsigned char)(1u << (next() % 8)) | (next() % 4 == 0 ? 0xff : 0);
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(buf, 1, (size_t)size, f) != (size_t)size || fclose(f))
		return 1;
	free(buf);
	return 0;
}
