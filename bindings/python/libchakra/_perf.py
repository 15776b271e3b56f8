# SPDX-License-Identifier: Apache-2.0
"""replay(): `chakra sim --replay --json` (libchakra-perf): a recorded
trace replayed by the performance model (docs/replay.md), its report as
the command's JSON, parsed. The library is loaded on first use:
LIBCHAKRA_PERF_PATH, else next to libchakra (see _modlib)."""

import ctypes
import json

from . import _modlib
from ._errors import error

c_int, c_uint, c_uint64, c_int64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int64
c_void_p, c_char_p, c_double, c_size_t = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double,
                                          ctypes.c_size_t)
P = ctypes.POINTER

OPTIONS_VERSION = 1
_WRITE_CB = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)


# Mirrors of include/chakra/experimental/perf.h (experimental: kept in step).
class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("copies", c_uint), ("compute_scale", c_double),
                ("rank_compute_scale", c_void_p), ("kernel_scale_re", c_void_p),
                ("kernel_scale", c_void_p), ("n_kernel_scale", c_size_t),
                ("network", c_void_p), ("system", c_void_p), ("network_model", c_int),
                ("groups", c_void_p), ("modelled_gaps", c_int)]


class _Windows(ctypes.Structure):
    _fields_ = [("count", c_size_t), ("predicted_ns", P(c_int64)), ("recorded_ns", P(c_int64)),
                ("median", c_size_t), ("recorded_median_ns", c_int64),
                ("errmsg", ctypes.c_char * 1024)]


_PROTOS = {
    "chakra_perf_options_init": (c_int, [P(_Options), c_uint]),
    "chakra_perf_new": (c_int, [P(c_void_p)]),
    "chakra_perf_free": (None, [c_void_p]),
    "chakra_perf_errmsg": (c_char_p, [c_void_p]),
    "chakra_perf_load": (c_int, [c_void_p, c_char_p]),
    "chakra_perf_run": (c_int, [c_void_p, P(_Options)]),
    "chakra_perf_between_count": (c_int64, [c_void_p, c_char_p]),
    "chakra_perf_between_median": (c_int, [c_void_p, c_char_p, c_uint64, c_size_t, P(_Options),
                                           P(_Windows), P(c_void_p)]),
    "chakra_perf_windows_free": (None, [P(_Windows)]),
    "chakra_perf_report_json": (c_int, [_WRITE_CB, c_void_p, c_void_p, c_char_p, c_uint64,
                                        P(_Windows)]),
}


def _load():
    return _modlib.load("chakra-perf", "LIBCHAKRA_PERF_PATH", "perf", _PROTOS,
                        "the performance model")


def replay(trace, *, between=None, skip=0, iterations=0, compute_scale=1.0,
           modelled_gaps=False):
    """Replay the recorded trace at `trace` (a prefix of PREFIX.r.et files, or
    one file) as `chakra sim --replay TRACE --json` does, and return its JSON
    report as a dict (the same document, docs/replay.md): the iteration,
    its breakdown, the critical path. between="ANNOTATION": every window
    between occurrences of the annotation (after the first `skip`) is
    replayed and the median one reported, as `--between`. iterations: the
    copies replayed back to back (0: the model's default); compute_scale
    multiplies device compute; modelled_gaps rebuilds the device timeline
    from the launches. ChakraError with the model's message when the trace
    cannot be replayed."""
    lib = _load()
    o = _Options()
    rc = lib.chakra_perf_options_init(ctypes.byref(o), OPTIONS_VERSION)
    if rc < 0:
        raise error(rc, None)
    o.copies = iterations
    o.compute_scale = compute_scale
    o.modelled_gaps = int(bool(modelled_gaps))
    r = c_void_p()
    rc = lib.chakra_perf_new(ctypes.byref(r))
    if rc < 0:
        raise error(rc, None)
    w = _Windows()
    name = None if between is None else str(between).encode()
    try:
        rc = lib.chakra_perf_load(r, str(trace).encode())
        if rc == 0 and name is None:
            rc = lib.chakra_perf_run(r, ctypes.byref(o))
        if rc < 0:
            raise error(rc, lib.chakra_perf_errmsg(r).decode("utf-8", "replace"))
        if name is not None:
            n = lib.chakra_perf_between_count(r, name)
            if n <= skip:
                raise ValueError("%s: %d windows between occurrences of '%s' (skip %d)" %
                                 (trace, max(n, 0), between, skip))
            d = c_void_p()
            rc = lib.chakra_perf_between_median(r, name, skip, n - skip, ctypes.byref(o),
                                                ctypes.byref(w), ctypes.byref(d))
            if rc < 0:
                raise error(rc, w.errmsg.decode("utf-8", "replace"))
            lib.chakra_perf_free(r)
            r = d
        out = []

        def on_write(_data, buf, n):
            out.append(ctypes.string_at(buf, n))
            return 0
        cb = _WRITE_CB(on_write)
        rc = lib.chakra_perf_report_json(cb, None, r, name, skip,
                                         ctypes.byref(w) if name is not None else None)
        if rc < 0:
            raise error(rc, None)
        return json.loads(b"".join(out))
    finally:
        lib.chakra_perf_free(r)
        lib.chakra_perf_windows_free(ctypes.byref(w))
