/* SPDX-License-Identifier: MIT */
/*
 * bpfload: what the recorder's BPF programs (bpfclock, procacct, offcpu) share when
 * they load: libbpf kept quiet (its messages are not the user's business: the
 * recorder says why in one sentence), and that sentence.  Header only, for
 * the files built with PROFIL_HAVE_BPF.
 */
#ifndef PROFIL_RECORD_BPFLOAD_H
#define PROFIL_RECORD_BPFLOAD_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

static inline int bpfload__silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* libbpf prints nothing from here on. */
static inline void bpfload__quiet(void)
{
	libbpf_set_print(bpfload__silent);
}

/*
 * Loading what (e.g. "histogram program") failed with err (-errno; anything
 * else is EINVAL): why says so, with what it needs when refused.  The -errno
 * to return (a refusal is -EPERM).
 */
static inline int bpfload__failed(int err, const char *what, char *why, size_t whylen)
{
	if (err >= 0)
		err = -EINVAL;
	snprintf(why, whylen, "cannot load the BPF %s: %s%s", what, strerror(-err),
		 err == -EPERM || err == -EACCES ? " (needs root or CAP_BPF+CAP_PERFMON)" : "");
	return err == -EACCES ? -EPERM : err;
}

#endif /* PROFIL_RECORD_BPFLOAD_H */
