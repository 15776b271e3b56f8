# SPDX-License-Identifier: Apache-2.0
"""Reader and Node on real data (chakra.0.et.gz), checked field by field
against `chakra jsonize`, plus every input kind and the error paths."""

import gzip
import io
import json
import math
import os
import struct
import subprocess
import unittest

import libchakra as C
from pyhelp import TRACE, CHAKRA_EXE, TmpDirCase, need, tool_env, varint


def jsonize(path):
    if not CHAKRA_EXE:
        raise unittest.SkipTest("the chakra command is not built (-Dtools)")
    if not os.path.exists(CHAKRA_EXE):
        raise AssertionError("CHAKRA_EXE %s is missing" % CHAKRA_EXE)
    out = subprocess.run([CHAKRA_EXE, "jsonize", path], check=True, capture_output=True,
                         env=tool_env()).stdout
    return json.loads(out)


def json_value(kind, v):
    """A Python attribute value as jsonize writes it (bytes as hex, NaN and
    infinities as strings)."""
    if isinstance(v, list):
        return [json_value(kind[:-5], x) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def attrs_as_json(items):
    out = []
    for a in items:
        d = {"name": a.name}
        if a.doc:
            d["doc_string"] = a.doc
        d["kind"] = C.attr_kind_name(a.kind)
        if a.kind != C.AttrKind.NONE:
            d["value"] = json_value(d["kind"], a.value)
        out.append(d)
    return out


def node_as_json(n):
    d = {"id": n.id, "name": n.name, "type": n.type_name or n.type,
         "ctrl_deps": n.ctrl_deps, "data_deps": n.data_deps,
         "start_time_micros": n.start_time_micros, "duration_micros": n.duration_micros}
    if n.inputs is not None:
        d["inputs"] = n.inputs
    if n.outputs is not None:
        d["outputs"] = n.outputs
    d["attr"] = attrs_as_json(n.attr_items)
    return d


class RealTraceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need(TRACE)
        cls.meta, cls.nodes = C.read(TRACE)

    def test_every_node_matches_jsonize(self):
        ref = jsonize(TRACE)
        self.assertEqual(len(self.nodes), 3664)
        self.assertEqual(len(ref["nodes"]), 3664)
        self.assertEqual({"version": self.meta.version,
                          "attr": attrs_as_json(self.meta.attr_items)}, ref["metadata"])
        for i, (n, r) in enumerate(zip(self.nodes, ref["nodes"])):
            got = node_as_json(n)
            if got != r:  # assertEqual on every node would take seconds
                self.assertEqual(got, r, "node index %d" % i)
            self.assertEqual(n.index, i)

    def test_metadata(self):
        self.assertEqual(self.meta.version, "")
        self.assertEqual(self.meta.attrs, {"schema": "1.0.1", "pid": 114598,
                                           "time": "2023-12-14 11:55:01",
                                           "start_ts": 216405745, "finish_ts": 216433101})
        self.assertEqual(self.meta.attr_kind("pid"), C.AttrKind.UINT64)

    def test_specific_nodes(self):
        first = self.nodes[0]
        self.assertEqual((first.id, first.name, first.type, first.type_name),
                         (216, "aten::flatten_dense_tensors(0)", 4, "COMP_NODE"))
        self.assertEqual(first.ctrl_deps, [3])
        self.assertEqual(first.data_deps, [])
        self.assertEqual(first.duration_micros, 318)
        self.assertTrue(first.is_cpu_op)
        self.assertEqual(first.attrs["seq_id"], -1)
        self.assertEqual(first.attr_kind("op_schema"), C.AttrKind.STRING)
        self.assertIsNone(first.attr_kind("comm_type"))
        self.assertIsNone(first.comm_type)
        self.assertIsNone(first.comm_size)
        self.assertTrue(first.inputs["values"].startswith("[[[4, 5, 0, 64, 4, 'cuda:0']"))
        self.assertEqual(first.offset, self.nodes[0].offset)

        coll = self.nodes[5]
        self.assertEqual(coll.id, 435)
        self.assertEqual(coll.type, C.NodeType.COMM_COLL_NODE)
        self.assertEqual(coll.data_deps, [432, 216, 217])
        self.assertEqual(coll.ctrl_deps, [434])
        self.assertEqual(coll.comm_type, C.CommType.BROADCAST)
        self.assertEqual(coll.comm_type_name, "BROADCAST")
        self.assertEqual(coll.comm_size, 212480)
        self.assertIs(coll.is_cpu_op, False)
        self.assertEqual(coll.involved_dim, [True])
        self.assertEqual(coll.attr_kind("involved_dim"), C.AttrKind.BOOL_LIST)
        self.assertEqual(coll.attr_kind("comm_size"), C.AttrKind.INT64)
        self.assertEqual(self.nodes[-1].id, 7022)

        counts = {}
        for n in self.nodes:
            counts[n.type_name] = counts.get(n.type_name, 0) + 1
        self.assertEqual(counts, {"COMP_NODE": 3643, "COMM_COLL_NODE": 21})
        self.assertEqual(sum(n.comm_type is not None for n in self.nodes), 7)

    def test_nodes_outlive_reader(self):
        # Node views are only valid until the next node in C; the Python
        # copies must not change when the reader moves on or closes.
        with C.Reader(TRACE) as r:
            a = next(r)
            b = next(r)
            snapshot = (a.id, a.name, list(a.data_deps), dict(a.attrs))
            rest = list(r)
        self.assertEqual(snapshot, (a.id, a.name, a.data_deps, a.attrs))
        self.assertEqual([a, b] + rest, self.nodes)
        self.assertNotEqual(a, b)

    def test_plain_bytes_and_file_objects(self):
        with open(TRACE, "rb") as f:
            gz = f.read()
        plain = gzip.decompress(gz)
        for src in (plain, gz, bytearray(plain), io.BytesIO(gz), io.BytesIO(plain)):
            m, nodes = C.read(src)
            self.assertEqual(nodes, self.nodes, type(src).__name__)
            self.assertEqual(m.attrs, self.meta.attrs)

        class ReadOnly:  # read() only, short reads
            def __init__(self, b):
                self.b, self.pos = b, 0

            def read(self, n):
                n = min(n, 1000)
                out = self.b[self.pos:self.pos + n]
                self.pos += len(out)
                return out
        self.assertEqual(C.read(ReadOnly(plain))[1], self.nodes)
        with open(TRACE, "rb") as f:
            self.assertEqual(C.read(f)[1], self.nodes)

    def test_counts_and_iteration_end(self):
        r = C.Reader(TRACE)
        self.assertEqual(r.node_count, 0)
        n = sum(1 for _ in r)
        self.assertEqual(n, 3664)
        self.assertEqual(r.node_count, 3664)
        self.assertIsNone(r.next_node())
        r.close()
        r.close()  # idempotent
        with self.assertRaises(C.StateError):
            r.next_node()

    def test_verify_with_nanopb(self):
        _, nodes = C.read(TRACE, verify_with_nanopb=True)
        self.assertEqual(nodes, self.nodes)


class ErrorTest(TmpDirCase):
    def test_missing_file(self):
        p = self.path("absent.et")
        with self.assertRaises(C.ChakraIOError) as cm:
            C.Reader(p)
        self.assertIn(p, str(cm.exception))
        self.assertEqual(cm.exception.code, -1)
        self.assertIsInstance(cm.exception, C.ChakraError)

    def test_empty_and_not_a_trace(self):
        with self.assertRaises(C.NoMetadataError) as cm:
            C.Reader(b"")
        self.assertIn("empty", str(cm.exception))
        with self.assertRaises(C.ChakraError) as cm:
            C.Reader(b"\x05hello world, not protobuf")
        self.assertIn("<memory>", str(cm.exception))

    def test_truncated_names_offset(self):
        with open(need(TRACE), "rb") as f:
            plain = gzip.decompress(f.read())
        cut = plain[:len(plain) // 2]
        p = self.path("cut.0.et")
        with open(p, "wb") as f:
            f.write(cut)
        r = C.Reader(p)
        with self.assertRaises(C.TruncatedError) as cm:
            for _ in r:
                pass
        msg = str(cm.exception)
        self.assertIn(p, msg)
        self.assertIn("byte", msg)
        self.assertEqual(cm.exception.code, -4)
        self.assertGreater(r.node_count, 1000)
        # Sticky: the reader keeps reporting the error.
        with self.assertRaises(C.TruncatedError):
            r.next_node()
        r.close()

    def test_too_big(self):
        # Metadata, then a length prefix of 1 GiB: refused, not allocated.
        data = varint(0) + varint(1 << 30) + b"x"
        with self.assertRaises(C.TooBigError) as cm:
            list(C.Reader(data, max_message_size=1 << 20, display_name="big.et"))
        self.assertIn("big.et", str(cm.exception))

    def test_node_memory_budget(self):
        buf = io.BytesIO()
        with C.Writer(buf) as w:
            w.write_metadata("0.0.4")
            w.write_node(id=1, name="n", attrs={"a%d" % i: i for i in range(100)})
        data = buf.getvalue()
        self.assertEqual(len(list(C.Reader(data))), 1)
        with self.assertRaises(C.TooBigError) as cm:
            list(C.Reader(data, max_node_memory=4096, display_name="attrs.et"))
        self.assertIn("attrs.et", str(cm.exception))
        with self.assertRaises(ValueError):
            C.Reader(data, max_node_memory=-1)

    def test_file_object_exception_is_chained(self):
        class Broken(io.RawIOBase):
            def readable(self):
                return True

            def readinto(self, b):
                raise RuntimeError("disk on fire")
        with self.assertRaises(C.ChakraError) as cm:
            C.Reader(Broken())
        self.assertIsInstance(cm.exception.__cause__, RuntimeError)

    def test_bad_source_type(self):
        with self.assertRaises(TypeError):
            C.Reader(12)

    def test_wrong_kind_well_known(self):
        node = C.Node(7, attrs=[("comm_size", "string", "big"), ("num_ops", "int64", -5),
                                ("comm_type", "uint32", 2), ("involved_dim", "bool", True)])
        with self.assertRaises(C.KindError) as cm:
            node.comm_size
        self.assertIn("node 7: attribute comm_size has kind string", str(cm.exception))
        with self.assertRaises(C.RangeError):
            node.num_ops
        self.assertEqual(node.comm_type, 2)  # any integer kind is accepted
        with self.assertRaises(C.KindError):
            node.involved_dim


class FloatAttrTest(unittest.TestCase):
    def test_float_values_exact(self):
        # A hand-made file with float/double scalars and lists, decoded by
        # the library (not by our writer), so the reading path is pinned.
        def key(f, wt):
            return varint(f << 3 | wt)

        def ld(f, b):
            return key(f, 2) + varint(len(b)) + b
        attr = ld(1, b"f") + key(5, 5) + struct.pack("<f", 1.5)
        attr2 = ld(1, b"dl") + ld(4, ld(1, struct.pack("<2d", 0.1, -2.0)))
        attr3 = ld(1, b"s") + key(15, 0) + varint(3)  # sint32 zigzag(3) = -2
        node = key(1, 0) + varint(9) + ld(10, attr) + ld(10, attr2) + ld(10, attr3)
        data = varint(0) + varint(len(node)) + node
        _, nodes = C.read(data)
        n = nodes[0]
        self.assertEqual(n.attrs, {"f": 1.5, "dl": [0.1, -2.0], "s": -2})
        self.assertEqual(n.attr_kind("s"), C.AttrKind.SINT32)


if __name__ == "__main__":
    unittest.main()
