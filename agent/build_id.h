/* SPDX-License-Identifier: MIT */
/*
 * The GNU build id of a file the process has mapped, for the agent's
 * mapping records (the perf clocks get it from the kernel's MMAP2 records):
 * with it, `profil report` knows whether the file on disk is still the one
 * that ran, and finds its debug file by build id.
 *
 * Read from the file, not from memory: open, fstat, pread only (no malloc,
 * no stdio), so the agent may call it wherever it reads /proc/self/maps.
 * Not elfutils' dwelf_elf_gnu_build_id (symbols/symfile.c uses it): the
 * agent is preloaded into every process of a run, and loading libdw (with
 * libelf, libz, liblzma, libbz2) into each would cost every exec and put
 * elfutils' symbols beside the program's; the notes are all it needs.
 * The file is taken only if it is the mapped one: a regular file with the
 * device and inode /proc/self/maps gives for the mapping.  The file is
 * untrusted: every offset and size is checked; anything unexpected gives
 * no build id, never an error.  Not reentrant (its buffers are static, to
 * keep a program's small thread stacks safe): the agent calls it only
 * while it holds its one map-scanning try-lock.
 */
#ifndef PROFIL_AGENT_BUILD_ID_H
#define PROFIL_AGENT_BUILD_ID_H

#include <stdint.h>
#include <sys/types.h>

#define BUILD_ID_MAX 20

/*
 * The build id of the 64-bit ELF file at path, if it is the file of device
 * (major, minor) and inode ino, into id.  Returns its length (1 to
 * BUILD_ID_MAX), or 0 when there is none or the file is not that one.
 */
unsigned int build_id_of_mapped(const char *path, unsigned int major, unsigned int minor, ino_t ino,
				uint8_t id[BUILD_ID_MAX]);

#endif
