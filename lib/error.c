/* SPDX-License-Identifier: Apache-2.0 */
#include "chakra/error.h"

const char *chakra_strerror(int code)
{
	switch (code) {
	case CHAKRA_OK: return "success";
	case CHAKRA_EIO: return "input/output error";
	case CHAKRA_ENOMEM: return "out of memory";
	case CHAKRA_EINVAL: return "invalid argument";
	case CHAKRA_ETRUNC: return "truncated input";
	case CHAKRA_ECORRUPT: return "malformed message";
	case CHAKRA_ETOOBIG: return "message larger than the maximum";
	case CHAKRA_ENOMETA: return "no GlobalMetadata";
	case CHAKRA_EGZIP: return "damaged gzip stream";
	case CHAKRA_ENOTFOUND: return "not found";
	case CHAKRA_ETYPE: return "wrong value kind";
	case CHAKRA_ERANGE: return "value out of range";
	case CHAKRA_EDUP: return "duplicate node id";
	case CHAKRA_EDEP: return "dependency on a missing node";
	case CHAKRA_ECYCLE: return "dependency cycle";
	case CHAKRA_ESTATE: return "invalid call in this state";
	case CHAKRA_ESELFDEP: return "node depends on itself";
	case CHAKRA_ECONFIG: return "bad configuration";
	default: return "unknown error";
	}
}

const char *chakra_err_name(int code)
{
	switch (code) {
	case CHAKRA_OK: return "CHAKRA_OK";
	case CHAKRA_EIO: return "CHAKRA_EIO";
	case CHAKRA_ENOMEM: return "CHAKRA_ENOMEM";
	case CHAKRA_EINVAL: return "CHAKRA_EINVAL";
	case CHAKRA_ETRUNC: return "CHAKRA_ETRUNC";
	case CHAKRA_ECORRUPT: return "CHAKRA_ECORRUPT";
	case CHAKRA_ETOOBIG: return "CHAKRA_ETOOBIG";
	case CHAKRA_ENOMETA: return "CHAKRA_ENOMETA";
	case CHAKRA_EGZIP: return "CHAKRA_EGZIP";
	case CHAKRA_ENOTFOUND: return "CHAKRA_ENOTFOUND";
	case CHAKRA_ETYPE: return "CHAKRA_ETYPE";
	case CHAKRA_ERANGE: return "CHAKRA_ERANGE";
	case CHAKRA_EDUP: return "CHAKRA_EDUP";
	case CHAKRA_EDEP: return "CHAKRA_EDEP";
	case CHAKRA_ECYCLE: return "CHAKRA_ECYCLE";
	case CHAKRA_ESTATE: return "CHAKRA_ESTATE";
	case CHAKRA_ESELFDEP: return "CHAKRA_ESELFDEP";
	case CHAKRA_ECONFIG: return "CHAKRA_ECONFIG";
	default: return NULL;
	}
}
