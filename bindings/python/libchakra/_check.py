# SPDX-License-Identifier: Apache-2.0
"""validate(): the checks of `chakra validate` (libchakra-check), as values.
The library is loaded on first use: LIBCHAKRA_CHECK_PATH, else next to
libchakra (see _modlib)."""

import collections
import ctypes

from . import _modlib
from ._errors import error

c_int, c_uint, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64
c_void_p, c_char_p = ctypes.c_void_p, ctypes.c_char_p
P = ctypes.POINTER

OPTIONS_VERSION = 1
SEVERITIES = ("error", "warning", "note", "summary")
KINDS = ("read", "dup_id", "data_absent", "data_self", "ctrl_absent", "ctrl_self", "cycle",
         "cycle_group", "noncanon", "limit", "nomem", "deep_skipped", "totals")


# Mirrors of include/chakra/experimental/check.h (experimental: kept in step).
class _Finding(ctypes.Structure):
    _fields_ = [("severity", c_int), ("kind", c_int), ("has_node", c_int),
                ("node_index", c_uint32), ("node_id", c_uint64), ("offset", c_uint64),
                ("related", c_uint64), ("text", c_char_p)]


FINDING_CB = ctypes.CFUNCTYPE(None, c_void_p, P(_Finding))
_HINT_CB = ctypes.CFUNCTYPE(c_char_p, c_char_p)
_PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_uint64)


class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("strict", c_int), ("deep", c_int),
                ("max_warnings", c_uint64), ("max_errors", c_uint64),
                ("read_hint", _HINT_CB), ("progress", _PROGRESS_CB), ("progress_data", c_void_p)]


_COUNTS = ("nodes", "errors", "warnings", "dup_ids", "data_absent", "data_self", "cycles",
           "ctrl_absent_refs", "ctrl_absent_ids", "ctrl_self", "noncanon")


class _Result(ctypes.Structure):
    _fields_ = [(n, c_uint64) for n in _COUNTS] + [
        ("read_failed", c_int), ("stopped", c_int), ("errors_hidden", c_uint64)]


_PROTOS = {
    "chakra_check_trace": (c_int, [c_char_p, P(_Options), FINDING_CB, c_void_p, P(_Result)]),
}

Finding = collections.namedtuple(
    "Finding", "severity kind node_index node_id offset related text")
Finding.__doc__ = """One problem: severity ("error", "warning", "note", "summary"),
kind (KINDS), node_index / node_id / offset (None when not about one node;
offset is where reading stopped for kind "read"), related (per kind: the
absent id, the first node's offset, the cycle's length...) and text, the
line `chakra validate` prints."""


class ValidateResult:
    """What validate() found: ok (no error), findings (a list of Finding, in
    the order `chakra validate` prints them), lines (their text), and the
    exact counts as attributes (nodes, errors, warnings, dup_ids,
    data_absent, data_self, cycles, ctrl_absent_refs, ctrl_absent_ids,
    ctrl_self, noncanon, read_failed, stopped, errors_hidden)."""

    def __init__(self, findings, res):
        self.findings = findings
        self.lines = [f.text for f in findings]
        for n in _COUNTS + ("errors_hidden",):
            setattr(self, n, getattr(res, n))
        self.read_failed = bool(res.read_failed)
        self.stopped = bool(res.stopped)
        self.ok = self.errors == 0

    def __repr__(self):
        return "ValidateResult(ok=%r, nodes=%d, errors=%d, warnings=%d)" % (
            self.ok, self.nodes, self.errors, self.warnings)


def _load():
    return _modlib.load("chakra-check", "LIBCHAKRA_CHECK_PATH", "check", _PROTOS,
                        "the trace checks")


def validate(trace, *, strict=False, deep=False, max_warnings=10, max_errors=100):
    """Check the trace at path `trace` as `chakra validate` does (framing and
    decoding, duplicate ids, dependencies on absent ids or on the node
    itself, data-dependency cycles; deep: nanopb cross-check and the
    canonical encoding). Problems in the trace are findings, not
    exceptions; ChakraError only when the check itself fails (memory)."""
    lib = _load()
    findings = []

    def on_finding(_data, fp):
        f = fp.contents
        node = bool(f.has_node)
        findings.append(Finding(SEVERITIES[f.severity], KINDS[f.kind],
                                f.node_index if node else None, f.node_id if node else None,
                                f.offset if node or f.kind == 0 else None, f.related,
                                f.text.decode("utf-8", "surrogateescape")))
    cb = FINDING_CB(on_finding)
    o = _Options(OPTIONS_VERSION, int(bool(strict)), int(bool(deep)), max_warnings, max_errors,
                 _HINT_CB(), _PROGRESS_CB(), None)
    res = _Result()
    rc = lib.chakra_check_trace(str(trace).encode(), ctypes.byref(o), cb, None,
                                ctypes.byref(res))
    if rc < 0:
        raise error(rc, next((f.text for f in findings if f.kind == "nomem"), None))
    return ValidateResult(findings, res)
