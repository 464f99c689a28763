/* SPDX-License-Identifier: MIT */
/*
 * pprof export: a profile as ONE gzip-compressed pprof Profile
 * (output/profile.proto), the format go tool pprof, speedscope, Pyroscope,
 * Parca and Grafana read.
 *
 * What is written
 *   - One Profile for the whole run: every process image and every thread,
 *     told apart by sample labels.
 *   - sample_type [samples/count, cpu/nanoseconds], period_type
 *     cpu/nanoseconds, period = the CPU time one sample stands for (the
 *     profile's period_ns; 1e9 / nominal rate when that is unknown), so a
 *     sample's values are [count, count x period].  The default sample type
 *     is cpu.  time_nanos / duration_nanos: the recorder's start and end.
 *   - Time without samples (pprof__export, as `profil report` shows it): a
 *     thread's kernel time the kernel accounted where the kernel could not
 *     be sampled, and an image's CPU time no sample covers, are samples of
 *     values [0, ns] at a location of function "[kernel]" or "[unsampled]"
 *     (no mapping), with the thread's labels; so the cpu total is the
 *     report's whole-run seconds, and the samples total its samples.
 *   - Off-CPU time (profiles recorded with --off-cpu): a third sample type
 *     off_cpu/nanoseconds (the OpenTelemetry profiles' name); an off-CPU
 *     slot is a sample of values [0, 0, ns] at the stack its thread left
 *     the CPU with, labelled off_cpu_reason (sleep, blocked, preempted,
 *     stopped) beside the thread's labels; CPU samples have off_cpu 0.
 *     `go tool pprof -sample_index=off_cpu` totals the report's off-CPU
 *     seconds.  Profiles without off-CPU time keep two sample types.
 *   - Sample labels (the keys Linux perf's pprof converter and Parca use):
 *       pid           number  process id of the image
 *       tid           number  thread id
 *       process_comm  string  the image's executable name (basename), if known
 *       thread_comm   string  the thread's name, if known
 *     e.g. `go tool pprof -tags`, `-tagfocus=thread_comm=worker`,
 *     `-tagfocus=pid=1234`.
 *   - Sample.location_id: the stack, leaf first.  A stack's callers are
 *     return addresses; they are looked up (and located) at pc - 1, inside
 *     the call instruction, so their function and line are the caller's.
 *     Kernel frames come first (innermost); a stack the unwinder cut short
 *     ends with a location of function "[truncated]" (no mapping).  A flat
 *     profile has one location per sample.
 *   - Location: one per distinct (object, address), with one Line: the
 *     function (the same name `profil report` shows) and, when the object
 *     has DWARF line information, the source line.  No inline frames.
 *   - Function: one per distinct (name, system name, source file, start
 *     line); system_name is the symbol as in the symbol table (mangled
 *     C++), name the demangled one; filename the source file of the
 *     location, start_line the line of the function's first instruction
 *     when it is in that file.
 *   - Mapping: one per object (ELF file or pseudo mapping) for ALL the
 *     processes that mapped it, with its path and GNU build id (hex);
 *     the root program's executable first.  has_functions: names came from
 *     the object's own symbols or unwind tables; has_filenames /
 *     has_line_numbers: some location of it has a source file / line.  A
 *     reader symbolises again only a mapping with none of these: one whose
 *     file could not be read (go tool pprof then says so, and finds the
 *     binary with PPROF_BINARY_PATH).
 *
 * Addresses are LINK-TIME addresses (the load bias removed, as in the
 * object's symbol table and gmon.out), not runtime addresses.  pprof's
 * usual runtime addresses would need one Mapping per process per object in
 * a profile of many processes (each maps libc, or a PIE, somewhere else)
 * and give one function as many addresses as there are processes.  With
 * link-time addresses all processes share one Mapping per object: its
 * range [memory_start, memory_limit) is the span of the object's executable
 * segments in link-time addresses (widened to cover every location of it)
 * and file_offset the file offset of memory_start, exactly what a loader
 * that placed the object at its link-time address would report.  A reader
 * that symbolises again (pprof -symbolize=force, Parca by build id)
 * computes a load bias of memory_start - file_offset + p_offset - p_vaddr
 * = 0 and finds the same functions.  An object that could not be read
 * (gone, not ELF) uses file offsets as addresses (its mapping starts at
 * the file offset of its first location); pseudo objects ([vdso], [anon])
 * one location at address 0; a PC outside every recorded mapping keeps its
 * runtime address, with no mapping, as function "[unknown]".
 *
 * Every string the profile gives us is untrusted: strings are
 * length-delimited in protobuf, and bytes that are not UTF-8 (which the
 * format's string type requires) are replaced by U+FFFD.
 */
#ifndef PROFIL_PPROF_H
#define PROFIL_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "profile/pview.h"
#include "report/resolve.h"

/* What pprof__write wrote. */
struct pprof_summary {
	uint64_t samples;   /* sum of the sample counts */
	uint64_t timed_ns;  /* CPU time without samples (accounted kernel, unsampled) */
	uint64_t offcpu_ns; /* off-CPU time (off_cpu values) */
	size_t nsamples;    /* Sample messages */
	size_t nlocations;  /* Location messages */
	size_t nfunctions;  /* Function messages */
	size_t nmappings;   /* Mapping messages */
	uint64_t out_bytes; /* compressed bytes written */
};

/*
 * Write the profile v as a gzip-compressed pprof Profile to fd (from its
 * current position).  r: a resolver of v (resolver__new(v, 1) for source
 * lines).  sum may be NULL.  Returns 0, or -errno with one sentence in why
 * (e.g. "out of memory", "No space left on device").
 */
int pprof__write(int fd, const struct pview *v, struct resolver *r, struct pprof_summary *sum,
		 char *why, size_t whylen);

/*
 * Write the profile at data_path to out_path as pprof (utils/outfile.h with
 * pdata__output_rules: through a temporary file renamed into place, never a
 * partial file; "-" is stdout).  sum may be NULL.
 * Returns 0, or -errno with one sentence in why.
 */
int pprof__export(const char *data_path, const char *out_path, struct pprof_summary *sum, char *why,
		  size_t whylen);

#endif /* PROFIL_PPROF_H */
