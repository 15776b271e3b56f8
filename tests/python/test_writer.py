# SPDX-License-Identifier: Apache-2.0
"""Writer: write traces from Python values, read them back; real-data
round trip byte for byte; abort on exception; value checks."""

import gzip
import io
import math
import os
import unittest

import libchakra as C
from pyhelp import TRACE, TmpDirCase, need

K = C.AttrKind
EVERY_KIND = [
    ("d", K.DOUBLE, 0.1), ("dl", K.DOUBLE_LIST, [1.5, -0.0, math.inf]),
    ("f", K.FLOAT, 0.5), ("fl", K.FLOAT_LIST, [0.25, -3.0]),
    ("i32", K.INT32, -2**31), ("i32l", K.INT32_LIST, [2**31 - 1, -1]),
    ("i64", K.INT64, -2**63), ("i64l", K.INT64_LIST, [2**63 - 1, -7]),
    ("u32", K.UINT32, 2**32 - 1), ("u32l", K.UINT32_LIST, [0, 2**32 - 1]),
    ("u64", K.UINT64, 2**64 - 1), ("u64l", K.UINT64_LIST, [2**64 - 1, 3]),
    ("s32", K.SINT32, -5), ("s32l", K.SINT32_LIST, [-1, 1]),
    ("s64", K.SINT64, -2**62), ("s64l", K.SINT64_LIST, [-(2**63)]),
    ("x32", K.FIXED32, 7), ("x32l", K.FIXED32_LIST, [2**32 - 1]),
    ("x64", K.FIXED64, 2**64 - 2), ("x64l", K.FIXED64_LIST, []),
    ("sx32", K.SFIXED32, -9), ("sx32l", K.SFIXED32_LIST, [-2**31]),
    ("sx64", K.SFIXED64, -2**63), ("sx64l", K.SFIXED64_LIST, [5, -5]),
    ("b", K.BOOL, True), ("bl", K.BOOL_LIST, [True, False, True]),
    ("s", K.STRING, "héllo\u2603"), ("sl", K.STRING_LIST, ["a", "", "b\x00c"]),
    ("y", K.BYTES, b"\x00\xff\x10"), ("yl", K.BYTES_LIST, [b"", b"\x01"]),
    ("none", K.NONE, None),
]


