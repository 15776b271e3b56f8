/* libchakra: error codes. Every call that can fail returns 0 (CHAKRA_OK) or
 * a negative code; handles also keep a last-error message naming the file,
 * byte offset and node (see chakra_reader_errmsg and friends). */
#ifndef CHAKRA_ERROR_H
#define CHAKRA_ERROR_H

#include "chakra/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum chakra_error {
	CHAKRA_OK = 0,
	CHAKRA_EIO = -1,        /* open/read/write failed (errno in message) */
	CHAKRA_ENOMEM = -2,     /* allocation failed */
	CHAKRA_EINVAL = -3,     /* bad argument or option */
	CHAKRA_ETRUNC = -4,     /* file ends inside a length prefix or message */
	CHAKRA_ECORRUPT = -5,   /* bytes are not a valid protobuf message */
	CHAKRA_ETOOBIG = -6,    /* length prefix above the configured maximum */
	CHAKRA_ENOMETA = -7,    /* empty file, or first message not GlobalMetadata */
	CHAKRA_EGZIP = -8,      /* gzip stream is damaged */
	CHAKRA_ENOTFOUND = -9,  /* no such attribute / node */
	CHAKRA_ETYPE = -10,     /* attribute has a kind the getter cannot convert */
	CHAKRA_ERANGE = -11,    /* value does not fit the requested type */
	CHAKRA_EDUP = -12,      /* duplicate node id */
	CHAKRA_EDEP = -13,      /* dependency on an id that never appears */
	CHAKRA_ECYCLE = -14,    /* dependency cycle */
	CHAKRA_ESTATE = -15,    /* call not valid in this state (e.g. complete twice) */
	CHAKRA_ESELFDEP = -16,  /* node depends on itself */
	CHAKRA_ECONFIG = -17    /* bad configuration file */
} chakra_error;

/* Short static description of an error code; never NULL. */
CHAKRA_API const char *chakra_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
