# SPDX-License-Identifier: Apache-2.0
"""convert_text(): `chakra convert text` (libchakra-gen): an ASTRA-sim 1.0
text workload as one Chakra ET per NPU and the communicator groups. The
library is loaded on first use: LIBCHAKRA_GEN_PATH, else next to libchakra
(see _modlib)."""

import ctypes

from . import _modlib
from ._errors import error

c_int, c_uint, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64
c_void_p, c_char_p, c_double, c_size_t = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double,
                                          ctypes.c_size_t)
P = ctypes.POINTER

OPTIONS_VERSION = 1
TEXT_OPTIONS_VERSION = 1

# Mirrors of include/chakra/experimental/gen.h (experimental: kept in step).
_WRITE_CB = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)
_PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_uint64, c_uint64)


class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("npus", c_uint32), ("ndims", c_uint32),
                ("dims", c_uint32 * 16), ("groups_path", c_char_p), ("force", c_int),
                ("gzip", c_int), ("rank_map", c_int), ("messages", _WRITE_CB),
                ("messages_data", c_void_p), ("progress", _PROGRESS_CB),
                ("progress_data", c_void_p)]


class _TextOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("passes", c_uint32), ("ghz", c_double),
                ("compute_scale", c_double), ("comm_scale", c_double),
                ("strong_scaling", c_int)]


_PROTOS = {
    "chakra_gen_text": (c_int, [c_char_p, c_char_p, P(_Options), P(_TextOptions)]),
}


def _load():
    return _modlib.load("chakra-gen", "LIBCHAKRA_GEN_PATH", "gen", _PROTOS,
                        "the workload generators")


def convert_text(workload, prefix, npus, *, dims=None, groups=None, no_groups=False,
                 force=False, gzip=False, rank_map=False, passes=1, ghz=1.0,
                 compute_scale=1.0, comm_scale=1.0, strong_scaling=False):
    """Convert the ASTRA-sim 1.0 text workload at path `workload` as
    `chakra convert text` does: PREFIX.0.et .. PREFIX.{npus-1}.et (.gz with
    gzip) and PREFIX.comm_groups.json (or `groups`; none with no_groups);
    with rank_map, PREFIX.c0.et and the rank map PREFIX.ranks instead of a
    file per rank. dims: the network shape, dimension 0 first (default two,
    near square). Returns the notes the conversion printed (a list of
    str); ChakraError (its message the command's) when it fails, with
    nothing left under the output names."""
    if no_groups and groups is not None:
        raise ValueError("no_groups and groups exclude each other")
    lib = _load()
    messages = []

    def on_message(_data, buf, n):
        messages.append(ctypes.string_at(buf, n).decode("utf-8", "surrogateescape"))
        return 0
    cb = _WRITE_CB(on_message)
    o = _Options()
    o.version = OPTIONS_VERSION
    o.npus = npus
    if dims:
        if len(dims) > 16:
            raise ValueError("at most 16 dimensions")
        o.ndims = len(dims)
        for i, d in enumerate(dims):
            o.dims[i] = d
    o.groups_path = b"" if no_groups else (None if groups is None else str(groups).encode())
    o.force, o.gzip, o.rank_map = int(bool(force)), int(bool(gzip)), int(bool(rank_map))
    o.messages = cb
    o.progress = _PROGRESS_CB()
    t = _TextOptions(TEXT_OPTIONS_VERSION, passes, ghz, compute_scale, comm_scale,
                     int(bool(strong_scaling)))
    rc = lib.chakra_gen_text(str(workload).encode(), str(prefix).encode(), ctypes.byref(o),
                             ctypes.byref(t))
    if rc < 0:
        raise error(rc, "\n".join(messages) or None)
    return messages
