# SPDX-License-Identifier: Apache-2.0
"""read_sim_log(): a simulator's event log as `chakra timeline` reads it
(libchakra-astralog): Chakra's timeline lines (issue|callback,npu_id=N,
cycle=C,node_id=I,node_name=S) and ASTRA-sim's own debug lines, with or
without its logger's prefix, into complete events per NPU and their lanes.
The library is loaded on first use: LIBCHAKRA_ASTRALOG_PATH, else next to
libchakra (see _modlib)."""

import collections
import ctypes

from . import _modlib
from ._errors import error

c_int, c_uint, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64
c_void_p, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
P = ctypes.POINTER

OPTIONS_VERSION = 1


# Mirrors of include/chakra/experimental/astralog.h (experimental: kept in step).
class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("npus", c_uint64), ("name", c_char_p)]


class _Issue(ctypes.Structure):
    _fields_ = [("cycle", c_uint64), ("line", c_uint64), ("node_id", c_uint64),
                ("name_off", c_size_t), ("name_len", c_size_t), ("npu", c_uint32),
                ("open", c_int)]


class _Event(ctypes.Structure):
    _fields_ = [("start", c_uint64), ("end", c_uint64), ("node_id", c_uint64),
                ("line", c_uint64), ("name_off", c_size_t), ("name_len", c_size_t),
                ("npu", c_uint32), ("lane", c_uint32)]


_PROTOS = {
    "chakra_astralog_new": (c_int, [P(_Options), P(c_void_p)]),
    "chakra_astralog_free": (None, [c_void_p]),
    "chakra_astralog_line": (c_int, [c_void_p, c_char_p, c_size_t, c_uint64]),
    "chakra_astralog_errmsg": (c_char_p, [c_void_p]),
    "chakra_astralog_lanes": (c_int, [c_void_p, P(c_uint32)]),
    "chakra_astralog_events": (P(_Event), [c_void_p, P(c_size_t)]),
    "chakra_astralog_issues": (P(_Issue), [c_void_p, P(c_size_t)]),
    "chakra_astralog_names": (c_void_p, [c_void_p, P(c_size_t)]),
    "chakra_astralog_skipped": (c_uint64, [c_void_p, P(c_uint64)]),
}

Event = collections.namedtuple("Event", "npu lane node_id name start end line")
Event.__doc__ = """A node from its issue to its callback: the NPU, its lane (no
two events of one lane overlap), node_id, name, start and end cycles, and
the line of its issue."""
Unfinished = collections.namedtuple("Unfinished", "npu node_id name cycle line")
Unfinished.__doc__ = """An issue with no callback in the log."""


class SimLog:
    """What read_sim_log() read: events (sorted by NPU and start, each in
    its lane), unfinished (issues never called back, in line order), lanes
    (the most lanes of one NPU), skipped (prefixed lines that hold no event)
    and first_skipped (the first of them, 0 when none)."""

    def __init__(self, events, unfinished, lanes, skipped, first_skipped):
        self.events, self.unfinished = events, unfinished
        self.lanes, self.skipped, self.first_skipped = lanes, skipped, first_skipped

    def __repr__(self):
        return "SimLog(events=%d, unfinished=%d, lanes=%d, skipped=%d)" % (
            len(self.events), len(self.unfinished), self.lanes, self.skipped)


def _load():
    return _modlib.load("chakra-astralog", "LIBCHAKRA_ASTRALOG_PATH", "astralog", _PROTOS,
                        "the simulator log reader")


def read_sim_log(path, npus):
    """Read the event log at `path` (NPU ids below `npus`) as `chakra
    timeline` does. CorruptError with "PATH:LINE: what" for a line that is
    not an event or does not fit the log so far (a callback without its
    issue, before it, an NPU out of range)."""
    lib = _load()
    o = _Options(OPTIONS_VERSION, npus, str(path).encode())
    log = c_void_p()
    rc = lib.chakra_astralog_new(ctypes.byref(o), ctypes.byref(log))
    if rc < 0:
        raise error(rc, None)
    try:
        with open(path, "rb") as f:
            for lineno, line in enumerate(f, 1):
                rc = lib.chakra_astralog_line(log, line, len(line), lineno)
                if rc < 0:
                    raise error(rc, lib.chakra_astralog_errmsg(log).decode("utf-8", "replace"))
        lanes = c_uint32()
        rc = lib.chakra_astralog_lanes(log, ctypes.byref(lanes))
        if rc < 0:
            raise error(rc, None)
        n = c_size_t()
        names = lib.chakra_astralog_names(log, None)

        def name(off, length):
            return ctypes.string_at(names + off, length).decode("utf-8", "surrogateescape")
        ev = lib.chakra_astralog_events(log, ctypes.byref(n))
        events = [Event(e.npu, e.lane, e.node_id, name(e.name_off, e.name_len), e.start, e.end,
                        e.line) for e in (ev[i] for i in range(n.value))]
        iss = lib.chakra_astralog_issues(log, ctypes.byref(n))
        unfinished = [Unfinished(s.npu, s.node_id, name(s.name_off, s.name_len), s.cycle, s.line)
                      for s in (iss[i] for i in range(n.value)) if s.open]
        first = c_uint64()
        skipped = lib.chakra_astralog_skipped(log, ctypes.byref(first))
        return SimLog(events, unfinished, lanes.value, skipped, first.value)
    finally:
        lib.chakra_astralog_free(log)
