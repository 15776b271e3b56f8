# SPDX-License-Identifier: Apache-2.0
"""convert_text(), generate_model(), generate_micro() and generate_basic():
`chakra convert text` and `chakra generate model|micro|basic`
(libchakra-gen): an ASTRA-sim 1.0 text workload, a model's training
iterations, one collective, or Chakra's basic test traces, as one Chakra ET
per NPU and the communicator groups. The library is loaded on first use: LIBCHAKRA_GEN_PATH, else next
to libchakra (see _modlib)."""

import ctypes

from . import _modlib
from ._errors import error

c_int, c_uint, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64
c_void_p, c_char_p, c_double, c_size_t = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double,
                                          ctypes.c_size_t)
P = ctypes.POINTER

OPTIONS_VERSION = 1
TEXT_OPTIONS_VERSION = 1
MODEL_OPTIONS_VERSION = 1
MICRO_OPTIONS_VERSION = 1
BASIC_OPTIONS_VERSION = 1
# chakra_comm_type values of ASTRA-sim's microbenchmark collectives
_MICRO = {"all_reduce": 0, "all_gather": 2, "reduce_scatter": 7, "all_to_all": 6,
          "broadcast": 5}
_MODELS = ("mlp", "dlrm", "transformer")
_PARALLEL = ("data", "model", "hybrid")

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


class _ModelOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("model", c_int), ("parallel", c_int)] + \
        [(f, c_uint64) for f in ("batch", "layers", "hidden", "seq", "tables", "emb_dim",
                                 "pooling", "dense", "bottom", "top", "dtype_bytes",
                                 "mp_group")] + \
        [("tflops", c_double), ("mem_gbps", c_double), ("passes", c_uint32)]


class _BasicOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("runtime", c_uint64), ("tensor_size", c_uint64),
                ("comm_size", c_uint64)]


class _MicroOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("comm_type", c_int), ("size", c_uint64)]


_PROTOS = {
    "chakra_gen_text": (c_int, [c_char_p, c_char_p, P(_Options), P(_TextOptions)]),
    "chakra_gen_model": (c_int, [c_char_p, P(_Options), P(_ModelOptions)]),
    "chakra_gen_micro": (c_int, [c_char_p, P(_Options), P(_MicroOptions)]),
    "chakra_gen_basic": (c_int, [c_char_p, P(_Options), P(_BasicOptions)]),
}


def _load():
    return _modlib.load("chakra-gen", "LIBCHAKRA_GEN_PATH", "gen", _PROTOS,
                        "the workload generators")


def _options(npus, dims, groups, no_groups, force, gzip, rank_map):
    """The options every generator takes; the messages list the callback
    fills, and the callback object (kept alive by the caller until the
    call returns)."""
    if no_groups and groups is not None:
        raise ValueError("no_groups and groups exclude each other")
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
    return o, messages, cb


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
    lib = _load()
    o, messages, keep = _options(npus, dims, groups, no_groups, force, gzip, rank_map)
    t = _TextOptions(TEXT_OPTIONS_VERSION, passes, ghz, compute_scale, comm_scale,
                     int(bool(strong_scaling)))
    rc = lib.chakra_gen_text(str(workload).encode(), str(prefix).encode(), ctypes.byref(o),
                             ctypes.byref(t))
    del keep
    if rc < 0:
        raise error(rc, "\n".join(messages) or None)
    return messages


def generate_model(prefix, npus, model, parallel, *, dims=None, groups=None, no_groups=False,
                   force=False, gzip=False, rank_map=False, batch=0, layers=0, hidden=0,
                   seq=0, tables=0, emb_dim=0, pooling=0, dense=0, bottom=0, top=0,
                   dtype_bytes=2, mp_group=0, tflops=100.0, mem_gbps=2000.0, passes=1):
    """Write `passes` training iterations of `model` ("mlp", "dlrm",
    "transformer") under `parallel` ("data", "model", "hybrid") as
    `chakra generate model` does: the same files under the same names
    (see convert_text for dims, groups, rank_map). Sizes left 0 take the
    model's default (docs/generate.md). ChakraError (CHAKRA_EINVAL with the
    message naming the field) when an option is out of range, with nothing
    left under the output names."""
    if model not in _MODELS or parallel not in _PARALLEL:
        raise ValueError("model is one of %s and parallel one of %s" % (_MODELS, _PARALLEL))
    lib = _load()
    o, messages, keep = _options(npus, dims, groups, no_groups, force, gzip, rank_map)
    m = _ModelOptions(MODEL_OPTIONS_VERSION, _MODELS.index(model), _PARALLEL.index(parallel),
                      batch, layers, hidden, seq, tables, emb_dim, pooling, dense, bottom, top,
                      dtype_bytes, mp_group, tflops, mem_gbps, passes)
    rc = lib.chakra_gen_model(str(prefix).encode(), ctypes.byref(o), ctypes.byref(m))
    del keep
    if rc < 0:
        raise error(rc, "\n".join(messages) or None)
    return messages


def generate_micro(prefix, npus, collective, size, *, force=False, gzip=False):
    """Write one `collective` ("all_reduce", "all_gather", "reduce_scatter",
    "all_to_all", "broadcast", or "send_recv_ring": each rank sends `size`
    bytes to the next) per NPU as `chakra generate micro` does: the files
    of ASTRA-sim's microbenchmarks, byte for byte, PREFIX.0.et ..
    PREFIX.{npus-1}.et. ChakraError when it fails, nothing left behind."""
    if collective != "send_recv_ring" and collective not in _MICRO:
        raise ValueError("collective is send_recv_ring or one of %s" % sorted(_MICRO))
    lib = _load()
    o, messages, keep = _options(npus, None, None, True, force, gzip, False)
    m = _MicroOptions(MICRO_OPTIONS_VERSION,
                      -1 if collective == "send_recv_ring" else _MICRO[collective], size)
    rc = lib.chakra_gen_micro(str(prefix).encode(), ctypes.byref(o), ctypes.byref(m))
    del keep
    if rc < 0:
        raise error(rc, "\n".join(messages) or None)


def generate_basic(directory, npus=64, *, runtime=5, tensor_size=1024, comm_size=65536,
                   force=False):
    """Write the basic traces Chakra's chakra_generator writes, byte for
    byte, as `chakra generate basic` does: DIRECTORY/NAME.r.et for each of
    its 14 names and every rank. ChakraError when it fails, with nothing
    left under the output names."""
    lib = _load()
    o, messages, keep = _options(npus, None, None, True, force, False, False)
    b = _BasicOptions(BASIC_OPTIONS_VERSION, runtime, tensor_size, comm_size)
    rc = lib.chakra_gen_basic(None if directory is None else str(directory).encode(),
                              ctypes.byref(o), ctypes.byref(b))
    del keep
    if rc < 0:
        raise error(rc, "\n".join(messages) or None)
