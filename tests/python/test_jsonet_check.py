# SPDX-License-Identifier: Apache-2.0
"""libchakra.jsonize / pack (libchakra-jsonet) and libchakra.validate
(libchakra-check) from Python: the same bytes and lines as the chakra
command on the real trace, the round trip to the identical ET, and the
findings of a crafted trace with every dependency problem."""

import gzip
import json
import os
import subprocess
import unittest

import libchakra as C
from libchakra import _check, _jsonet
from pyhelp import TRACE, CHAKRA_EXE, need, tool_env, TmpDirCase

try:
    _jsonet._load()
    _check._load()
    NO_LIBS = None
except C.ChakraError as e:  # a build without the tools has no libchakra-jsonet
    NO_LIBS = str(e)

# Node 1 waits for 3, which waits for 2, which waits for 1 (a cycle); node 4
# waits for itself and for id 99, absent; node 5 repeats id 4; node 6 has a
# control dependency on id 77, absent.
CRAFTED = {
    "metadata": {"version": "0.0.4", "attr": []},
    "nodes": [
        {"id": 1, "name": "a", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [3],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
        {"id": 2, "name": "b", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [1],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
        {"id": 3, "name": "c", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [2],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
        {"id": 4, "name": "d", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [4, 99],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
        {"id": 4, "name": "e", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
        {"id": 6, "name": "f", "type": "COMP_NODE", "ctrl_deps": [77], "data_deps": [],
         "start_time_micros": 0, "duration_micros": 1, "attr": []},
    ],
}


@unittest.skipIf(NO_LIBS, "module libraries not available: %s" % NO_LIBS)
class JsonetTest(TmpDirCase):
    def test_round_trip_identical_bytes(self):
        text = C.jsonize(need(TRACE))
        self.assertEqual(text.count("\n"), 1 + 3664 + 1)  # metadata, nodes, end
        with gzip.open(TRACE, "rb") as f:
            self.assertEqual(C.pack(text), f.read())
        packed = C.pack(text, gzip=True)
        self.assertEqual(packed[:2], b"\x1f\x8b")
        self.assertEqual(gzip.decompress(packed), C.pack(text))

    def test_same_as_the_command(self):
        if not CHAKRA_EXE:
            self.skipTest("no chakra command in this build")
        for flags, kw in (([], {}), (["--pretty"], {"pretty": True}),
                          (["--protobuf-json"], {"protobuf": True})):
            out = subprocess.run([CHAKRA_EXE, "jsonize", TRACE] + flags, env=tool_env(),
                                 stdout=subprocess.PIPE, check=True).stdout
            self.assertEqual(C.jsonize(TRACE, **kw).encode("utf-8", "surrogateescape"), out,
                             flags)

    def test_protobuf_mapping_reads_back(self):
        text = C.jsonize(TRACE, protobuf=True)
        first = json.loads(text.split("\n", 1)[0])
        self.assertIn("attr", first)  # the GlobalMetadata object comes first
        et = C.pack(text)
        with C.Reader(et) as r:
            self.assertEqual(sum(1 for _ in r), 3664)

    def test_bad_json_names_line_and_byte(self):
        with self.assertRaises(C.CorruptError) as cm:
            C.pack('{"metadata": {"version": "", "attr": []},\n "nodes": [{"id": -1}]}',
                   name="bad.json")
        self.assertEqual(str(cm.exception),
                         "bad.json:2: byte 62: \"id\": -1 is not an integer in "
                         "0..18446744073709551615")
        with self.assertRaises(C.CorruptError):
            C.pack("")

    def test_missing_trace(self):
        with self.assertRaises(C.ChakraIOError):
            C.jsonize(self.path("absent.et"))


@unittest.skipIf(NO_LIBS, "module libraries not available: %s" % NO_LIBS)
class ValidateTest(TmpDirCase):
    def test_clean_trace_matches_the_command(self):
        res = C.validate(need(TRACE))
        self.assertTrue(res.ok)
        self.assertEqual((res.nodes, res.errors, res.cycles), (3664, 0, 0))
        self.assertEqual(res.findings[-1].kind, "totals")
        if CHAKRA_EXE:
            out = subprocess.run([CHAKRA_EXE, "validate", TRACE], env=tool_env(),
                                 stdout=subprocess.PIPE, check=True).stdout.decode()
            self.assertEqual(res.lines, out.splitlines())

    def test_crafted_findings(self):
        p = self.path("crafted.et")
        with open(p, "wb") as f:
            f.write(C.pack(json.dumps(CRAFTED)))
        res = C.validate(p)
        self.assertFalse(res.ok)
        self.assertEqual((res.nodes, res.dup_ids, res.data_self, res.data_absent, res.cycles,
                          res.ctrl_absent_refs, res.ctrl_absent_ids),
                         (6, 1, 1, 1, 1, 1, 1))
        by_kind = {f.kind: f for f in res.findings}
        self.assertEqual(by_kind["dup_id"].node_index, 4)
        self.assertEqual(by_kind["dup_id"].severity, "error")
        self.assertEqual(by_kind["dup_id"].related, by_kind["data_self"].offset)
        self.assertEqual((by_kind["data_absent"].node_id, by_kind["data_absent"].related), (4, 99))
        self.assertEqual((by_kind["cycle"].node_id, by_kind["cycle"].related), (1, 3))
        self.assertTrue(by_kind["cycle"].text.endswith("1 -> 3 -> 2 -> 1"), by_kind["cycle"].text)
        self.assertEqual(by_kind["ctrl_absent"].severity, "warning")
        strict = C.validate(p, strict=True)
        self.assertEqual(strict.errors, res.errors + 1)
        if CHAKRA_EXE:
            cmd = subprocess.run([CHAKRA_EXE, "validate", p], env=tool_env(),
                                 stdout=subprocess.PIPE)
            self.assertEqual(cmd.returncode, 1)
            self.assertEqual(res.lines, cmd.stdout.decode().splitlines())

    def test_unreadable_file_is_a_finding(self):
        p = self.path("junk.et")
        with open(p, "wb") as f:
            f.write(b"\x05abc")
        res = C.validate(p)
        self.assertTrue(res.read_failed)
        self.assertEqual(res.findings[0].kind, "read")
        self.assertEqual(res.findings[0].severity, "error")


if __name__ == "__main__":
    unittest.main()
