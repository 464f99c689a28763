/* SPDX-License-Identifier: MIT */
/*
 * The kernel functions a profile's samples hit, stored in the profile
 * (PDATA_REC_KSYM records, profile/pdata.h) so that a report names kernel
 * code without reading /proc/kallsyms itself (which only root may read with
 * its addresses).  Names from /proc/kallsyms ("name [module]" for a
 * module's symbol); a symbol's size is the distance to the next symbol.
 */
#ifndef PROFIL_RECORD_KSYMS_H
#define PROFIL_RECORD_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct pdata;

/*
 * Add a KSYM record for each distinct kernel function that a sample's PC
 * or a PC of its call stack (>= PDATA_KERNEL_START) falls in, named from
 * the kallsyms file at path.  Returns the number of records added, or
 * -errno with one sentence in why (the file cannot be read, or shows no
 * addresses: kptr_restrict).
 */
int ksyms__store(struct pdata *pd, const char *path, char *why, size_t whylen);

/*
 * The same for a recorder that stores symbols again and again (every period
 * of a rotating recording): the file is read once and kept in *cache (made
 * at the first call) for max_age seconds; ksyms__cache_free at the end.
 * /proc/kallsyms takes ~50 ms of CPU to read here (122,000 symbols).
 */
struct ksyms_cache;
int ksyms__store_cached(struct pdata *pd, struct ksyms_cache **cache, unsigned int max_age,
			const char *path, char *why, size_t whylen);
void ksyms__cache_free(struct ksyms_cache *cache);

/* One symbol of a kallsyms file, parsed. */
struct ksym_entry {
	uint64_t addr;
	const char *name;   /* into the caller's buffer, NUL-terminated */
	const char *module; /* NULL for the kernel itself */
};

/*
 * Parse one kallsyms line ("ffffffff81000000 T _stext", "... t fn\t[mod]"),
 * in place (NULs are written into line).  Returns 1 for a text symbol (type
 * t, T, w or W), 0 for anything else.  Pure.
 */
int ksyms__parse_line(char *line, struct ksym_entry *out);

#endif /* PROFIL_RECORD_KSYMS_H */
