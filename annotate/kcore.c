// SPDX-License-Identifier: MIT
/* The kernel's code from /proc/kcore: see kcore.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate/kcore.h"
#include "utils/why.h"

#define MAX_PHDRS 4096

struct kcore {
	int fd;
	Elf64_Phdr *ph;
	size_t nph;
};

void kcore__close(struct kcore *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->ph);
	free(k);
}

static int read_phdrs(struct kcore *k)
{
	Elf64_Ehdr eh;
	size_t n = 0;

	if (pread(k->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum || eh.e_phnum > MAX_PHDRS)
		return -EINVAL;
	k->ph = calloc(eh.e_phnum, sizeof(*k->ph));
	if (!k->ph)
		return -ENOMEM;
	if (pread(k->fd, k->ph, eh.e_phnum * sizeof(*k->ph), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*k->ph)))
		return -EINVAL;
	for (size_t i = 0; i < eh.e_phnum; i++)
		if (k->ph[i].p_type == PT_LOAD)
			k->ph[n++] = k->ph[i];
	k->nph = n;
	return n ? 0 : -EINVAL;
}

int kcore__open(struct kcore **out, const char *path, char *why, size_t whylen)
{
	struct kcore *k = calloc(1, sizeof(*k));
	int rc;

	if (!k)
		return why_fail(why, whylen, -ENOMEM, "out of memory");
	k->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (k->fd < 0) {
		rc = -errno;
		kcore__close(k);
		if (rc == -EACCES || rc == -EPERM)
			return why_fail(why, whylen, rc,
					"kernel instructions come from %s, which this user cannot "
					"read (root or CAP_SYS_RAWIO can)",
					path);
		if (rc == -ENOENT)
			return why_fail(why, whylen, rc,
					"kernel instructions come from %s, which is not there (a "
					"container, or a kernel built without CONFIG_PROC_KCORE)",
					path);
		return why_fail(why, whylen, rc, "cannot open %s: %s", path, strerror(-rc));
	}
	rc = read_phdrs(k);
	if (rc < 0) {
		kcore__close(k);
		return why_fail(why, whylen, rc, "%s is not a readable ELF core file", path);
	}
	*out = k;
	return 0;
}

long kcore__read(struct kcore *k, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < k->nph; i++) {
		const Elf64_Phdr *p = &k->ph[i];
		uint64_t room;
		ssize_t got;

		if (addr < p->p_vaddr || addr - p->p_vaddr >= p->p_filesz)
			continue;
		room = p->p_filesz - (addr - p->p_vaddr);
		if (len > room)
			len = (size_t)room;
		got = pread(k->fd, buf, len, (off_t)(p->p_offset + (addr - p->p_vaddr)));
		return got < 0 ? -errno : got;
	}
	return -ENOENT;
}
