# SPDX-License-Identifier: Apache-2.0
"""Feeder and Workload: dependency-aware issue queues for simulators."""

import collections
import ctypes
import os

from . import _lib
from ._lib import lib, READY_CB, FeederOptions, FEEDER_OPTIONS_VERSION
from ._errors import ChakraError, StateError, error
from ._guard import Guard, Closing
from ._node import Metadata, Node
from ._source import Source, reader_options, u64

DEPS = {"data": 1, "ctrl": 2, "both": 3}
ORDERS = {"id": 0, "file": 1}


def _need_feeder():
    if not _lib.has_feeder:
        raise ChakraError("the loaded libchakra (%s) has no feeder: %s"
                          % (_lib.path, _lib.feeder_missing), -3)


def _options(deps, order, window, strict, ready_cb, ropts, window_bytes=0, max_memory=0):
    if deps not in DEPS:
        raise ValueError("deps must be one of %s, not %r" % (sorted(DEPS), deps))
    if order not in ORDERS:
        raise ValueError("order must be one of %s, not %r" % (sorted(ORDERS), order))
    if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window < 1 << 64:
        raise ValueError("window must be an int in 0..2**64-1, not %r" % (window,))
    o = FeederOptions()
    o.version = FEEDER_OPTIONS_VERSION
    o.deps = DEPS[deps]
    o.order = ORDERS[order]
    o.window = window
    o.window_bytes = u64("window_bytes", window_bytes)
    o.max_memory = u64("max_memory", max_memory)
    o.strict = 1 if strict else 0
    if ready_cb is not None:
        o.ready_cb = ready_cb
    o.data = None
    o.reader = ctypes.pointer(ropts)
    return o


def _msg(fn, h):
    m = fn(h) if h else None
    return m.decode("utf-8", "replace") if m else ""


