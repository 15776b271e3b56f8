/* SPDX-License-Identifier: Apache-2.0 */
/* The numbers and names the replay's reports print: microseconds with
 * three decimals, a resource's name. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pf_impl.h"

void chakra_perf_us_format(int64_t ns, char *buf, size_t cap)
{
	if (!buf || !cap)
		return;
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	snprintf(buf, cap, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

const char *chakra_perf_resource_name(const chakra_perf_resource_info *ri, char *buf, size_t cap)
{
	if (!ri || !buf || !cap)
		return buf;
	if (!ri->gpu)
		snprintf(buf, cap, ri->id == -1 && ri->device == -1 ? "host" : "thread %" PRId64,
		         ri->id);
	else if (ri->device == -1)
		snprintf(buf, cap, "%s", ri->id == -2 ? "comm" : "compute");
	else
		snprintf(buf, cap, "stream %" PRId64 " (device %" PRId64 ")", ri->id, ri->device);
	return buf;
}
