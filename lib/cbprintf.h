/* SPDX-License-Identifier: Apache-2.0 */
/* printf into a caller's write callback (chakra_write_cb, writer.h): how
 * the modules' text reports reach the caller, who may be writing to a
 * file, a buffer or a socket; no FILE * crosses the API. The first error
 * sticks: later calls do nothing and o->rc keeps it (CHAKRA_EIO for a
 * callback that failed, CHAKRA_ENOMEM). */
#ifndef CHAKRA_CBPRINTF_H
#define CHAKRA_CBPRINTF_H

#include <stdarg.h>
#include <stdio.h>
#include "chakra/error.h"
#include "chakra/writer.h"
#include "modmem.h"

typedef struct chakra__cbout {
	chakra_write_cb write;
	void *data;
	int rc; /* 0, or the first error */
} chakra__cbout;

/* The same with a va_list (the caller's va_start / va_end). */
static inline void chakra__vcbprintf(chakra__cbout *o, const char *fmt, va_list ap)
{
	if (o->rc)
		return;
	char small[512], *p = small;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		o->rc = CHAKRA_EINVAL;
		va_end(again);
		return;
	}
	if ((size_t)n >= sizeof small) { /* a long line: formatted again in full */
		p = (char *)chakra_malloc((size_t)n + 1);
		if (!p) {
			o->rc = CHAKRA_ENOMEM;
			va_end(again);
			return;
		}
		vsnprintf(p, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (n && o->write(o->data, p, (size_t)n) < 0)
		o->rc = CHAKRA_EIO;
	if (p != small)
		chakra_free(p);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void chakra__cbprintf(chakra__cbout *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	chakra__vcbprintf(o, fmt, ap);
	va_end(ap);
}

#endif
