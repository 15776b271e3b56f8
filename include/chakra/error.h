/* SPDX-License-Identifier: Apache-2.0 */
/* libchakra: error codes. Every call that can fail returns 0 (CHAKRA_OK) or
 * a negative code; handles also keep a last-error message naming the file,
 * byte offset and node (see chakra_reader_errmsg and friends), and the same
 * facts as values (chakra_error_info, from chakra_reader_error and
 * friends). */
#ifndef CHAKRA_ERROR_H
#define CHAKRA_ERROR_H

#include <stddef.h>
#include <stdint.h>
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
	CHAKRA_ETOOBIG = -6,    /* above a configured budget: length prefix, decoded
	                         * node size, feeder memory (the message names it) */
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
	CHAKRA_ECONFIG = -17    /* bad configuration file (library modules that read
	                         * configurations, e.g. the simulator's) */
} chakra_error;

/* Short static description of an error code; never NULL. */
CHAKRA_API const char *chakra_strerror(int code);
/* The code's name ("CHAKRA_EIO"; "CHAKRA_OK" for 0); NULL for a value
 * that is not a chakra_error. */
CHAKRA_API const char *chakra_err_name(int code);

/* The last error of a handle as values, beside its message. Filled by
 * chakra_reader_error, chakra_writer_error and chakra_feeder_error, which
 * take sizeof the caller's struct so that fields can be appended: a
 * caller built against an older header gets the fields it knows. */
typedef struct chakra_error_info {
	int code;             /* the chakra_error; CHAKRA_OK when there was none */
	unsigned flags;       /* CHAKRA_ERRINFO_*: which fields below are known */
	/* Byte offset of the offending bytes in the uncompressed stream (in
	 * the compressed file when CHAKRA_ERRINFO_COMPRESSED is set: damaged
	 * gzip data). */
	uint64_t offset;
	uint64_t node_index;  /* 0-based index among the file's nodes */
	uint64_t node_id;
	const char *message;  /* the handle's errmsg (never NULL; valid as it is) */
} chakra_error_info;

#define CHAKRA_ERRINFO_OFFSET 1u
#define CHAKRA_ERRINFO_INDEX 2u
#define CHAKRA_ERRINFO_ID 4u
#define CHAKRA_ERRINFO_COMPRESSED 8u

#ifdef __cplusplus
}
#endif
#endif
