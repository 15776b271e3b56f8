/* SPDX-License-Identifier: Apache-2.0 */
/* What a runtime call is to the device pass, from its name: CUDA (cuda*,
 * cu*), HIP (hip*) and MTIA spellings, as a table of name patterns. A new
 * runtime's spelling is a row. */
#include <string.h>

#include "cv.h"

enum { PAT_HAS, PAT_IS, PAT_PREFIX };
#define ROW(how, kind, pat, unless) { how, kind, pat, sizeof pat - 1, unless }

/* The first row that matches wins, so the order is the precedence: a name
 * that matches two rows (one holding both "DeviceSynchronize" and
 * "EventRecord") is a device synchronize. */
static const struct rt_pat {
	unsigned char how;  /* PAT_*: the name contains / is / begins with pat */
	unsigned char kind; /* CV_RT_* */
	const char *pat;
	size_t len;         /* strlen(pat) */
	const char *unless; /* the row does not match a name containing this */
} rt_pats[] = {
	ROW(PAT_HAS, CV_RT_DEVSYNC, "DeviceSynchronize", NULL),
	ROW(PAT_HAS, CV_RT_DEVSYNC, "CtxSynchronize", NULL),
	ROW(PAT_IS, CV_RT_DEVSYNC, "synchronize", NULL),
	ROW(PAT_HAS, CV_RT_STREAMSYNC, "StreamSynchronize", NULL),
	ROW(PAT_IS, CV_RT_STREAMSYNC, "synchronizeStream", NULL),
	ROW(PAT_HAS, CV_RT_EVENTSYNC, "EventSynchronize", NULL),
	ROW(PAT_IS, CV_RT_EVENTSYNC, "synchronizeEvent", NULL),
	ROW(PAT_HAS, CV_RT_WAIT, "StreamWaitEvent", NULL),
	ROW(PAT_HAS, CV_RT_WAIT, "waitOnEvent", NULL),
	ROW(PAT_HAS, CV_RT_RECORD, "EventRecord", NULL),
	ROW(PAT_IS, CV_RT_RECORD, "recordEvent", NULL),
	/* synchronous copies: cudaMemcpy, cudaMemcpy2D, ...ToSymbol/FromSymbol
	 * without Async */
	ROW(PAT_PREFIX, CV_RT_MEMCPY_SYNC, "cudaMemcpy", "Async"),
	ROW(PAT_PREFIX, CV_RT_MEMCPY_SYNC, "hipMemcpy", "Async"),
	ROW(PAT_PREFIX, CV_RT_MEMCPY_SYNC, "cuMemcpy", "Async"),
};

int chakra__cv_rt_kind(const char *nm)
{
	for (size_t i = 0; i < sizeof rt_pats / sizeof *rt_pats; i++) {
		const struct rt_pat *p = &rt_pats[i];
		int hit = p->how == PAT_HAS  ? strstr(nm, p->pat) != NULL
		        : p->how == PAT_IS   ? !strcmp(nm, p->pat)
		                             : !strncmp(nm, p->pat, p->len);
		if (hit && !(p->unless && strstr(nm, p->unless)))
			return p->kind;
	}
	return CV_RT_OTHER;
}
