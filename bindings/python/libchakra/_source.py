# SPDX-License-Identifier: Apache-2.0
"""Opening a trace from a path, a bytes-like object or a file-like object:
the input handling shared by Reader and Feeder."""

import ctypes
import os

from ._lib import READ_CB, ReaderOptions, READER_OPTIONS_VERSION


class Source:
    """Keeps alive whatever the C handle reads from (buffer or callback)
    and remembers an exception raised by a file-like object's read, so it
    can be re-raised instead of a bare "read failed"."""

    def __init__(self, src):
        self.kind = None
        self.path = None
        self.buf = None
        self.cb = None
        self.exc = None
        if isinstance(src, (str, os.PathLike)):
            self.kind = "path"
            self.path = os.fsencode(src)
        elif isinstance(src, (bytes, bytearray, memoryview)):
            self.kind = "buffer"
            # An immutable copy: the C reader keeps a pointer into it.
            self.buf = bytes(src)
        elif hasattr(src, "readinto") or hasattr(src, "read"):
            self.kind = "callback"
            self.file = src
            self.cb = READ_CB(self._read)
        else:
            raise TypeError("trace source must be a path, bytes or a binary file object, "
                            "not %s" % type(src).__name__)

    def _read(self, _data, buf, cap):
        # Called from C: never let an exception escape (ctypes would print
        # it and return garbage); report -1 and keep the exception.
        try:
            f = self.file
            if hasattr(f, "readinto"):
                n = f.readinto((ctypes.c_char * cap).from_address(buf))
                return n or 0
            b = f.read(cap)
            if isinstance(b, str):
                raise TypeError("file object returned str: open the trace in binary mode")
            if len(b) > cap:
                raise ValueError("file object returned %d bytes for a read of %d"
                                 % (len(b), cap))
            ctypes.memmove(buf, b, len(b))
            return len(b)
        except BaseException as e:  # noqa: B902 -- re-raised by the caller
            self.exc = e
            return -1

    def open(self, opener, opts, display_name=None):
        """Call one of the *_open / *_open_buffer / *_open_cb functions.
        opener maps "path"/"buffer"/"callback" to the C function."""
        h = ctypes.c_void_p()
        if self.kind == "path":
            rc = opener["path"](ctypes.byref(h), self.path, opts)
        elif self.kind == "buffer":
            rc = opener["buffer"](ctypes.byref(h), self.buf, len(self.buf), opts)
        else:
            rc = opener["callback"](ctypes.byref(h), self.cb, None, opts)
        return rc, h.value


def u64(name, v):
    """v checked as an unsigned 64-bit option (a budget or a count)."""
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
        raise ValueError("%s must be an int in 0..2**64-1, not %r" % (name, v))
    return v


def reader_options(max_message_size=0, display_name=None, verify_with_nanopb=False,
                   max_node_memory=0):
    o = ReaderOptions()
    o.version = READER_OPTIONS_VERSION
    o.max_message_size = u64("max_message_size", max_message_size)
    o.max_node_memory = u64("max_node_memory", max_node_memory)
    o.display_name = os.fsencode(display_name) if display_name is not None else None
    o.verify_with_nanopb = 1 if verify_with_nanopb else 0
    return o