class Feeder(Closing):
    """Hands out the nodes of one trace whose dependencies have completed.

    src: path, bytes-like or binary file object (as Reader). deps: which
    dependencies gate issue, "data" (the reference feeder), "ctrl" or
    "both"; order among ready nodes: "id" (lowest first, the reference) or
    "file"; window: nodes read ahead (0: the library default); strict:
    control dependencies on absent ids and self control dependencies are
    errors instead of warnings.

    Budgets (0: the library's default; docs/hardening.md): window_bytes
    also stops read-ahead once the nodes held take that many bytes (64 MiB);
    max_memory fails with TooBigError when a file needs more held bytes to
    make progress (1 GiB; 2**64-1: unlimited); max_node_memory (and
    max_message_size) bound one node, as for Reader.

    Pull style:
        with libchakra.Feeder("trace.0.et.gz") as f:
            while (n := f.next()) is not None:   # n is now in flight
                simulate(n)
                f.complete(n.id)

    or simply ``for n in f.issue_loop(inflight=4): ...`` (the loop of
    ``chakra feed``). Callback style: Feeder(..., ready=fn) calls fn(node,
    feeder) for each node as it becomes issuable (it is then in flight),
    from drive() and complete(); an exception raised by fn is re-raised
    from that call.

    Nodes are copies (valid forever). A stall -- nothing ready, nothing in
    flight, nodes left -- raises MissingDependencyError or CycleError
    naming the blocked nodes and their missing parents or the cycle.

    Threads: calls from several threads are serialized. The ready callback
    may call complete, next, push_back, lookup, the counters and close (the
    feeder is then closed once the callback returns); other re-entrant
    calls raise StateError.
    """

    def __init__(self, src, deps="data", order="id", window=0, strict=False, ready=None,
                 max_message_size=0, display_name=None, verify_with_nanopb=False,
                 window_bytes=0, max_memory=0, max_node_memory=0):
        _need_feeder()
        self._h = None
        self._guard = Guard()
        self._owner = None
        self.rank = None
        self._ready = ready
        self._exc = None
        self._node = ctypes.c_void_p()
        self._src = Source(src)
        self._ropts = reader_options(max_message_size, display_name, verify_with_nanopb,
                                     max_node_memory)
        self._cb = READY_CB(self._on_ready) if ready is not None else None
        self._opts = _options(deps, order, window, strict, self._cb, self._ropts, window_bytes,
                              max_memory)
        opener = {"path": lib.chakra_feeder_open, "buffer": lib.chakra_feeder_open_buffer,
                  "callback": lib.chakra_feeder_open_cb}
        rc, h = self._src.open(opener, ctypes.byref(self._opts))
        if rc < 0:
            msg = _msg(lib.chakra_feeder_errmsg, h)
            if h:
                lib.chakra_feeder_close(h)
            self._raise(rc, msg)
        self._h = h
        self.metadata = Metadata._from_c(lib.chakra_feeder_metadata(h))

    @classmethod
    def _wrap(cls, h, owner, ready):
        """A feeder owned by a Workload (closed with it)."""
        self = cls.__new__(cls)
        self._h = h
        self._guard = Guard()
        self._owner = owner
        self._ready = ready
        self._exc = None
        self._node = ctypes.c_void_p()
        self._src = None
        self.metadata = Metadata._from_c(lib.chakra_feeder_metadata(h))
        return self

    def _on_ready(self, _data, _f, node):
        # Called from C: copy the node and hand it on; an exception is kept
        # and re-raised when the C call that issued the node returns.
        if self._exc is not None:
            return
        self._guard.allow += 1
        try:
            self._ready(Node._from_c(node), self)
        except BaseException as e:  # noqa: B902 -- re-raised by the caller
            self._exc = e
        finally:
            self._guard.allow -= 1

    def _reraise_cb(self):
        e, self._exc = self._exc, None
        if e is not None:
            raise e

    def _raise(self, rc, msg):
        e = error(rc, msg)
        cause = self._src.exc if self._src is not None else None
        if cause is not None:
            raise e from cause
        raise e

    def _handle(self):
        if self._h is None:
            raise StateError("feeder is closed", -15)
        return self._h

    def _count(self, fn):
        with self._guard:
            return fn(self._handle())

    def _check(self, rc):
        if rc < 0:
            self._exc = None
            self._raise(rc, _msg(lib.chakra_feeder_errmsg, self._h))
        return rc

    # ---- pull style ----
    def next(self):
        """Issue the next ready node (it is then in flight), or None when
        none is ready right now (complete some in-flight node, or the trace
        is done: see has_more)."""
        with self._guard:
            h = self._handle()
            rc = self._check(lib.chakra_feeder_next(h, ctypes.byref(self._node)))
            return Node._from_c(self._node.value) if rc > 0 else None

    def complete(self, id):
        """Complete an in-flight node, releasing its children. StateError
        when id is not in flight (never issued, or completed already)."""
        with self._guard:
            h = self._handle()
            rc = lib.chakra_feeder_complete(h, id)
            self._reraise_cb()
            self._check(rc)

    def push_back(self, id):
        """Return an in-flight node to the ready set."""
        with self._guard:
            self._check(lib.chakra_feeder_push_back(self._handle(), id))

    def drive(self):
        """Callback style: issue every ready node through the callback."""
        with self._guard:
            h = self._handle()
            rc = lib.chakra_feeder_drive(h)
            self._reraise_cb()
            self._check(rc)

    def lookup(self, id):
        """A node still held (read, not yet completed) as a Node, or None."""
        with self._guard:
            p = lib.chakra_feeder_lookup(self._handle(), id)
            return Node._from_c(p) if p else None

    @property
    def has_more(self):
        """True while any node is unread, held, ready or in flight."""
        return bool(self._count(lib.chakra_feeder_has_more))

    @property
    def held_count(self):
        return self._count(lib.chakra_feeder_held_count)

    @property
    def ready_count(self):
        return self._count(lib.chakra_feeder_ready_count)

    @property
    def inflight_count(self):
        return self._count(lib.chakra_feeder_inflight_count)

    @property
    def issued_count(self):
        return self._count(lib.chakra_feeder_issued_count)

    @property
    def completed_count(self):
        return self._count(lib.chakra_feeder_completed_count)

    @property
    def duplicate_dep_count(self):
        """Parents listed more than once by a node (each counted once)."""
        return self._count(lib.chakra_feeder_duplicate_dep_count)

    @property
    def cycle_break_count(self):
        """Of the warnings, control edges dropped to break a cycle."""
        return self._count(lib.chakra_feeder_cycle_break_count)

    @property
    def warning_count(self):
        """Control edges ignored with a warning, counted only when control
        dependencies gate issue: absent parents, self edges, edges closing
        a cycle."""
        return self._count(lib.chakra_feeder_warning_count)

    def issue_loop(self, inflight=1):
        """Yield nodes in the order of the reference loop (``chakra feed
        --inflight N``): issue ready nodes until `inflight` are in flight or
        none is ready, then complete the oldest in flight; repeat. Each
        yielded node is completed by the loop later, when its turn comes."""
        if self._ready is not None:
            raise StateError("issue_loop is for pull-style feeders (no ready callback)", -15)
        if isinstance(inflight, bool) or not isinstance(inflight, int) or inflight < 1:
            raise ValueError("inflight must be an int >= 1, not %r" % (inflight,))
        q = collections.deque()
        while True:
            while len(q) < inflight:
                n = self.next()
                if n is None:
                    break
                q.append(n.id)
                yield n
            if not q:
                if self.has_more:  # the library reports stalls; be safe anyway
                    raise StateError("feeder stalled: nothing ready or in flight, %d nodes "
                                     "held" % self.held_count, -15)
                return
            self.complete(q.popleft())

    def __iter__(self):
        return self.issue_loop(1)

    def close(self):
        guard = getattr(self, "_guard", None)  # (__init__ may have failed early)
        if guard is None:
            return
        with guard:
            if self._h is not None and self._owner is None:
                # From inside the ready callback the library defers the
                # close until the callback returns to it.
                lib.chakra_feeder_close(self._h)
            self._h = None