class WriteReadTest(TmpDirCase):
    def test_every_kind_round_trips(self):
        p = self.path("kinds.0.et")
        with C.Writer(p) as w:
            w.write_metadata("0.0.4", [("m", "string", "meta"), ("n", K.UINT64, 2**64 - 1)])
            w.write_node(id=1, name="all", type="COMP_NODE", data_deps=[0], ctrl_deps=[5, 6],
                         start_time_micros=10, duration_micros=2**64 - 1,
                         inputs={"values": "[1]", "shapes": "[[2]]", "types": "[int]"},
                         attrs=EVERY_KIND + [("doc", "int64", 1, "a doc string")])
            w.write_node(id=2**64 - 1, name="", type=C.NodeType.COMM_COLL_NODE,
                         outputs={"values": "x"}, attrs={"comm_type": 0, "comm_size": 4096})
            self.assertEqual(w.node_count, 2)
        self.assertTrue(w.finished)
        m, nodes = C.read(p)
        self.assertEqual(m.version, "0.0.4")
        self.assertEqual(m.attrs, {"m": "meta", "n": 2**64 - 1})
        a, b = nodes
        self.assertEqual((a.id, a.name, a.type_name, a.data_deps, a.ctrl_deps),
                         (1, "all", "COMP_NODE", [0], [5, 6]))
        self.assertEqual((a.start_time_micros, a.duration_micros), (10, 2**64 - 1))
        self.assertEqual(a.inputs, {"values": "[1]", "shapes": "[[2]]", "types": "[int]"})
        self.assertIsNone(a.outputs)
        got = {x.name: (x.kind, x.value) for x in a.attr_items}
        for name, kind, value in EVERY_KIND:
            self.assertEqual(got[name], (kind, value), name)
            self.assertIs(type(got[name][0]), K)
        self.assertIs(got["b"][1], True)
        self.assertEqual(a.attr_items[-1], C.Attr("doc", K.INT64, 1, "a doc string"))
        self.assertEqual((b.id, b.type, b.comm_type, b.comm_size), (2**64 - 1, 7, 0, 4096))
        self.assertEqual(b.outputs, {"values": "x", "shapes": "", "types": ""})
        self.assertEqual(b.attr_kind("comm_size"), K.INT64)
        # A Node built in Python compares equal to the one read back.
        self.assertEqual(C.Node(1, "all", "COMP_NODE", [0], [5, 6], 10, 2**64 - 1,
                                a.inputs, None,
                                EVERY_KIND + [("doc", "int64", 1, "a doc string")]), a)

    def test_strings_with_nul_bytes(self):
        # The C API returns strings with their length; a NUL inside must
        # not cut them short.
        buf = io.BytesIO()
        with C.Writer(buf) as w:
            with self.assertRaises(ValueError):
                w.write_metadata("v\x00x")  # the C API takes a C string
            w.write_metadata("v\xffx", {"m": "a\x00b"})
            w.write_node(id=1, name="na\x00me", inputs={"values": "\x00", "types": "t\x00"},
                         attrs=[("s", "string", "x\x00y"), ("y", "bytes", b"\x00"),
                                ("d", "int64", 1, "do\x00c")])
        m, (n,) = C.read(buf.getvalue())
        self.assertEqual((m.version, m.attrs), ("v\xffx", {"m": "a\x00b"}))
        self.assertEqual(n.name, "na\x00me")
        self.assertEqual(n.inputs, {"values": "\x00", "shapes": "", "types": "t\x00"})
        self.assertEqual(n.attr_items, [C.Attr("s", K.STRING, "x\x00y"),
                                        C.Attr("y", K.BYTES, b"\x00"),
                                        C.Attr("d", K.INT64, 1, "do\x00c")])

    def test_inferred_kinds(self):
        self.assertEqual(C.infer_kind(True), K.BOOL)
        self.assertEqual(C.infer_kind(-1), K.INT64)
        self.assertEqual(C.infer_kind(2**63), K.UINT64)
        self.assertEqual(C.infer_kind(1.0), K.DOUBLE)
        self.assertEqual(C.infer_kind("x"), K.STRING)
        self.assertEqual(C.infer_kind(b"x"), K.BYTES)
        self.assertEqual(C.infer_kind(None), K.NONE)
        self.assertEqual(C.infer_kind([1, 2]), K.INT64_LIST)
        self.assertEqual(C.infer_kind([1, 2**64 - 1]), K.UINT64_LIST)
        self.assertEqual(C.infer_kind([1, 2.5]), K.DOUBLE_LIST)
        self.assertEqual(C.infer_kind([True]), K.BOOL_LIST)
        self.assertEqual(C.infer_kind(["a"]), K.STRING_LIST)
        for bad in ([], ["a", 1], [None], 2**64, object()):
            with self.assertRaises((TypeError, ValueError, C.RangeError)):
                C.infer_kind(bad)

    def test_values_checked_against_kind(self):
        p = self.path("bad.0.et")
        cases = [("int32", 2**31), ("uint32", -1), ("uint64", 2**64), ("int64", 1.5),
                 ("bool", 2), ("float", 1e300), ("string", 5), ("int64_list", [1, "x"]),
                 ("none", 0), ("nokind", 1), ("double", "1.0")]
        with C.Writer(p) as w:
            w.write_metadata("0.0.4")
            for kind, value in cases:
                with self.assertRaises((TypeError, ValueError, C.ChakraError), msg=kind):
                    w.write_node(id=1, attrs=[("a", kind, value)])
            with self.assertRaises(C.RangeError):
                w.write_node(id=-1)
            with self.assertRaises(C.RangeError):
                w.write_node(id=1, data_deps=[2**64])
            with self.assertRaises(ValueError):
                w.write_node(id=1, type="NO_SUCH_NODE")
            with self.assertRaises(ValueError):
                w.write_node(id=1, inputs={"value": "typo"})
            w.write_node(id=3, attrs=[("ok", "int32", 2**31 - 1)])
        _, nodes = C.read(p)  # failed calls wrote nothing
        self.assertEqual([n.id for n in nodes], [3])

    def test_abort_on_exception_and_no_overwrite(self):
        p = self.path("t.0.et")
        with self.assertRaises(RuntimeError):
            with C.Writer(p) as w:
                w.write_metadata("0.0.4")
                w.write_node(id=1)
                raise RuntimeError("simulated failure")
        self.assertFalse(os.path.exists(p))
        self.assertEqual(os.listdir(self.tmp), [])  # no temporary left behind
        with C.Writer(p) as w:
            w.write_metadata("0.0.4")
        with self.assertRaises(C.ChakraIOError) as cm:
            C.Writer(p)
        self.assertIn(p, str(cm.exception))
        with C.Writer(p, overwrite=True) as w:
            w.write_metadata("v2")
        self.assertEqual(C.read(p)[0].version, "v2")
        with self.assertRaises(C.StateError):
            w.write_node(id=1)

    def test_gzip_and_file_object(self):
        p = self.path("g.0.et.gz")
        with C.Writer(p, gzip=True) as w:
            w.write_metadata("0.0.4")
            w.write_node(id=5, name="n")
        with open(p, "rb") as f:
            raw = f.read()
        self.assertEqual(raw[:2], b"\x1f\x8b")
        self.assertEqual([n.id for n in C.read(p)[1]], [5])
        buf = io.BytesIO()
        with C.Writer(buf) as w:
            w.write_metadata("0.0.4")
            w.write_node(id=5, name="n")
        self.assertEqual(buf.getvalue(), gzip.decompress(raw))

    def test_file_object_error_is_chained(self):
        class Full(io.RawIOBase):
            def writable(self):
                return True

            def write(self, b):
                raise OSError(28, "No space left on device")
        with self.assertRaises(C.ChakraError) as cm:
            with C.Writer(Full()) as w:
                w.write_metadata("0.0.4")
                for i in range(100000):
                    w.write_node(id=i, name="x" * 100)
        self.assertIsInstance(cm.exception.__cause__, OSError)


class RealRoundTripTest(TmpDirCase):
    def test_rewrite_is_byte_identical(self):
        with open(need(TRACE), "rb") as f:
            original = gzip.decompress(f.read())
        p = self.path("copy.0.et")
        with C.Reader(TRACE) as r, C.Writer(p) as w:
            w.write_metadata(r.metadata)
            for n in r:
                w.write_node(n)
        self.assertEqual(w.node_count, 3664)
        with open(p, "rb") as f:
            self.assertEqual(f.read(), original)


if __name__ == "__main__":
    unittest.main()
