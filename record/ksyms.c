// SPDX-License-Identifier: MIT
/* The kernel functions the samples hit, into the profile.  See ksyms.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/pdata.h"
#include "utils/array.h"
#include "record/ksyms.h"
#include "utils/why.h"
#include "utils/search.h"

int ksyms__parse_line(char *line, struct ksym_entry *out)
{
	char *end, *type, *name, *mod;
	unsigned long long addr;

	errno = 0;
	addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return 0;
	type = end + 1;
	if (!strchr("tTwW", *type) || !*type || type[1] != ' ')
		return 0;
	name = type + 2;
	name[strcspn(name, "\n")] = 0;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = 0;
		if (*mod == '[') {
			mod++;
			mod[strcspn(mod, "]")] = 0;
		}
		if (!*mod)
			mod = NULL;
	}
	if (!*name)
		return 0;
	out->addr = addr;
	out->name = name;
	out->module = mod;
	return 1;
}

/* ---- the kernel PCs of the profile ------------------------------------------- */

struct pcs {
	struct pdata *pd;
	uint64_t *v;
	size_t n, cap;
	int oom;
};

static void add_pc(struct pcs *a, uint64_t pc)
{
	if (pc < PDATA_KERNEL_START || pc == PDATA_PC_TRUNCATED)
		return;
	if (array__reserve(&a->v, &a->cap, a->n + 1, sizeof(*a->v))) {
		a->oom = 1;
		return;
	}
	a->v[a->n++] = pc;
}

static int collect(void *arg, const struct pdata_sample *s)
{
	struct pcs *a = arg;
	uint64_t stack[PDATA_MAX_DEPTH];
	int n;

	add_pc(a, s->pc);
	if (s->stack) {
		n = pdata__stack(a->pd, s->stack, stack, PDATA_MAX_DEPTH);
		for (int i = 0; i < n; i++)
			add_pc(a, stack[i]);
	}
	return a->oom ? -ENOMEM : 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct ksym_entry *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* ---- kallsyms ---------------------------------------------------------------- */

struct table {
	char *text; /* the file, parsed in place */
	struct ksym_entry *e;
	size_t n;
};

static int read_file(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap + 1);
	size_t got;

	if (!f || !buf) {
		int err = f ? -ENOMEM : -errno;

		if (f)
			fclose(f);
		free(buf);
		return err;
	}
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *n = realloc(buf, cap * 2 + 1);

			if (!n) {
				fclose(f);
				free(buf);
				return -ENOMEM;
			}
			buf = n;
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = 0;
	*out = buf;
	return 0;
}

/* The text symbols of the file, sorted by address.  -ENOENT when no address shows (kptr_restrict). */
static int load_table(const char *path, struct table *t)
{
	size_t cap = 0, nonzero = 0;
	char *line, *save = NULL;
	int rc = read_file(path, &t->text);

	if (rc < 0)
		return rc;
	for (line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ksym_entry e;

		if (!ksyms__parse_line(line, &e))
			continue;
		if (t->n == cap) {
			struct ksym_entry *n =
				realloc(t->e, (cap = cap ? cap * 2 : 65536) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			t->e = n;
		}
		t->e[t->n++] = e;
		nonzero += e.addr != 0;
	}
	if (!nonzero)
		return -ENOENT;
	qsort(t->e, t->n, sizeof(*t->e), cmp_entry);
	return 0;
}

/* The symbol holding pc: the last one that starts at or before it (-1: none). */
static long find(const struct table *t, uint64_t pc)
{
	size_t lo = SEARCH_UPPER(t->e, t->n, addr, pc);

	return (long)lo - 1;
}

/* Bytes from symbol i to the next symbol at a higher address (0: unknown). */
static uint64_t size_of(const struct table *t, size_t i)
{
	for (size_t j = i + 1; j < t->n; j++)
		if (t->e[j].addr > t->e[i].addr)
			return t->e[j].addr - t->e[i].addr;
	return 0;
}

static int store(struct pdata *pd, const struct table *t, const uint64_t *pcs, size_t n)
{
	long last = -1;
	int added = 0;

	for (size_t k = 0; k < n; k++) {
		long i = find(t, pcs[k]);
		uint64_t size;
		char name[512];

		if (i < 0 || i == last)
			continue;
		size = size_of(t, (size_t)i);
		if (size && pcs[k] - t->e[i].addr >= size)
			continue;
		last = i;
		if (t->e[i].module)
			snprintf(name, sizeof(name), "%s [%s]", t->e[i].name, t->e[i].module);
		else
			snprintf(name, sizeof(name), "%s", t->e[i].name);
		if (!pdata__add_ksym(pd, t->e[i].addr, size, name))
			return added ? added : -ENOSPC;
		added++;
	}
	return added;
}

struct ksyms_cache {
	struct table t;
	time_t loaded;
};

static void free_table(struct table *t)
{
	free(t->e);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* The table: the cache's while it is young enough, else read (into the cache, if any). */
static int get_table(struct ksyms_cache *c, unsigned int max_age, const char *path,
		     struct table *own, const struct table **t)
{
	time_t now = time(NULL);
	int rc;

	if (c && c->t.n && now - c->loaded <= (time_t)max_age) {
		*t = &c->t;
		return 0;
	}
	if (c)
		free_table(&c->t);
	rc = load_table(path, c ? &c->t : own);
	if (rc < 0)
		return rc;
	if (c)
		c->loaded = now;
	*t = c ? &c->t : own;
	return 0;
}

static int store_with(struct pdata *pd, struct ksyms_cache *cache, unsigned int max_age,
		      const char *path, char *why, size_t whylen)
{
	struct pcs a = {.pd = pd};
	struct table own = {0};
	const struct table *t = NULL;
	size_t n = 0;
	int rc;

	rc = pdata__foreach_sample(pd, collect, &a);
	if (rc < 0 || a.oom) {
		rc = why_fail(why, whylen, -ENOMEM, "out of memory for the kernel's PCs");
		goto out;
	}
	if (!a.n) {
		rc = 0;
		goto out;
	}
	qsort(a.v, a.n, sizeof(*a.v), cmp_u64);
	for (size_t i = 0; i < a.n; i++)
		if (!n || a.v[i] != a.v[n - 1])
			a.v[n++] = a.v[i];
	rc = get_table(cache, max_age, path, &own, &t);
	if (rc == -ENOENT)
		rc = why_fail(why, whylen, rc, "%s shows no addresses (kptr_restrict)", path);
	else if (rc < 0)
		rc = why_fail(why, whylen, rc, "cannot read %s: %s", path, strerror(-rc));
	else
		rc = store(pd, t, a.v, n);
	if (rc == -ENOSPC)
		why_fail(why, whylen, rc, "the profile's records area is full");
out:
	free(a.v);
	free_table(&own);
	return rc;
}

int ksyms__store(struct pdata *pd, const char *path, char *why, size_t whylen)
{
	return store_with(pd, NULL, 0, path, why, whylen);
}

int ksyms__store_cached(struct pdata *pd, struct ksyms_cache **cache, unsigned int max_age,
			const char *path, char *why, size_t whylen)
{
	if (!*cache && !(*cache = calloc(1, sizeof(**cache))))
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	return store_with(pd, *cache, max_age, path, why, whylen);
}

void ksyms__cache_free(struct ksyms_cache *cache)
{
	if (!cache)
		return;
	free_table(&cache->t);
	free(cache);
}