class Workload(Closing):
    """The feeders of a multi-rank workload PREFIX.0.et ... PREFIX.{N-1}.et
    (also .et.gz; N detected). len(w), w[rank], iteration over feeders.
    Feeder options as for Feeder; ready=fn(node, feeder) for callback style.
    The feeders belong to the workload: closing it closes them."""

    def __init__(self, prefix, deps="data", order="id", window=0, strict=False, ready=None,
                 max_message_size=0, verify_with_nanopb=False, window_bytes=0, max_memory=0,
                 max_node_memory=0):
        _need_feeder()
        self._h = None
        self._feeders = []
        self._by_ptr = {}
        self._ready = ready
        self._ropts = reader_options(max_message_size, None, verify_with_nanopb, max_node_memory)
        self._cb = READY_CB(self._on_ready) if ready is not None else None
        self._opts = _options(deps, order, window, strict, self._cb, self._ropts, window_bytes,
                              max_memory)
        h = ctypes.c_void_p()
        rc = lib.chakra_workload_open(ctypes.byref(h), os.fsencode(prefix),
                                      ctypes.byref(self._opts))
        if rc < 0:
            msg = _msg(lib.chakra_workload_errmsg, h.value)
            if h.value:
                lib.chakra_workload_close(h.value)
            raise error(rc, msg)
        self._h = h.value
        for r in range(lib.chakra_workload_size(self._h)):
            p = lib.chakra_workload_feeder(self._h, r)
            f = Feeder._wrap(p, self, ready)
            f.rank = r
            self._feeders.append(f)
            self._by_ptr[p] = f

    def _on_ready(self, _data, fptr, node):
        f = self._by_ptr.get(fptr)
        if f is None:
            return
        f._on_ready(None, fptr, node)

    def __len__(self):
        return len(self._feeders)

    def __getitem__(self, rank):
        return self._feeders[rank]

    def __iter__(self):
        return iter(self._feeders)

    def close(self):
        for f in self._feeders:
            with f._guard:
                f._h = None
        if self._h is not None:
            lib.chakra_workload_close(self._h)
            self._h = None
