/* SPDX-License-Identifier: MIT */
/*
 * jitsyms: the two files through which JIT compilers name the code they
 * generate, read as they grow (the recorder reads them while the process
 * lives: record/jitcollect.c).
 *
 *  - perf map (/tmp/perf-PID.map): text lines "START SIZE name", START and
 *    SIZE in hex (with or without 0x), appended while the process runs.
 *    Writers: node --perf-basic-prof, LuaJIT, .NET, Java agents, Python 3.12
 *    -X perf.
 *  - jitdump (jit-PID.dump): a 40-byte header (magic "JiTD" as a
 *    little-endian 0x4A695444, version, header size, ELF machine, pid,
 *    timestamp, flags), then records of {id, total_size, timestamp}: code
 *    loads (id 0: pid, tid, vma, code address, code size, code index, the
 *    name NUL-terminated, then the code), moves, debug and unwinding
 *    information (skipped by their size).  Writers: node --perf-prof,
 *    Python 3.13 -X perf_jit.
 *
 * Both files are written by the profiled program: untrusted.  Lines are at
 * most JITMAP_LINE_MAX bytes (a longer one is skipped whole), names at most
 * JITSYM_NAME_MAX (cut), control characters in names become '?', ranges
 * must be non-empty and not wrap, a record claiming more than
 * JITDUMP_REC_MAX bytes or less than its own header ends the reading (the
 * file is damaged), and each call reads at most max_bytes: a file that
 * grows while it is read, or without end, costs bounded work per call.  An
 * incomplete last line or record is left for the next call (final: the
 * writer is gone, a last line without its newline counts).
 */
#ifndef PROFIL_JITSYMS_H
#define PROFIL_JITSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JITMAP_LINE_MAX 4096
#define JITSYM_NAME_MAX 1024
#define JITDUMP_REC_MAX (64u << 20)
#define JITDUMP_MAGIC 0x4A695444u

enum jit_kind {
	JIT_PERF_MAP = 1,
	JIT_DUMP = 2,
};

/* One piece of named code; name is NUL-terminated, valid during the callback only. */
struct jit_sym {
	uint64_t start, size;
	const char *name;
};

/* Return 0 to go on, non-zero to stop (returned by jit_reader__read). */
typedef int (*jit_sym_cb)(void *arg, const struct jit_sym *s);

/* Read up to n bytes at offset off into buf: the bytes read (0 at the end), or -errno. */
typedef ssize_t (*jit_read_fn)(void *src, uint64_t off, void *buf, size_t n);

/* Where the reading of one file is (zeroed, with kind set, before the first call). */
struct jit_reader {
	int kind;	  /* enum jit_kind */
	uint64_t off;	  /* the next byte to read */
	int skipping;	  /* perf map: inside a line longer than JITMAP_LINE_MAX */
	int header_done;  /* jitdump: the header was read */
	int closed;	  /* jitdump: a CODE_CLOSE record was read */
	int bad;	  /* the file is not what it should be: read no more of it */
	uint64_t symbols; /* named pieces of code read so far */
};

/*
 * Read what was appended since the last call (at most max_bytes of it) and
 * call cb for every piece of code it names.  Returns 0, cb's non-zero
 * value, or -errno from rd (r->bad is set when the file is damaged).
 */
int jit_reader__read(struct jit_reader *r, jit_read_fn rd, void *src, uint64_t max_bytes, int final,
		     jit_sym_cb cb, void *arg);

/*
 * One perf map line (without its newline) as a symbol: 1, or 0 when it is
 * not one.  name points into buf (len bytes, changed in place: cut and
 * cleaned).
 */
int jitmap__parse_line(char *buf, size_t len, struct jit_sym *s);

#endif /* PROFIL_JITSYMS_H */
