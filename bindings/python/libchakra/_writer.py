# SPDX-License-Identifier: Apache-2.0
"""Writer: build nodes from Python values and write a Chakra ET."""

import ctypes
import os

from ._lib import lib, WRITE_CB, WriterOptions, WRITER_OPTIONS_VERSION
from ._errors import error, StateError, NoMemoryError
from ._guard import Guard
from ._node import Node
from ._encode import fill_node, add_attrs, attr_items, _bytes


class Writer:
    """Write a Chakra ET file.

        with libchakra.Writer("out.0.et", gzip=False) as w:
            w.write_metadata("0.0.4", {"schema": "1.0.1"})
            w.write_node(id=1, name="gemm", type=libchakra.NodeType.COMP_NODE,
                         attrs={"num_ops": 4096, "is_cpu_op": False})

    dst: a path ("-" is stdout) or a binary file object with write().
    The file is written under a temporary name and renamed into place by
    finish(); leaving the with-block normally finishes, leaving it through
    an exception aborts (no file, or nothing under the final name). An
    existing path is an error unless overwrite=True.
    """

    def __init__(self, dst, gzip=False, overwrite=False, gzip_level=0):
        self._guard = Guard()  # calls from several threads are serialized
        self._w = None
        self._b = None
        self._exc = None
        self._count = 0
        self.finished = False
        o = WriterOptions()
        o.version = WRITER_OPTIONS_VERSION
        o.gzip = 1 if gzip else 0
        o.gzip_level = gzip_level
        o.overwrite = 1 if overwrite else 0
        h = ctypes.c_void_p()
        if isinstance(dst, (str, os.PathLike)):
            self._cb = None
            rc = lib.chakra_writer_open(ctypes.byref(h), os.fsencode(dst), ctypes.byref(o))
        elif hasattr(dst, "write"):
            self._file = dst
            self._cb = WRITE_CB(self._write)
            rc = lib.chakra_writer_open_cb(ctypes.byref(h), self._cb, None, ctypes.byref(o))
        else:
            raise TypeError("Writer destination must be a path or a binary file object, "
                            "not %s" % type(dst).__name__)
        if rc < 0:
            msg = self._msg(h.value) if h.value else ""
            if h.value:
                lib.chakra_writer_close(h.value)
            raise error(rc, msg)
        self._w = h.value
        self._b = lib.chakra_builder_new()
        if not self._b:
            self.abort()
            raise NoMemoryError("chakra_builder_new failed", -2)

    def _write(self, _data, buf, n):
        # Called from C: keep the exception for the caller, report -1.
        try:
            mv = memoryview(ctypes.string_at(buf, n))
            done = 0
            while done < n:
                k = self._file.write(mv[done:])
                done += n - done if k is None else k
                if k == 0:
                    raise OSError("file object wrote 0 bytes")
            return 0
        except BaseException as e:  # noqa: B902 -- re-raised by the caller
            self._exc = e
            return -1

    @staticmethod
    def _msg(h):
        m = lib.chakra_writer_errmsg(h)
        return m.decode("utf-8", "replace") if m else ""

    def _check(self, rc):
        if rc < 0:
            e = error(rc, self._msg(self._w))
            if self._exc is not None:
                raise e from self._exc
            raise e

    def _handle(self):
        if self._w is None:
            raise StateError("writer is closed", -15)
        if self.finished:
            raise StateError("writer is already finished", -15)
        return self._w

    def write_metadata(self, version="0.0.4", attrs=None):
        """The GlobalMetadata: first call after opening. attrs as for
        write_node (dict with inferred kinds, or (name, kind, value) tuples).
        A Metadata object (reader.metadata) is also accepted."""
        with self._guard:
            h = self._handle()
            if hasattr(version, "attr_items") and hasattr(version, "version"):
                version, attrs = version.version, version.attr_items
            vb = _bytes(version)
            if b"\0" in vb:
                # The C call takes a NUL-terminated string: refuse, not truncate.
                raise ValueError("metadata version %r contains a NUL byte" % (version,))
            items = attr_items(attrs)
            b = None
            if items:
                b = self._b
                lib.chakra_builder_reset(b)
                add_attrs(b, items)
            self._check(lib.chakra_writer_write_metadata(h, vb, b))

    def write_node(self, node=None, *, id=None, name="", type=4, data_deps=(), ctrl_deps=(),
                   start_time_micros=0, duration_micros=0, inputs=None, outputs=None,
                   attrs=None):
        """Write one node: a Node (e.g. from a Reader), or its fields as
        keywords. type is an int, NodeType or name ("COMP_NODE"); attrs a
        dict name -> value (kinds inferred: see infer_kind) or a list of
        (name, kind, value[, doc]) with kind an AttrKind or name ("int32")."""
        with self._guard:
            h = self._handle()
            if node is not None:
                if not isinstance(node, Node):
                    raise TypeError("write_node takes a Node or keyword fields, not %r" % (node,))
                fill_node(self._b, node.id, node.name, node.type, node.data_deps, node.ctrl_deps,
                          node.start_time_micros, node.duration_micros, node.inputs,
                          node.outputs, node.attr_items)
            else:
                if id is None:
                    raise TypeError("write_node: id is required")
                fill_node(self._b, id, name, type, data_deps, ctrl_deps, start_time_micros,
                          duration_micros, inputs, outputs, attrs)
            self._check(lib.chakra_writer_write_node(h, self._b))

    @property
    def node_count(self):
        """Nodes written so far (kept after finish)."""
        with self._guard:
            if self._w is not None:
                self._count = lib.chakra_writer_node_count(self._w)
            return self._count

    def finish(self):
        """Flush, end the gzip stream, rename into place; raises on failure
        (then no file is left under the final name)."""
        with self._guard:
            h = self._handle()
            rc = lib.chakra_writer_finish(h)
            if rc < 0:
                try:
                    self._check(rc)
                finally:
                    self._free()
            self.finished = True
            self._free()

    def abort(self):
        """Drop the output (the temporary file is removed)."""
        with self._guard:
            self._free()

    def _free(self):
        if self._w is not None:
            self._count = lib.chakra_writer_node_count(self._w)
            lib.chakra_writer_close(self._w)
            self._w = None
        if self._b is not None:
            lib.chakra_builder_free(self._b)
            self._b = None

    close = abort

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and not self.finished and self._w is not None:
            self.finish()
        else:
            self.abort()
        return False

    def __del__(self):
        try:
            self._free()
        except Exception:
            pass
