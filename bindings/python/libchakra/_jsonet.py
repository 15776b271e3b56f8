# SPDX-License-Identifier: Apache-2.0
"""jsonize() and pack(): Chakra ETs as JSON and back (libchakra-jsonet,
what `chakra jsonize` and `chakra pack` do). The library is loaded on
first use: LIBCHAKRA_JSONET_PATH, else next to libchakra (see _modlib)."""

import ctypes

from . import _lib, _modlib
from ._errors import error

c_int, c_uint, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint64
c_size_t, c_void_p, c_char_p = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
P = ctypes.POINTER

OPTIONS_VERSION = 1
WRITE_CB = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)


# Mirrors of include/chakra/experimental/jsonet.h (experimental: kept in step).
class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("pretty", c_int), ("protobuf", c_int), ("gzip", c_int),
                ("in_name", c_char_p), ("out_name", c_char_p)]


class _Result(ctypes.Structure):
    _fields_ = [("nodes", c_uint64), ("nan_payloads", c_uint64), ("errmsg", ctypes.c_char * 1024)]


_PROTOS = {
    "chakra_jsonet_jsonize": (c_int, [c_void_p, WRITE_CB, c_void_p, P(_Options), P(_Result)]),
    "chakra_jsonet_pack_buffer": (c_int, [c_char_p, c_size_t, WRITE_CB, c_void_p, P(_Options),
                                          P(_Result)]),
}


def _load():
    return _modlib.load("chakra-jsonet", "LIBCHAKRA_JSONET_PATH", "jsonet", _PROTOS,
                        "the JSON codec")


def _collector():
    chunks = []

    def write(_data, buf, n):
        chunks.append(ctypes.string_at(buf, n))
        return 0
    return chunks, WRITE_CB(write)


def jsonize(trace, *, pretty=False, protobuf=False):
    """The trace at path `trace` (plain or gzip) as JSON text (str), as
    `chakra jsonize` writes it: jsonize's form (`chakra pack` turns it back
    into the identical bytes), or with protobuf=True protobuf's JSON
    mapping. Raises ChakraError (KindError when the protobuf mapping cannot
    hold a string)."""
    lib = _load()
    o = _Options(OPTIONS_VERSION, int(bool(pretty)), int(bool(protobuf)), 0, None, None)
    r = c_void_p()
    rc = _lib.lib.chakra_reader_open(ctypes.byref(r), str(trace).encode(), None)
    try:
        if rc < 0:
            raise error(rc, _lib.lib.chakra_reader_errmsg(r))
        chunks, cb = _collector()
        res = _Result()
        rc = lib.chakra_jsonet_jsonize(r, cb, None, ctypes.byref(o), ctypes.byref(res))
        if rc < 0:
            raise error(rc, res.errmsg)
    finally:
        _lib.lib.chakra_reader_close(r)
    return b"".join(chunks).decode("utf-8", "surrogateescape")


def pack(text, *, gzip=False, name=None):
    """JSON (str or bytes: jsonize's form, protobuf's JSON mapping or
    Chakra's workload_graph JSON) as the bytes of a Chakra ET, as `chakra
    pack` writes it. name names the input in error messages. Raises
    ChakraError (CorruptError for JSON that is invalid or of no known
    form, with the line and byte)."""
    lib = _load()
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    o = _Options(OPTIONS_VERSION, 0, 0, int(bool(gzip)),
                 (name or "<json>").encode(), b"<output>")
    chunks, cb = _collector()
    res = _Result()
    rc = lib.chakra_jsonet_pack_buffer(text, len(text), cb, None, ctypes.byref(o),
                                       ctypes.byref(res))
    if rc < 0:
        raise error(rc, res.errmsg)
    return b"".join(chunks)
