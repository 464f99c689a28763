/* SPDX-License-Identifier: MIT */
/*
 * jitcollect: the names JIT compilers give their code (perf maps and
 * jitdump files, record/jitsyms.h), read while the process lives and
 * stored in the profile, so that a report after the process (and its
 * container, and its /tmp) is gone still names the code.
 *
 * The collector follows the profile's own records (every clock writes
 * them: the recorder for perf and bpf, the agent in fallback mode): a
 * process image that maps anonymous executable memory gets its perf map
 * looked for, and one that maps a file named jit-*.dump (the jitdump
 * writer's mark) gets that file read.  Files are opened in the process's
 * own mount namespace (/proc/PID/root, with openat2 RESOLVE_IN_ROOT and no
 * symbolic links; the perf map under the pid the process has in its own
 * namespace, NSpid), only if they are regular files owned by the process's
 * user (root: owned by root), without blocking (a FIFO is refused, not
 * waited on).  They stay open until the end, so what a process wrote just
 * before it ended is still read.  At most JITCOLLECT_MAX_FILES files,
 * JITCOLLECT_MAX_SYMS names and JITCOLLECT_MAX_NAME_BYTES of them are kept;
 * each poll reads at most JITCOLLECT_POLL_BYTES per file.
 *
 * At the end, one PDATA_REC_JITSYM record per piece of code the samples (or
 * their stacks) hit.
 */
#ifndef PROFIL_RECORD_JITCOLLECT_H
#define PROFIL_RECORD_JITCOLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/pdata.h"

#define JITCOLLECT_MAX_FILES 256
#define JITCOLLECT_MAX_SYMS (2u << 20)
#define JITCOLLECT_MAX_NAME_BYTES (128u << 20)
#define JITCOLLECT_POLL_BYTES (4u << 20)

struct jitcollect;

/* A collector for the profile pd (NULL on out-of-memory). */
struct jitcollect *jitcollect__new(struct pdata *pd);
void jitcollect__free(struct jitcollect *j);

/* Learn the profile's new records, open the files of new JIT processes, read what they gained. */
void jitcollect__poll(struct jitcollect *j);

/*
 * The last reading of every file, then the records of the code the samples
 * hit.  Returns the number of records stored, or -errno with one sentence
 * in why (-ENOSPC: the records area is full).  *files: the files read.
 */
int jitcollect__store(struct jitcollect *j, size_t *files, char *why, size_t whylen);

/*
 * Open path inside the mount namespace whose root is the directory root_fd
 * (path relative to it, symbolic links refused), read-only and without
 * blocking, if it is a regular file owned by uid.  Returns a descriptor or
 * -errno (-EPERM: another user's file; -EINVAL: not a regular file).
 */
int jitcollect__open_in_root(int root_fd, const char *path, uid_t uid);

#endif /* PROFIL_RECORD_JITCOLLECT_H */
