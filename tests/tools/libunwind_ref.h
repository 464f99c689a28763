/* SPDX-License-Identifier: MIT */
/*
 * libunwind's own unw_step() loop: the reference the agent's in-handler
 * unwinder (agent/unwind.h) is compared with (tests/unit/test_agent_unwind)
 * and timed against (bench/stacks/stackcost).  libunwind.so.8 is loaded at
 * run time, not linked.  Header only.
 */
#ifndef PROFIL_TESTS_LIBUNWIND_REF_H
#define PROFIL_TESTS_LIBUNWIND_REF_H

#ifndef UNW_LOCAL_ONLY
#define UNW_LOCAL_ONLY
#endif
#include <dlfcn.h>
#include <libunwind.h>
#include <stdint.h>

/* libunwind.h makes the names macros (_ULx86_64_step ...): dlsym wants what they expand to */
#define LIBUNWIND_REF_STR_(x) #x
#define LIBUNWIND_REF_STR(x) LIBUNWIND_REF_STR_(x)

struct libunwind_ref {
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*step)(unw_cursor_t *);
};

/* Load it: 0, or -1 (libunwind.so.8 or one of its functions is not there). */
static inline int libunwind_ref__load(struct libunwind_ref *r)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -1;
	*(void **)&r->init_local2 = dlsym(h, LIBUNWIND_REF_STR(unw_init_local2));
	*(void **)&r->get_reg = dlsym(h, LIBUNWIND_REF_STR(unw_get_reg));
	*(void **)&r->step = dlsym(h, LIBUNWIND_REF_STR(unw_step));
	return r->init_local2 && r->get_reg && r->step ? 0 : -1;
}

/*
 * The walk from signal context uc (a handler's third argument): at most max
 * PCs into pcs, the interrupted one first; a zero PC ends it.  How many (0:
 * libunwind cannot start from uc).
 */
static inline int libunwind_ref__walk(const struct libunwind_ref *r, void *uc, uint64_t *pcs,
				      int max)
{
	unw_cursor_t c;
	int n = 0;

	if (r->init_local2(&c, uc, UNW_INIT_SIGNAL_FRAME) < 0)
		return 0;
	do {
		unw_word_t ip;

		if (r->get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		pcs[n++] = ip;
	} while (n < max && r->step(&c) > 0);
	return n;
}

#endif
