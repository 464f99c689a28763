// SPDX-License-Identifier: MIT
/*
 * The build id of a mapped file (see build_id.h): the ELF header, its
 * program headers, and the notes of each PT_NOTE segment, each read with
 * pread and checked before use.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent/build_id.h"

#define MAX_PHDRS 64
#define NOTE_BUF 4096 /* build ids live in small note segments; larger ones are skipped */

static int read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (off > (uint64_t)INT64_MAX - len)
		return -1;
	n = pread(fd, buf, len, (off_t)off);
	return n == (ssize_t)len ? 0 : -1;
}

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/* The NT_GNU_BUILD_ID note among the notes in buf[0..len), aligned to align. */
static unsigned int find_in_notes(const uint8_t *buf, uint64_t len, uint64_t align,
				  uint8_t id[BUILD_ID_MAX])
{
	uint64_t at = 0;

	while (len - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name_at, desc_at, next;

		memcpy(&nh, buf + at, sizeof(nh));
		name_at = at + sizeof(nh);
		desc_at = name_at + align_up(nh.n_namesz, align);
		next = desc_at + align_up(nh.n_descsz, align);
		if (desc_at > len || nh.n_descsz > len - desc_at)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && nh.n_descsz >= 1 &&
		    nh.n_descsz <= BUILD_ID_MAX) {
			memcpy(id, buf + desc_at, nh.n_descsz);
			return nh.n_descsz;
		}
		if (next <= at || next > len)
			return 0;
		at = next;
	}
	return 0;
}

static unsigned int find_in_file(int fd, uint8_t id[BUILD_ID_MAX])
{
	/* static, not on the stack: the caller may run on a small thread stack (see build_id.h) */
	static Elf64_Phdr ph[MAX_PHDRS];
	static uint8_t notes[NOTE_BUF];
	Elf64_Ehdr eh;

	if (read_exact(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !eh.e_phnum || eh.e_phnum > MAX_PHDRS ||
	    read_exact(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff) < 0)
		return 0;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		uint64_t align = ph[i].p_align == 8 ? 8 : 4;
		unsigned int n;

		if (ph[i].p_type != PT_NOTE || !ph[i].p_filesz || ph[i].p_filesz > NOTE_BUF ||
		    read_exact(fd, notes, ph[i].p_filesz, ph[i].p_offset) < 0)
			continue;
		n = find_in_notes(notes, ph[i].p_filesz, align, id);
		if (n)
			return n;
	}
	return 0;
}

unsigned int build_id_of_mapped(const char *path, unsigned int major, unsigned int minor, ino_t ino,
				uint8_t id[BUILD_ID_MAX])
{
	unsigned int n = 0;
	struct stat st;
	int fd;

	if (path[0] != '/')
		return 0;
	/* O_NONBLOCK: a path that became a FIFO does not block; only a regular file is read */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == ino &&
	    major(st.st_dev) == major && minor(st.st_dev) == minor)
		n = find_in_file(fd, id);
	close(fd);
	return n;
}
