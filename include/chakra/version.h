/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: version macros and the runtime version query. */
#ifndef CHAKRA_VERSION_H
#define CHAKRA_VERSION_H

#include "chakra/export.h"

#define CHAKRA_VERSION_MAJOR 0
#define CHAKRA_VERSION_MINOR 1
#define CHAKRA_VERSION_PATCH 0
#define CHAKRA_VERSION_NUMBER \
	(CHAKRA_VERSION_MAJOR * 10000 + CHAKRA_VERSION_MINOR * 100 + CHAKRA_VERSION_PATCH)
#define CHAKRA_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library actually loaded, as CHAKRA_VERSION_NUMBER; compare
 * with the macro to detect a header/library mismatch. */
CHAKRA_API unsigned chakra_version(void);
/* The same as a string, e.g. "0.1.0". */
CHAKRA_API const char *chakra_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
