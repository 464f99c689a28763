/* SPDX-License-Identifier: MIT */
/* Samplers the A/B harness can switch on and off; each ab_*.c adds its own. */
#ifndef AB_MODES_H
#define AB_MODES_H

#include <stddef.h>
#include <stdint.h>

#include "main_text.h"

/* The main executable's text, filled in before init(). */
extern struct main_text text;

struct ab_mode {
	const char *name;
	int (*init)(void);            /* once, may be NULL */
	int (*start)(unsigned int hz); /* sampling on; < 0 on error */
	uint64_t (*stop)(void);       /* sampling off; returns samples taken while on */
	long long (*lost)(void);      /* samples lost in total, or NULL if unknown */
	void (*fini)(void);           /* once, may be NULL */
};

/* NULL-terminated, defined by the sampler file linked in. */
extern const struct ab_mode ab_modes[];

#endif
