// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "utils/why.h"

int why_fail(char *why, size_t whylen, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return err;
}
