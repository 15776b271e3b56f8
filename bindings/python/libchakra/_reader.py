# SPDX-License-Identifier: Apache-2.0
"""Reader: iterate over the nodes of one trace file."""

import ctypes

from ._lib import lib
from ._errors import error, StateError
from ._guard import Guard, Closing
from ._node import Metadata, Node
from ._source import Source, reader_options

_OPEN = {"path": lib.chakra_reader_open, "buffer": lib.chakra_reader_open_buffer,
         "callback": lib.chakra_reader_open_cb}


def _msg(h):
    m = lib.chakra_reader_errmsg(h)
    return m.decode("utf-8", "replace") if m else ""


class Reader(Closing):
    """Read a Chakra ET (plain or gzip, detected from its first bytes).

    src: a path (str or os.PathLike; "-" is stdin), a bytes-like object
    holding the whole file, or a binary file object (anything with
    readinto() or read()). Iterating yields Node objects, which are copies:
    they stay valid after the reader moves on or is closed.

        with libchakra.Reader("trace.0.et.gz") as r:
            print(r.metadata.version)
            for node in r:
                ...

    Errors raise a ChakraError subclass whose message names the file, byte
    offset and node. Calls from several threads are serialized (each node
    goes to one of them); a call from inside the reader's own read callback
    raises StateError.
    """

    def __init__(self, src, max_message_size=0, display_name=None, verify_with_nanopb=False,
                 max_node_memory=0):
        self._h = None
        self._guard = Guard()
        self._src = Source(src)
        self._opts = reader_options(max_message_size, display_name, verify_with_nanopb,
                                    max_node_memory)
        rc, h = self._src.open(_OPEN, ctypes.byref(self._opts))
        if rc < 0:
            msg = _msg(h) if h else ""
            if h:
                lib.chakra_reader_close(h)
            self._raise(rc, msg)
        self._h = h
        self.metadata = Metadata._from_c(lib.chakra_reader_metadata(h))
        self._node = ctypes.c_void_p()
        self._done = False

    def _raise(self, rc, msg):
        e = error(rc, msg)
        if self._src.exc is not None:
            raise e from self._src.exc
        raise e

    def _handle(self):
        if self._h is None:
            raise StateError("reader is closed", -15)
        return self._h

    def next_node(self):
        """The next Node, or None at a clean end of file."""
        with self._guard:
            h = self._handle()
            if self._done:
                return None
            rc = lib.chakra_reader_next(h, ctypes.byref(self._node))
            if rc < 0:
                self._raise(rc, _msg(h))
            if rc == 0:
                self._done = True
                return None
            return Node._from_c(self._node.value)

    def __iter__(self):
        return self

    def __next__(self):
        n = self.next_node()
        if n is None:
            raise StopIteration
        return n

    @property
    def node_count(self):
        """Nodes returned so far."""
        with self._guard:
            return lib.chakra_reader_node_count(self._handle())

    @property
    def offset(self):
        """Uncompressed byte offset where the next message starts."""
        with self._guard:
            return lib.chakra_reader_offset(self._handle())

    def close(self):
        guard = getattr(self, "_guard", None)  # (__init__ may have failed early)
        if guard is None:
            return
        with guard:
            if self._h is not None:
                lib.chakra_reader_close(self._h)
                self._h = None


def read(src, **kw):
    """(Metadata, [Node, ...]) of a whole trace."""
    with Reader(src, **kw) as r:
        return r.metadata, list(r)
